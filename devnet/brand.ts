/**
 * The devnet's brand words, from the same variable names the Worker reads, with the same
 * defaults as wrangler.toml, so a local run needs no configuration at all.
 */
export interface Brand {
  namespace: string;
  bech32Prefix: string;
  nativeDenom: string;
  chainId: string;
}

/** Reads CHAIN_NAMESPACE, BECH32_PREFIX, NATIVE_DENOM and CHAIN_ID from `env`. */
export function readBrand(env: Record<string, string | undefined> = process.env): Brand {
  const pick = (name: string, fallback: string) => (env[name]?.trim() ? env[name]!.trim() : fallback);
  return {
    namespace: pick("CHAIN_NAMESPACE", "chain"),
    bech32Prefix: pick("BECH32_PREFIX", "chain"),
    nativeDenom: pick("NATIVE_DENOM", "uchain"),
    chainId: pick("CHAIN_ID", "chain-devnet-1"),
  };
}
