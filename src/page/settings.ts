import type { Config } from "../config";
import { DEFAULT_KEY_NAME } from "../protocol/index";

/** The public settings the onboarding page needs, so the page holds no brand word of its own. */
export function pageSettings(config: Config) {
  return {
    chain_id: config.chainId,
    bech32_prefix: config.bech32Prefix,
    namespace: config.namespace,
    wallet_path: config.walletPath,
    wallet_scheme: config.walletScheme,
    wallet_bridge: config.walletBridge,
    native_denom: config.nativeDenom,
    node_binary: config.nodeBinary,
    // Defaults of the printed node commands; the page lets the user edit each.
    node_home: config.nodeHome,
    node_keyring_backend: config.nodeKeyringBackend,
    node_container: config.nodeContainer,
    node_key_name: DEFAULT_KEY_NAME,
    session_ttl_max_seconds: config.sessionTtlMaxSeconds,
  };
}
