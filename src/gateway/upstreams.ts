/**
 * The nodes behind the gateway, LCD (REST) or CometBFT RPC: failover between them in the order a
 * board of what each did lately gives. The Worker's board is per isolate (module scope); shields
 * share theirs.
 */
import type { Config } from "../config";
import { ApiError, badGateway, gatewayTimeout } from "../errors";
import { readRpcAnswer } from "./rpc/answer";
import { BOGUS_BLOCKS, belowFloor, everyNodeBehind } from "./served-height";
import type { ReadAnswer, UpstreamAnswer } from "./upstream-answer";
import type { NodeView } from "../protocol/gateway-view";
import { UpstreamBoard, type UpstreamState } from "./upstream-board";
import { errorText } from "../log";

/** The settings an upstream round needs. */
export type UpstreamSettings = Pick<
  Config,
  | "upstreamUrls"
  | "rpcUpstreamUrls"
  | "upstreamTimeoutMs"
  | "upstreamBudgetMs"
  | "upstreamAuthHeader"
  | "upstreamCooldownMs"
>;

/** What to ask the upstreams: the path and canonical query, at the latest height or a past one. */
export interface UpstreamQuery {
  upstreamPath: string;
  /** A past block height to read at (sent as `x-cosmos-block-height`), or null for the latest state. */
  height: string | null;
  /**
   * Set for the CometBFT face: the path is a URI-style call of RPC_UPSTREAM_URLS' nodes, and
   * `pinned` when it names its own height (its answer says nothing of how far a node has synced).
   */
  rpc?: { pinned: boolean };
  /**
   * For a read of the latest state: the highest height the asking edge has served (served-height.ts).
   * An answer below it is asked again of the next node; absent for a pinned read.
   */
  floor?: number;
  /** For a read of the latest state: the height above which no answer is believed (served-height.ts). */
  ceiling?: number;
}

/** The base URLs that serve `query`'s face. */
export function upstreamUrlsOf(config: Pick<Config, "upstreamUrls" | "rpcUpstreamUrls">, query: UpstreamQuery) {
  return query.rpc ? config.rpcUpstreamUrls : config.upstreamUrls;
}

export type { UpstreamAnswer } from "./upstream-answer";

/** This isolate's own view: what the Worker's direct requests saw. */
const isolateBoard = new UpstreamBoard();

/** Forgets what every upstream did (tests start from nothing). */
export function resetUpstreamHealth(): void {
  isolateBoard.reset();
}

/** A cheap snapshot of every configured upstream's recent state in this isolate (for `/api/health`). */
export function upstreamHealth(config: Pick<Config, "upstreamUrls">, now = Date.now()): UpstreamState[] {
  return isolateBoard.snapshot(config.upstreamUrls, now);
}

/**
 * The nodes of `urls` as `GET /api/gateway` shows them: this isolate's view, with the shared one
 * (what the shields saw, null when off or away) merged in, later observations winning.
 */
export function nodeViews(urls: readonly string[], shared: UpstreamState[] | null, now = Date.now()): NodeView[] {
  if (!shared) return isolateBoard.view(urls, now);
  const board = new UpstreamBoard();
  board.merge(isolateBoard.everyKnown(now));
  board.merge(shared);
  return board.view(urls, now);
}

/**
 * The headers an upstream gets: JSON please, the provider's key if configured, and the validated
 * height of a historical read. Nothing else of the client's.
 */
function upstreamHeaders(config: UpstreamSettings, height: string | null): Headers {
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

/** One attempt's result: an answer to use (or to keep, `askNext`), or why it failed (the next upstream is tried). */
type Attempt = Extract<ReadAnswer, { answer: unknown }> | { failure: string; timedOut: boolean };

/** An LCD reply: a 2xx or 4xx with a JSON body is an answer; a 5xx, 429, redirect or non-JSON is a failure. */
function readRestAnswer(status: number, contentType: string | null, body: string, height: number | null): ReadAnswer {
  const failure =
    status >= 500 || status === 429
      ? `answered ${status}`
      : status < 200 || (status >= 300 && status < 400)
        ? `answered ${status} (redirects are not followed)`
        : !isJson(contentType, body)
          ? `answered ${status} with a body that is not JSON`
          : null;
  return failure ? { failure } : { answer: { status, body, height } };
}

/**
 * Milliseconds a 429 or 503 asks to be left alone for (`Retry-After` in seconds or as an HTTP date), else undefined.
 * @internal Exported for its tests only.
 */
export function retryAfterMs(status: number, value: string | null, now = Date.now()): number | undefined {
  if ((status !== 429 && status !== 503) || value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Why an attempt ended before its answer: its own timeout, or a hedge that answered first. */
const TIMED_OUT = "timeout";
const ABANDONED = "abandoned";

/**
 * One request to one node, recorded on the board whatever happens: an abandoned one (a hedge won)
 * is measured as slow, for as long as it was waited for.
 */
async function attempt(
  config: UpstreamSettings,
  board: UpstreamBoard,
  url: string,
  query: UpstreamQuery,
  timeoutMs: number,
  controller: AbortController,
): Promise<Attempt> {
  const started = Date.now();
  board.begin(url, started);
  const peers = upstreamUrlsOf(config, query);
  const timer = setTimeout(() => controller.abort(TIMED_OUT), timeoutMs);
  try {
    const response = await fetch(`${url}${query.upstreamPath}`, {
      headers: upstreamHeaders(config, query.height),
      redirect: "manual",
      signal: controller.signal,
    });
    const headerHeight = heightOf(response.headers);
    // The body is read whole before anything reaches the client, so a failure here still fails over.
    const body = await response.text();
    const ms = Date.now() - started;
    const status = response.status;
    const read = query.rpc
      ? readRpcAnswer(status, body, query.rpc.pinned)
      : readRestAnswer(status, response.headers.get("content-type"), body, headerHeight);
    if ("failure" in read) {
      const retryAfter = retryAfterMs(status, response.headers.get("retry-after"));
      board.record(url, { status, ms, error: read.failure, retryAfterMs: retryAfter }, config.upstreamCooldownMs);
      return { failure: read.failure, timedOut: false };
    }
    // A historical answer's height is the one asked for: it says nothing about how far the node has synced.
    const pinned = query.height !== null || query.rpc?.pinned;
    const height = pinned ? null : read.answer.height;
    const bogus = height !== null && board.beyondBelief(url, height, query.ceiling, peers);
    if (bogus) {
      const failure = `answered height ${height}, more than ${BOGUS_BLOCKS} blocks past every other`;
      board.record(url, { status, ms, error: failure }, config.upstreamCooldownMs);
      return { failure, timedOut: false };
    }
    board.record(url, { status, ms, height, peers }, config.upstreamCooldownMs);
    return read;
  } catch (err) {
    const ms = Date.now() - started;
    if (controller.signal.reason === ABANDONED) {
      board.recordSlow(url, ms);
      return { failure: "abandoned: another node answered first", timedOut: false };
    }
    const timedOut = controller.signal.reason === TIMED_OUT;
    const failure = timedOut ? `no answer within ${timeoutMs} ms` : `unreachable (${errorText(err)})`;
    // A hang counts as slow: its whole wait is its latency.
    board.record(url, { status: null, ms, error: failure }, config.upstreamCooldownMs);
    return { failure, timedOut };
  } finally {
    clearTimeout(timer);
    board.end(url, started);
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

/** An attempt under way: its node and the promise of its result. */
interface InFlight {
  url: string;
  startedAt: number;
  controller: AbortController;
  result: Promise<{ flight: InFlight; attempt: Attempt }>;
}

/** How often a round waiting on a slow node reads its hedge delay again. */
const HEDGE_RECHECK_MS = 150;

const sleep = (ms: number) => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const promise = new Promise<"hedge">((resolve) => {
    timer = setTimeout(() => resolve("hedge"), Math.max(0, ms));
  });
  return { promise, cancel: () => clearTimeout(timer) };
};

/**
 * One upstream round: asks the upstreams in the board's order (upstream-board.ts) until one answers
 * with a usable 2xx or 4xx, within the per-attempt timeout and the total budget, recording each
 * attempt on the board. With `background`, a node the board has out of favour and did not ask
 * lately is asked alongside the first (`explorer`). When the chosen node has not answered within
 * its hedge delay (about its p95, 150 ms to 1 s, read again while waiting), the next node is asked
 * too, at most once per round and for at most 10% of the face's misses per node; the first good answer wins
 * and the other request is abandoned (measured in `background` when given). An answer below
 * `query.floor` (a lagging node's) is asked again of the next node; a -32603 too, unless the node
 * was at its face's best height when it last reported (its "not found" is final), and served when
 * no later node answers better. Throws a 504 when time ran out (or every attempt timed out), a 502
 * when every node answered below the floor (UPSTREAM_BEHIND), otherwise a 502 naming what each
 * upstream did.
 */
export async function askUpstreams(
  config: UpstreamSettings,
  query: UpstreamQuery,
  board: UpstreamBoard = isolateBoard,
  background?: (work: Promise<unknown>) => void,
): Promise<UpstreamAnswer> {
  const started = Date.now();
  const deadline = started + config.upstreamBudgetMs;
  const failures: string[] = [];
  let allTimedOut = true;
  let bestBelow: number | null = null;
  /** A -32603 answer, served when no later node answers better. */
  let kept: UpstreamAnswer | null = null;
  const floor = query.floor ?? 0;
  const urls = upstreamUrlsOf(config, query);
  const order = board.order(urls, started);
  board.countMiss(urls);
  const pending: InFlight[] = [];
  let next = 0;
  let attempts = 0;
  let hedged = false;
  // A node out of favour and not asked lately is asked alongside the first, when its request can run on unwaited.
  const explored = background && order.length > 1 ? board.explorer(urls, started) : null;
  if (explored !== null) order.splice(order.indexOf(explored), 1);
  const launch = (url: string) => {
    attempts++;
    const controller = new AbortController();
    const flight = { url, startedAt: Date.now(), controller } as InFlight;
    const timeout = Math.min(config.upstreamTimeoutMs, deadline - Date.now());
    flight.result = attempt(config, board, url, query, timeout, controller).then((a) => ({ flight, attempt: a }));
    pending.push(flight);
  };
  try {
    for (;;) {
      if (pending.length === 0) {
        if (next >= order.length || deadline - Date.now() <= 0) break;
        launch(order[next++]!);
        if (explored !== null && attempts === 1) launch(explored);
      }
      const primary = pending[0]!;
      const waited = () => Date.now() - primary.startedAt;
      // The delay is read again every 150 ms: answers other rounds got meanwhile may have measured the node.
      const hedge =
        !hedged && pending.length === 1 && next < order.length && board.mayHedge(primary.url)
          ? sleep(Math.min(HEDGE_RECHECK_MS, board.hedgeDelay(primary.url) - waited()))
          : null;
      const settled = await Promise.race([...pending.map((f) => f.result), ...(hedge ? [hedge.promise] : [])]);
      hedge?.cancel();
      if (settled === "hedge") {
        if (waited() < board.hedgeDelay(primary.url)) continue;
        hedged = true;
        board.countHedge(primary.url);
        launch(order[next++]!);
        continue;
      }
      const { flight, attempt: result } = settled;
      pending.splice(pending.indexOf(flight), 1);
      // Named by position in UPSTREAM_URLS: the URL itself may be a private provider's.
      const name = `upstream #${urls.indexOf(flight.url) + 1}`;
      if ("failure" in result) {
        failures.push(`${name} ${result.failure}`);
        allTimedOut &&= result.timedOut;
        continue;
      }
      allTimedOut = false;
      const height = result.answer.height;
      if (result.askNext && !board.atTop(flight.url)) {
        kept ??= withSource(result.answer, flight.url, attempts);
        failures.push(`${name} ${result.askNext}`);
      } else if (belowFloor(height, floor)) {
        bestBelow = Math.max(bestBelow ?? 0, height!);
        failures.push(`${name} answered height ${height}`);
      } else return withSource(result.answer, flight.url, attempts);
    }
  } finally {
    // The slower request of a hedged pair is abandoned: its answer is not used, but it runs on to its timeout in the
    // background to be measured (a hang then counts as slow). With nowhere to run on, it stops, measured as slow.
    for (const flight of pending) {
      if (background) background(flight.result);
      else flight.controller.abort(ABANDONED);
    }
  }
  if (kept) return kept;
  const message = failures.join("; ") || "no upstream could be tried";
  if (bestBelow !== null) throw everyNodeBehind(floor, message, bestBelow);
  const budgetSpent = Date.now() >= deadline;
  if (budgetSpent || (allTimedOut && failures.length > 0)) {
    throw gatewayTimeout("UPSTREAM_TIMEOUT", `No upstream answered in time: ${message}`, {
      attempts: String(attempts),
    });
  }
  throw badGateway("UPSTREAM_UNAVAILABLE", `No upstream gave a usable answer: ${message}`, {
    attempts: String(attempts),
  });
}

/** `answer` with the node that gave it (its origin only: a provider's key may be in its path) and the attempts. */
function withSource(answer: UpstreamAnswer, url: string, attempts: number): UpstreamAnswer {
  return { ...answer, upstream: new URL(url).origin, attempts };
}

/**
 * Whether `err` is `askUpstreams`' verdict that no upstream gave an answer (502, or 504 when time ran out): what a
 * stale entry may stand in for.
 */
export function noUpstreamAnswered(err: unknown): err is ApiError {
  return err instanceof ApiError && (err.status === 502 || err.status === 504);
}
