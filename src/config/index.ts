/**
 * The one place that reads the Worker's configuration (`wrangler.toml` `[vars]`, `--var`,
 * secrets): the network profile named by NETWORK_PROFILE, each variable overriding its profile's
 * value, every value checked by `variables.ts`. Nothing else reads `env` for settings.
 */
import * as z from "zod/mini";
import { isHttpsOrLocalLoopback, isLoopbackHost } from "../http/loopback.ts";
import { LOCAL_PROFILE, NETWORK_PROFILES, type ProfileName } from "./profiles.ts";
import { LOCAL_SESSION_SIGNING_KEY, type SHIELD_LOCATION_HINTS, VARIABLES, type VariableName } from "./variables.ts";

export interface Config {
  profile: ProfileName;
  /** REST and type-URL namespace of the network's own modules (`hope` in `/hope/incentives/v1`). */
  namespace: string;
  /** Human-readable part of account addresses. */
  bech32Prefix: string;
  chainId: string;
  /** Session endpoints live under `/api/<walletPath>/sessions`. */
  walletPath: string;
  /** Smallest unit of the native token. */
  nativeDenom: string;
  nodeBinary: string;
  /** Custom URL scheme of the wallet app. */
  walletScheme: string;
  /** Stem of the globals the wallet app injects in its web view (`<stem>Mobile`, `__<STEM>_IN_APP__`). */
  walletBridge: string;
  /** Defaults of the printed node commands: `--home`, `--keyring-backend`, the container. */
  nodeHome: string;
  nodeKeyringBackend: string;
  nodeContainer: string;
  sessionTtlMaxSeconds: number;
  sessionRetentionSeconds: number;
  rateLimits: boolean;
  /** Live sockets one client IP may hold at once (with rateLimits on). */
  liveSocketsPerIp: number;
  upstreamUrls: readonly string[];
  /** CometBFT RPC nodes behind `/rpc`; empty: the RPC face answers 503. */
  rpcUpstreamUrls: readonly string[];
  upstreamTimeoutMs: number;
  upstreamBudgetMs: number;
  /** Optional `Name: value` header sent to every upstream (a private node provider's key). */
  upstreamAuthHeader: readonly [string, string] | null;
  upstreamCooldownMs: number;
  cacheSwrSeconds: number;
  cacheStaleIfErrorSeconds: number;
  /** Data-center misses go through the key's shield Durable Object. */
  cacheShield: boolean;
  /** Location hint for new shields; null places each near the first request for its key. */
  cacheShieldLocation: (typeof SHIELD_LOCATION_HINTS)[number] | null;
  /** Milliseconds to wait for the shield to take a miss before asking the upstreams directly. */
  cacheShieldWaitMs: number;
  /** Bearer keys of the host API; empty: the host API is not configured. */
  hostApiKeys: readonly string[];
  /** Where and how onboarding events are sent; null: kept in each onboarding's log only. */
  hostWebhook: HostWebhook | null;
  onboardingTtlSeconds: number;
  onboardingCheckSeconds: number;
  /**
   * What the page's session ids are signed with (`SESSION_SIGNING_KEY`, or the local profile's
   * public key); null: none, so the page's document carries no session and no id is signed.
   */
  sessionSigningKey: string | null;
  /** Cloudflare Access in front of the dashboard (its team's origin, the application's audience); null: key sign-in. */
  access: AccessSettings | null;
}

/** Where the dashboard's Access JWTs come from and whom they must be for. */
export interface AccessSettings {
  /** The team's origin: the JWTs' issuer, its keys at `<origin>/cdn-cgi/access/certs`. */
  teamDomain: string;
  audience: string;
}

/** A host's webhook endpoint and the key its events are signed with (Standard Webhooks). */
export interface HostWebhook {
  url: string;
  /** The secret's bytes: the base64 after `whsec_`, decoded. */
  secret: Uint8Array;
  /** How long the receiver has to answer one attempt (HOST_WEBHOOK_TIMEOUT_MS). */
  timeoutMs: number;
}

/** A configuration that cannot work; the message names the variable and what it must be. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

const memo = new WeakMap<object, Config>();

/** Reads and checks the configuration once per `env` object (once per isolate in production). */
export function readConfig(env: object): Config {
  let config = memo.get(env);
  if (!config) {
    config = parseConfig(env as Partial<Record<string, unknown>>);
    memo.set(env, config);
  }
  return config;
}

/** First path segments the Worker owns under /api; the wallet path may not shadow them. */
const RESERVED_SEGMENTS = ["cosmos", "health", "openapi.json", "config", "onboardings", "onboarding-pages", "overview"];

function parseConfig(env: Partial<Record<string, unknown>>): Config {
  const profile = value(env, null, "NETWORK_PROFILE");
  const get = <N extends VariableName>(name: N) => value(env, profile, name);
  const walletPath = get("WALLET_PATH");
  const namespace = get("CHAIN_NAMESPACE");
  if (walletPath === namespace || RESERVED_SEGMENTS.includes(walletPath)) {
    throw new ConfigError(`WALLET_PATH "${walletPath}" collides with a gateway path`);
  }
  const upstreamUrls = parseUpstreamUrls(get("UPSTREAM_URLS"), "UPSTREAM_URLS");
  const rpcUpstreamUrls = parseUpstreamUrls(get("RPC_UPSTREAM_URLS"), "RPC_UPSTREAM_URLS");
  if (profile !== LOCAL_PROFILE && upstreamUrls.some(isLoopbackUrl)) {
    throw new ConfigError(
      `UPSTREAM_URLS names a loopback address, which only the ${LOCAL_PROFILE} profile may use; set this ` +
        `environment's nodes (NETWORK_PROFILE is "${profile}")`,
    );
  }
  if (profile !== LOCAL_PROFILE && rpcUpstreamUrls.some(isLoopbackUrl)) {
    throw new ConfigError(
      `RPC_UPSTREAM_URLS names a loopback address, which only the ${LOCAL_PROFILE} profile may use`,
    );
  }
  const authHeader = get("UPSTREAM_AUTH_HEADER");
  const hostApiKeys = get("HOST_API_KEYS");
  return {
    profile,
    namespace,
    bech32Prefix: get("BECH32_PREFIX"),
    chainId: get("CHAIN_ID"),
    walletPath,
    nativeDenom: get("NATIVE_DENOM"),
    nodeBinary: get("NODE_BINARY"),
    walletScheme: get("WALLET_SCHEME"),
    walletBridge: get("WALLET_BRIDGE"),
    nodeHome: get("NODE_HOME"),
    nodeKeyringBackend: get("NODE_KEYRING_BACKEND"),
    nodeContainer: get("NODE_CONTAINER"),
    sessionTtlMaxSeconds: get("SESSION_TTL_MAX_SECONDS"),
    sessionRetentionSeconds: get("SESSION_RETENTION_SECONDS"),
    rateLimits: get("RATE_LIMITS") === "on",
    liveSocketsPerIp: get("LIVE_SOCKETS_PER_IP"),
    upstreamUrls,
    rpcUpstreamUrls,
    upstreamTimeoutMs: get("UPSTREAM_TIMEOUT_MS"),
    upstreamBudgetMs: get("UPSTREAM_BUDGET_MS"),
    upstreamAuthHeader: authHeader === "" ? null : splitHeader(authHeader),
    upstreamCooldownMs: get("UPSTREAM_COOLDOWN_MS"),
    cacheSwrSeconds: get("CACHE_SWR_SECONDS"),
    cacheStaleIfErrorSeconds: get("CACHE_STALE_IF_ERROR_SECONDS"),
    cacheShield: get("CACHE_SHIELD") === "on",
    cacheShieldLocation: get("CACHE_SHIELD_LOCATION") || null,
    cacheShieldWaitMs: get("CACHE_SHIELD_WAIT_MS"),
    hostApiKeys: hostApiKeys === "" ? [] : hostApiKeys.split(","),
    hostWebhook: parseHostWebhook(
      get("HOST_WEBHOOK_URL"),
      get("HOST_WEBHOOK_SECRET"),
      profile,
      get("HOST_WEBHOOK_TIMEOUT_MS"),
    ),
    onboardingTtlSeconds: get("ONBOARDING_TTL"),
    onboardingCheckSeconds: get("ONBOARDING_CHECK_SECONDS"),
    sessionSigningKey: sessionSigningKey(get("SESSION_SIGNING_KEY"), profile),
    access: parseAccess(get("ACCESS_TEAM_DOMAIN"), get("ACCESS_AUD"), profile),
  };
}

/**
 * The key session ids are signed with: the local profile may use the public one; any other uses
 * its own or none (its page then creates its first session from the script) and refuses the public one.
 */
function sessionSigningKey(key: string, profile: ProfileName): string | null {
  if (profile === LOCAL_PROFILE) return key || LOCAL_SESSION_SIGNING_KEY;
  if (key === LOCAL_SESSION_SIGNING_KEY) {
    throw new ConfigError(
      `SESSION_SIGNING_KEY (secret) is the local profile's public key, which the "${profile}" profile refuses: set ` +
        `a secret of its own (npx wrangler secret put SESSION_SIGNING_KEY --env <environment>; at least 32 random ` +
        "characters)",
    );
  }
  return key || null;
}

/** Access for the dashboard: both variables or neither; the team domain https (loopback http in the local profile). */
function parseAccess(domain: string, audience: string, profile: ProfileName): AccessSettings | null {
  if (domain === "" && audience === "") return null;
  if (domain === "" || audience === "")
    throw new ConfigError(
      "ACCESS_TEAM_DOMAIN and ACCESS_AUD are set together (the team's domain and the application's AUD)",
    );
  const url = new URL(domain);
  if (!isHttpsOrLocalLoopback(url, profile === LOCAL_PROFILE) || url.pathname !== "/" || url.search || url.username)
    throw new ConfigError(
      `ACCESS_TEAM_DOMAIN must be an https origin such as https://team.cloudflareaccess.com (plain http only on a ` +
        `loopback address in the ${LOCAL_PROFILE} profile)`,
    );
  return { teamDomain: url.origin, audience };
}

/**
 * The webhook endpoint: https (plain http only on loopback in the local profile), signed with a Standard Webhooks
 * secret.
 */
function parseHostWebhook(
  urlText: string,
  secretText: string,
  profile: ProfileName,
  timeoutMs: number,
): HostWebhook | null {
  if (urlText === "") return null;
  const url = new URL(urlText);
  if (!isHttpsOrLocalLoopback(url, profile === LOCAL_PROFILE)) {
    throw new ConfigError(
      `HOST_WEBHOOK_URL must use https (plain http only on a loopback address in the ${LOCAL_PROFILE} profile)`,
    );
  }
  if (url.username || url.password) throw new ConfigError("HOST_WEBHOOK_URL must not carry credentials");
  if (secretText === "")
    throw new ConfigError(
      "HOST_WEBHOOK_SECRET is not set, but HOST_WEBHOOK_URL is: events must be signed (whsec_ + base64 of 24 to 64 " +
        "random bytes)",
    );
  let secret: Uint8Array;
  try {
    secret = Uint8Array.from(atob(secretText.slice("whsec_".length)), (c) => c.charCodeAt(0));
  } catch {
    throw new ConfigError("HOST_WEBHOOK_SECRET (secret) is not valid base64 after whsec_");
  }
  if (secret.length < 24 || secret.length > 64) {
    throw new ConfigError(
      `HOST_WEBHOOK_SECRET (secret) holds ${secret.length} bytes; it must hold 24 to 64 random bytes`,
    );
  }
  return { url: url.href, secret, timeoutMs };
}

type Parsed<N extends VariableName> = z.output<(typeof VARIABLES)[N]["schema"]>;

/** The variable's value: set in `env`, else the profile's, else its default; checked by its schema. */
function value<N extends VariableName>(
  env: Partial<Record<string, unknown>>,
  profile: ProfileName | null,
  name: N,
): Parsed<N> {
  const variable = VARIABLES[name];
  const raw = env[name];
  const set = typeof raw === "string" && raw.trim() !== "" ? raw : undefined;
  const fromProfile =
    profile === null ? undefined : (NETWORK_PROFILES[profile].vars as Partial<Record<string, string>>)[name];
  const chosen = set ?? fromProfile ?? ("default" in variable ? variable.default : undefined);
  if (chosen === undefined) {
    throw new ConfigError(
      profile === null
        ? `${name} is not set: this environment names no network. Set it in wrangler.toml ([vars] or ` +
            `[env.<name>.vars]) to one of ${Object.keys(NETWORK_PROFILES).join(", ")}`
        : `${name} is not set, and the "${profile}" profile has no value for it (README.md's configuration table ` +
            `says what it is)`,
    );
  }
  if (chosen === "" && "default" in variable && variable.default === "") return "" as Parsed<N>;
  const result = z.safeParse(variable.schema, chosen);
  if (!result.success) {
    const shown = "secret" in variable ? "(secret)" : JSON.stringify(chosen);
    throw new ConfigError(`${name} ${shown} ${result.error.issues[0]!.message}`);
  }
  return result.data as Parsed<N>;
}

function parseUpstreamUrls(list: string, name: string): string[] {
  return list
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((raw) => {
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        throw new ConfigError(`${name}: "${raw}" is not a URL`);
      }
      if (
        (url.protocol !== "https:" && url.protocol !== "http:") ||
        url.username ||
        url.password ||
        url.search ||
        url.hash
      ) {
        throw new ConfigError(
          `${name}: "${raw}" must be a plain http(s) base URL without credentials, query or fragment`,
        );
      }
      return url.href.replace(/\/+$/, "");
    });
}

function isLoopbackUrl(url: string): boolean {
  return isLoopbackHost(new URL(url).hostname);
}

function splitHeader(raw: string): readonly [string, string] {
  const colon = raw.indexOf(":");
  return [raw.slice(0, colon).trim(), raw.slice(colon + 1).trim()];
}
