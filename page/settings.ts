/**
 * The page's settings: the brand words `GET /api/config` answers, which the Worker writes into
 * the page's `#page-settings` block (src/page/), never literals in the page.
 */
import { chainContextFromSettings } from "../src/protocol/chain-settings.ts";
import {
  ONBOARDING_ID_PATTERN,
  SESSION_ID_PATTERN,
  walletAppGlobals,
  type ChainContext,
  type WalletAppGlobals,
} from "../src/protocol/index.ts";
import type { FirstSession } from "./session-client.ts";

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
    nodeDefaults: {
      keyName: text("node_key_name"),
      home: text("node_home"),
      keyringBackend: text("node_keyring_backend"),
      container: text("node_container"),
    },
    sessionTtlMaxSeconds: Number.isFinite(ttl) && ttl > 0 ? ttl : 300,
  };
}

/**
 * The signed session the document carries (`#first-session`, filled in by the Worker for a link
 * that needs a wallet connection at once), or null when it carries none or something unusable.
 */
export function readFirstSession(doc: Document = document): FirstSession | null {
  try {
    return readFirstSessionJson(JSON.parse(doc.getElementById("first-session")?.textContent || "null"));
  } catch {
    return null;
  }
}

/** A signed session as the document or `POST /api/onboarding-pages/:id/session` gives it, or null. */
export function readFirstSessionJson(body: unknown): FirstSession | null {
  const value = body as Partial<Record<keyof FirstSession, unknown>> | null;
  if (typeof value?.session_id !== "string" || !SESSION_ID_PATTERN.test(value.session_id)) return null;
  if (
    typeof value.expires_at !== "string" ||
    Number.isNaN(Date.parse(value.expires_at)) ||
    typeof value.link !== "string"
  )
    return null;
  const first = { session_id: value.session_id, expires_at: value.expires_at, link: value.link };
  const { onboarding } = value;
  return typeof onboarding === "string" && ONBOARDING_ID_PATTERN.test(onboarding) ? { ...first, onboarding } : first;
}
