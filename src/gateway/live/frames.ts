/**
 * The frames the live face writes, as CometBFT's `/websocket` writes them: an event for a
 * subscription (`{id: <the subscribe's id>, result: {query, data, events}}`) and a subscription's
 * cancellation (`-32000 Server error`, `subscription was canceled (reason: …)`), which tells a
 * client to subscribe again.
 */
import type { LiveEvent } from "./block-events";

/** An event for the subscription made with `idJson` and `queryJson` (both JSON text). */
export const eventFrame = (idJson: string, queryJson: string, event: LiveEvent): string =>
  `{"jsonrpc":"2.0","id":${idJson},"result":{"query":${queryJson},` +
  `"data":${event.dataJson},"events":${event.eventsJson}}}`;

/** CometBFT's cancellation of the subscription made with `idJson`. */
export const cancelFrame = (idJson: string, reason: string): string =>
  `{"jsonrpc":"2.0","id":${idJson},"error":${JSON.stringify({
    code: -32000,
    message: "Server error",
    data: `subscription was canceled (reason: ${reason})`,
  })}}`;
