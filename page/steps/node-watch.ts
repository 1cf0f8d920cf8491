/**
 * Step 3, verified: after the commands, the page watches the operator's node record through the
 * gateway and says when the node pays the paired payout address, with the block height the
 * answer stands at. Looks every few seconds while the page is visible; gives up after
 * 30 minutes with a button to look again.
 */
import type { ChainContext } from "../../src/protocol/index.ts";
import { announce, el, show } from "../dom.ts";
import { readNodePayout } from "../node-record.ts";
import { pollWhileVisible } from "../visible-polling.ts";

const INTERVAL_MS = 3000;
const LIMIT_MS = 30 * 60_000;

/** The sentence once the node pays `payout`. */
export function nodePaysSentence(payout: string, height: number | null): string {
  return `Your node now pays ${payout}${height === null ? "" : ` (height ${height})`}.`;
}

/** Fills `slot` with what the node record says until it pays `payoutRecipient`, then calls `onApplied`. */
export function watchNodePayout(
  slot: HTMLElement,
  ctx: ChainContext,
  pair: { operator: string; payoutRecipient: string },
  onApplied: (sentence: string) => void,
): void {
  const waiting = () => el("p", { class: "muted", "data-testid": "node-watch" }, "Waiting for the node to apply it…");
  show(slot, waiting());
  const start = () =>
    pollWhileVisible(
      async () => {
        try {
          const node = await readNodePayout(ctx, pair.operator);
          if (node.payoutRecipient !== pair.payoutRecipient) {
            show(slot, waiting());
            return "again";
          }
          const sentence = nodePaysSentence(pair.payoutRecipient, node.height);
          show(slot, el("p", { class: "success", "data-testid": "node-applied" }, sentence));
          announce(sentence);
          onApplied(sentence);
          return "done";
        } catch (error) {
          show(
            slot,
            waiting(),
            el(
              "p",
              { class: "muted" },
              `${error instanceof Error ? error.message : "The network gateway did not answer."} Looking again in a ` +
                `few seconds.`,
            ),
          );
          return "again";
        }
      },
      {
        intervalMs: INTERVAL_MS,
        limitMs: LIMIT_MS,
        onGaveUp: () => {
          const again = el("button", { type: "button", class: "secondary" }, "Check again");
          again.addEventListener("click", () => void start(), { once: true });
          show(
            slot,
            el("p", {}, "The node has not applied it yet; the page stopped checking after 30 minutes."),
            again,
          );
        },
      },
    );
  start();
}
