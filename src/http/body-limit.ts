/**
 * The Worker's one body limit, decided once, at the entry (src/entry.ts), before anything reads a
 * body: the isolate-memory tier (src/gateway/memory-answer.ts), the RPC face and the JSON bodies
 * all read the request this gives them. A body that declares its length is judged by it (the
 * runtime delivers no more than it declares) and not copied, as Hono's `bodyLimit` judges it; a
 * body without one (chunked) is measured by `bodyLimit`: counted in bytes as it streams, kept while
 * within the limit, and refused at the first chunk past it. The refusal leaves at once; its end
 * waits while at most 1 MiB more of the upload is read and dropped (10 s at most), then the
 * connection is let go, whatever is left of the upload unread.
 */
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { AppEnv } from "../app-env";
import { ApiError, GrpcCode } from "../errors";
import { RPC_ROUTE } from "../gateway/rpc/limits";

/** Largest request body the Worker reads, in bytes; a route may refuse less (src/http/json-body.ts). */
export const MAX_BODY_BYTES = 64 * 1024;

/** Most bytes of a refused body read and dropped after the refusal; beyond, the connection is let go. */
const DISCARD_MAX_BYTES = 1024 * 1024;
/** Longest a refused body is read and dropped; then the connection is let go. */
const DISCARD_MAX_MS = 10_000;

type BodyReader = ReadableStreamDefaultReader<Uint8Array>;

/**
 * The requests found over the limit, with the reader of a streamed body's rest: each route answers them with its own
 * refusal, in its own shape.
 */
const overLimit = new WeakMap<Request, BodyReader | null>();

/** The marker `bodyLimit` returns instead of calling on; never sent. */
const OVER = new Response(null, { status: 413 });

const measure = bodyLimit({ maxSize: MAX_BODY_BYTES, onError: () => OVER });

/**
 * The request to route: `request` itself when its body declares a length within the limit (or it
 * has none), a copy holding the bytes read when it streamed within the limit, or `request` marked
 * over the limit (`isOverBodyLimit`) with its body read no further. A declared length is judged
 * at once, as `bodyLimit` judges it (its parsed value against the limit), so the request goes on
 * without a promise: every hit by POST pays for this check.
 */
export function withinBodyLimit(request: Request): Request | Promise<Request> {
  const headers = request.headers;
  const length = headers.get("content-length");
  if (length !== null && !headers.has("transfer-encoding")) {
    if (Number.parseInt(length, 10) > MAX_BODY_BYTES) overLimit.set(request, null);
    return request;
  }
  if (!request.body) return request;
  // A streamed body is measured through a stream fed from a reader of our own, which a refusal keeps: the rest of the
  // body can then be read and dropped (`afterDiscarding`). One chunk is asked for at a time (no read ahead).
  const reader = request.body.getReader();
  const fed = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
  return measured(request, new Request(request, { body: fed }), reader);
}

/** `request` marked over the limit, or `raw` within it (the buffered copy of a streamed body). */
async function measured(request: Request, raw: Request, reader: BodyReader): Promise<Request> {
  // `bodyLimit` reads only `c.req.raw`, and sets it to the buffered copy of a streamed body.
  const c = { req: { raw } };
  const refused = await measure(c as unknown as Context, async () => undefined);
  if (refused !== OVER) return c.req.raw;
  overLimit.set(request, reader);
  return request;
}

/**
 * The refusal of a streamed body over the limit, sent at once, whose end waits until the rest of the body was read and
 * dropped (never kept; at most `DISCARD_MAX_BYTES` or `DISCARD_MAX_MS`): a server that closes while its client still
 * sends resets the connection, and the client loses the answer with it (wrangler dev's proxy does).
 */
export function afterDiscarding(response: Response, request: Request): Response {
  const rest = overLimit.get(request);
  if (!rest) return response;
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const finish = async () => {
    const writer = writable.getWriter();
    await writer.write(new Uint8Array(await response.arrayBuffer()));
    await discard(rest);
    await writer.close();
  };
  void finish().catch(() => undefined);
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  headers.set("connection", "close");
  return new Response(readable, { status: response.status, headers });
}

/** Reads the rest to its end, `DISCARD_MAX_BYTES` or `DISCARD_MAX_MS` (a client that stalls), keeping nothing. */
async function discard(reader: BodyReader): Promise<void> {
  const timer = setTimeout(() => void reader.cancel().catch(() => undefined), DISCARD_MAX_MS);
  let bytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      bytes += value.length;
      if (bytes > DISCARD_MAX_BYTES) return void (await reader.cancel());
    }
  } catch {
    // The client went away: nothing is left to drop.
  } finally {
    clearTimeout(timer);
  }
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

/** A body the entry found over the Worker's limit is refused before a route reads it; the RPC face refuses its own. */
export const refuseOverBodyLimit: MiddlewareHandler<AppEnv> = async (c, next) => {
  const path = c.req.path;
  const rpc = path === RPC_ROUTE || path.startsWith(`${RPC_ROUTE}/`);
  if (!rpc && isOverBodyLimit(c.req.raw)) throw bodyTooLarge(MAX_BODY_BYTES);
  await next();
};
