/**
 * The devnet's brand words: those of the network profile the Worker uses locally
 * (src/config/profiles.ts, NETWORK_PROFILE, default "local"), each overridable by the same
 * variable the Worker reads, so `npm run dev` needs no configuration at all.
 */
import { NETWORK_PROFILES, type ProfileName } from "../src/config/profiles.ts";

export interface Brand {
  namespace: string;
  bech32Prefix: string;
  nativeDenom: string;
  chainId: string;
}

/** Reads the profile and CHAIN_NAMESPACE, BECH32_PREFIX, NATIVE_DENOM and CHAIN_ID from `env`. */
export function readBrand(env: Record<string, string | undefined> = process.env): Brand {
  const name = (env.NETWORK_PROFILE?.trim() || "local") as ProfileName;
  const profile = NETWORK_PROFILES[name] as { vars: Partial<Record<string, string>> } | undefined;
  if (!profile) throw new Error(`NETWORK_PROFILE "${name}" is not one of ${Object.keys(NETWORK_PROFILES).join(", ")}`);
  const pick = (variable: string, fallback: string) => env[variable]?.trim() || profile.vars[variable] || fallback;
  return {
    namespace: pick("CHAIN_NAMESPACE", "chain"),
    bech32Prefix: pick("BECH32_PREFIX", "chain"),
    nativeDenom: pick("NATIVE_DENOM", "uchain"),
    // A fork profile names no chain id of its own; the devnet then plays a local one.
    chainId: pick("CHAIN_ID", `${profile.vars.CHAIN_NAMESPACE ?? "chain"}-devnet-1`),
  };
}
