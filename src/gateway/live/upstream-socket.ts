/**
 * A network's upstream socket to one node of RPC_UPSTREAM_URLS (`http(s)://host/path` is dialled
 * at `…/path/websocket`, as a Durable Object opens an
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

/**
 * Opens `base`'s socket and subscribes; null when the node refuses or the handshake takes longer
 * than `upstreamTimeoutMs`. The timeout bounds the handshake only: a signal given to the upgrade's
 * `fetch` stays tied to the socket it returns, and ended a healthy socket that many milliseconds
 * after it opened (the node saw a new connection every 4 s), so the wait is a timer raced against
 * the fetch, and a socket that arrives after it is closed.
 */
export async function openUpstream(
  base: string,
  config: Pick<Config, "upstreamAuthHeader" | "upstreamTimeoutMs">,
  listener: UpstreamListener,
): Promise<Upstream | null> {
  const headers = new Headers({ upgrade: "websocket" });
  if (config.upstreamAuthHeader) headers.set(config.upstreamAuthHeader[0], config.upstreamAuthHeader[1]);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let late = false;
  const upgrade = fetch(websocketUrlOf(base), { headers }).then(
    (response) => {
      if (late) response.webSocket?.close(1000, "handshake took too long");
      return response.webSocket;
    },
    () => null,
  );
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => {
      late = true;
      resolve(null);
    }, config.upstreamTimeoutMs);
  });
  const socket = await Promise.race([upgrade, timeout]);
  clearTimeout(timer);
  if (!socket) return null;
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
  return {
    url: base,
    close() {
      open = false;
      try {
        socket.close(1000, "no subscribers");
      } catch {
        // Already closed.
      }
    },
  };
}

/** The latest height `base` reports (`status`), or null when it does not answer in time. */
export async function nodeHeight(
  base: string,
  config: Pick<Config, "upstreamAuthHeader" | "upstreamTimeoutMs">,
): Promise<number | null> {
  const headers = new Headers();
  if (config.upstreamAuthHeader) headers.set(config.upstreamAuthHeader[0], config.upstreamAuthHeader[1]);
  try {
    const response = await fetch(`${base.replace(/\/+$/, "")}/status`, {
      headers,
      signal: AbortSignal.timeout(config.upstreamTimeoutMs),
    });
    const body = (await response.json()) as { result?: { sync_info?: { latest_block_height?: unknown } } };
    const height = Number(body.result?.sync_info?.latest_block_height);
    return Number.isSafeInteger(height) && height > 0 ? height : null;
  } catch {
    return null;
  }
}
