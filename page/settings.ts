/** The page's settings: the brand words from `GET /api/config`, never literals in the page. */
import { chainContextFromSettings, type ChainContext } from "../src/protocol/index.ts";

/** Chain context plus the server's session limit (the longest a request may stay valid). */
export interface PageSettings {
  ctx: ChainContext;
  sessionTtlMaxSeconds: number;
}

/** Loads the settings; throws an Error with a plain sentence when the server does not answer. */
export async function loadSettings(): Promise<PageSettings> {
  let body: unknown;
  try {
    const response = await fetch("/api/config", { headers: { accept: "application/json" } });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    body = await response.json();
  } catch {
    throw new Error("The onboarding server did not answer, so the page cannot load its settings.");
  }
  const ttl = Number((body as { session_ttl_max_seconds?: unknown }).session_ttl_max_seconds);
  return { ctx: chainContextFromSettings(body), sessionTtlMaxSeconds: Number.isFinite(ttl) && ttl > 0 ? ttl : 300 };
}
