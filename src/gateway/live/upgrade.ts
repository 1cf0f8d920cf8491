/**
 * `GET /rpc/websocket`: the live face's door. A request without `Upgrade: websocket` answers 426,
 * a deployment with no RPC node 503, a client IP past its allowance 429 (the rate-limit binding
 * the session creates use, keyed apart), each in the one error shape; an upgrade goes to one of
 * the network's LIVE_SHARDS subscriber shards, picked at random, which holds the socket.
 */
import type { Context } from "hono";
import type { AppEnv } from "../../app-env";
import { ApiError, GrpcCode } from "../../errors";
import { LIVE_SHARDS, SHARD_NAME_HEADER } from "./limits";

/** Answers one upgrade request. */
export async function liveUpgrade(c: Context<AppEnv>): Promise<Response> {
  const config = c.get("config");
  if (c.req.header("upgrade")?.toLowerCase() !== "websocket")
    throw new ApiError({
      status: 426,
      code: GrpcCode.FAILED_PRECONDITION,
      reason: "UPGRADE_REQUIRED",
      message: "/rpc/websocket speaks CometBFT's JSON-RPC over a WebSocket: send Upgrade: websocket",
    });
  if (config.rpcUpstreamUrls.length === 0)
    throw new ApiError({
      status: 503,
      code: GrpcCode.UNAVAILABLE,
      reason: "NO_RPC_UPSTREAM",
      message: "no CometBFT node is configured (RPC_UPSTREAM_URLS)",
    });
  if (config.rateLimits) {
    const client = c.req.header("cf-connecting-ip") ?? "unknown";
    const { success } = await c.env.SESSION_CREATE_LIMITER.limit({ key: `live:${client}` });
    if (!success)
      throw new ApiError(
        {
          status: 429,
          code: GrpcCode.RESOURCE_EXHAUSTED,
          reason: "RATE_LIMITED",
          message: "Too many sockets opened from this client; retry in a minute",
        },
        { "retry-after": "60" },
      );
  }
  const name = `${config.chainId}:${Math.floor(Math.random() * LIVE_SHARDS)}`;
  const shards = c.env.LIVE_SHARDS;
  const forwarded = new Request(c.req.raw);
  forwarded.headers.set(SHARD_NAME_HEADER, name);
  return shards.get(shards.idFromName(name)).fetch(forwarded);
}
