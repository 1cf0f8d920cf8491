/**
 * A pairing session made as the wallet SDK makes one, and the autocannon requests of one pairing
 * flow: create a session, then confirm it with `proof`.
 */
import type { Request as CannonRequest } from "autocannon";
import { mintSessionId } from "../../src/protocol/index.ts";

const JSON_HEADERS = { "content-type": "application/json" };

export { mintSessionId };

/**
 * Creates a session at `base` (the service's origin) for the network `settings` (what `/api/config` answers) with
 * `name` as its origin's name; its id, and the `/api/<wallet_path>/sessions` URL it lives under. Throws unless 201.
 */
export async function createSession(
  base: string,
  settings: Record<string, string>,
  name: string,
): Promise<{ sessionId: string; sessions: string }> {
  const sessions = `${base}/api/${settings.wallet_path}/sessions`;
  const sessionId = mintSessionId();
  const created = await fetch(sessions, {
    method: "POST",
    headers: JSON_HEADERS,
    body: JSON.stringify({ v: 1, session_id: sessionId, chain_id: settings.chain_id, origin: { name, url: base } }),
  });
  if (created.status !== 201) throw new Error(`could not create a session for ${name}: ${created.status}`);
  return { sessionId, sessions };
}

/**
 * `sessionsPath` is `/api/<wallet_path>/sessions`; `createBody(id)` the create payload. Each
 * connection carries its session id from the create to the confirm in autocannon's context.
 */
export function pairingFlowRequests(
  sessionsPath: string,
  createBody: (id: string) => string,
  proof: object,
): CannonRequest[] {
  return [
    {
      method: "POST",
      path: sessionsPath,
      headers: JSON_HEADERS,
      setupRequest: (request, context) => {
        const id = mintSessionId();
        (context as { id?: string }).id = id;
        return { ...request, body: createBody(id) };
      },
    },
    {
      method: "POST",
      headers: JSON_HEADERS,
      setupRequest: (request, context) => {
        const { id } = context as { id: string };
        return {
          ...request,
          path: `${sessionsPath}/${id}/confirm`,
          body: JSON.stringify({ session_id: id, ...proof }),
        };
      },
    },
  ];
}
