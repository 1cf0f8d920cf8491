/**
 * The native bridge of the wallet's in-app web view. Inside the wallet app there is no camera to
 * scan with and no other app to open, so the wallet injects, before the page's scripts run:
 *
 *   window.walletBridge = {
 *     version: 1,
 *     // Shows the wallet's own approval sheet for a `<scheme>://connect?p=…` or `…://sign?p=…`
 *     // link. Resolves {approved: true} once the user approved (the wallet then relays the proof
 *     // or broadcasts the transaction as it would after a scan), {approved: false} when declined.
 *     open(link: string): Promise<{ approved: boolean }>,
 *   };
 *
 * The page only calls it when the user presses its button; it never opens the scheme by itself.
 */

/** The bridge's interface, as the wallet injects it. */
export interface WalletBridge {
  version: 1;
  open(link: string): Promise<{ approved: boolean }>;
}

declare global {
  interface Window {
    walletBridge?: Partial<WalletBridge>;
  }
}

/** The in-app bridge when the page runs inside the wallet, else null. */
export function detectWalletBridge(): WalletBridge | null {
  const bridge = window.walletBridge;
  return bridge && bridge.version === 1 && typeof bridge.open === "function" ? (bridge as WalletBridge) : null;
}
