/**
 * JSON request bodies as middleware: hono's `bodyLimit`, then the body parsed and checked, refusing in the one error
 * shape.
 */
import type { Context, Env, MiddlewareHandler, Next } from "hono";
import { bodyLimit } from "hono/body-limit";
import { every } from "hono/combine";
import { ApiError, GrpcCode, invalidArgument } from "../errors";
import { bodyTooLarge } from "./body-limit";

/**
 * A JSON object body, checked before the handler runs: refuses a media type other than
 * `application/json` (415; parameters such as `charset=utf-8` are fine), a body over `maxBytes`
 * (413, read no further; the Worker's own limit, src/http/body-limit.ts, came first), malformed
 * JSON and anything but an object (400 `MALFORMED_JSON`), then
 * hands the value `check` returns (or the refusal it throws) to the handler as `c.req.valid("json")`.
 */
export function jsonBody<E extends Env, T>(
  maxBytes: number,
  check: (body: Record<string, unknown>, c: Context<E>) => T,
): MiddlewareHandler<E, string, { in: { json: unknown }; out: { json: T } }> {
  // What hono's `validator("json", …)` does, with the refusal of text that is not JSON in our own words.
  const parse = async (c: Context<E>, next: Next) => {
    let value: unknown;
    try {
      value = await c.req.json();
    } catch {
      throw invalidArgument("MALFORMED_JSON", "The body is not valid JSON");
    }
    if (typeof value !== "object" || value === null || Array.isArray(value))
      throw invalidArgument("MALFORMED_JSON", "The body must be a JSON object");
    c.req.addValidatedData("json", check(value as Record<string, unknown>, c) as object);
    await next();
  };
  // `every` drops the types; what the handler reads as `c.req.valid("json")` is what `check` returned.
  return every(
    requireJsonMediaType,
    bodyLimit({
      maxSize: maxBytes,
      onError: () => {
        throw bodyTooLarge(maxBytes);
      },
    }),
    parse,
  ) as MiddlewareHandler<E, string, { in: { json: unknown }; out: { json: T } }>;
}

const requireJsonMediaType: MiddlewareHandler = async (c, next) => {
  const mediaType = (c.req.header("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (mediaType !== "application/json") {
    throw new ApiError({
      status: 415,
      code: GrpcCode.INVALID_ARGUMENT,
      reason: "UNSUPPORTED_MEDIA_TYPE",
      message: "The body must be JSON sent with Content-Type: application/json",
    });
  }
  await next();
};
