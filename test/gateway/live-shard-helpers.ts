/**
 * A live shard driven as the Worker and the feed drive it: sockets opened by a real upgrade
 * straight to the shard (as the door forwards one), frames read as the client reads them, and
 * heights delivered through the shard's own RPC method, with events built by block-events.ts.
 */
import { env } from "cloudflare:test";
import { eventsOfBlock, type HeightEvents, type NewBlockValue } from "../../src/gateway/live/block-events";
import { SHARD_NAME_HEADER } from "../../src/gateway/live/limits";

/** A shard of its own: storage is kept per test file, so each test names a fresh one. */
export const freshShard = () => `chain-devnet-1:t${crypto.randomUUID().slice(0, 8)}`;

export const shardStub = (name: string) => env.LIVE_SHARDS.get(env.LIVE_SHARDS.idFromName(name));

/** A `NewBlock` value at `height` with the finalize-block events given. */
const blockAt = (height: number, events: { type: string; attributes: { key: string; value: string }[] }[] = []) =>
  ({
    block: { header: { height: String(height), chain_id: "chain-devnet-1" }, data: { txs: [] } },
    block_id: { hash: "" },
    result_finalize_block: { events, tx_results: [] },
  }) satisfies NewBlockValue;

export const heightAt = (height: number): Promise<HeightEvents> => eventsOfBlock(blockAt(height));

export interface TestSocket {
  ws: WebSocket;
  frames: Record<string, unknown>[];
  closed: { code: number; reason: string } | null;
  /** Sends a call and resolves with the frame that answers it (same id, no event payload). */
  call(method: string, params?: unknown, id?: string | number): Promise<Record<string, unknown>>;
  /** Heights of the NewBlock events received, in order. */
  heights(): number[];
}

/** Waits until `condition` holds, yielding to the runtime; the deadline only stops a stuck test. */
export async function until(condition: () => boolean, deadlineMs = 20_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error("condition not met before the deadline");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Opens a socket on shard `name`, as the door forwards an upgrade (with the client IP it read). */
export async function openSocket(name: string, headers: Record<string, string> = {}): Promise<TestSocket> {
  const response = await shardStub(name).fetch("https://edge.test/rpc/websocket", {
    headers: { upgrade: "websocket", [SHARD_NAME_HEADER]: name, ...headers },
  });
  const ws = response.webSocket;
  if (!ws) throw new Error(`no socket: ${response.status} ${await response.text()}`);
  ws.accept();
  let next = 0;
  const socket: TestSocket = {
    ws,
    frames: [],
    closed: null,
    async call(method, params = {}, id = `c${next++}`) {
      ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
      const answers = (f: Record<string, unknown>) =>
        f.id === id && ("error" in f || !(f.result as { data?: unknown } | undefined)?.data);
      await until(() => socket.frames.some(answers));
      return socket.frames.splice(socket.frames.findIndex(answers), 1)[0]!;
    },
    heights: () =>
      socket.frames
        .map((f) => (f.result as { data?: { value?: NewBlockValue } } | undefined)?.data?.value?.block?.header?.height)
        .filter((h): h is string => h !== undefined)
        .map(Number),
  };
  ws.addEventListener("message", (event) => {
    socket.frames.push(JSON.parse(event.data as string));
  });
  ws.addEventListener("close", (event) => {
    socket.closed = { code: event.code, reason: event.reason };
  });
  return socket;
}
