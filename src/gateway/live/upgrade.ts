/**
 * `GET /rpc/websocket`: the live face's door. A request without `Upgrade: websocket` answers 426,
 * a deployment with no RPC node 503, a client IP past its opens per minute 429 (LIVE_OPEN_LIMITER),
 * each in the one error shape. An upgrade goes to one of the network's LIVE_SHARDS shards, tagged
 * with the client's IP: with the per-IP cap on, the shard is picked by a hash of the IP, so all of
 * one IP's sockets live in one shard, which counts them and answers the 429 of a full IP before it
 * accepts a socket (src/gateway/live/shard-sockets.ts); with RATE_LIMITS off, at random.
 */
import type { Context } from "hono";
import type { AppEnv } from "../../app-env";
import { ApiError, GrpcCode } from "../../errors";
import { enforceRateLimit } from "../../http/rate-limit";
import { CLIENT_IP_HEADER, LIVE_SHARDS, SHARD_NAME_HEADER, SOCKET_CAP_HEADER } from "./limits";

/** FNV-1a of `text`: a shard number that stays the same for one client IP. */
function shardOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % LIVE_SHARDS;
}

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
  // A socket's tag holds at most 256 characters; an IP address is at most 45.
  const client = (c.req.header("cf-connecting-ip") ?? "unknown").slice(0, 64);
  await enforceRateLimit(c, {
    binding: (env) => env.LIVE_OPEN_LIMITER,
    key: () => client,
    message: "Too many sockets opened from this client; retry in a minute",
  });
  const shard = config.rateLimits ? shardOf(client) : Math.floor(Math.random() * LIVE_SHARDS);
  const name = `${config.chainId}:${shard}`;
  const shards = c.env.LIVE_SHARDS;
  const forwarded = new Request(c.req.raw);
  forwarded.headers.set(SHARD_NAME_HEADER, name);
  forwarded.headers.set(CLIENT_IP_HEADER, client);
  if (config.rateLimits) forwarded.headers.set(SOCKET_CAP_HEADER, String(config.liveSocketsPerIp));
  else forwarded.headers.delete(SOCKET_CAP_HEADER);
  return shards.get(shards.idFromName(name)).fetch(forwarded);
}
