/** The shape every builder returns: a type URL and its value, as wallets and CosmJS expect. */

/** A transaction message: `{typeUrl, value}` (CosmJS's EncodeObject). */
export interface TxMessage<V extends object = object> {
  readonly typeUrl: string;
  readonly value: V;
}

/** An amount of one denom; `amount` is an integer string of the smallest unit. */
export interface Coin {
  readonly denom: string;
  readonly amount: string;
}
