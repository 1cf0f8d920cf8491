/**
 * The LCD nodes behind the gateway: which one to ask first, failover between them, and what each
 * did lately. State is per isolate (module scope), which is what a Worker instance can know.
 */
import type { Config } from "../config";
import { badGateway, gatewayTimeout } from "../errors";

/** What one upstream did lately; `upstreamHealth()` hands out copies. */
export interface UpstreamState {
  url: string;
  /** False while the upstream is being skipped after a failure. */
  healthy: boolean;
  consecutiveFailures: number;
  /** Epoch ms until which the upstream is tried only after the others; 0 when not skipped. */
  skippedUntil: number;
  lastStatus: number | null;
  lastLatencyMs: number | null;
  lastError: string | null;
  /** Last block height it answered a read of the latest state with. */
  lastHeight: number | null;
  lastCheckedAt: number | null;
}

/** What to ask the upstreams: the path and canonical query, at the latest height or a past one. */
export interface UpstreamQuery {
  upstreamPath: string;
  /** A past block height to read at (sent as `x-cosmos-block-height`), or null for the latest state. */
  height: string | null;
}

/** An upstream answer the gateway will use: a 2xx or 4xx with a JSON body. */
export interface UpstreamAnswer {
  status: number;
  body: string;
  height: number | null;
  /** Milliseconds spent on upstream attempts, failed ones included. */
  upstreamMs: number;
}

/** Blocks an upstream may trail the highest recently seen height and still be asked first. */
const MAX_LAG_BLOCKS = 2;
/** How long a height counts as "recently seen". */
const HEIGHT_MEMORY_MS = 60_000;

const states = new Map<string, UpstreamState>();

function stateOf(url: string): UpstreamState {
  let state = states.get(url);
  if (!state) {
    state = { url, healthy: true, consecutiveFailures: 0, skippedUntil: 0, lastStatus: null, lastLatencyMs: null, lastError: null, lastHeight: null, lastCheckedAt: null };
    states.set(url, state);
  }
  return state;
}

/** Forgets what every upstream did (tests start from nothing). */
export function resetUpstreamHealth(): void {
  states.clear();
}

/** A cheap snapshot of every configured upstream's recent state (for `/api/health`). */
export function upstreamHealth(config: Config, now = Date.now()): UpstreamState[] {
  return config.upstreamUrls.map((url) => {
    const state = { ...stateOf(url) };
    state.healthy = state.skippedUntil <= now;
    return state;
  });
}

/** The highest height any upstream answered with in the last minute. */
function highestRecentHeight(urls: readonly string[], now: number): number {
  let highest = 0;
  for (const url of urls) {
    const s = stateOf(url);
    if (s.lastHeight !== null && s.lastCheckedAt !== null && now - s.lastCheckedAt < HEIGHT_MEMORY_MS) highest = Math.max(highest, s.lastHeight);
  }
  return highest;
}

/** Order to try: not skipped and not lagging, then lagging, then skipped ones as a last resort; config order within each. */
export function attemptOrder(urls: readonly string[], now = Date.now()): string[] {
  const highest = highestRecentHeight(urls, now);
  const rank = (url: string) => {
    const s = stateOf(url);
    if (s.skippedUntil > now) return 2;
    return s.lastHeight !== null && s.lastHeight < highest - MAX_LAG_BLOCKS ? 1 : 0;
  };
  return urls.map((url, i) => ({ url, i, r: rank(url) })).sort((a, b) => a.r - b.r || a.i - b.i).map((x) => x.url);
}

function record(config: Config, url: string, outcome: { status: number | null; ms: number; height?: number | null; error?: string }): void {
  const s = stateOf(url);
  const now = Date.now();
  s.lastStatus = outcome.status;
  s.lastLatencyMs = outcome.ms;
  s.lastCheckedAt = now;
  if (outcome.height != null) s.lastHeight = outcome.height;
  if (outcome.error) {
    s.lastError = outcome.error;
    s.consecutiveFailures += 1;
    s.skippedUntil = now + config.upstreamCooldownMs;
    s.healthy = config.upstreamCooldownMs === 0;
  } else {
    s.lastError = null;
    s.consecutiveFailures = 0;
    s.skippedUntil = 0;
    s.healthy = true;
  }
}

/**
 * The headers an upstream gets: JSON please, the provider's key if configured, and the validated
 * height of a historical read. Nothing else of the client's.
 */
function upstreamHeaders(config: Config, height: string | null): Headers {
  const headers = new Headers({ accept: "application/json" });
  if (config.upstreamAuthHeader) headers.set(config.upstreamAuthHeader[0], config.upstreamAuthHeader[1]);
  if (height !== null) headers.set("x-cosmos-block-height", height);
  return headers;
}

function parseHeight(value: string | null): number | null {
  if (value === null || !/^\d{1,15}$/.test(value)) return null;
  return Number(value);
}

/** The answer's block height: grpc-gateway's header, else the bare name a renaming proxy uses. */
function heightOf(headers: Headers): number | null {
  return parseHeight(headers.get("grpc-metadata-x-cosmos-block-height") ?? headers.get("x-cosmos-block-height"));
}

/** One attempt's result: an answer to use, or why it failed (the next upstream is tried). */
type Attempt = { answer: UpstreamAnswer } | { failure: string; timedOut: boolean };

async function attempt(config: Config, url: string, query: UpstreamQuery, timeoutMs: number): Promise<Attempt> {
  const started = Date.now();
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const response = await fetch(`${url}${query.upstreamPath}`, { headers: upstreamHeaders(config, query.height), redirect: "manual", signal });
    const height = heightOf(response.headers);
    // The body is read whole before anything reaches the client, so a failure here still fails over.
    const body = await response.text();
    const ms = Date.now() - started;
    const status = response.status;
    const failure =
      status >= 500 || status === 429
        ? `answered ${status}`
        : status < 200 || (status >= 300 && status < 400)
          ? `answered ${status} (redirects are not followed)`
          : !isJson(response.headers.get("content-type"), body)
            ? `answered ${status} with a body that is not JSON`
            : null;
    // A historical answer's height is the one asked for: it says nothing about how far the node has synced.
    record(config, url, { status, ms, height: query.height === null ? height : null, error: failure ?? undefined });
    if (failure) return { failure, timedOut: false };
    return { answer: { status, body, height, upstreamMs: ms } };
  } catch (err) {
    const timedOut = signal.aborted;
    const failure = timedOut ? `no answer within ${timeoutMs} ms` : `unreachable (${err instanceof Error ? err.message : String(err)})`;
    record(config, url, { status: null, ms: Date.now() - started, error: failure });
    return { failure, timedOut };
  }
}

function isJson(contentType: string | null, body: string): boolean {
  if (!contentType || !/\bjson\b/i.test(contentType)) return false;
  try {
    JSON.parse(body);
    return true;
  } catch {
    return false;
  }
}

/**
 * The miss path: asks the upstreams in `attemptOrder` until one answers with a usable 2xx or 4xx,
 * within the per-attempt timeout and the total budget. Throws a 504 when time ran out (or every
 * attempt timed out), otherwise a 502 naming what each upstream did.
 */
export async function askUpstreams(config: Config, query: UpstreamQuery): Promise<UpstreamAnswer> {
  const started = Date.now();
  const deadline = started + config.upstreamBudgetMs;
  const failures: string[] = [];
  let allTimedOut = true;
  for (const url of attemptOrder(config.upstreamUrls, started)) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) break;
    const result = await attempt(config, url, query, Math.min(config.upstreamTimeoutMs, remaining));
    if ("answer" in result) return { ...result.answer, upstreamMs: Date.now() - started };
    // Named by position in UPSTREAM_URLS: the URL itself may be a private provider's.
    failures.push(`upstream #${config.upstreamUrls.indexOf(url) + 1} ${result.failure}`);
    allTimedOut &&= result.timedOut;
  }
  const message = failures.join("; ") || "no upstream could be tried";
  const budgetSpent = Date.now() >= deadline;
  if (budgetSpent || (allTimedOut && failures.length > 0)) {
    throw gatewayTimeout("UPSTREAM_TIMEOUT", `No upstream answered in time: ${message}`, { attempts: String(failures.length) });
  }
  throw badGateway("UPSTREAM_UNAVAILABLE", `No upstream gave a usable answer: ${message}`, { attempts: String(failures.length) });
}
