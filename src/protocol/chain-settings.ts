/**
 * The chain context (chain-context.ts) a client reads from `GET /api/config`: the page and the
 * wallet simulator (scripts/wallet.ts) check the answer with it; the Worker only writes it, so it
 * stays out of the Worker.
 */
import * as z from "zod/mini";
import type { ChainContext } from "./chain-context.ts";

const word = z.string().check(z.regex(/^[a-z][a-z0-9]*$/));
const settingsSchema = z.object({
  namespace: word,
  bech32_prefix: word,
  chain_id: z.string().check(z.regex(/^[a-zA-Z0-9][a-zA-Z0-9._-]{0,47}$/)),
  native_denom: z.string().check(z.regex(/^[a-zA-Z][a-zA-Z0-9/:._-]{2,127}$/)),
  node_binary: z.string().check(z.regex(/^[a-zA-Z0-9][a-zA-Z0-9._-]*$/)),
  wallet_scheme: z.string().check(z.regex(/^[a-z][a-z0-9+.-]*$/)),
  wallet_path: z.string().check(z.regex(/^[a-z0-9][a-z0-9-]*$/)),
});

/**
 * The chain context from the JSON of `GET /api/config` (snake_case page settings).
 * Throws when a field is missing or malformed, so a page never runs on half a configuration.
 */
export function chainContextFromSettings(settings: unknown): ChainContext {
  const result = z.safeParse(settingsSchema, settings);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new Error(`The server's page settings are not usable (${issue.path.join(".") || "body"}: ${issue.message})`);
  }
  const s = result.data;
  return {
    namespace: s.namespace,
    bech32Prefix: s.bech32_prefix,
    chainId: s.chain_id,
    nativeDenom: s.native_denom,
    nodeBinary: s.node_binary,
    walletScheme: s.wallet_scheme,
    walletPath: s.wallet_path,
  };
}
