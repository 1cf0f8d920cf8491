/** Worker entry: the Hono app for this deployment's configuration, and the Durable Object classes. */
import type { Hono } from "hono";
import { buildApp } from "./app";
import type { AppEnv } from "./app-env";
import { ConfigError, readConfig } from "./config";
import { GrpcCode, errorResponse } from "./errors";
import { log } from "./log";
import { requestIdOf } from "./middleware/request-context";

export { ChainFollower } from "../durable-objects/onboardings/ChainFollower";
export { LiveFeed } from "../durable-objects/live/LiveFeed";
export { LiveShard } from "../durable-objects/live/LiveShard";
export { IdempotencyKey } from "../durable-objects/onboardings/IdempotencyKey";
export { Onboarding } from "../durable-objects/onboardings/Onboarding";
export { PairingSession } from "../durable-objects/sessions/PairingSession";
export { QueryShield } from "../durable-objects/gateway/QueryShield";
export { UpstreamHealth } from "../durable-objects/gateway/UpstreamHealth";
export { WebhookLane } from "../durable-objects/onboardings/WebhookLane";

const apps = new WeakMap<object, Hono<AppEnv>>();

function appFor(env: Env): Hono<AppEnv> {
  let app = apps.get(env);
  if (!app) {
    app = buildApp(readConfig(env));
    apps.set(env, app);
  }
  return app;
}

export default {
  fetch(request, env, ctx) {
    try {
      return appFor(env).fetch(request, env, ctx);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      // A misconfigured deployment says which variable is wrong instead of failing opaquely.
      const requestId = requestIdOf(request);
      log("error", "configuration_invalid", { request_id: requestId, error: err.message });
      return errorResponse(
        { status: 500, code: GrpcCode.INTERNAL, reason: "CONFIGURATION", message: err.message },
        { "x-request-id": requestId },
      );
    }
  },
} satisfies ExportedHandler<Env>;
