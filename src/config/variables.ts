/**
 * Every configuration variable of the Worker, once: what it means, how it is checked and its
 * default. A variable without a default takes its value from the network profile
 * (`profiles.ts`). `npm run docs` writes wrangler.toml's commented variables and the README's
 * table from this file; `npm run docs -- --check` fails when they drift.
 */
import * as z from "zod/mini";
import { KEYRING_BACKENDS } from "../protocol/index.ts";
import { NETWORK_PROFILES } from "./profiles.ts";

const text = (pattern: RegExp, shape: string) => z.string().check(z.trim(), z.regex(pattern, `must be ${shape}`));
const integer = (min: number, max: number) =>
  z
    .pipe(z.string().check(z.trim(), z.regex(/^\d+$/, `must be an integer from ${min} to ${max}`)), z.transform(Number))
    .check(z.refine((n: number) => n >= min && n <= max, `must be an integer from ${min} to ${max}`));
const onOff = z.enum(["on", "off"], { error: 'must be "on" or "off"' });
const word = text(/^[a-z][a-z0-9]*$/, "lowercase letters and digits, starting with a letter");

/**
 * The local profile's session signing key when none is set: public, so `npm run dev` and the tests
 * need no secret; every other profile refuses it (src/config/index.ts).
 */
export const LOCAL_SESSION_SIGNING_KEY = "local-only-session-signing-key-never-deploy";

/** Durable Object location hints a shield may be placed with. */
export const SHIELD_LOCATION_HINTS = [
  "wnam",
  "enam",
  "sam",
  "weur",
  "eeur",
  "apac",
  "apac-ne",
  "apac-se",
  "oc",
  "afr",
  "me",
] as const;

/**
 * One variable: its check and its default (none: from the profile, or required); its sentence is in variable-docs.ts.
 */
interface Variable {
  readonly schema: z.ZodMiniType<unknown, string>;
  readonly default?: string;
  /** Never printed: a secret (`wrangler secret put`). */
  readonly secret?: true;
}

export const VARIABLES = {
  NETWORK_PROFILE: {
    schema: z.enum(Object.keys(NETWORK_PROFILES) as [keyof typeof NETWORK_PROFILES], {
      error: `must name a profile: ${Object.keys(NETWORK_PROFILES).join(", ")}`,
    }),
  },
  CHAIN_NAMESPACE: {
    schema: word,
  },
  BECH32_PREFIX: { schema: word },
  CHAIN_ID: {
    schema: text(/^[a-zA-Z0-9][a-zA-Z0-9._-]{0,47}$/, "a chain id such as net-testnet-2"),
  },
  WALLET_PATH: {
    schema: text(/^[a-z0-9][a-z0-9-]*$/, "one lowercase path segment"),
  },
  NATIVE_DENOM: {
    schema: text(/^[a-zA-Z][a-zA-Z0-9/:._-]{2,127}$/, "a Cosmos denom"),
  },
  NODE_BINARY: {
    schema: text(/^[a-zA-Z0-9][a-zA-Z0-9._-]*$/, "a program name"),
  },
  WALLET_SCHEME: {
    schema: text(/^[a-z][a-z0-9+.-]*$/, "a URL scheme"),
  },
  WALLET_BRIDGE: {
    schema: text(/^[A-Z][A-Za-z0-9]*$/, "a PascalCase name"),
  },
  NODE_HOME: {
    schema: text(/^\/[A-Za-z0-9._/-]*$/, "an absolute path"),
  },
  NODE_KEYRING_BACKEND: {
    schema: z.enum(KEYRING_BACKENDS, { error: "must be a Cosmos keyring backend" }),
  },
  NODE_CONTAINER: {
    schema: text(/^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,127}$/, "a container name"),
  },
  UPSTREAM_URLS: {
    schema: z.string().check(z.trim(), z.minLength(1, "must name at least one URL")),
  },
  RPC_UPSTREAM_URLS: {
    schema: z.string().check(z.trim()),
    default: "",
  },
  SESSION_TTL_MAX_SECONDS: {
    schema: integer(10, 86_400),
    default: "600",
  },
  SESSION_RETENTION_SECONDS: {
    schema: integer(1, 30 * 86_400),
    default: "3600",
  },
  RATE_LIMITS: {
    schema: onOff,
    default: "on",
  },
  LIVE_SOCKETS_PER_IP: {
    schema: integer(1, 100_000),
    default: "100",
  },
  UPSTREAM_TIMEOUT_MS: {
    schema: integer(50, 60_000),
    default: "4000",
  },
  UPSTREAM_BUDGET_MS: {
    schema: integer(50, 120_000),
    default: "9000",
  },
  UPSTREAM_COOLDOWN_MS: {
    schema: integer(0, 600_000),
    default: "10000",
  },
  CACHE_SWR_SECONDS: {
    schema: integer(0, 86_400),
    default: "60",
  },
  CACHE_STALE_IF_ERROR_SECONDS: {
    schema: integer(0, 7 * 86_400),
    default: "86400",
  },
  CACHE_SHIELD: {
    schema: onOff,
    default: "on",
  },
  CACHE_SHIELD_LOCATION: {
    schema: z.enum(SHIELD_LOCATION_HINTS, {
      error: `must be empty or a location hint: ${SHIELD_LOCATION_HINTS.join(", ")}`,
    }),
    default: "",
  },
  CACHE_SHIELD_WAIT_MS: {
    schema: integer(10, 30_000),
    default: "1000",
  },
  ONBOARDING_TTL: {
    schema: integer(60, 90 * 86_400),
    default: "604800",
  },
  ONBOARDING_CHECK_SECONDS: {
    schema: integer(1, 600),
    default: "6",
  },
  HOST_WEBHOOK_URL: {
    schema: z.string().check(z.trim(), z.url({ error: "must be an absolute URL" })),
    default: "",
  },
  HOST_WEBHOOK_TIMEOUT_MS: {
    schema: integer(100, 10_000),
    default: "10000",
  },
  HOST_API_KEYS: {
    schema: z
      .string()
      .check(
        z.trim(),
        z.regex(
          /^[\x21-\x2b\x2d-\x7e]{32,}(,[\x21-\x2b\x2d-\x7e]{32,})*$/,
          "must be comma-separated keys of at least 32 printable characters each",
        ),
      ),
    default: "",
    secret: true,
  },
  HOST_WEBHOOK_SECRET: {
    schema: z.string().check(z.trim(), z.regex(/^whsec_[A-Za-z0-9+/]+={0,2}$/, "must be whsec_ followed by base64")),
    default: "",
    secret: true,
  },
  SESSION_SIGNING_KEY: {
    schema: z
      .string()
      .check(z.trim(), z.regex(/^[\x21-\x7e]{32,}$/, "must be at least 32 printable characters without spaces")),
    default: "",
    secret: true,
  },
  UPSTREAM_AUTH_HEADER: {
    schema: text(/^[A-Za-z0-9-]+:\s*\S.*$/, 'like "Header-Name: value"'),
    default: "",
    secret: true,
  },
  ACCESS_TEAM_DOMAIN: {
    schema: z
      .string()
      .check(z.trim(), z.url({ error: "must be an absolute URL such as https://team.cloudflareaccess.com" })),
    default: "",
  },
  ACCESS_AUD: {
    schema: text(/^$|^[A-Za-z0-9._-]{1,256}$/, "an Access application's audience tag (letters, digits, . _ -)"),
    default: "",
  },
} as const satisfies Record<string, Variable>;

export type VariableName = keyof typeof VARIABLES;
