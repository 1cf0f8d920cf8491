/**
 * `GET /cosmos/tx/v1beta1/txs/{hash}` in the stock GetTxResponse shape: the decoded `tx` and the
 * `tx_response` (height, txhash, codespace, code, data, raw_log, logs, info, gas_wanted,
 * gas_used, tx, timestamp, events). Simplified: the event set is the stock one abbreviated, the
 * sign mode is assumed to be SIGN_MODE_DIRECT, and the fee is what the network's wallet attaches
 * (700k gas, +200k per extra message, +200k before the key is on chain, 0.0001 per gas).
 */
import { Code, DevnetError, notFound } from "./cosmos-errors.ts";
import { publicKeyOf } from "./accounts.ts";
import type { Ledger } from "./ledger.ts";
import { seedBytes } from "./seeds.ts";
import type { TxRecord } from "./tx-log.ts";

const ML_DSA_65_SIGNATURE_BYTES = 3309;

const snakeCase = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** A wallet-protocol value (camelCase) as the node's JSON writes it (proto field names). */
function protoJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(protoJson);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [snakeCase(k), protoJson(v)]));
}

function varint(n: number): number[] {
  const bytes: number[] = [];
  for (; n >= 0x80; n >>>= 7) bytes.push((n & 0x7f) | 0x80);
  return [...bytes, n];
}

/** TxMsgData `{msg_responses: [Any{type_url: <Msg>Response}]}` as protobuf, in the upper-case hex a node prints. */
function msgData(record: TxRecord): string {
  const field = (tag: number, bytes: number[]) => [tag, ...varint(bytes.length), ...bytes];
  const responses = record.messages.flatMap((m) => field(0x12, field(0x0a, [...Buffer.from(`${m.typeUrl}Response`)])));
  return Buffer.from(responses).toString("hex").toUpperCase();
}

const moduleOf = (typeUrl: string) => typeUrl.split(".")[1] ?? "";
const attributes = (pairs: [string, string][]) => pairs.map(([key, value]) => ({ key, value, index: true }));

function events(record: TxRecord, fee: string) {
  const paid = [
    {
      type: "tx",
      attributes: attributes([
        ["fee", fee],
        ["fee_payer", record.signer],
      ]),
    },
    { type: "tx", attributes: attributes([["acc_seq", `${record.signer}/${record.sequence}`]]) },
  ];
  if (record.code !== 0) return paid;
  return [
    ...paid,
    ...record.messages.map((m, i) => ({
      type: "message",
      attributes: attributes([
        ["action", m.typeUrl],
        ["sender", record.signer],
        ["module", moduleOf(m.typeUrl)],
        ["msg_index", String(i)],
      ]),
    })),
  ];
}

/** Throws what a node answers for a hash it cannot look up: hex decoding errors are code 2 (HTTP 500), an unknown hash (or one no block holds yet) 404. */
function findTx(ledger: Ledger, hash: string, height: number): TxRecord {
  if (/[^0-9a-fA-F]/.test(hash)) {
    const bad = [...hash].find((c) => !/[0-9a-fA-F]/.test(c))!;
    throw new DevnetError(
      500,
      Code.UNKNOWN,
      `encoding/hex: invalid byte: U+${bad.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")} '${bad}'`,
    );
  }
  if (hash.length % 2 === 1) throw new DevnetError(500, Code.UNKNOWN, "encoding/hex: odd length hex string");
  const record = ledger.txs.find(hash, height);
  // The SDK echoes the hash as the request spelled it.
  if (!record) throw notFound(`tx not found: ${hash}`);
  return record;
}

/** GetTx at `height` (the node's latest): the transaction with this hash, once its block is in the chain. */
export function getTxResponse(ledger: Ledger, hash: string, height: number) {
  return txJson(ledger, findTx(ledger, hash, height));
}

/** One transaction as the tx service writes it: the decoded `tx` and its `tx_response` (GetTx, GetTxsEvent and GetBlockWithTxs agree). */
export function txJson(ledger: Ledger, record: TxRecord) {
  const gasWanted = 700_000 + 200_000 * (record.messages.length - 1) + (record.sequence === 0 ? 200_000 : 0);
  const fee = ledger.coin(Math.ceil(gasWanted * 0.0001));
  const gasUsed = Math.floor(gasWanted * (0.4 + (seedBytes(`gas-${record.hash}`, 1)[0]! / 255) * 0.3));
  const tx = {
    body: {
      messages: record.messages.map((m) => ({ "@type": m.typeUrl, ...(protoJson(m.value) as object) })),
      memo: record.memo,
      timeout_height: "0",
      extension_options: [],
      non_critical_extension_options: [],
    },
    auth_info: {
      signer_infos: [
        {
          public_key: publicKeyOf(ledger, record.signer),
          mode_info: { single: { mode: "SIGN_MODE_DIRECT" } },
          sequence: String(record.sequence),
        },
      ],
      fee: { amount: [fee], gas_limit: String(gasWanted), payer: "", granter: "" },
      tip: null,
    },
    signatures: [seedBytes(`signature-${record.hash}`, ML_DSA_65_SIGNATURE_BYTES).toString("base64")],
  };
  return {
    tx,
    tx_response: {
      height: String(record.height),
      txhash: record.hash,
      codespace: record.codespace,
      code: record.code,
      data: record.code === 0 ? msgData(record) : "",
      raw_log: record.rawLog,
      logs: [],
      info: "",
      gas_wanted: String(gasWanted),
      gas_used: String(gasUsed),
      tx: { "@type": "/cosmos.tx.v1beta1.Tx", ...tx },
      timestamp: record.timestamp,
      events: events(record, `${fee.amount}${fee.denom}`),
    },
  };
}
