/**
 * The brand words a message, sign request or node command needs. Builders take them as an
 * explicit argument, so no builder holds a network's name: the Worker makes one from its Config,
 * the page from `GET /api/config`.
 */
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
