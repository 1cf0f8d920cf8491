/**
 * The words of the page's first screen, shared by the Worker's document (src/page/) and the page's
 * script (page/), so the screen reads the same before and after the script takes it over. The
 * layout (the QR first with a pointer, "Open wallet" first on a phone) is the stylesheet's, by
 * media query: page/styles.css, "Connect".
 */

/** On a phone, above the button: the wallet is on this very device. */
export const OPEN_ON_THIS_PHONE = "On the phone that holds your wallet, tap “Open wallet”.";

/** The QR's caption where it comes first (a desktop). */
export const SCAN_CAPTION = "Scan this code with your wallet app.";

/** The QR's caption on a phone, below the button: for a wallet on another device. */
export const SCAN_ELSEWHERE_CAPTION = "Wallet on another device? Scan this code with it.";

/** Who sent the customer to a host's onboarding, and for which node. */
export function hostedSummarySentence(host: string | null | undefined, label: string): string {
  const who = host ? `Your hosting provider, ${host}, sent you here` : "Your hosting provider sent you here";
  const node = label ? `your node “${label}”` : "your node";
  return `${who} to have ${node} pay its rewards to your own wallet.`;
}

/** A self-hoster's node, named by the link's label. */
export function ownNodeSentence(label: string): string {
  return `This connects ${label ? `your node “${label}”` : "your node"} to your own wallet: its rewards will go there.`;
}

/** Before the operator's address, on both pages. */
export const OPERATOR_WORDS = "Your node's operator address: ";
