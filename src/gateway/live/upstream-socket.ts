/**
 * One upstream socket to a node of RPC_UPSTREAM_URLS (`http(s)://host/path` is dialled at
 * `…/path/websocket`, as a Durable Object opens an outbound WebSocket: a fetch with `Upgrade:
 * websocket`, then `accept()`), subscribed to `tm.event = 'NewBlock'` only: a 0.38 `NewBlock`
 * carries `result_finalize_block` with every transaction's result, so every served type is derived
 * from it and the node holds one subscription for the whole network, whatever the subscribers ask.
 *
 * The upgrade is given UPSTREAM_TIMEOUT_MS by a timer raced against the fetch, never by an abort
 * signal on the fetch: the signal outlives the handshake and ends the socket it opened (seen under
 * `wrangler dev`: every upstream socket closed with 1006 at 3.8–4.0 s, the signal's 4 s).
 */
import type { Config } from "../../config";
import { log } from "../../log";
import type { NewBlockValue } from "./block-events";

/** The JSON-RPC id of the upstream subscription. */
const SUBSCRIPTION_ID = "edge-live-newblock";
const SUBSCRIBE = JSON.stringify({
  jsonrpc: "2.0",
  id: SUBSCRIPTION_ID,
  method: "subscribe",
  params: { query: "tm.event='NewBlock'" },
});

/** What the socket reports: each NewBlock, any frame at all (liveness), and its end. */
export interface UpstreamListener {
  block(value: NewBlockValue): void;
  frame(): void;
  closed(): void;
}

/** An open upstream: the node's base URL and place in RPC_UPSTREAM_URLS; close it to stop. */
export interface Upstream {
  url: string;
  index: number;
  close(): void;
}

export type UpstreamConfig = Pick<Config, "rpcUpstreamUrls" | "upstreamAuthHeader" | "upstreamTimeoutMs">;

/** The NewBlock a frame of the upstream subscription carries, if any (anything else, malformed or not, is skipped). */
function newBlockIn(frame: string): NewBlockValue | null {
  try {
    const message = JSON.parse(frame) as { id?: unknown; result?: { data?: { value?: NewBlockValue } } };
    const value = message.id === SUBSCRIPTION_ID ? message.result?.data?.value : undefined;
    return value?.block?.header ? value : null;
  } catch {
    return null;
  }
}

/** The node's WebSocket URL for an RPC base URL. */
const websocketUrlOf = (base: string) => `${base.replace(/\/+$/, "")}/websocket`;

/** The upgraded socket, or null when the node refused or did not answer within `ms`. */
async function handshake(url: string, headers: Headers, ms: number): Promise<WebSocket | null> {
  const upgrade = fetch(url, { headers }).then(
    (response) => response.webSocket,
    () => null,
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ms)));
  const socket = await Promise.race([upgrade, late]);
  clearTimeout(timer);
  if (!socket)
    // A node that answers after the timer is hung up on.
    void upgrade.then((lateSocket) => {
      try {
        lateSocket?.accept();
        lateSocket?.close(1000, "answered too late");
      } catch {
        // Already closed.
      }
    });
  return socket;
}

/**
 * Opens the first node that takes the upgrade, trying them in configured order from `start` on (and
 * round to the ones before it); null when none does.
 */
export async function openUpstream(
  config: UpstreamConfig,
  listener: UpstreamListener,
  start = 0,
): Promise<Upstream | null> {
  const nodes = config.rpcUpstreamUrls;
  for (let n = 0; n < nodes.length; n++) {
    const index = (start + n) % nodes.length;
    const base = nodes[index]!;
    const headers = new Headers({ upgrade: "websocket" });
    if (config.upstreamAuthHeader) headers.set(config.upstreamAuthHeader[0], config.upstreamAuthHeader[1]);
    const socket = await handshake(websocketUrlOf(base), headers, config.upstreamTimeoutMs);
    if (!socket) continue;
    socket.accept();
    const openedAt = Date.now();
    let open = true;
    const end = (why: Record<string, unknown>) => {
      if (!open) return;
      open = false;
      log("warn", "live_upstream_closed", { node: base, after_ms: Date.now() - openedAt, ...why });
      listener.closed();
    };
    socket.addEventListener("message", (event) => {
      listener.frame();
      if (typeof event.data !== "string") return;
      const value = newBlockIn(event.data);
      if (value) listener.block(value);
    });
    socket.addEventListener("close", (event) => end({ code: event.code, reason: event.reason }));
    socket.addEventListener("error", () => end({ code: "error" }));
    socket.send(SUBSCRIBE);
    return {
      url: base,
      index,
      close() {
        open = false;
        try {
          socket.close(1000, "closed by the edge");
        } catch {
          // Already closed.
        }
      },
    };
  }
  return null;
}
