/**
 * A JSON-RPC read through the RPC face itself, for the live face's Durable Objects: the twelve
 * read methods answered on a subscriber's socket, and the `block` and `block_results` of a
 * backfilled height, take the same checks, cache tiers, coalescing and upstream failover as a
 * POST to `/rpc`, with one app per configuration as the Worker keeps it.
 */
import type { Hono } from "hono";
import type { AppEnv } from "../../app-env";
import { buildApp } from "../../app";
import { readConfig } from "../../config";

const apps = new WeakMap<object, Hono<AppEnv>>();

/** Answers one JSON-RPC body as `POST <origin>/rpc` would: the reply's text. */
export async function cachedRead(
  env: Env,
  state: { waitUntil(promise: Promise<unknown>): void },
  origin: string,
  body: string,
): Promise<string> {
  let app = apps.get(env);
  if (!app) apps.set(env, (app = buildApp(readConfig(env))));
  const context = { waitUntil: (p: Promise<unknown>) => state.waitUntil(p), passThroughOnException() {}, props: {} };
  const request = new Request(`${origin}/rpc`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });
  const response = await app.fetch(request, env, context as unknown as ExecutionContext);
  return response.text();
}

/** A node's `result` for `method` at `height`, read through the cache; throws when it is an error. */
export async function cachedResult(
  env: Env,
  state: { waitUntil(promise: Promise<unknown>): void },
  origin: string,
  method: string,
  height: number,
): Promise<Record<string, unknown>> {
  const body = JSON.stringify({ jsonrpc: "2.0", id: 0, method, params: { height: String(height) } });
  const reply = JSON.parse(await cachedRead(env, state, origin, body)) as { result?: Record<string, unknown> };
  if (!reply.result) throw new Error(`${method} at ${height}: ${JSON.stringify(reply).slice(0, 200)}`);
  return reply.result;
}
