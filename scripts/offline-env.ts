/** Environment that keeps wrangler from calling home: no request.cf fetch, no update check, no telemetry. */
export const WRANGLER_OFFLINE_ENV = {
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  WRANGLER_HIDE_BANNER: "true",
  WRANGLER_SEND_METRICS: "false",
  WRANGLER_WRITE_LOGS: "false",
} as const;
