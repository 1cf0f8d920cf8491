/**
 * The devnet's REST surface: the network's own module queries and the stock Cosmos ones, one row
 * each, matched against a request path.
 */
import { COSMOS_ROUTES } from "./cosmos-routes.ts";
import { NETWORK_ROUTES } from "./network-routes.ts";
import type { ModuleRoute } from "./route.ts";

const MODULE_ROUTES: readonly ModuleRoute[] = [...NETWORK_ROUTES, ...COSMOS_ROUTES];

/** Finds the row for `pathname` and its parameters, or `null`. */
export function matchModuleRoute(namespace: string, pathname: string) {
  const segments = pathname.split("/");
  for (const route of MODULE_ROUTES) {
    const pattern = route.path.replace("{ns}", namespace).split("/");
    if (pattern.length !== segments.length) continue;
    const params: Record<string, string> = {};
    if (
      pattern.every((p, i) =>
        p.startsWith(":")
          ? ((params[p.slice(1)] = decodeURIComponent(segments[i]!)), segments[i] !== "")
          : p === segments[i],
      )
    ) {
      return { route, params };
    }
  }
  return null;
}
