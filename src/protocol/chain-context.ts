/**
 * The brand words a message, sign request or node command needs. Builders take them as an
 * explicit argument, so no builder holds a network's name: the Worker makes one from its Config,
 * the page from `GET /api/config`.
 */
import * as z from "zod/mini";

/** The network's words: namespace, address prefix, chain id, denom, node binary, wallet scheme and path. */
export interface ChainContext {
  /** Type-URL and REST namespace of the network's own modules (`/<namespace>.incentives.v1.…`). */
  readonly namespace: string;
  /** Human-readable part of account addresses; validator operator addresses use `<prefix>valoper`. */
  readonly bech32Prefix: string;
  readonly chainId: string;
  /** Smallest unit of the native token; every amount is an integer string of it. */
  readonly nativeDenom: string;
  /** Node binary name in printed commands. */
  readonly nodeBinary: string;
  /** Custom URL scheme of the wallet app (`<scheme>://connect?p=…`). */
  readonly walletScheme: string;
  /** Session endpoints live under `/api/<walletPath>/sessions`. */
  readonly walletPath: string;
}

/** The chain context of a server configuration (any object with the Config field names). */
export function chainContext(config: ChainContext): ChainContext {
  const { namespace, bech32Prefix, chainId, nativeDenom, nodeBinary, walletScheme, walletPath } = config;
  return { namespace, bech32Prefix, chainId, nativeDenom, nodeBinary, walletScheme, walletPath };
}

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
