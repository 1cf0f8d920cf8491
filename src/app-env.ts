/** Hono's environment for this Worker: its bindings and the values each request carries. */
import type { Config } from "./config";

export type AppEnv = {
  Bindings: Env;
  /** `route` names the matched route pattern for the access log when the path alone does not. */
  Variables: { config: Config; requestId: string; route?: string };
};
