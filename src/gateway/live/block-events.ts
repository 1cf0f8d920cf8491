/**
 * One height's events, derived from the node's one `NewBlock` as a CometBFT 0.38 event bus
 * publishes them: `NewBlock` (the node's value as sent), `NewBlockHeader` (`{header}`),
 * `NewBlockEvents` (`{height, events, num_txs}`, the finalize-block events) and a `Tx` per
 * transaction (`{TxResult: {height, index, tx, result}}`). Each event's keys are `tm.event` and
 * its attributes flattened to `<type>.<key>`; a `Tx`'s also `tx.hash` (upper-case hex SHA-256 of
 * its bytes) and `tx.height`. The `data` and `events` of each are written to JSON once, here, so a
 * fan-out to any number of subscribers only splices text.
 */
import { toHex } from "../../protocol/hex";
import type { ServedEventType } from "./query/subscription-query";

interface AbciEvent {
  type: string;
  attributes?: { key: string; value: string }[] | null;
}
interface ExecTxResult {
  events?: AbciEvent[] | null;
}

/** A 0.38 `NewBlock` event's value. */
export interface NewBlockValue {
  block: { header: { height: string } & Record<string, unknown>; data: { txs?: string[] | null } };
  block_id: unknown;
  result_finalize_block: { events?: AbciEvent[] | null; tx_results?: ExecTxResult[] | null } & Record<string, unknown>;
}

/** One event ready for subscribers: its keys for matching, its `data` and `events` as JSON text. */
export interface LiveEvent {
  type: ServedEventType;
  keys: Record<string, string[]>;
  dataJson: string;
  eventsJson: string;
}

/** Everything a height publishes, in the node's order. */
export interface HeightEvents {
  height: number;
  events: LiveEvent[];
}

function flatten(keys: Record<string, string[]>, events: readonly AbciEvent[] | null | undefined) {
  for (const event of events ?? [])
    for (const { key, value } of event.attributes ?? []) {
      if (!event.type || !key) continue;
      const name = `${event.type}.${key}`;
      (keys[name] ??= []).push(value);
    }
  return keys;
}

function liveEvent(type: ServedEventType, value: unknown, keys: Record<string, string[]>): LiveEvent {
  return {
    type,
    keys,
    dataJson: JSON.stringify({ type: `tendermint/event/${type}`, value }),
    eventsJson: JSON.stringify(keys),
  };
}

async function txHash(base64: string): Promise<string> {
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  return toHex(await crypto.subtle.digest("SHA-256", bytes)).toUpperCase();
}

/** The events of the height `value` carries. */
export async function eventsOfBlock(value: NewBlockValue): Promise<HeightEvents> {
  const height = value.block.header.height;
  const finalize = value.result_finalize_block.events ?? [];
  const txs = value.block.data.txs ?? [];
  const results = value.result_finalize_block.tx_results ?? [];
  const events = [
    liveEvent("NewBlock", value, flatten({ "tm.event": ["NewBlock"] }, finalize)),
    liveEvent("NewBlockHeader", { header: value.block.header }, { "tm.event": ["NewBlockHeader"] }),
    liveEvent(
      "NewBlockEvents",
      { height, events: finalize, num_txs: String(txs.length) },
      flatten({ "tm.event": ["NewBlockEvents"] }, finalize),
    ),
  ];
  const hashes = await Promise.all(txs.map(txHash));
  txs.forEach((tx, index) => {
    const result = results[index] ?? {};
    const keys = { "tm.event": ["Tx"], "tx.hash": [hashes[index]!], "tx.height": [height] };
    events.push(liveEvent("Tx", { TxResult: { height, index, tx, result } }, flatten(keys, result.events)));
  });
  return { height: Number(height), events };
}

/** A `NewBlock` value rebuilt from a node's `block` and `block_results` answers (a backfilled height). */
export function newBlockOf(block: Record<string, unknown>, results: Record<string, unknown>): NewBlockValue {
  return {
    block: block.block as NewBlockValue["block"],
    block_id: block.block_id,
    result_finalize_block: {
      events: (results.finalize_block_events as AbciEvent[] | null) ?? [],
      tx_results: (results.txs_results as ExecTxResult[] | null) ?? [],
      validator_updates: results.validator_updates ?? [],
      consensus_param_updates: results.consensus_param_updates ?? null,
      app_hash: results.app_hash ?? "",
    },
  };
}
