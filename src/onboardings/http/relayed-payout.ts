/**
 * A relayed payout is read from the pairing session's own Durable Object: the address the wallet's
 * confirm stored there, never the browser's word; a session another onboarding's page carried is refused.
 */
import type { ErrorSpec } from "../../errors";

export async function relayedPayout(
  sessions: Env["PAIRING_SESSIONS"],
  sessionId: string,
  onboardingId: string,
): Promise<{ address: string; source: "relay" } | ErrorSpec> {
  const found = await sessions.get(sessions.idFromName(sessionId)).payoutFor(onboardingId);
  return "reason" in found ? found : { address: found.address, source: "relay" };
}
