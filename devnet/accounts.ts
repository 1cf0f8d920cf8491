/**
 * `x/auth` accounts: the seeded ones exist from genesis, any other address from its first devnet
 * transaction. An account's sequence counts the transactions it had in blocks (failed ones too);
 * its public key is on chain once it has signed. The key type URL is assumed: the network's
 * ML-DSA-65 key type is not public, only its size (1952 bytes).
 */
import { notFound } from "./cosmos-errors.ts";
import type { Ledger } from "./ledger.ts";
import { seedBytes, seeded } from "./seeds.ts";

/** Accounts that exist at genesis: the hosted nodes' operators, the seeded payout recipient, the campaign creators. */
const GENESIS_LABELS = [
  "operator-1",
  "operator-2",
  "operator-3",
  "operator-4",
  "operator-5",
  "operator-6",
  "payout-1",
  "ngo-1",
  "ngo-2",
  "ngo-3",
];

const ML_DSA_65_PUBLIC_KEY_BYTES = 1952;

/** The public key an address signs with, as `{@type, key}`. */
export function publicKeyOf(ledger: Ledger, address: string) {
  return {
    "@type": `/${ledger.brand.namespace}.crypto.mldsa65.PubKey`,
    key: seedBytes(`pubkey-${address}`, ML_DSA_65_PUBLIC_KEY_BYTES).toString("base64"),
  };
}

/** The account's sequence at `height` (how many transactions it had in blocks). */
export function sequenceAt(ledger: Ledger, address: string, height = Infinity): number {
  const label = GENESIS_LABELS.find((l) => ledger.account(l) === address);
  return (label ? seeded(`seq-${label}`, 1, 400) : 0) + ledger.txs.signedBy(address, height).length;
}

/** `GET /cosmos/auth/v1beta1/accounts/{address}` at `height`: a BaseAccount, or the node's 404. */
export function accountAt(ledger: Ledger, address: string, height: number) {
  const genesisIndex = GENESIS_LABELS.findIndex((l) => ledger.account(l) === address);
  if (genesisIndex < 0 && ledger.txs.signedBy(address, height).length === 0)
    throw notFound(`account ${address} not found`);
  const accountNumber =
    genesisIndex >= 0 ? genesisIndex + 1 : GENESIS_LABELS.length + 1 + ledger.txs.signers().indexOf(address);
  const sequence = sequenceAt(ledger, address, height);
  return {
    account: {
      "@type": "/cosmos.auth.v1beta1.BaseAccount",
      address,
      pub_key: sequence > 0 ? publicKeyOf(ledger, address) : null,
      account_number: String(accountNumber),
      sequence: String(sequence),
    },
  };
}
