/**
 * Each socket's rate of frames: a token bucket of FRAME_BURST frames, refilled at
 * FRAME_RATE_PER_SECOND. A frame past it is refused before anything reads it: a prepared reply,
 * no JSON parse. REFUSED_FRAMES_TO_CLOSE refusals since the bucket was last full close the socket
 * (a frame read now and then, as the bucket refills, does not clear them: a flood handled slowly,
 * or one sent at twice the rate, is still a flood), and frames still arriving on it are dropped
 * unread (the runtime still hands each one to the shard as an event).
 * The buckets live in memory: an object woken from hibernation starts every socket with a full one.
 */
import { FRAME_BURST, FRAME_RATE_PER_SECOND, REFUSED_FRAMES_TO_CLOSE } from "./limits";

/** A frame's fate: read it, refuse it, or refuse it and close the socket. */
export type FrameVerdict = "read" | "refuse" | "close";

interface Bucket {
  tokens: number;
  at: number;
  /** Frames refused since the bucket was last full. */
  refused: number;
}

/** The JSON-RPC error a refused frame gets (its id is unknown: the frame is not read). */
export const RATE_REFUSAL = JSON.stringify({
  jsonrpc: "2.0",
  id: null,
  error: {
    code: -32000,
    message: "Server error",
    data:
      `rate limited: a socket sends at most ${FRAME_RATE_PER_SECOND} frames a second, in bursts of ` +
      `${FRAME_BURST}; this frame was not read ` +
      `(${REFUSED_FRAMES_TO_CLOSE} refused before the burst is whole again close the socket)`,
  },
});

/** The close reason of a socket that kept sending past its rate. */
export const RATE_CLOSE_REASON = `${REFUSED_FRAMES_TO_CLOSE} frames over the rate`;

export class FrameBudget {
  private readonly buckets = new WeakMap<WebSocket, Bucket>();

  /** Spends one of `ws`'s tokens at `now` (ms). */
  take(ws: WebSocket, now: number): FrameVerdict {
    let bucket = this.buckets.get(ws);
    if (!bucket) this.buckets.set(ws, (bucket = { tokens: FRAME_BURST, at: now, refused: 0 }));
    bucket.tokens = Math.min(FRAME_BURST, bucket.tokens + ((now - bucket.at) * FRAME_RATE_PER_SECOND) / 1000);
    bucket.at = now;
    if (bucket.tokens >= FRAME_BURST) bucket.refused = 0;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return "read";
    }
    bucket.refused += 1;
    return bucket.refused >= REFUSED_FRAMES_TO_CLOSE ? "close" : "refuse";
  }
}
