/**
 * PushObject: a Durable Object whose state a page follows over hibernatable WebSockets (the shape
 * of partyserver's `Server`, reduced to what these objects need). A subscriber is sent the view at
 * once and on every change, may ask for it again with any message, and is closed once the view is
 * final; keep-alives ("ping") are answered without waking the object.
 */
import { DurableObject } from "cloudflare:workers";
import { errorResponse, type ErrorSpec } from "../src/errors";

/** What subscribers are sent: the message, and once nothing will change any more, the reason they are closed with. */
export interface PushView {
  message: string;
  final: string | null;
}

export abstract class PushObject extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair("ping", "pong"));
  }

  /** The view now; null when the object holds nothing (never created, or deleted). */
  protected abstract view(): PushView | null;

  /** What a subscription to an object that holds nothing is answered. */
  protected abstract missing(): ErrorSpec;

  /** A subscription (the Worker forwards only upgrades): the view now, then every change. */
  override fetch(): Response {
    const view = this.view();
    if (!view) return errorResponse(this.missing());
    const { 0: client, 1: server } = new WebSocketPair();
    this.ctx.acceptWebSocket(server);
    server.send(view.message);
    if (view.final !== null) server.close(1000, view.final);
    return new Response(null, { status: 101, webSocket: client });
  }

  /** Any message asks for the view again (a client that fears it missed an update). */
  override webSocketMessage(socket: WebSocket): void {
    const view = this.view();
    if (view) socket.send(view.message);
    else closeQuietly(socket, 1000, "deleted");
  }

  override webSocketClose(socket: WebSocket, code: number): void {
    closeQuietly(socket, code === 1005 || code === 1006 ? 1000 : code, "closed");
  }

  /**
   * Sends the view to every subscriber, closing them once it is final; null closes them all (the object was deleted).
   */
  protected push(view: PushView | null): void {
    for (const socket of this.ctx.getWebSockets()) {
      if (view === null) {
        closeQuietly(socket, 1000, "deleted");
        continue;
      }
      try {
        socket.send(view.message);
      } catch {
        // A socket that is already closing needs nothing more.
      }
      if (view.final !== null) closeQuietly(socket, 1000, view.final);
    }
  }
}

function closeQuietly(socket: WebSocket, code: number, reason: string): void {
  try {
    socket.close(code, reason);
  } catch {
    // Already closed.
  }
}
