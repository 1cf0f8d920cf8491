/**
 * The account parser a CosmJS frontend passes to `StargateClient.connect(url, { accountParser })`:
 * the network signs with ML-DSA keys, which CosmJS's own parser refuses, so a BaseAccount's key is
 * kept as its type URL and base64 bytes. The RPC face's tests and `npm run compare:rpc` use it, as
 * docs/GATEWAY.md's example does.
 */
import { accountFromAny, type Account } from "@cosmjs/stargate";
import { BaseAccount } from "cosmjs-types/cosmos/auth/v1beta1/auth";
import type { Any } from "cosmjs-types/google/protobuf/any";

export function accountParser(any: Any): Account {
  if (any.typeUrl !== "/cosmos.auth.v1beta1.BaseAccount") return accountFromAny(any);
  const base = BaseAccount.decode(any.value);
  return {
    address: base.address,
    pubkey: base.pubKey ? { type: base.pubKey.typeUrl, value: btoa(String.fromCharCode(...base.pubKey.value)) } : null,
    accountNumber: base.accountNumber,
    sequence: Number(base.sequence),
  };
}
