/**
 * The gateway's validation: a request for one row of the route table, its path parameters, query
 * and height header checked and turned into the exact upstream path to ask, or refused. Everything
 * here runs before any upstream is contacted.
 */
import type * as z from "zod/mini";
import type { Config } from "../config";
import { duplicateQueryParameter, invalidArgument, notFound, unknownQueryParameter } from "../errors";
import { GATEWAY_ROUTES, type GatewayRoute } from "./route-table";
import { QUERY_VALUES, blockHeightSchema, paramSchemas, problemWith, type QueryName } from "./validators";

/** The request header that asks for the state at a past block height (a historical read). */
export const HEIGHT_HEADER = "x-cosmos-block-height";

/** A request the gateway will answer. */
export interface MatchedQuery {
  route: GatewayRoute;
  /** Path and canonical query to append to an upstream base URL. */
  upstreamPath: string;
  /** The block height of a historical read (`x-cosmos-block-height`), or null for the latest state. */
  height: string | null;
}

/** One row of the table for this configuration. */
export interface CompiledRoute {
  route: GatewayRoute;
  /** The row's path below the gateway's mount, as a Hono route, e.g. `/chain/incentives/v1/node/:operator`. */
  path: string;
  /** Literal segments, or the parameter's schema and name. */
  segments: readonly (string | { name: string; schema: z.ZodMiniType<string> })[];
}

/**
 * One plain path: segments of unreserved characters only. This refuses `%2F` and every other
 * escape, `//`, `\`, `;` and trailing slashes; workerd has already resolved `..` and `.`.
 */
const PLAIN_PATH = /^(\/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)+$/;

/** The route table with the namespace filled in and validators bound to the address prefix. */
export function compileRoutes(config: Pick<Config, "namespace" | "bech32Prefix">): readonly CompiledRoute[] {
  const schemas = paramSchemas(config.bech32Prefix);
  return GATEWAY_ROUTES.map((route) => {
    const path = route.path.replace("{ns}", config.namespace);
    return {
      route,
      path,
      segments: path
        .split("/")
        .slice(1)
        .map((segment) => {
          if (!segment.startsWith(":")) return segment;
          const name = segment.slice(1);
          const kind = route.params?.[name];
          if (!kind) throw new Error(`gateway route ${route.path}: no validator for :${name}`);
          return { name, schema: schemas[kind] };
        }),
    };
  });
}

/** Throws the 400 for a request path (as sent, mount included) that is not plain segments. */
export function requirePlainPath(requestPath: string): void {
  if (!PLAIN_PATH.test(requestPath) || requestPath.split("/").some((s) => s === "." || s === "..")) {
    throw invalidArgument(
      "PATH_NOT_CANONICAL",
      "The path must be plain segments: no escaped characters (such as %2F), empty segments (//), dot segments, " +
        "backslashes or a trailing slash",
      {
        path: requestPath,
      },
    );
  }
}

/** The refusal of a plain path that no row has. */
export function noSuchQuery(requestPath: string) {
  return notFound("ROUTE_NOT_FOUND", `No gateway query at ${requestPath}`, { path: requestPath });
}

/**
 * Validates a request the router gave `compiled`: `path` is below the mount, `search` the query
 * string as sent; throws the 400 to answer.
 */
export function validateQuery(
  compiled: CompiledRoute,
  path: string,
  search: string,
  height: string | null = null,
): MatchedQuery {
  const parts = path.split("/").slice(1);
  compiled.segments.forEach((s, i) => {
    if (typeof s === "string") return;
    const problem = problemWith(s.schema, parts[i]!);
    if (problem) throw invalidArgument("INVALID_PATH_PARAMETER", `${s.name} ${problem}`, { parameter: s.name });
  });
  if (height !== null) {
    const problem = problemWith(blockHeightSchema, height);
    if (problem)
      throw invalidArgument("INVALID_BLOCK_HEIGHT", `${HEIGHT_HEADER} ${problem}`, { header: HEIGHT_HEADER });
  }
  const query = canonicalQuery(compiled.route, search);
  return { route: compiled.route, upstreamPath: query ? `${path}?${query}` : path, height };
}

/**
 * The query with only allowed, unrepeated parameters, sorted by name; values go to the node as
 * given (its own parser decides what they mean, and refuses what it cannot read).
 */
function canonicalQuery(route: GatewayRoute, search: string): string {
  const allowed = route.query ?? [];
  const seen = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(search)) {
    if (!allowed.includes(name as QueryName)) {
      throw unknownQueryParameter(name, "this query", allowed, { parameter: name, allowed: allowed.join(",") });
    }
    if (seen.has(name)) throw duplicateQueryParameter(name);
    const problem = problemWith(QUERY_VALUES[name as QueryName], value);
    if (problem) throw invalidArgument("INVALID_QUERY_PARAMETER", `${name} ${problem}`, { parameter: name });
    seen.set(name, value);
  }
  return new URLSearchParams([...seen].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))).toString();
}
