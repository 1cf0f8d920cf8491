/** The gateway's Hono environment: the app's, plus what its own middleware hands on. */
import type { AppEnv } from "../app-env";
import type { MatchedQuery } from "./match";

export type GatewayEnv = {
  Bindings: AppEnv["Bindings"];
  Variables: AppEnv["Variables"] & {
    /** The validated query (set by `validQuery`). */
    query: MatchedQuery;
  };
};
