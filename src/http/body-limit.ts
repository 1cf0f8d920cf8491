/**
 * The Worker's one body limit, decided once, at the entry, before anything reads a body: the
 * isolate-memory tier (src/gateway/memory-answer.ts), the RPC face and the JSON bodies all read
 * the request this gives them. Hono's `bodyLimit` does the measuring: a body that declares its
 * length is judged by it (the runtime delivers no more than it declares) and not copied; a body
 * without one (chunked) is counted in bytes as it streams and refused at the first chunk past
 * the limit, never read to its end.
 */
import type { Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { ApiError, GrpcCode } from "../errors";

/** Largest request body the Worker reads, in bytes; a route may refuse less (src/http/json-body.ts). */
export const MAX_BODY_BYTES = 64 * 1024;

/** The requests found over the limit: each route answers them with its own refusal, in its own shape. */
const overLimit = new WeakSet<Request>();

/** The marker `bodyLimit` returns instead of calling on; never sent. */
const OVER = new Response(null, { status: 413 });

const measure = bodyLimit({ maxSize: MAX_BODY_BYTES, onError: () => OVER });

/**
 * The request to route: `request` itself when its body declares a length within the limit (or it
 * has none), a copy holding the bytes read when it streamed within the limit, or `request` marked
 * over the limit (`isOverBodyLimit`) with its body read no further.
 */
export async function withinBodyLimit(request: Request): Promise<Request> {
  // `bodyLimit` reads only `c.req.raw`, and sets it to the buffered copy of a streamed body.
  const c = { req: { raw: request } };
  const refused = await measure(c as unknown as Context, async () => undefined);
  if (refused === OVER) {
    overLimit.add(request);
    return request;
  }
  return c.req.raw;
}

/** Whether the entry found this request's body over the limit. */
export const isOverBodyLimit = (request: Request): boolean => overLimit.has(request);

/** The refusal of a body over `limitBytes` in the one error shape (413 `BODY_TOO_LARGE`). */
export function bodyTooLarge(limitBytes: number): ApiError {
  return new ApiError({
    status: 413,
    code: GrpcCode.INVALID_ARGUMENT,
    reason: "BODY_TOO_LARGE",
    message: `The body must be at most ${limitBytes} bytes`,
    metadata: { limit_bytes: String(limitBytes) },
  });
}
