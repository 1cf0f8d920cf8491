/**
 * The networks this service can serve, by name (`NETWORK_PROFILE`): the brand words, chain id,
 * upstream nodes and node-command defaults of each. Every configuration variable still overrides
 * its profile's value. Data only: no code reads a brand word from anywhere but here and `env`.
 *
 * Sources for the network's words: docs/WALLET-PROTOCOL.md (from Hope-Network-Org/hope-node:
 * wallet/docs/hosted-nodes.md, wallet/src/payload.ts, wallet/src/origin.ts, wallet/src/inApp.ts,
 * docs/incentives.md).
 */

/** Variables a profile sets; the names are the Worker's configuration variables. */
export interface NetworkProfile {
  /** One line for the README and `/api/health`. */
  readonly description: string;
  readonly vars: Readonly<Partial<Record<ProfileVariable, string>>>;
}

/** Variables whose value comes from the profile unless the environment sets them. */
type ProfileVariable =
  | "CHAIN_NAMESPACE"
  | "BECH32_PREFIX"
  | "CHAIN_ID"
  | "WALLET_PATH"
  | "NATIVE_DENOM"
  | "NODE_BINARY"
  | "WALLET_SCHEME"
  | "WALLET_BRIDGE"
  | "NODE_HOME"
  | "NODE_KEYRING_BACKEND"
  | "NODE_CONTAINER"
  | "UPSTREAM_URLS"
  | "RPC_UPSTREAM_URLS";

/** The network's own words, as its wallet SDK and node kit hard-code them. */
const HOPE_WORDS = {
  CHAIN_NAMESPACE: "hope",
  BECH32_PREFIX: "hope",
  // The SDK's default chain id: its `connect()` without `chainId` sends this one.
  CHAIN_ID: "hope-testnet-2",
  // The SDK's `relayUrl: true` always builds `{origin}/api/hope-wallet/sessions/{id}/confirm`.
  WALLET_PATH: "hope-wallet",
  NATIVE_DENOM: "uhope",
  NODE_BINARY: "hoped",
  WALLET_SCHEME: "hopewallet",
  // The wallet app's web view injects HopeWalletMobile, __HOPE_WALLET_IN_APP__, __HOPE_WALLET_ACTIVE_ADDRESS__.
  WALLET_BRIDGE: "HopeWallet",
  NODE_HOME: "/home/hope/.hope",
  NODE_KEYRING_BACKEND: "test",
  NODE_CONTAINER: "hope-peer",
} as const;

export const NETWORK_PROFILES = {
  local: {
    description: "The network's words with the local devnet (npm run dev) as the only upstream",
    // The devnet serves its CometBFT face under /rpc of the same port.
    vars: { ...HOPE_WORDS, UPSTREAM_URLS: "http://127.0.0.1:1317", RPC_UPSTREAM_URLS: "http://127.0.0.1:1317/rpc" },
  },
  testnet: {
    description: "The network's public testnet through its public LCD",
    // No RPC_UPSTREAM_URLS: /rpc and the live face (an open WebSocket service) serve only when an
    // environment names its nodes (the public gateway serves them at https://test-gateway.hopenetwork.io/rpc).
    vars: { ...HOPE_WORDS, UPSTREAM_URLS: "https://test-gateway.hopenetwork.io/api" },
  },
  neutral: {
    // A fork is one profile away: its words here, its chain id and nodes from its environment.
    description: "Neutral words, as a worked example of a fork: set CHAIN_ID and UPSTREAM_URLS",
    vars: {
      CHAIN_NAMESPACE: "chain",
      BECH32_PREFIX: "chain",
      WALLET_PATH: "wallet",
      NATIVE_DENOM: "uchain",
      NODE_BINARY: "chaind",
      WALLET_SCHEME: "chainwallet",
      WALLET_BRIDGE: "ChainWallet",
      NODE_HOME: "/home/chain/.chain",
      NODE_KEYRING_BACKEND: "test",
      NODE_CONTAINER: "chain-node",
    },
  },
} as const satisfies Record<string, NetworkProfile>;

export type ProfileName = keyof typeof NETWORK_PROFILES;

/** The profile that serves the devnet; only it may name loopback upstreams. */
export const LOCAL_PROFILE: ProfileName = "local";
