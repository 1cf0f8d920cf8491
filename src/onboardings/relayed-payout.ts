/** A relayed payout is read from the pairing session's own Durable Object: the address the wallet's confirm stored there, never the browser's word. */
import type { ErrorSpec } from "../errors";
import { isRefusal } from "../http/answer";
import { SESSION_NOT_CONNECTED } from "../sessions/refusals";

export async function relayedPayout(
  sessions: Env["PAIRING_SESSIONS"],
  sessionId: string,
): Promise<{ address: string; source: "relay" } | ErrorSpec> {
  const session = await sessions.get(sessions.idFromName(sessionId)).read();
  if (isRefusal(session)) return session;
  if (session.body.status !== "connected" || session.body.address === null) return SESSION_NOT_CONNECTED;
  return { address: session.body.address, source: "relay" };
}
