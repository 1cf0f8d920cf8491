/**
 * `GET /api/health`: version, the configuration in force (no secrets) and what each upstream did
 * lately, as this isolate saw it. Cheap enough to poll: no I/O.
 */
import { version } from "../package.json";
import type { Config } from "./config";
import { upstreamHealth } from "./gateway/upstreams";

/** `ok` while some upstream is usable; `down` when every one is being skipped after failures. */
export function healthReport(config: Config, deployment: WorkerVersionMetadata | undefined, now = Date.now()) {
  const upstreams = upstreamHealth(config, now).map((state, index) => ({
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
    deployment: deployment ? { id: deployment.id, tag: deployment.tag || null, timestamp: deployment.timestamp || null } : null,
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
    upstreams,
  };
}
