/**
 * What workerd lets the live face know of a subscriber that stops reading (docs/GATEWAY.md, "A slow
 * reader"): a server-side WebSocket has no `bufferedAmount`, and `send` neither throws nor blocks while
 * the peer reads nothing, so the edge cannot bound a reader's queue itself. Pinned here so that a
 * runtime which starts to expose either fails this test, and the bounded queue can then be built on it.
 */
import { expect, it } from "vitest";

it("gives a server socket no bufferedAmount, and send goes on without throwing while the peer reads nothing", () => {
  const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
  server.accept();
  // 200 frames of 60 KiB (12 MiB), to a peer that never accepts, so never reads.
  const frame = "x".repeat(60 * 1024);
  expect(() => {
    for (let i = 0; i < 200; i++) server.send(frame);
  }).not.toThrow();
  expect((server as unknown as { bufferedAmount?: number }).bufferedAmount).toBeUndefined();
  expect((client as unknown as { bufferedAmount?: number }).bufferedAmount).toBeUndefined();
  expect(server.readyState).toBe(WebSocket.OPEN);
});
