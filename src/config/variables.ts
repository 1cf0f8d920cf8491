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

/** One variable: its check, its default (none: from the profile, or required) and a sentence for people. */
export interface Variable {
  readonly schema: z.ZodMiniType<unknown, string>;
  readonly default?: string;
  readonly doc: string;
  /** Never printed: a secret (`wrangler secret put`). */
  readonly secret?: true;
}

export const VARIABLES = {
  NETWORK_PROFILE: {
    schema: z.enum(Object.keys(NETWORK_PROFILES) as [keyof typeof NETWORK_PROFILES], {
      error: `must name a profile: ${Object.keys(NETWORK_PROFILES).join(", ")}`,
    }),
    doc: "The network served (src/config/profiles.ts); every variable below overrides its profile's value",
  },
  CHAIN_NAMESPACE: {
    schema: word,
    doc: "REST and type-URL namespace of the network's modules: /<ns>/incentives/v1/…, /<ns>.incentives.v1.Msg…",
  },
  BECH32_PREFIX: { schema: word, doc: "Human-readable part of account addresses (bech32)" },
  CHAIN_ID: {
    schema: text(/^[a-zA-Z0-9][a-zA-Z0-9._-]{0,47}$/, "a chain id such as net-testnet-2"),
    doc: "Network id; sessions and sign requests for another chain id are refused",
  },
  WALLET_PATH: {
    schema: text(/^[a-z0-9][a-z0-9-]*$/, "one lowercase path segment"),
    doc: "Session endpoints live under /api/<WALLET_PATH>/sessions",
  },
  NATIVE_DENOM: {
    schema: text(/^[a-zA-Z][a-zA-Z0-9/:._-]{2,127}$/, "a Cosmos denom"),
    doc: "Smallest unit of the native token; amounts are integer strings of it",
  },
  NODE_BINARY: {
    schema: text(/^[a-zA-Z0-9][a-zA-Z0-9._-]*$/, "a program name"),
    doc: "Node binary in the commands the page prints",
  },
  WALLET_SCHEME: {
    schema: text(/^[a-z][a-z0-9+.-]*$/, "a URL scheme"),
    doc: "The wallet app's URL scheme for deep links (<scheme>://connect?p=…)",
  },
  WALLET_BRIDGE: {
    schema: text(/^[A-Z][A-Za-z0-9]*$/, "a PascalCase name"),
    doc: "Stem of the globals the wallet app injects in its web view: window.<stem>Mobile, __<STEM>_IN_APP__, __<STEM>_ACTIVE_ADDRESS__",
  },
  NODE_HOME: {
    schema: text(/^\/[A-Za-z0-9._/-]*$/, "an absolute path"),
    doc: "The node's --home in printed commands (editable on the page)",
  },
  NODE_KEYRING_BACKEND: {
    schema: z.enum(KEYRING_BACKENDS, { error: "must be a Cosmos keyring backend" }),
    doc: "The node's --keyring-backend in printed commands (editable on the page)",
  },
  NODE_CONTAINER: {
    schema: text(/^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,127}$/, "a container name"),
    doc: "Container the node runs in (docker exec), editable on the page",
  },
  UPSTREAM_URLS: {
    schema: z.string().check(z.trim(), z.minLength(1, "must name at least one URL")),
    doc: "Comma-separated LCD (REST) base URLs, tried in order with failover",
  },
  RPC_UPSTREAM_URLS: {
    schema: z.string().check(z.trim()),
    default: "",
    doc: "Comma-separated CometBFT RPC base URLs behind /rpc, tried in order with failover; unset: /rpc answers 503 and asks nothing upstream",
  },
  SESSION_TTL_MAX_SECONDS: {
    schema: integer(10, 86_400),
    default: "600",
    doc: "Longest session life; a create asking for a later expires_at is refused",
  },
  SESSION_RETENTION_SECONDS: {
    schema: integer(1, 30 * 86_400),
    default: "3600",
    doc: "Settled sessions are deleted this long after settling",
  },
  RATE_LIMITS: {
    schema: onOff,
    default: "on",
    doc: '"off" disables the per-client session-create limit (local load tests only)',
  },
  UPSTREAM_TIMEOUT_MS: {
    schema: integer(50, 60_000),
    default: "4000",
    doc: "Milliseconds one upstream attempt may take before the next upstream is tried",
  },
  UPSTREAM_BUDGET_MS: {
    schema: integer(50, 120_000),
    default: "9000",
    doc: "Milliseconds all attempts of one request may take together; past it the answer is 504",
  },
  UPSTREAM_COOLDOWN_MS: {
    schema: integer(0, 600_000),
    default: "10000",
    doc: "Milliseconds an upstream that failed is asked only after the others",
  },
  CACHE_SWR_SECONDS: {
    schema: integer(0, 86_400),
    default: "60",
    doc: "Seconds past its TTL an answer is served while one background refresh replaces it",
  },
  CACHE_STALE_IF_ERROR_SECONDS: {
    schema: integer(0, 7 * 86_400),
    default: "86400",
    doc: "Seconds past its TTL an answer may be served when every upstream fails",
  },
  CACHE_SHIELD: {
    schema: onOff,
    default: "on",
    doc: 'A data-center miss asks the key\'s shield (one Durable Object per key, worldwide) before any upstream; "off" asks the upstreams directly: fewer Durable Object requests, more upstream requests',
  },
  CACHE_SHIELD_LOCATION: {
    schema: z.enum(SHIELD_LOCATION_HINTS, {
      error: `must be empty or a location hint: ${SHIELD_LOCATION_HINTS.join(", ")}`,
    }),
    default: "",
    doc: "Where new shields are placed (a Durable Object location hint, e.g. the upstreams' region); empty: near the first request for each key",
  },
  CACHE_SHIELD_WAIT_MS: {
    schema: integer(10, 30_000),
    default: "1000",
    doc: "Milliseconds the Worker waits for the shield to take a miss; past it, or on any shield fault, the Worker asks the upstreams itself",
  },
  ONBOARDING_TTL: {
    schema: integer(60, 90 * 86_400),
    default: "604800",
    doc: "Seconds an onboarding may take to be applied on the node before it expires",
  },
  ONBOARDING_CHECK_SECONDS: {
    schema: integer(1, 600),
    default: "6",
    doc: "Seconds between the service's reads of the chain while an onboarding waits for it (one block on the network); longer after 30 minutes without change",
  },
  HOST_WEBHOOK_URL: {
    schema: z.string().check(z.trim(), z.url({ error: "must be an absolute URL" })),
    default: "",
    doc: "Where onboarding events are POSTed (https; plain http only on loopback in the local profile); unset: events are kept in each onboarding's log, not sent",
  },
  HOST_WEBHOOK_TIMEOUT_MS: {
    schema: integer(100, 10_000),
    default: "10000",
    doc: "Milliseconds the host's receiver has to answer one delivery attempt with a 2xx (at most 10000: the 10 s the webhook contract promises)",
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
    doc: "Secret: comma-separated bearer keys of the host API (at least 32 characters each; several for rotation); unset: the host API answers 503 naming this variable",
  },
  HOST_WEBHOOK_SECRET: {
    schema: z.string().check(z.trim(), z.regex(/^whsec_[A-Za-z0-9+/]+={0,2}$/, "must be whsec_ followed by base64")),
    default: "",
    secret: true,
    doc: "Secret: the Standard Webhooks signing secret, whsec_ + base64 of 24 to 64 random bytes; required when HOST_WEBHOOK_URL is set",
  },
  SESSION_SIGNING_KEY: {
    schema: z
      .string()
      .check(z.trim(), z.regex(/^[\x21-\x7e]{32,}$/, "must be at least 32 printable characters without spaces")),
    default: "",
    secret: true,
    doc: `Secret: the key the page's session ids are signed with (a session is stored on its first use, not on a page load); at least 32 random characters. Unset, the local profile uses the public key "${LOCAL_SESSION_SIGNING_KEY}", which every other profile refuses; there, unset, the page's first response carries no QR and its script creates the session`,
  },
  UPSTREAM_AUTH_HEADER: {
    schema: text(/^[A-Za-z0-9-]+:\s*\S.*$/, 'like "Header-Name: value"'),
    default: "",
    secret: true,
    doc: 'Secret: a "Header-Name: value" sent to every upstream (a private node provider\'s key)',
  },
} as const satisfies Record<string, Variable>;

export type VariableName = keyof typeof VARIABLES;
