/**
 * The one upstream socket of a network: the first node of RPC_UPSTREAM_URLS that takes the
 * upgrade (`http(s)://host/path` is dialled at `…/path/websocket`, as a Durable Object opens an
 * outbound WebSocket: a fetch with `Upgrade: websocket`, then `accept()`), subscribed to
 * `tm.event = 'NewBlock'` only: a 0.38 `NewBlock` carries `result_finalize_block` with every
 * transaction's result, so every served type is derived from it and the node holds one
 * subscription for the whole network, whatever the subscribers ask.
 */
import type { Config } from "../../config";
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

/** An open upstream: close it to stop. */
export interface Upstream {
  url: string;
  close(): void;
}

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

/** Opens the first node that takes the upgrade, in configured order; null when none does. */
export async function openUpstream(
  config: Pick<Config, "rpcUpstreamUrls" | "upstreamAuthHeader" | "upstreamTimeoutMs">,
  listener: UpstreamListener,
): Promise<Upstream | null> {
  for (const base of config.rpcUpstreamUrls) {
    const headers = new Headers({ upgrade: "websocket" });
    if (config.upstreamAuthHeader) headers.set(config.upstreamAuthHeader[0], config.upstreamAuthHeader[1]);
    let socket: WebSocket | null | undefined;
    try {
      const response = await fetch(websocketUrlOf(base), {
        headers,
        signal: AbortSignal.timeout(config.upstreamTimeoutMs),
      });
      socket = response.webSocket;
    } catch {
      socket = null;
    }
    if (!socket) continue;
    socket.accept();
    let open = true;
    const end = () => {
      if (!open) return;
      open = false;
      listener.closed();
    };
    socket.addEventListener("message", (event) => {
      listener.frame();
      if (typeof event.data !== "string") return;
      const value = newBlockIn(event.data);
      if (value) listener.block(value);
    });
    socket.addEventListener("close", end);
    socket.addEventListener("error", end);
    socket.send(SUBSCRIBE);
    const opened = socket;
    return {
      url: base,
      close() {
        open = false;
        try {
          opened.close(1000, "no subscribers");
        } catch {
          // Already closed.
        }
      },
    };
  }
  return null;
}
