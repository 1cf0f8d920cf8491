/**
 * The Worker's one pipeline: body limit → memory tier → router. Each step is a middleware that
 * answers or hands the request to the next, composed once per configuration as hono's `compose`
 * chains its middleware; unlike hono's, a step may answer without a promise, so a hit from memory
 * is answered before any Hono context exists (docs/PERFORMANCE.md, section "workerd").
 */
import type { Hono } from "hono";
import { buildApp } from "./app";
import type { AppEnv } from "./app-env";
import { ConfigError, readConfig, type Config } from "./config";
import { GrpcCode, errorResponse } from "./errors";
import { answerFromMemory } from "./gateway/memory-answer";
import { afterDiscarding, isOverBodyLimit, withinBodyLimit } from "./http/body-limit";
import { log } from "./log";
import { requestIdOf } from "./middleware/request-context";

/** An answer, at once or later. */
type Answer = Response | Promise<Response>;

/** The Worker's `fetch`: what the pipeline, and each step's `next`, is. */
type WorkerFetch = (request: Request, env: Env, ctx: ExecutionContext) => Answer;

/** One step of the pipeline: answers `request`, or calls `next` with the request the next step reads. */
type EntryMiddleware = (request: Request, env: Env, ctx: ExecutionContext, next: WorkerFetch) => Answer;

/** `steps` in order, then `last`: chained once, so a request allocates no closure on its way through. */
function compose(steps: EntryMiddleware[], last: WorkerFetch): WorkerFetch {
  return steps.reduceRight<WorkerFetch>((next, step) => (request, env, ctx) => step(request, env, ctx, next), last);
}

/**
 * The Worker's one body limit (src/http/body-limit.ts): a declared length is judged at once (no promise before the
 * memory tier); a streamed body is measured first. A request over the limit goes on marked, each route refusing it in
 * its own shape; a refused streamed body's rest is drained after the answer.
 */
const bodyLimit: EntryMiddleware = (request, env, ctx, next) => {
  if (request.body === null) return next(request, env, ctx);
  const measured = withinBodyLimit(request);
  if (!(measured instanceof Promise)) return next(measured, env, ctx);
  return measured.then(async (within) => {
    const response = await next(within, env, ctx);
    return isOverBodyLimit(within) ? afterDiscarding(response, within) : response;
  });
};

/** The isolate-memory tier (src/gateway/memory-answer.ts): a fresh hot entry answers; anything else goes on. */
const memoryTier =
  (config: Config): EntryMiddleware =>
  (request, env, ctx, next) => {
    const memory = isOverBodyLimit(request)
      ? null
      : answerFromMemory(request, config, (env as Partial<Env> | undefined)?.GATEWAY_METRICS);
    if (memory === null) return next(request, env, ctx);
    if (memory instanceof Response) return memory;
    return memory.then((answered) => answered ?? next(request, env, ctx));
  };

/**
 * The Worker for one configuration: the pipeline in front of its route table (`app`, by default built here).
 * @internal the tests build one per configuration they need; the Worker takes `entryFor`'s
 */
export function buildEntry(config: Config, app: Hono<AppEnv> = buildApp(config)): WorkerFetch {
  return compose([bodyLimit, memoryTier(config)], (request, env, ctx) => app.fetch(request, env, ctx));
}

const entries = new WeakMap<object, WorkerFetch>();

/**
 * The Worker of `env`'s configuration, built once per `env` object: the only place an app is built for a deployment
 * (the Worker's requests, and a Durable Object's read through the RPC face). Throws `ConfigError` when `env` is wrong.
 * @public for the live face's reads through the RPC face, which build their own app until they take this one
 */
export function entryFor(env: Env): WorkerFetch {
  let entry = entries.get(env);
  if (!entry) {
    entry = buildEntry(readConfig(env));
    entries.set(env, entry);
  }
  return entry;
}

export default {
  fetch(request, env, ctx) {
    try {
      return entryFor(env)(request, env, ctx);
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
