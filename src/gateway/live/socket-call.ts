/**
 * One frame from a subscriber, judged as CometBFT's `/websocket` judges it: `subscribe`,
 * `unsubscribe` and `unsubscribe_all` change the socket's subscriptions; the RPC face's read
 * methods are answered from the cache (the caller forwards the call); everything else, and any
 * frame over the limit, not JSON or not a call, is a JSON-RPC error whose `data` says why. No
 * refusal asks anything upstream, and no frame closes the socket.
 */
import { RPC_METHODS } from "../rpc/methods";
import { RpcError, reply } from "../rpc/rpc-error";
import { MAX_ATTACHMENT_BYTES, MAX_FRAME_BYTES, MAX_SUBSCRIPTIONS_PER_SOCKET } from "./limits";
import { subscriptionQuery } from "./query/subscription-query";

/** A subscription as a socket's attachment keeps it: the subscribe's id (JSON text) and the query as written. */
export interface Subscribed {
  id: string;
  query: string;
}

/** What to do with a frame: send `reply` (and keep `subs` when they changed), or answer `read` from the cache. */
export type CallOutcome = { reply: string; subs?: Subscribed[] } | { read: string };

const LIVE_METHODS = ["subscribe", "unsubscribe", "unsubscribe_all"];

/** CometBFT answers a Go error of a method as -32603 with the error's text. */
const failure = (data: string) => new RpcError(-32603, data);

/**
 * Whether a text frame is over MAX_FRAME_BYTES in UTF-8, judged without copying it: a UTF-16 unit is 1 to 3 bytes,
 * so only a frame between a third of the limit and the limit in units has its bytes counted.
 */
function textOverLimit(frame: string): boolean {
  if (frame.length > MAX_FRAME_BYTES) return true;
  if (frame.length * 3 <= MAX_FRAME_BYTES) return false;
  let bytes = 0;
  for (let i = 0; i < frame.length; i++) {
    const unit = frame.charCodeAt(i);
    // A surrogate pair is 4 bytes: 2 for each half.
    bytes += unit < 0x80 ? 1 : unit < 0x800 || (unit >= 0xd800 && unit <= 0xdfff) ? 2 : 3;
    if (bytes > MAX_FRAME_BYTES) return true;
  }
  return false;
}

export function socketCall(frame: string | ArrayBuffer, subs: readonly Subscribed[]): CallOutcome {
  const refuse = (idJson: string, error: RpcError) => ({ reply: reply(idJson, error.member()) });
  if (typeof frame === "string" ? textOverLimit(frame) : frame.byteLength > MAX_FRAME_BYTES)
    return refuse("null", new RpcError(-32600, `a frame holds at most ${MAX_FRAME_BYTES} bytes`));
  if (typeof frame !== "string") return refuse("null", new RpcError(-32600, "calls come in text frames"));
  let call: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(frame);
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error();
    call = parsed as Record<string, unknown>;
  } catch {
    return refuse("null", new RpcError(-32700, "a frame is one JSON-RPC call object"));
  }
  const id = call.id;
  const idJson = typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? JSON.stringify(id) : null;
  if (call.jsonrpc !== "2.0" || idJson === null || typeof call.method !== "string")
    return refuse("null", new RpcError(-32600, 'a call is {"jsonrpc":"2.0","id":<string or number>,"method":…}'));
  const params = (call.params ?? {}) as Record<string, unknown>;
  try {
    switch (call.method) {
      case "subscribe": {
        const query = params.query;
        subscriptionQuery(query);
        if (subs.length >= MAX_SUBSCRIPTIONS_PER_SOCKET)
          throw failure(`max_subscriptions_per_client ${MAX_SUBSCRIPTIONS_PER_SOCKET} reached`);
        if (subs.some((s) => s.query === query)) throw failure("already subscribed");
        const next = [...subs, { id: idJson, query: query as string }];
        // The subscriptions live in the socket's attachment (see LiveShard), which has a size limit.
        if (new TextEncoder().encode(JSON.stringify({ subs: next })).length > MAX_ATTACHMENT_BYTES)
          throw failure("this socket's subscriptions are over 2 KiB together: unsubscribe one");
        return { reply: reply(idJson, `"result":{}`), subs: next };
      }
      case "unsubscribe": {
        const kept = subs.filter((s) => s.query !== params.query);
        if (kept.length === subs.length) throw failure("subscription not found");
        return { reply: reply(idJson, `"result":{}`), subs: kept };
      }
      case "unsubscribe_all":
        if (subs.length === 0) throw failure("subscription not found");
        return { reply: reply(idJson, `"result":{}`), subs: [] };
    }
    if (Object.hasOwn(RPC_METHODS, call.method)) return { read: frame };
    throw new RpcError(
      -32601,
      `${JSON.stringify(call.method).slice(0, 64)} is not served here: subscriptions ` +
        `(${LIVE_METHODS.join(", ")}) and reads (${Object.keys(RPC_METHODS).join(", ")}) only`,
    );
  } catch (err) {
    if (err instanceof RpcError) return refuse(idJson, err);
    throw err;
  }
}
