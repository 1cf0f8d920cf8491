/**
 * `abci_query` of the devnet's CometBFT face: the gRPC query services over ABCI, request and
 * answer as real protobuf (cosmjs-types), from the same ledger as the REST face. Modelled: bank's
 * `AllBalances`, `Balance` and `DenomsMetadata`, auth's `Account`, staking's `Validators` and `DelegatorDelegations`.
 * Any other path is the SDK's "unknown query path" (code 6); a query error is the SDK's ABCI form
 * of a gRPC status (`rpc error: code = NotFound desc = …`, code 22 `key not found`), which
 * CosmJS's `getAccount` reads as "no account".
 */
import { Any } from "cosmjs-types/google/protobuf/any";
import { BaseAccount } from "cosmjs-types/cosmos/auth/v1beta1/auth";
import { QueryAccountRequest, QueryAccountResponse } from "cosmjs-types/cosmos/auth/v1beta1/query";
import {
  QueryAllBalancesRequest,
  QueryAllBalancesResponse,
  QueryBalanceRequest,
  QueryBalanceResponse,
  QueryDenomsMetadataResponse,
} from "cosmjs-types/cosmos/bank/v1beta1/query";
import {
  QueryDelegatorDelegationsRequest,
  QueryDelegatorDelegationsResponse,
  QueryValidatorsRequest,
  QueryValidatorsResponse,
} from "cosmjs-types/cosmos/staking/v1beta1/query";
import { BinaryWriter } from "cosmjs-types/binary";
import { accountAt } from "./accounts.ts";
import { denomMetadata } from "./cosmos-routes.ts";
import type { Ledger } from "./ledger.ts";

/** The `response` of an `abci_query` result, in CometBFT's JSON. */
export interface AbciResponse {
  code: number;
  log: string;
  info: string;
  index: string;
  key: string | null;
  value: string | null;
  proofOps: null;
  height: string;
  codespace: string;
}

/** A query refused the way the SDK's baseapp turns a gRPC error into an ABCI answer. */
class QueryError extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.code = code;
  }
}

const notFound = (what: string) => new QueryError(22, `rpc error: code = NotFound desc = ${what}: key not found`);
const invalid = (what: string) =>
  new QueryError(18, `rpc error: code = InvalidArgument desc = ${what}: invalid request`);

/** A legacy Dec ("12.500000000000000000") as its protobuf form: the integer of 10^-18 units. */
const decProto = (value: string) => {
  const [whole, fraction = ""] = value.split(".");
  return BigInt(`${whole}${fraction.padEnd(18, "0")}`).toString();
};

function checked(ledger: Ledger, address: string): string {
  try {
    return ledger.checkAddress(address);
  } catch {
    throw invalid(`invalid address ${address}`);
  }
}

/** The devnet's own public key type: one bytes field, as `PubKey {bytes key = 1}` of the SDK's key types. */
function pubKeyAny(typeUrl: string, base64: string): Any {
  const writer = BinaryWriter.create();
  writer.uint32(10).bytes(Buffer.from(base64, "base64"));
  return Any.fromPartial({ typeUrl, value: writer.finish() });
}

type Handler = (ledger: Ledger, data: Uint8Array, height: number) => Uint8Array;

const HANDLERS: Record<string, Handler> = {
  "/cosmos.bank.v1beta1.Query/AllBalances": (ledger, data) => {
    const { address } = QueryAllBalancesRequest.decode(data);
    const balances = ledger.balances(checked(ledger, address));
    return QueryAllBalancesResponse.encode(
      QueryAllBalancesResponse.fromPartial({ balances, pagination: { total: BigInt(balances.length) } }),
    ).finish();
  },
  "/cosmos.bank.v1beta1.Query/Balance": (ledger, data) => {
    const { address, denom } = QueryBalanceRequest.decode(data);
    if (!denom) throw invalid("invalid denom");
    const found = ledger.balances(checked(ledger, address)).find((c) => c.denom === denom);
    return QueryBalanceResponse.encode({ balance: found ?? { denom, amount: "0" } }).finish();
  },
  "/cosmos.bank.v1beta1.Query/DenomsMetadata": (ledger) => {
    const m = denomMetadata(ledger);
    const metadata = {
      description: m.description,
      denomUnits: m.denom_units,
      base: m.base,
      display: m.display,
      name: m.name,
      symbol: m.symbol,
      uri: m.uri,
      uriHash: m.uri_hash,
    };
    return QueryDenomsMetadataResponse.encode(
      QueryDenomsMetadataResponse.fromPartial({ metadatas: [metadata], pagination: { total: 1n } }),
    ).finish();
  },
  "/cosmos.auth.v1beta1.Query/Account": (ledger, data, height) => {
    const { address } = QueryAccountRequest.decode(data);
    let account;
    try {
      account = accountAt(ledger, checked(ledger, address), height).account;
    } catch (err) {
      if (err instanceof QueryError) throw err;
      throw notFound(`account ${address} not found`);
    }
    const base = BaseAccount.fromPartial({
      address: account.address,
      pubKey: account.pub_key ? pubKeyAny(account.pub_key["@type"], account.pub_key.key) : undefined,
      accountNumber: BigInt(account.account_number),
      sequence: BigInt(account.sequence),
    });
    const any = Any.fromPartial({ typeUrl: account["@type"], value: BaseAccount.encode(base).finish() });
    return QueryAccountResponse.encode({ account: any }).finish();
  },
  "/cosmos.staking.v1beta1.Query/Validators": (ledger, data) => {
    const { status } = QueryValidatorsRequest.decode(data);
    const validators = ledger
      .validators()
      .filter((v) => !status || v.status === status)
      .map((v) => ({
        operatorAddress: v.operator_address,
        consensusPubkey: pubKeyAny(v.consensus_pubkey["@type"], v.consensus_pubkey.key),
        jailed: v.jailed,
        status: v.status === "BOND_STATUS_BONDED" ? 3 : 2,
        tokens: v.tokens,
        delegatorShares: decProto(v.delegator_shares),
        description: {
          moniker: v.description.moniker,
          identity: v.description.identity,
          website: v.description.website,
          securityContact: v.description.security_contact,
          details: v.description.details,
        },
        unbondingHeight: BigInt(v.unbonding_height),
        unbondingTime: { seconds: BigInt(Date.parse(v.unbonding_time) / 1000), nanos: 0 },
        commission: {
          commissionRates: {
            rate: decProto(v.commission.commission_rates.rate),
            maxRate: decProto(v.commission.commission_rates.max_rate),
            maxChangeRate: decProto(v.commission.commission_rates.max_change_rate),
          },
          updateTime: { seconds: BigInt(Date.parse(v.commission.update_time) / 1000), nanos: 0 },
        },
        minSelfDelegation: v.min_self_delegation,
      }));
    return QueryValidatorsResponse.encode(
      QueryValidatorsResponse.fromPartial({ validators, pagination: { total: BigInt(validators.length) } }),
    ).finish();
  },
  "/cosmos.staking.v1beta1.Query/DelegatorDelegations": (ledger, data) => {
    const { delegatorAddr } = QueryDelegatorDelegationsRequest.decode(data);
    const delegations = ledger.delegations(checked(ledger, delegatorAddr)).map((d) => ({
      delegation: {
        delegatorAddress: d.delegation.delegator_address,
        validatorAddress: d.delegation.validator_address,
        shares: decProto(d.delegation.shares),
      },
      balance: d.balance,
    }));
    return QueryDelegatorDelegationsResponse.encode(
      QueryDelegatorDelegationsResponse.fromPartial({
        delegationResponses: delegations,
        pagination: { total: BigInt(delegations.length) },
      }),
    ).finish();
  },
};

/** The `response` for `path` with `data` at `height` (the latest when 0; a future height is the SDK's refusal). */
export function abciQuery(ledger: Ledger, path: string, data: Uint8Array, asked: number): AbciResponse {
  const latest = ledger.height();
  const height = asked === 0 ? latest : asked;
  const answer = (code: number, log: string, value: Uint8Array | null, codespace = "sdk"): AbciResponse => ({
    code,
    log,
    info: "",
    index: "0",
    key: null,
    value: value ? Buffer.from(value).toString("base64") : null,
    proofOps: null,
    // baseapp reads a height of 0 as the last block's and reports that height, refusals included.
    height: String(height),
    codespace: code === 0 ? "" : codespace,
  });
  if (height > latest)
    return answer(26, "cannot query with height in the future; please provide a valid height: invalid height", null);
  const handler = HANDLERS[path];
  if (!handler) return answer(6, `unknown query path: ${path}: unknown request`, null);
  try {
    return answer(0, "", handler(ledger, data, height));
  } catch (err) {
    if (err instanceof QueryError) return answer(err.code, err.message, null);
    return answer(2, `rpc error: code = Internal desc = ${String(err)}`, null);
  }
}
