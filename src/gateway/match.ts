/**
 * Turns a request URL into one route of the table with validated parameters, the exact upstream
 * path to ask and the canonical cache key, or refuses it. Everything here runs before any
 * upstream is contacted.
 */
import * as z from "zod/mini";
import type { Config } from "../config";
import { invalidArgument, notFound } from "../errors";
import { GATEWAY_ROUTES, type GatewayRoute } from "./route-table";
import { QUERY_VALUES, blockHeightSchema, paramSchemas, problemWith, type QueryName } from "./validators";

/** Path prefix the gateway is mounted at (`app.route("/api", gatewayRoutes(config))`). */
export const MOUNT = "/api";

/** The request header that asks for the state at a past block height (a historical read). */
export const HEIGHT_HEADER = "x-cosmos-block-height";

/** A request the gateway will answer. */
export interface MatchedQuery {
  route: GatewayRoute;
  /** The route's pattern as mounted, e.g. `/api/chain/incentives/v1/node/:operator` (the access log's `route`). */
  pattern: string;
  /** Path and canonical query to append to an upstream base URL; also the cache key. */
  upstreamPath: string;
  /** The block height of a historical read (`x-cosmos-block-height`), or null for the latest state. */
  height: string | null;
}

export interface CompiledRoute {
  route: GatewayRoute;
  pattern: string;
  /** Literal segments, or the parameter's schema and name. */
  segments: readonly (string | { name: string; schema: z.ZodMiniType<string> })[];
}

/**
 * One plain path: segments of unreserved characters only. This refuses `%2F` and every other
 * escape, `//`, `\`, `;` and trailing slashes; workerd has already resolved `..` and `.`.
 */
const PLAIN_PATH = /^(\/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)+$/;

/** The route table with the namespace filled in and validators bound to the address prefix. */
export function compileRoutes(config: Config): readonly CompiledRoute[] {
  const schemas = paramSchemas(config.bech32Prefix);
  return GATEWAY_ROUTES.map((route) => {
    const path = route.path.replace("{ns}", config.namespace);
    return {
      route,
      pattern: `${MOUNT}${path}`,
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

/** The row whose pattern `path` (below `/api`) has; throws the 400 for a path that is not plain, or the 404. */
export function findRoute(routes: readonly CompiledRoute[], path: string): CompiledRoute {
  if (!PLAIN_PATH.test(path) || path.split("/").some((s) => s === "." || s === "..")) {
    throw invalidArgument("PATH_NOT_CANONICAL", "The path must be plain segments: no escaped characters (such as %2F), empty segments (//), dot segments, backslashes or a trailing slash", {
      path: `${MOUNT}${path}`,
    });
  }
  const parts = path.split("/").slice(1);
  for (const compiled of routes) {
    const { segments } = compiled;
    if (segments.length === parts.length && segments.every((s, i) => typeof s !== "string" || s === parts[i])) return compiled;
  }
  throw notFound("ROUTE_NOT_FOUND", `No gateway query at ${MOUNT}${path}`, { path: `${MOUNT}${path}` });
}

/** Validates the parameters of `path` against its row and `search`; throws the 400 to answer. */
export function validateQuery(compiled: CompiledRoute, path: string, search: string, height: string | null = null): MatchedQuery {
  const parts = path.split("/").slice(1);
  compiled.segments.forEach((s, i) => {
    if (typeof s === "string") return;
    const problem = problemWith(s.schema, parts[i]!);
    if (problem) throw invalidArgument("INVALID_PATH_PARAMETER", `${s.name}: ${problem}`, { parameter: s.name });
  });
  if (height !== null) {
    const problem = problemWith(blockHeightSchema, height);
    if (problem) throw invalidArgument("INVALID_BLOCK_HEIGHT", `${HEIGHT_HEADER}: ${problem}`, { header: HEIGHT_HEADER });
  }
  const query = canonicalQuery(compiled.route, search);
  return { route: compiled.route, pattern: compiled.pattern, upstreamPath: query ? `${path}?${query}` : path, height };
}

/** Matches `path` (below `/api`) and `search` against the table; throws the 400 or 404 to answer. */
export function matchQuery(routes: readonly CompiledRoute[], path: string, search: string, height: string | null = null): MatchedQuery {
  return validateQuery(findRoute(routes, path), path, search, height);
}

/**
 * The query with only allowed, unrepeated parameters, sorted by name; values go to the node as
 * given (its own parser decides what they mean, and refuses what it cannot read).
 */
function canonicalQuery(route: GatewayRoute, search: string): string {
  const allowed = route.query ?? [];
  const takes = allowed.length ? `this query takes ${allowed.join(", ")}` : "this query takes no query parameters";
  const seen = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(search)) {
    if (!allowed.includes(name as QueryName)) {
      throw invalidArgument("UNKNOWN_QUERY_PARAMETER", `Unknown query parameter ${JSON.stringify(name)}; ${takes}`, { parameter: name, allowed: allowed.join(",") });
    }
    if (seen.has(name)) throw invalidArgument("DUPLICATE_QUERY_PARAMETER", `Query parameter ${JSON.stringify(name)} is given more than once`, { parameter: name });
    const problem = problemWith(QUERY_VALUES[name as QueryName], value);
    if (problem) throw invalidArgument("INVALID_QUERY_PARAMETER", `${name}: ${problem}`, { parameter: name });
    seen.set(name, value);
  }
  return new URLSearchParams([...seen].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))).toString();
}
