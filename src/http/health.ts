/**
 * `GET /api/health`: version, the configuration in force (no secrets) and what each upstream did
 * lately: as this isolate saw it, merged with what every shield saw (the shared health object)
 * when the shield tier is on, and the webhook endpoint's state as its lane sees it. Cheap enough to
 * poll: at most two Durable Object requests, side by side, each answered from memory.
 */
import type { Handler } from "hono";
import { version } from "../../package.json";
import type { AppEnv } from "../app-env";
import type { Config } from "../config";
import { sharedUpstreamHealth } from "../gateway/shield/health-link";
import { UpstreamBoard, type UpstreamState } from "../gateway/upstream-board";
import { upstreamHealth } from "../gateway/upstreams";
import { INDEX_NOT_READY, indexReadiness } from "../onboardings/index/store";

/**
 * `ok` while some upstream is usable; `down` when every one is being skipped after failures.
 * `shared` is the health object's view (null: shield off, or the object did not answer in time).
 */
function healthReport(
  config: Config,
  deployment: WorkerVersionMetadata | undefined,
  shared: UpstreamState[] | null = null,
  now = Date.now(),
  endpoint: WebhookEndpointState | null = null,
) {
  const upstreams = known(config, shared, now).map((state, index) => ({
    // Only the origin: a provider's key may live in the path of an upstream URL.
    upstream: `${index + 1}: ${new URL(state.url).origin}`,
    healthy: state.healthy,
    consecutive_failures: state.consecutiveFailures,
    skipped_until: state.skippedUntil > now ? new Date(state.skippedUntil).toISOString() : null,
    last_status: state.lastStatus,
    last_latency_ms: state.lastLatencyMs,
    last_error: state.lastError,
    last_height: state.lastHeight,
    last_checked_at: state.lastCheckedAt === null ? null : new Date(state.lastCheckedAt).toISOString(),
  }));
  return {
    status: upstreams.some((u) => u.healthy) ? ("ok" as const) : ("down" as const),
    version,
    deployment: deployment
      ? { id: deployment.id, tag: deployment.tag || null, timestamp: deployment.timestamp || null }
      : null,
    config: {
      chain_id: config.chainId,
      namespace: config.namespace,
      bech32_prefix: config.bech32Prefix,
      wallet_path: config.walletPath,
      native_denom: config.nativeDenom,
      session_ttl_max_seconds: config.sessionTtlMaxSeconds,
      session_retention_seconds: config.sessionRetentionSeconds,
      rate_limits: config.rateLimits,
      upstream_timeout_ms: config.upstreamTimeoutMs,
      upstream_budget_ms: config.upstreamBudgetMs,
      upstream_auth_header: config.upstreamAuthHeader ? "set" : "not set",
    },
    // The host handoff: whether it is set up, never a key, a secret or the webhook's path.
    host_handoff: {
      host_api: config.hostApiKeys.length > 0 ? `${config.hostApiKeys.length} key(s) set` : "not set (HOST_API_KEYS)",
      webhook: config.hostWebhook
        ? new URL(config.hostWebhook.url).origin
        : "not set (events kept in each onboarding's log)",
      // The webhook's lane: failing since when, its last error, how many onboardings it holds (null: not reached).
      webhook_endpoint: endpoint,
      onboarding_check_seconds: config.onboardingCheckSeconds,
      onboarding_ttl_seconds: config.onboardingTtlSeconds,
    },
    shield: {
      enabled: config.cacheShield,
      location_hint: config.cacheShieldLocation,
      wait_ms: config.cacheShieldWaitMs,
      // Whether the upstream states below include what every shield saw, or this isolate's alone.
      shared_health: !config.cacheShield ? ("off" as const) : shared ? ("included" as const) : ("unreachable" as const),
    },
    upstreams,
  };
}

/** The webhook endpoint as its lane (durable-objects/onboardings/WebhookLane.ts) sees it. */
interface WebhookEndpointState {
  failing_since: string | null;
  last_error: string | null;
  waiting: number;
}

/** This isolate's view, with the shared one merged in (later observations win). */
function known(config: Config, shared: UpstreamState[] | null, now: number): UpstreamState[] {
  const own = upstreamHealth(config, now);
  if (!shared) return own;
  const board = new UpstreamBoard();
  board.merge(own);
  board.merge(shared);
  return board.snapshot(config.upstreamUrls, now);
}

/**
 * Whether the onboarding index (D1) has every table of its migrations, which the host API's list
 * and feed read; when not, what is missing and the command that creates it. Not part of `status`:
 * the gateway and the pairing work without it.
 */
async function indexHealth(db: D1Database) {
  const readiness = await indexReadiness(db).catch((err: unknown) => ({ ready: false, error: String(err) }));
  return readiness.ready ? { ready: true } : { ...readiness, fix: INDEX_NOT_READY.metadata!.command };
}

/** The `GET /api/health` handler for `config`: 200 while the report says `ok`, 503 otherwise; never cached. */
export function healthRoute(config: Config): Handler<AppEnv> {
  return async (c) => {
    const lanes = c.env.WEBHOOK_LANES;
    const [shared, endpoint, index] = await Promise.all([
      config.cacheShield ? sharedUpstreamHealth(c.env.UPSTREAM_HEALTH, config) : null,
      // The lane answers from memory; one that cannot be reached leaves the endpoint's state unknown.
      config.hostWebhook
        ? lanes
            .get(lanes.idFromName(config.hostWebhook.url))
            .status()
            .catch(() => null)
        : null,
      indexHealth(c.env.ONBOARDING_INDEX),
    ]);
    const report = { ...healthReport(config, c.env.CF_VERSION_METADATA, shared, Date.now(), endpoint), index };
    return c.json(report, report.status === "ok" ? 200 : 503, { "cache-control": "no-store" });
  };
}
