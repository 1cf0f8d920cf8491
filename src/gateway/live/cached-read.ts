/**
 * A JSON-RPC read through the RPC face's own function (src/gateway/rpc/index.ts, `answerRpcBody`),
 * for the live face's Durable Objects: the twelve read methods answered on a subscriber's socket,
 * and the `block` and `block_results` of a backfilled height, take the same checks, cache tiers,
 * coalescing and upstream failover as a POST to `/rpc`, with no app built around them.
 */
import { readConfig } from "../../config";
import { RPC_ROUTE } from "../rpc/limits";
import { answerRpcBody } from "../rpc";

/** Answers one JSON-RPC body as `POST <origin>/rpc` would: the reply's text. */
export async function cachedRead(
  env: Env,
  state: { waitUntil(promise: Promise<unknown>): void },
  origin: string,
  body: string,
): Promise<string> {
  const config = readConfig(env);
  const ctx = { waitUntil: (p: Promise<unknown>) => state.waitUntil(p), passThroughOnException() {}, props: {} };
  const tiers = {
    config,
    ctx: ctx as unknown as ExecutionContext,
    shields: config.cacheShield ? env.QUERY_SHIELDS : null,
    requestId: crypto.randomUUID(),
    route: RPC_ROUTE,
  };
  const url = `${origin}${RPC_ROUTE}`;
  return (await answerRpcBody({ url, config, startedAt: Date.now(), tiers }, body)).text;
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
