/** The page's settings: the brand words from `GET /api/config`, never literals in the page. */
import { chainContextFromSettings, walletAppGlobals, type ChainContext, type WalletAppGlobals } from "../src/protocol/index.ts";

/** Where the printed node commands run, before the user edits it. */
export interface NodeDefaults {
  keyName: string;
  home: string;
  keyringBackend: string;
  container: string;
}

/** Chain context, the wallet app's injected names, node-command defaults and the session limit. */
export interface PageSettings {
  ctx: ChainContext;
  walletApp: WalletAppGlobals;
  nodeDefaults: NodeDefaults;
  /** The longest a request may stay valid. */
  sessionTtlMaxSeconds: number;
}

/** Loads the settings; throws an Error with a plain sentence when the server does not answer. */
export async function loadSettings(): Promise<PageSettings> {
  let body: Record<string, unknown>;
  try {
    const response = await fetch("/api/config", { headers: { accept: "application/json" } });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    body = (await response.json()) as Record<string, unknown>;
  } catch {
    throw new Error("The onboarding server did not answer, so the page cannot load its settings.");
  }
  const ttl = Number(body.session_ttl_max_seconds);
  const text = (name: string) => {
    const value = body[name];
    if (typeof value !== "string") throw new Error(`The server's page settings are not usable (${name} is missing)`);
    return value;
  };
  return {
    ctx: chainContextFromSettings(body),
    walletApp: walletAppGlobals(text("wallet_bridge")),
    nodeDefaults: { keyName: text("node_key_name"), home: text("node_home"), keyringBackend: text("node_keyring_backend"), container: text("node_container") },
    sessionTtlMaxSeconds: Number.isFinite(ttl) && ttl > 0 ? ttl : 300,
  };
}
