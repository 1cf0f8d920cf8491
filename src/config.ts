/**
 * The one place that reads the Worker's configuration (`wrangler.toml` `[vars]`, `--var`, secrets).
 * Every brand word of the network comes from here; nothing else reads `env` for settings.
 */

/** Public-key types a wallet proof may carry, with their encoded lengths in bytes. */
export const WALLET_KEY_LENGTHS = {
  "ml-dsa-65": 1952,
  secp256k1: 33,
  ed25519: 32,
} as const;
export type WalletKeyType = keyof typeof WALLET_KEY_LENGTHS;

export interface Config {
  /** REST and type-URL namespace of the network's own modules (`chain` in `/chain/incentives/v1`). */
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
  sessionTtlMaxSeconds: number;
  sessionRetentionSeconds: number;
  /** Byte lengths a proof's public key may have, from `WALLET_KEY_TYPES`. */
  walletKeyLengths: ReadonlySet<number>;
  rateLimits: boolean;
  upstreamUrls: readonly string[];
  upstreamTimeoutMs: number;
  upstreamBudgetMs: number;
  /** Optional `Name: value` header sent to every upstream (a private node provider's key). */
  upstreamAuthHeader: readonly [string, string] | null;
  /** How long an upstream that failed is skipped (UPSTREAM_COOLDOWN_MS, default 10000). */
  upstreamCooldownMs: number;
  /** Seconds past its TTL an entry is served while one background refresh runs (CACHE_SWR_SECONDS, default 60). */
  cacheSwrSeconds: number;
  /** Seconds past its TTL an entry may be served when every upstream fails (CACHE_STALE_IF_ERROR_SECONDS, default 86400). */
  cacheStaleIfErrorSeconds: number;
}

/** A configuration value that cannot work; the message names the variable. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/** Settings a deployment may set beyond the generated `Env` (optional vars and secrets). */
type RawEnv = Partial<Record<string, unknown>>;

const memo = new WeakMap<object, Config>();

/** Reads and checks the configuration once per `env` object (once per isolate in production). */
export function readConfig(env: object): Config {
  let config = memo.get(env);
  if (!config) {
    config = parseConfig(env as RawEnv);
    memo.set(env, config);
  }
  return config;
}

const WORD = /^[a-z][a-z0-9]*$/;
const PATH_SEGMENT = /^[a-z0-9][a-z0-9-]*$/;
const CHAIN_ID = /^[a-zA-Z0-9][a-zA-Z0-9._-]{0,47}$/;
const DENOM = /^[a-zA-Z][a-zA-Z0-9/:._-]{2,127}$/;
const BINARY = /^[a-zA-Z0-9][a-zA-Z0-9._-]*$/;
const SCHEME = /^[a-z][a-z0-9+.-]*$/;
/** First path segments the gateway owns; the wallet path may not shadow them. */
const RESERVED_SEGMENTS = ["cosmos", "health", "openapi.json", "config"];

function parseConfig(env: RawEnv): Config {
  const namespace = text(env, "CHAIN_NAMESPACE", "chain", WORD);
  const walletPath = text(env, "WALLET_PATH", "wallet", PATH_SEGMENT);
  if (walletPath === namespace || RESERVED_SEGMENTS.includes(walletPath)) {
    throw new ConfigError(`WALLET_PATH "${walletPath}" collides with a gateway path`);
  }
  const ttlMax = integer(env, "SESSION_TTL_MAX_SECONDS", 600, 10, 86_400);
  return {
    namespace,
    bech32Prefix: text(env, "BECH32_PREFIX", "chain", WORD),
    chainId: text(env, "CHAIN_ID", "chain-devnet-1", CHAIN_ID),
    walletPath,
    nativeDenom: text(env, "NATIVE_DENOM", "uchain", DENOM),
    nodeBinary: text(env, "NODE_BINARY", "chaind", BINARY),
    walletScheme: text(env, "WALLET_SCHEME", "chainwallet", SCHEME),
    sessionTtlMaxSeconds: ttlMax,
    sessionRetentionSeconds: integer(env, "SESSION_RETENTION_SECONDS", 3600, 1, 30 * 86_400),
    walletKeyLengths: keyLengths(text(env, "WALLET_KEY_TYPES", "ml-dsa-65", /^[a-z0-9,\s-]+$/)),
    rateLimits: onOff(env, "RATE_LIMITS", true),
    upstreamUrls: upstreamUrls(text(env, "UPSTREAM_URLS", "http://127.0.0.1:1317", /\S/)),
    upstreamTimeoutMs: integer(env, "UPSTREAM_TIMEOUT_MS", 4000, 50, 60_000),
    upstreamBudgetMs: integer(env, "UPSTREAM_BUDGET_MS", 9000, 50, 120_000),
    upstreamAuthHeader: authHeader(env.UPSTREAM_AUTH_HEADER),
    upstreamCooldownMs: integer(env, "UPSTREAM_COOLDOWN_MS", 10_000, 0, 600_000),
    cacheSwrSeconds: integer(env, "CACHE_SWR_SECONDS", 60, 0, 86_400),
    cacheStaleIfErrorSeconds: integer(env, "CACHE_STALE_IF_ERROR_SECONDS", 86_400, 0, 7 * 86_400),
  };
}

function text(env: RawEnv, name: string, fallback: string, pattern: RegExp): string {
  const raw = env[name];
  const value = typeof raw === "string" && raw.trim() !== "" ? raw.trim() : fallback;
  if (!pattern.test(value)) throw new ConfigError(`${name} "${value}" is not valid`);
  return value;
}

function integer(env: RawEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, not "${String(raw)}"`);
  }
  return value;
}

function onOff(env: RawEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (raw === "on" || raw === true) return true;
  if (raw === "off" || raw === false) return false;
  throw new ConfigError(`${name} must be "on" or "off", not "${String(raw)}"`);
}

function keyLengths(list: string): ReadonlySet<number> {
  const lengths = new Set<number>();
  for (const name of list.split(",").map((s) => s.trim()).filter(Boolean)) {
    if (!(name in WALLET_KEY_LENGTHS)) {
      throw new ConfigError(`WALLET_KEY_TYPES: unknown key type "${name}"; known: ${Object.keys(WALLET_KEY_LENGTHS).join(", ")}`);
    }
    lengths.add(WALLET_KEY_LENGTHS[name as WalletKeyType]);
  }
  if (lengths.size === 0) throw new ConfigError("WALLET_KEY_TYPES names no key type");
  return lengths;
}

function upstreamUrls(list: string): string[] {
  return list
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((raw) => {
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        throw new ConfigError(`UPSTREAM_URLS: "${raw}" is not a URL`);
      }
      if ((url.protocol !== "https:" && url.protocol !== "http:") || url.username || url.password || url.search || url.hash) {
        throw new ConfigError(`UPSTREAM_URLS: "${raw}" must be a plain http(s) base URL without credentials, query or fragment`);
      }
      return url.href.replace(/\/+$/, "");
    });
}

function authHeader(raw: unknown): readonly [string, string] | null {
  if (typeof raw !== "string" || raw.trim() === "") return null;
  const colon = raw.indexOf(":");
  const name = raw.slice(0, colon).trim();
  const value = raw.slice(colon + 1).trim();
  if (colon < 1 || !/^[A-Za-z0-9-]+$/.test(name) || value === "") {
    throw new ConfigError('UPSTREAM_AUTH_HEADER must look like "Header-Name: value"');
  }
  return [name, value];
}
