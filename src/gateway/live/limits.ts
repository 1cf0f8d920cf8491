/** The live face's limits and timings (docs/GATEWAY.md, "The live face"). */

/** Subscriptions one socket may hold, as a CometBFT node's `max_subscriptions_per_client` default. */
export const MAX_SUBSCRIPTIONS_PER_SOCKET = 5;
/** Largest frame a subscriber may send, in bytes. */
export const MAX_FRAME_BYTES = 64 * 1024;
/** A socket's attachment (its subscriptions as JSON) holds at most this many bytes, as Durable Objects allow. */
export const MAX_ATTACHMENT_BYTES = 2048;
/**
 * How long one read of a missed height may take before it counts as failed (three tries, then a cancel): the
 * RPC face's budget (UPSTREAM_BUDGET_MS, 9 s by default) and some.
 */
export const BACKFILL_READ_MS = 15_000;
/** Most missed heights backfilled after an upstream gap; past it the subscriptions are cancelled. */
export const MAX_BACKFILL_HEIGHTS = 100;
/** How long the upstream socket stays open after the last subscriber leaves. */
export const IDLE_CLOSE_MS = 30_000;
/**
 * Subscriber shards per network. With the per-IP cap on, the door puts all of one client IP's sockets in one
 * shard (a hash of the IP), so the shard counts them exactly; with it off, it spreads them at random.
 */
export const LIVE_SHARDS = 16;
/** The upstream is given up and dialled again after this long without a frame (a node that went silent). */
export const UPSTREAM_SILENCE_MS = 20_000;
/** A node that sends frames but no new height for this long (five 6 s blocks) is left for the next node. */
export const LAGGING_NODE_MS = 30_000;
/** The header on a forwarded upgrade that names the shard it went to. */
export const SHARD_NAME_HEADER = "x-live-shard";
/** The header on a forwarded upgrade that names the client IP the socket is tagged with. */
export const CLIENT_IP_HEADER = "x-live-client-ip";
/** The header on a forwarded upgrade that carries the per-IP cap of sockets held (absent: no cap). */
export const SOCKET_CAP_HEADER = "x-live-socket-cap";
/** Frames a socket may send per second, on average; a CometBFT client sends a handful per subscription change. */
export const FRAME_RATE_PER_SECOND = 20;
/** Frames a socket may send at once before the rate applies (a page subscribing and reading as it loads). */
export const FRAME_BURST = 50;
/**
 * A socket refused this many frames since its bucket was last full is closed with 1008: it kept
 * sending past its rate without ever pausing long enough to refill (2.5 s).
 */
export const REFUSED_FRAMES_TO_CLOSE = 100;
