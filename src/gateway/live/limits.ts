/** The live face's limits and timings (docs/GATEWAY.md, "The live face"). */

/** Subscriptions one socket may hold, as a CometBFT node's `max_subscriptions_per_client` default. */
export const MAX_SUBSCRIPTIONS_PER_SOCKET = 5;
/** Largest frame a subscriber may send, in bytes. */
export const MAX_FRAME_BYTES = 64 * 1024;
/** A socket's attachment (its subscriptions as JSON) holds at most this many bytes, as Durable Objects allow. */
export const MAX_ATTACHMENT_BYTES = 2048;
/** Most missed heights backfilled after an upstream gap; past it the subscriptions are cancelled. */
export const MAX_BACKFILL_HEIGHTS = 100;
/** How long the upstream socket stays open after the last subscriber leaves. */
export const IDLE_CLOSE_MS = 30_000;
/** Subscriber shards per network: the Worker spreads new sockets over them at random. */
export const LIVE_SHARDS = 16;
/** The upstream is given up and dialled again after this long without a frame (a node that went silent). */
export const UPSTREAM_SILENCE_MS = 20_000;
/** A node that sends frames but no new height for this long (five 6 s blocks) is left for the next node. */
export const LAGGING_NODE_MS = 30_000;
/** The header on a forwarded upgrade that names the shard it went to. */
export const SHARD_NAME_HEADER = "x-live-shard";
