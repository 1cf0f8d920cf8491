/**
 * The simulated world: the REAL classes of durable-objects/, all nine (Onboarding, WebhookLane,
 * ChainFollower, PairingSession, IdempotencyKey, QueryShield, UpstreamHealth, LiveFeed, LiveShard)
 * in their namespaces, the deployment's variables with every binding production has as their
 * `env` (a name the world does not bind fails the run), D1, the receiver, the chain and its RPC
 * nodes. What the invariants need is observed from outside: the states the objects store, the
 * receipts at the receiver, the frames the subscribers get, the answers callers get, never from a
 * copy of the objects' code.
 */
import { env as suiteEnv } from "cloudflare:workers";
import { QueryShield } from "../../durable-objects/gateway/QueryShield";
import { UpstreamHealth } from "../../durable-objects/gateway/UpstreamHealth";
import { LiveFeed } from "../../durable-objects/live/LiveFeed";
import { LiveShard } from "../../durable-objects/live/LiveShard";
import { VARIABLES } from "../../src/config/variables";
import { ChainFollower } from "../../durable-objects/onboardings/ChainFollower";
import { IdempotencyKey } from "../../durable-objects/onboardings/IdempotencyKey";
import { Onboarding } from "../../durable-objects/onboardings/Onboarding";
import { PairingSession } from "../../durable-objects/sessions/PairingSession";
import { WebhookLane } from "../../durable-objects/onboardings/WebhookLane";
import type { FollowerCursor } from "../../src/chain-follower/machine";
import type { OnboardingState } from "../../src/onboardings/state";
import type { LaneState } from "../../src/webhooks/lane";
import { SimNamespace } from "./bindings";
import { type FaultPlan, clock } from "./faults";
import type { Kernel } from "./kernel";
import { type PlatformHooks, SimObject } from "./platform";
import { NODE_URLS, RECEIVER_URL, SimChain, SimReceiver } from "./services";
import { type Migration, SimD1 } from "./sim-d1";
import type { LiveFaults } from "./live-faults";
import { RPC_NODE_URLS, SimNode } from "./sim-node";

/** The deployment the world runs (the customers act within minutes: a short life keeps each run short). */
const DEPLOYMENT = {
  ONBOARDING_CHECK_SECONDS: "6",
  ONBOARDING_TTL: "600",
  HOST_WEBHOOK_URL: RECEIVER_URL,
  HOST_WEBHOOK_TIMEOUT_MS: "10000",
  UPSTREAM_URLS: NODE_URLS.join(","),
  UPSTREAM_TIMEOUT_MS: "2000",
  UPSTREAM_BUDGET_MS: "5000",
  RPC_UPSTREAM_URLS: RPC_NODE_URLS.join(","),
} as const;

/** A rate-limit binding on the world's clock: `limit` answers within its period's budget per key. */
class SimRateLimiter {
  private readonly used = new Map<string, number>();
  constructor(
    private readonly kernel: Kernel,
    private readonly limitPerPeriod: number,
    private readonly periodMs: number,
  ) {}
  async limit({ key }: { key: string }): Promise<{ success: boolean }> {
    const slot = `${Math.floor(this.kernel.now / this.periodMs)}|${key}`;
    const n = (this.used.get(slot) ?? 0) + 1;
    this.used.set(slot, n);
    return { success: n <= this.limitPerPeriod };
  }
}

/**
 * The bindings of wrangler.toml a run gives the objects, by kind; `env.<name>` of any other name that is not a
 * variable of src/config/variables.ts fails the run (the world lacks a binding production has).
 */
const BINDINGS = [
  "ONBOARDING_INDEX",
  "SESSION_CREATE_LIMITER",
  "DASHBOARD_SIGN_IN_LIMITER",
  "LIVE_OPEN_LIMITER",
  "GATEWAY_METRICS",
  "ASSETS",
  "CF_VERSION_METADATA",
  "PAIRING_SESSIONS",
  "QUERY_SHIELDS",
  "UPSTREAM_HEALTH",
  "ONBOARDINGS",
  "IDEMPOTENCY_KEYS",
  "WEBHOOK_LANES",
  "CHAIN_FOLLOWERS",
  "LIVE_FEEDS",
  "LIVE_SHARDS",
] as const;

/** The live objects' names: the feed's is the chain id, a shard's `<chain id>:<n>`. */
const isLive = (object: SimObject) => object.kind === "feed" || object.kind === "shard";

/** The suite's variables the world does not set itself: the ones the runtime tests run with. */
function suiteVars(): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const [name, value] of Object.entries(suiteEnv as unknown as Record<string, unknown>))
    if (typeof value === "string") vars[name] = value;
  return vars;
}

/** Lines kept per subject (an onboarding, the lane, the follower): the first ones, and the last. */
const TRACE_FIRST = 400;
const TRACE_LINES = 1000;

/** The SQLite the sweep runs on (a Durable Object's storage) and the index's migrations. */
export interface IndexHost {
  sql: SqlStorage;
  transactionSync: <T>(run: () => T) => T;
  migrations: readonly Migration[];
}

export class World implements PlatformHooks {
  readonly receiver: SimReceiver;
  readonly chain: SimChain;
  readonly d1: SimD1;
  readonly env: Env;
  readonly onboardings: SimNamespace;
  readonly lanes: SimNamespace;
  readonly followers: SimNamespace;
  readonly sessions: SimNamespace;
  readonly keys: SimNamespace;
  readonly shields: SimNamespace;
  readonly health: SimNamespace;
  readonly feeds: SimNamespace;
  readonly shards: SimNamespace;
  /** The CometBFT RPC nodes, in RPC_UPSTREAM_URLS order. */
  readonly nodes: SimNode[];
  /** Warnings logged, by event (the world's weather). */
  readonly warnings = new Map<string, number>();
  /** Every state each onboarding stored, the last one kept (erased ones too). */
  readonly lastState = new Map<string, OnboardingState>();
  /** Alarm runs per pairing session (its tells retried). */
  readonly sessionWakes = new Map<string, number[]>();
  /** Alarm runs per onboarding. */
  readonly wakes = new Map<string, number[]>();
  readonly errors: string[] = [];
  /** When each event first came back undelivered (a failed attempt, or held without one), since its last resend. */
  readonly firstTrouble = new Map<string, number>();
  /** When the lane went into an outage, each time. */
  readonly laneOutages: number[] = [];
  private readonly lines = new Map<string, [number, string][]>();

  constructor(
    readonly kernel: Kernel,
    readonly start: number,
    readonly faults: FaultPlan,
    index: IndexHost,
    readonly live: LiveFaults,
  ) {
    this.receiver = new SimReceiver(kernel, faults);
    this.chain = new SimChain(kernel, start, faults, String(suiteVars().CHAIN_NAMESPACE ?? "hope"));
    this.d1 = new SimD1(index.sql, index.transactionSync, kernel, faults);
    this.d1.reset(index.migrations);
    const env = () => this.env;
    const ns = (
      Class: ConstructorParameters<typeof SimObject>[2],
      background = false,
      unreachable?: () => boolean,
      weather?: ConstructorParameters<typeof SimNamespace>[4],
      kind?: string,
    ) =>
      new SimNamespace(
        kernel,
        (name) => new SimObject(kernel, this, Class, env, name, background, kind),
        unreachable,
        undefined,
        weather,
      );
    // While hints are shuffled, each hint also arrives once or twice more, up to 3 s later.
    const hintCopies = (method: string) =>
      method === "chainHint" && faults.hintsShuffled(kernel.now) ? kernel.random.int(1, 2) : 0;
    this.onboardings = new SimNamespace(
      kernel,
      (name) => new SimObject(kernel, this, Onboarding, env, name),
      // In its windows a pairing session's tell is lost: the session must try again, backing off.
      (caller) => faults.tellsLost(kernel.now) && (caller?.name.startsWith("cs_") ?? false),
      hintCopies,
    );
    this.lanes = ns(WebhookLane);
    this.followers = ns(ChainFollower, true, () => faults.followerUnreachable(kernel.now), undefined, "follower");
    this.sessions = ns(PairingSession);
    this.keys = ns(IdempotencyKey);
    this.shields = ns(QueryShield);
    this.health = ns(UpstreamHealth);
    // A shard's join or leave fails in the feed's refusal windows; a delivery to a shard is rejected or slow in theirs.
    const feedWeather = (method: string) =>
      (method === "join" || method === "leave") && live.feedRefuses(kernel.now)
        ? { refuse: "the live feed could not be reached (simulated)" }
        : {};
    this.feeds = ns(LiveFeed, false, undefined, feedWeather, "feed");
    this.shards = ns(
      LiveShard,
      false,
      undefined,
      (method) => {
        if (method !== "deliver" && method !== "cancelAll") return {};
        if (live.deliveryRejected(kernel.now)) return { refuse: "the delivery was rejected (simulated overload)" };
        const slowMs = live.deliverySlowMs(kernel.now);
        return slowMs > 0 ? { slowMs } : {};
      },
      "shard",
    );
    const chainId = String(suiteVars().CHAIN_ID ?? "");
    this.nodes = RPC_NODE_URLS.map(
      (_, i) => new SimNode(kernel, this.chain, live, i, chainId, (line) => this.trace(line)),
    );
    const bound: Record<(typeof BINDINGS)[number], unknown> = {
      ONBOARDING_INDEX: this.d1,
      SESSION_CREATE_LIMITER: new SimRateLimiter(kernel, 30, 60_000),
      DASHBOARD_SIGN_IN_LIMITER: new SimRateLimiter(kernel, 10, 60_000),
      LIVE_OPEN_LIMITER: new SimRateLimiter(kernel, 120, 60_000),
      // Workers Analytics Engine takes points without an answer: nothing of the run depends on them.
      GATEWAY_METRICS: { writeDataPoint: () => undefined },
      ASSETS: { fetch: async () => new Response("not found", { status: 404 }) },
      CF_VERSION_METADATA: { id: "simulation", tag: "simulation", timestamp: new Date(start).toISOString() },
      PAIRING_SESSIONS: this.sessions,
      QUERY_SHIELDS: this.shields,
      UPSTREAM_HEALTH: this.health,
      ONBOARDINGS: this.onboardings,
      IDEMPOTENCY_KEYS: this.keys,
      WEBHOOK_LANES: this.lanes,
      CHAIN_FOLLOWERS: this.followers,
      LIVE_FEEDS: this.feeds,
      LIVE_SHARDS: this.shards,
    };
    const values: Record<string, unknown> = { ...suiteVars(), ...DEPLOYMENT, ...bound };
    const variables = new Set(Object.keys(VARIABLES));
    this.env = new Proxy(values, {
      get: (target, name) => {
        if (typeof name !== "string" || name in target || variables.has(name)) return target[name as string];
        if (name === "then" || name === "toJSON") return undefined;
        this.errors.push(`env.${name} was read: the world binds no such name (a binding production has is missing)`);
        return undefined;
      },
    }) as unknown as Env;
  }

  /** The lane of the deployment's webhook, and the network's follower. */
  get lane(): SimObject {
    return this.lanes.object(RECEIVER_URL);
  }

  get follower(): SimObject {
    return this.followers.object(String((this.env as unknown as Record<string, string>).CHAIN_ID));
  }

  /** An onboarding's state as stored now (null once erased). */
  stored(id: string): OnboardingState | null {
    return (this.onboardings.objects.get(id)?.storage.get("state") as OnboardingState | undefined) ?? null;
  }

  laneState(): LaneState | null {
    return (this.lane.storage.get("lane") as LaneState | undefined) ?? null;
  }

  /** What an object stored (called by its simulated storage after each write, with copies). */
  observe(object: SimObject, key: string, value: unknown): void {
    if (object.kind === "follower" && key === "cursor" && value) this.onFollowerCursor(value as FollowerCursor);
    // The feed's registry and a shard's joined flag, as they are stored (a live trace's story); heights are too many.
    if ((object.kind === "feed" || object.kind === "shard") && !/height/i.test(key))
      this.trace(`${object.kind} ${object.name} stores ${key}: ${JSON.stringify(value ?? null).slice(0, 160)}`);
    if (object.name.startsWith("ob_") && key === "state" && value) this.observeOnboarding(value as OnboardingState);
    if (object === this.lane && key === "lane") {
      const lane = value as LaneState;
      const before = this.lastLane;
      this.lastLane = lane;
      if (before?.failing_since == null && lane.failing_since !== null) {
        this.laneOutages.push(this.kernel.now);
        this.trace(`lane failing: ${lane.last_error ?? "?"}`);
      }
      if (before?.failing_since != null && lane.failing_since === null) this.trace("lane answering again");
    }
  }

  private lastLane: LaneState | null = null;
  /** Told of each cursor the follower stores (the live invariants watch its head). */
  onFollowerCursor: (cursor: FollowerCursor) => void = () => {};

  private observeOnboarding(state: OnboardingState): void {
    const id = state.record.id;
    const before = this.lastState.get(id);
    this.lastState.set(id, state);
    if (before?.record.status !== state.record.status)
      this.trace(`${id} is ${state.record.status} (version ${state.version})`);
    let blockedSince = Infinity;
    for (const event of state.events) {
      const was = before?.events.find((e) => e.id === event.id);
      if (was?.failed_at && event.failed_at === null) {
        this.firstTrouble.delete(event.id);
        this.resentAt.set(event.id, this.kernel.now);
        this.trace(`${id} ${event.type} resent`);
      }
      const n = event.attempts.length;
      if (n > (was?.attempts.length ?? 0)) {
        const a = event.attempts[n - 1]!;
        this.trace(`${id} ${event.type}: ${"status" in a ? `answered ${a.status}` : a.error}`);
      }
      if (event.held && !was?.held) this.trace(`${id} ${event.type}: held by the lane`);
      if (event.failed_at && !was?.failed_at) {
        this.trace(`${id} ${event.type}: given up`);
        if (!this.firstGivenUp.has(event.id)) this.firstGivenUp.set(event.id, this.kernel.now);
        this.firstGivenUpFrom.set(event.id, this.firstTrouble.get(event.id) ?? this.kernel.now);
      }
      if (event.failed_at !== null)
        blockedSince = Math.min(blockedSince, this.firstGivenUpFrom.get(event.id) ?? Infinity);
      if (event.delivered_at !== null || event.failed_at !== null) continue;
      // Its trouble began at its first failed attempt (when it started) or its first hold, since its last resend.
      const since = this.resentAt.get(event.id) ?? -Infinity;
      const failed = event.attempts.filter((a) => !("status" in a && a.status >= 200 && a.status < 300));
      const times = [
        ...failed.map((a) => Date.parse(a.at)).filter((t) => t >= since),
        ...(event.held ? [this.kernel.now] : []),
      ];
      // Held behind an earlier event in trouble, it was in trouble too (from its writing at the earliest).
      if (blockedSince < Infinity) times.push(Math.max(Date.parse(event.created_at), blockedSince));
      if (times.length > 0)
        this.firstTrouble.set(event.id, Math.min(this.firstTrouble.get(event.id) ?? Infinity, ...times));
      blockedSince = Math.min(blockedSince, this.firstTrouble.get(event.id) ?? Infinity);
    }
  }

  private readonly resentAt = new Map<string, number>();
  /** The trouble a given-up event was given up from (the next one was held behind it since). */
  private readonly firstGivenUpFrom = new Map<string, number>();
  /** When each event was first given up (a resend may clear the mark later). */
  readonly firstGivenUp = new Map<string, number>();

  // PlatformHooks

  /** A line of the trace, kept under its first word (the onboarding, `lane`, `follower`, a session). */
  trace(line: string): void {
    const subject = line.slice(0, line.indexOf(" "));
    let lines = this.lines.get(subject);
    if (!lines) this.lines.set(subject, (lines = []));
    lines.push([this.kernel.now, line]);
    if (lines.length > TRACE_FIRST + 2 * TRACE_LINES) lines.splice(TRACE_FIRST, TRACE_LINES);
  }

  /** The trace of `subjects`, in time order. */
  traceOf(subjects: readonly string[]): string[] {
    const picked = subjects.flatMap((s) => this.lines.get(s) ?? []);
    return picked.sort((a, b) => a[0] - b[0]).map(([t, line]) => `${clock(t - this.start)} ${line}`);
  }

  at(time: number | null): string {
    return time === null ? "never" : clock(time - this.start);
  }

  touched(object: SimObject): void {
    const rate = isLive(object) ? this.live.evictionRate(this.kernel.now) : this.faults.evictionRate(this.kernel.now);
    if (rate > 0 && this.kernel.random.chance(rate)) this.kernel.at(this.kernel.now, () => object.evict("fault"));
  }

  alarmed(object: SimObject): void {
    if (object.name.startsWith("cs_")) {
      const times = this.sessionWakes.get(object.name) ?? [];
      times.push(this.kernel.now);
      this.sessionWakes.set(object.name, times);
    }
    if (!object.name.startsWith("ob_")) return;
    const times = this.wakes.get(object.name) ?? [];
    times.push(this.kernel.now);
    this.wakes.set(object.name, times);
  }

  threw(object: SimObject, where: string, error: unknown): void {
    const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
    const line = `${object.name} threw in ${where}: ${detail}`;
    this.errors.push(line);
    this.trace(line);
  }
}
