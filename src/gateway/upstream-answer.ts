/** What an upstream's reply reads as, whichever face asked (LCD REST or CometBFT RPC). */

/** An upstream answer the gateway will use: for the LCD, a 2xx or 4xx with a JSON body. */
export interface UpstreamAnswer {
  status: number;
  body: string;
  height: number | null;
  /** The origin of the node that gave it, and the attempts its round made (`X-Edge-Upstream`, `X-Edge-Attempts`). */
  upstream?: string;
  attempts?: number;
}

/**
 * How an upstream's reply reads: an answer to use, or why the next upstream must be asked. An
 * answer with `askNext` (a CometBFT node's -32603, its internal error) is served only when no
 * next node answers better.
 */
export type ReadAnswer = { answer: UpstreamAnswer; askNext?: string } | { failure: string };
