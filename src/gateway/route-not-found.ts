/**
 * The 404 of a path no route takes. A REST path of the chain's modules under another namespace
 * (`/api/chain/incentives/v1/params` where this deployment serves `hope`) names the prefix served,
 * and the same path under it, so a guide or a client written for another network finds its way.
 */
import type { Config } from "../config";
import { notFound } from "../errors";
import { GATEWAY_ROUTES } from "./route-table";

/** The modules the network's namespace serves (`incentives`, `trustscore`, …), from the route table. */
const NAMESPACED_MODULES = new Set(
  GATEWAY_ROUTES.filter((route) => route.path.startsWith("/{ns}/")).map((route) => route.path.split("/")[2]!),
);

/** The refusal of `method path` (the path as sent) that no route took. */
export function routeNotFound(config: Pick<Config, "namespace">, method: string, path: string) {
  const [, api, namespace, module] = path.split("/");
  if (api === "api" && namespace !== config.namespace && namespace !== "cosmos" && NAMESPACED_MODULES.has(module!)) {
    const served = `/api/${config.namespace}/`;
    const rest = path.split("/").slice(3).join("/");
    return notFound(
      "ROUTE_NOT_FOUND",
      `No route for ${method} ${path}: this deployment serves the network's queries under ${served}… ` +
        `(CHAIN_NAMESPACE "${config.namespace}"), not /api/${namespace}/…; ask ${served}${rest}`,
      { path, served_prefix: served },
    );
  }
  return notFound("ROUTE_NOT_FOUND", `No route for ${method} ${path}`);
}
