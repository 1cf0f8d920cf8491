/**
 * One Workers Analytics Engine data point per request (binding `GATEWAY_METRICS`), written where the
 * access-log line is printed: the request context for routed requests, the memory tier for its hits.
 * The layout, which docs/GATEWAY.md's SQL queries read:
 *
 * - `index1`: the route pattern (the sampling key: each route keeps its share however rare);
 * - `blob1` face (`rest`, `rpc`, `live`, `api`), `blob2` route pattern, `blob3` cache status (`X-Cache`'s
 *   first word, empty when the gateway had no part), `blob4` node (the origin in `X-Edge-Upstream`,
 *   empty on a hit), `blob5` data center;
 * - `double1` milliseconds in the Worker, `double2` HTTP status.
 */
import type { CacheStatus } from "../gateway/cache-status";
import { RPC_ROUTE } from "../gateway/rpc/limits";

/** Which face of the Worker a request met. */
type Face = "rest" | "rpc" | "live" | "api";

/** The facts of a request's access-log line that its data point records. */
interface AccessFacts {
  /** The route pattern that answered (low cardinality), never the raw path. */
  route: string;
  /** How the gateway served it, or null when the gateway had no part. */
  cache: CacheStatus | null;
  status: number;
  duration_ms: number;
  colo: string | null;
}

/** The live face's route (a WebSocket upgrade), below the RPC face's prefix. */
const LIVE_ROUTE = `${RPC_ROUTE}/websocket`;

/** The face of a request from its route pattern: the RPC prefix, else REST when the gateway set a cache status. */
function faceOf(route: string, cache: CacheStatus | null): Face {
  if (route === LIVE_ROUTE) return "live";
  if (route.startsWith(RPC_ROUTE)) return "rpc";
  return cache ? "rest" : "api";
}

/**
 * Writes the access-log facts of a request, and `node` (the origin in `X-Edge-Upstream`, null when no node
 * answered), as one data point. `writeDataPoint` is synchronous and never fails the request.
 */
export function writeRequestPoint(dataset: AnalyticsEngineDataset | undefined, line: AccessFacts, node: string | null) {
  dataset?.writeDataPoint({
    indexes: [line.route],
    blobs: [faceOf(line.route, line.cache), line.route, line.cache ?? "", node ?? "", line.colo ?? ""],
    doubles: [line.duration_ms, line.status],
  });
}
