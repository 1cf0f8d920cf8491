/**
 * Hono's environment for this Worker: its bindings and the values each request carries (read them with `c.get`: `c.var`
 * copies them all on every read).
 */
import type { Config } from "./config";
import type { CacheStatus, ShieldTrace } from "./gateway/cache-status";

export type AppEnv = {
  Bindings: Env;
  Variables: {
    config: Config;
    requestId: string;
    /** Epoch ms when the request arrived, taken once by the request context. */
    startedAt: number;
    /** How the gateway served the request (its `X-Cache`). */
    cache?: CacheStatus;
    /**
     * Milliseconds the request waited beyond the data center on a miss: the shield's round trip and any upstream round.
     */
    missMs?: number;
    /** What the shield tier did for this request's data-center miss, or why the Worker went around it. */
    shield?: ShieldTrace;
    /** The node that answered this request's miss and the attempts it took (`X-Edge-Upstream`, `X-Edge-Attempts`). */
    upstream?: { origin: string; attempts: number };
    /** Blocks the latest-state answer is below the highest height served (`X-Edge-Behind`). */
    behind?: number;
  };
};
