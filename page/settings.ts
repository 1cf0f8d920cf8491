/**
 * The page's settings: the brand words `GET /api/config` answers, which the Worker writes into
 * the page's `#page-settings` block (src/page/), never literals in the page.
 */
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

/** Reads the settings the document carries; throws an Error with a plain sentence when they are missing or unusable. */
export function readSettings(doc: Document = document): PageSettings {
  let body: unknown = null;
  try {
    body = JSON.parse(doc.getElementById("page-settings")?.textContent ?? "");
  } catch {
    // Reported below.
  }
  if (typeof body !== "object" || body === null) throw new Error("The page arrived without its settings; reload it.");
  return settingsFrom(body as Record<string, unknown>);
}

function settingsFrom(body: Record<string, unknown>): PageSettings {
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
