/**
 * The wallet app around the page, when there is one. Its web view injects a native bridge
 * (`<Stem>Mobile = {isAvailable, requestConnect, requestSign}`), an in-app flag, the active
 * account's address and the React Native host (`ReactNativeWebView.postMessage`), before the
 * page's scripts run or shortly after. The page calls the bridge only when the user presses its
 * button, and never opens the wallet's scheme by itself.
 */
import { BRIDGE_WAIT_MS, deepLinkMessage, WEB_VIEW_GLOBAL, type WalletAppGlobals } from "../src/protocol/index.ts";
import { el } from "./dom.ts";

/** The native bridge: both take the same base64 a deep link carries in `p`. */
interface MobileBridge {
  requestConnect(encodedPayload: string): Promise<unknown>;
  requestSign(encodedPayload: string): Promise<unknown>;
}

/** The React Native host of the app's web view. */
interface WebViewHost {
  postMessage(message: string): void;
}

/** What the page found around it. */
export interface WalletApp {
  /** The native bridge, or null (a browser, or the app's bridge never came). */
  bridge: MobileBridge | null;
  /** The app's web-view host; "Open wallet" posts to it instead of navigating. Null in a browser. */
  webView: WebViewHost | null;
  /** The address the app says is its active account, when it says one. */
  activeAddress(): string | null;
}

type Globals = Record<string, unknown>;

function bridgeOf(w: Globals, names: WalletAppGlobals): MobileBridge | null {
  const bridge = w[names.bridge] as Partial<MobileBridge & { isAvailable: unknown }> | undefined;
  if (!bridge?.isAvailable || typeof bridge.requestConnect !== "function" || typeof bridge.requestSign !== "function")
    return null;
  return {
    requestConnect: (payload) => bridge.requestConnect!.call(bridge, payload),
    requestSign: (payload) => bridge.requestSign!.call(bridge, payload),
  };
}

function webViewOf(w: Globals): WebViewHost | null {
  const host = w[WEB_VIEW_GLOBAL] as Partial<WebViewHost> | undefined;
  return host && typeof host.postMessage === "function"
    ? { postMessage: (message) => host.postMessage!.call(host, message) }
    : null;
}

/**
 * Looks for the wallet app: in the app (bridge available, in-app flag, or the React Native host)
 * but without the bridge yet, checks again every 100 ms for up to 2.5 s.
 */
export async function findWalletApp(
  names: WalletAppGlobals,
  w: Globals = window as unknown as Globals,
  waitMs = BRIDGE_WAIT_MS,
): Promise<WalletApp> {
  let bridge = bridgeOf(w, names);
  if (!bridge && (Boolean(w[names.inAppFlag]) || webViewOf(w) !== null)) {
    bridge = await new Promise<MobileBridge | null>((resolve) => {
      const started = Date.now();
      const timer = setInterval(() => {
        const found = bridgeOf(w, names);
        if (found || Date.now() - started >= waitMs) {
          clearInterval(timer);
          resolve(found);
        }
      }, 100);
    });
  }
  return {
    bridge,
    webView: webViewOf(w),
    activeAddress() {
      const address = w[names.activeAddress];
      return typeof address === "string" && address.trim() !== "" ? address.trim() : null;
    },
  };
}

/**
 * The "Open wallet" action for `link`: a plain link in a browser; inside the app, a click posts
 * `{"type":"<scheme>_deeplink","url":link}` to the app instead of navigating.
 */
export function openWalletLink(
  app: WalletApp,
  scheme: string,
  link: string,
  attrs: Record<string, string>,
  label = "Open wallet",
): HTMLAnchorElement {
  const anchor = el("a", { ...attrs, href: link }, label);
  const host = app.webView;
  if (host) {
    anchor.addEventListener("click", (event) => {
      event.preventDefault();
      host.postMessage(deepLinkMessage(scheme, link));
    });
  }
  return anchor;
}

/** The bridge's own words for a rejection, when it gave some, as a parenthesis for a sentence. */
export function bridgeReason(error: unknown): string {
  const message = error instanceof Error ? error.message : typeof error === "string" ? error : "";
  const clean = message.replace(/\s+/g, " ").trim().slice(0, 160);
  return clean ? ` (${clean})` : "";
}
