/**
 * Shared setup of the runtime tests: every test starts with the gateway's isolate state and the
 * shared upstream health object empty,
 * every test file's onboarding index has its tables (migrations/, as dev and deploy apply them),
 * the access log (one line per request, src/middleware/request-context.ts) is kept out of the
 * output, and what is printed at warn and error is captured per test (test/helpers/console.ts:
 * asserted where it matters, printed when the test fails). A test that asserts access-log lines
 * spies on console.log first (`vi.spyOn(console, "log")`): the spy records every call before this
 * filter sees it.
 */
import { applyD1Migrations, type D1Migration, evictDurableObject, reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach } from "vitest";
import { resetGatewayState } from "../src/gateway";
import { HEALTH_OBJECT } from "../src/gateway/shield/health-link";
import { captureConsole } from "./helpers/console";

// Files share one workerd process (isolate: false), so each starts from empty bindings itself,
// before its own module runs (some create what they test at import).
await reset();
await applyD1Migrations(env.ONBOARDING_INDEX, (env as unknown as { INDEX_MIGRATIONS: D1Migration[] }).INDEX_MIGRATIONS);
const console_ = captureConsole();
beforeEach(async (context) => {
  resetGatewayState();
  // The shared health object keeps its board in memory only: evicted, it forgets what earlier tests' nodes did
  // (one not running has nothing to forget).
  await evictDurableObject(env.UPSTREAM_HEALTH.getByName(HEALTH_OBJECT)).catch((err: Error) => {
    if (!err.message.includes("not currently running")) throw err;
  });
  console_.reset();
  context.onTestFailed(() => {
    const lines = console_.dump();
    if (lines) console.log(`What the test printed at warn and error:\n${lines}`);
  });
});

// Once per process: this file runs again before every test file, and must not wrap its own filter.
const filtered = Symbol.for("chain-edge.access-log-filter");
const consoleMarks = console as unknown as Record<symbol, true>;
if (!consoleMarks[filtered]) {
  const print = console.log.bind(console);
  console.log = (...args: unknown[]) => {
    if (!isAccessLogLine(args[0])) print(...args);
  };
  consoleMarks[filtered] = true;
}

/** A line of `log(level, "request", …)`: `{"level":"…","event":"request",…}`. */
function isAccessLogLine(value: unknown): boolean {
  return typeof value === "string" && value.startsWith('{"level":"') && value.includes('","event":"request",');
}
