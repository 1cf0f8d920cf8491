/** The autocannon requests of one pairing flow: create a session, then confirm it with `proof`. */
import type { Request as CannonRequest } from "autocannon";
import { mintSessionId } from "../../src/protocol/index.ts";

const JSON_HEADERS = { "content-type": "application/json" };

export { mintSessionId };

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
