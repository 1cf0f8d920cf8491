/**
 * Turns a request URL into one route of the table with validated parameters, the exact upstream
 * path to ask and the canonical cache key, or refuses it. Everything here runs before any
 * upstream is contacted.
 */
import * as z from "zod/mini";
import type { Config } from "../config";
import { invalidArgument, notFound } from "../errors";
import { GATEWAY_ROUTES, type GatewayRoute } from "./route-table";
import { QUERY_VALUES, paramSchemas, problemWith, type QueryName } from "./validators";

/** A request the gateway will answer. */
export interface MatchedQuery {
  route: GatewayRoute;
  /** Path and canonical query to append to an upstream base URL; also the cache key. */
  upstreamPath: string;
}

interface CompiledRoute {
  route: GatewayRoute;
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
  return GATEWAY_ROUTES.map((route) => ({
    route,
    segments: route.path
      .replace("{ns}", config.namespace)
      .split("/")
      .slice(1)
      .map((segment) => {
        if (!segment.startsWith(":")) return segment;
        const name = segment.slice(1);
        const kind = route.params?.[name];
        if (!kind) throw new Error(`gateway route ${route.path}: no validator for :${name}`);
        return { name, schema: schemas[kind] };
      }),
  }));
}

/** Matches `path` (below `/api`) and `search` against the table; throws the 400 or 404 to answer. */
export function matchQuery(routes: readonly CompiledRoute[], path: string, search: string): MatchedQuery {
  if (!PLAIN_PATH.test(path) || path.split("/").some((s) => s === "." || s === "..")) {
    throw invalidArgument("PATH_NOT_CANONICAL", "The path must be plain segments: no escaped characters (such as %2F), empty segments (//), dot segments, backslashes or a trailing slash", {
      path: `/api${path}`,
    });
  }
  const parts = path.split("/").slice(1);
  for (const { route, segments } of routes) {
    if (segments.length !== parts.length) continue;
    if (!segments.every((s, i) => typeof s !== "string" || s === parts[i])) continue;
    segments.forEach((s, i) => {
      if (typeof s === "string") return;
      const problem = problemWith(s.schema, parts[i]!);
      if (problem) throw invalidArgument("INVALID_PATH_PARAMETER", `${s.name}: ${problem}`, { parameter: s.name });
    });
    const query = canonicalQuery(route, search);
    return { route, upstreamPath: query ? `${path}?${query}` : path };
  }
  throw notFound("ROUTE_NOT_FOUND", `No gateway query at /api${path}`, { path: `/api${path}` });
}

/** The query with only allowed, valid, unrepeated parameters, sorted by name. */
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
