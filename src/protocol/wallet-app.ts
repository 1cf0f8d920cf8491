/**
 * Inside the wallet app (docs/WALLET-PROTOCOL.md "Inside the wallet app"): the names its web view
 * injects, what its bridge answers, and the message an "Open wallet" action posts to the app
 * instead of navigating. Pure: the page reads `window` itself.
 */
import { accountAddressProblem } from "./address.ts";
import type { ChainContext } from "./chain-context.ts";
import { canonicalTxHash } from "./messages/tx-outcome.ts";

/** The React Native host's own global: a platform name, not the network's brand. */
export const WEB_VIEW_GLOBAL = "ReactNativeWebView";

/** How long to wait for the bridge when the page is in the app's web view but the bridge is not there yet. */
export const BRIDGE_WAIT_MS = 2500;

/** The globals the wallet app injects, named after its configured stem (`WALLET_BRIDGE`). */
export interface WalletAppGlobals {
  /** `<Stem>Mobile = {isAvailable, requestConnect, requestSign}`. */
  readonly bridge: string;
  /** `__<STEM>_IN_APP__ = true`. */
  readonly inAppFlag: string;
  /** `__<STEM>_ACTIVE_ADDRESS__ = "<prefix>1…"`. */
  readonly activeAddress: string;
}

/**
 * The injected names for a PascalCase stem: `AcmeWallet` → `AcmeWalletMobile`, `__ACME_WALLET_IN_APP__`,
 * `__ACME_WALLET_ACTIVE_ADDRESS__`.
 */
export function walletAppGlobals(stem: string): WalletAppGlobals {
  if (!/^[A-Z][A-Za-z0-9]*$/.test(stem))
    throw new Error(`The wallet bridge name "${stem}" must be PascalCase letters and digits`);
  const upper = stem.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase();
  return { bridge: `${stem}Mobile`, inAppFlag: `__${upper}_IN_APP__`, activeAddress: `__${upper}_ACTIVE_ADDRESS__` };
}

/** The string an "Open wallet" action posts to the app: `{"type":"<scheme>_deeplink","url":"<scheme>://…"}`. */
export function deepLinkMessage(scheme: string, url: string): string {
  return JSON.stringify({ type: `${scheme}_deeplink`, url });
}

/** The identity `requestConnect` resolved with, checked; `problem` says why it is unusable. */
export type ConnectAnswer =
  | {
      readonly ok: true;
      readonly address: string;
      readonly pubkeyBase64: string | null;
      readonly accountLabel: string | null;
    }
  | { readonly ok: false; readonly problem: string };

/** Checks `requestConnect`'s `{address, pubkeyBase64?, accountLabel?}` with the protocol's address check. */
export function readConnectAnswer(ctx: Pick<ChainContext, "bech32Prefix">, value: unknown): ConnectAnswer {
  const answer = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
  if (typeof answer.address !== "string") return { ok: false, problem: "it gave no address" };
  const trimmed = answer.address.trim();
  // All-uppercase bech32 is the same address; mixed case is not bech32 and stays refused.
  const address = trimmed === trimmed.toUpperCase() ? trimmed.toLowerCase() : trimmed;
  const problem = accountAddressProblem(address, ctx.bech32Prefix);
  if (problem) return { ok: false, problem: `its address ${problem}` };
  const text = (v: unknown) => (typeof v === "string" && v.trim() !== "" ? v.trim() : null);
  return {
    ok: true,
    address,
    pubkeyBase64: text(answer.pubkeyBase64),
    accountLabel: text(answer.accountLabel)?.slice(0, 64) ?? null,
  };
}

/** The hash `requestSign` resolved with (`{txhash}`), canonical, or null when it gave none. */
export function readSignAnswer(value: unknown): string | null {
  return typeof value === "object" && value !== null
    ? canonicalTxHash((value as Record<string, unknown>).txhash)
    : null;
}
