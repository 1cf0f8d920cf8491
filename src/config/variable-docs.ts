/**
 * A sentence for people about every configuration variable of src/config/variables.ts, for the
 * README's table and wrangler.toml's comments (`npm run docs`). Kept apart from the variables so
 * that the Worker's bundle carries none of this prose.
 */
import { LOCAL_SESSION_SIGNING_KEY, type VariableName } from "./variables.ts";

export const VARIABLE_DOCS = {
  NETWORK_PROFILE: "The network served (src/config/profiles.ts); every variable below overrides its profile's value",
  CHAIN_NAMESPACE:
    "REST and type-URL namespace of the network's modules: /<ns>/incentives/v1/…, /<ns>.incentives.v1.Msg…",
  BECH32_PREFIX: "Human-readable part of account addresses (bech32)",
  CHAIN_ID: "Network id; sessions and sign requests for another chain id are refused",
  WALLET_PATH: "Session endpoints live under /api/<WALLET_PATH>/sessions",
  NATIVE_DENOM: "Smallest unit of the native token; amounts are integer strings of it",
  NODE_BINARY: "Node binary in the commands the page prints",
  WALLET_SCHEME: "The wallet app's URL scheme for deep links (<scheme>://connect?p=…)",
  WALLET_BRIDGE:
    "Stem of the globals the wallet app injects in its web view: window.<stem>Mobile, __<STEM>_IN_APP__, " +
    "__<STEM>_ACTIVE_ADDRESS__",
  NODE_HOME: "The node's --home in printed commands (editable on the page)",
  NODE_KEYRING_BACKEND: "The node's --keyring-backend in printed commands (editable on the page)",
  NODE_CONTAINER: "Container the node runs in (docker exec), editable on the page",
  UPSTREAM_URLS: "Comma-separated LCD (REST) base URLs, asked by score (this order breaks ties) with failover",
  RPC_UPSTREAM_URLS:
    "Comma-separated CometBFT RPC base URLs behind /rpc, asked by score (this order breaks ties) with failover; " +
    "unset: /rpc answers 503 and asks nothing upstream",
  SESSION_TTL_MAX_SECONDS: "Longest session life; a create asking for a later expires_at is refused",
  SESSION_RETENTION_SECONDS: "Settled sessions are deleted this long after settling",
  RATE_LIMITS: '"off" disables the per-client session-create limit (local load tests only)',
  UPSTREAM_TIMEOUT_MS: "Milliseconds one upstream attempt may take before the next upstream is tried",
  UPSTREAM_BUDGET_MS: "Milliseconds all attempts of one request may take together; past it the answer is 504",
  UPSTREAM_COOLDOWN_MS: "Milliseconds an upstream that failed is asked only after the others",
  CACHE_SWR_SECONDS: "Seconds past its TTL an answer is served while one background refresh replaces it",
  CACHE_STALE_IF_ERROR_SECONDS: "Seconds past its TTL an answer may be served when every upstream fails",
  CACHE_SHIELD:
    'A data-center miss asks the key\'s shield (one Durable Object per key, worldwide) before any upstream; "off" ' +
    "asks the upstreams directly: fewer Durable Object requests, more upstream requests",
  CACHE_SHIELD_LOCATION:
    "Where new shields are placed (a Durable Object location hint, e.g. the upstreams' region); empty: near the " +
    "first request for each key",
  CACHE_SHIELD_WAIT_MS:
    "Milliseconds the Worker waits for the shield to take a miss; past it, or on any shield fault, the Worker asks " +
    "the upstreams itself",
  ONBOARDING_TTL: "Seconds an onboarding may take to be applied on the node before it expires",
  ONBOARDING_CHECK_SECONDS:
    "Seconds between the service's reads of the chain while an onboarding waits for it (one block on the network); " +
    "longer after 30 minutes without change",
  HOST_WEBHOOK_URL:
    "Where onboarding events are POSTed (https; plain http only on loopback in the local profile); unset: events " +
    "are kept in each onboarding's log, not sent",
  HOST_WEBHOOK_TIMEOUT_MS:
    "Milliseconds the host's receiver has to answer one delivery attempt with a 2xx (at most 10000: the 10 s the " +
    "webhook contract promises)",
  HOST_API_KEYS:
    "Secret: comma-separated bearer keys of the host API (at least 32 characters each; several for rotation); " +
    "unset: the host API answers 503 naming this variable",
  HOST_WEBHOOK_SECRET:
    "Secret: the Standard Webhooks signing secret, whsec_ + base64 of 24 to 64 random bytes; required when " +
    "HOST_WEBHOOK_URL is set",
  SESSION_SIGNING_KEY:
    `Secret: the key the page's session ids are signed with (a session is stored on its first ` +
    `use, not on a page load); at least 32 random characters. Unset, the local profile uses the public key ` +
    `"${LOCAL_SESSION_SIGNING_KEY}", which every other profile refuses; there, unset, the page's first response ` +
    `carries no QR and its script creates the session`,
  UPSTREAM_AUTH_HEADER: 'Secret: a "Header-Name: value" sent to every upstream (a private node provider\'s key)',
  ACCESS_TEAM_DOMAIN:
    "The Cloudflare Access team domain guarding /dashboard/ (https://<team>.cloudflareaccess.com); with ACCESS_AUD " +
    "set, the dashboard is entered only with a valid Cf-Access-Jwt-Assertion; unset: by signing in with a host API key",
  ACCESS_AUD:
    "The Access application's audience (AUD) tag the dashboard's JWTs must carry; set with ACCESS_TEAM_DOMAIN",
} as const satisfies Record<VariableName, string>;
