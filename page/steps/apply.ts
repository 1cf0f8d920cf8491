/**
 * Step 3: apply the payout on the node. A new node gets the `PAYOUT_RECIPIENT` line in its
 * container's environment; an existing node runs `tx incentives update-node`, signed there by its
 * operator key. Each comes with a copy button. The page then watches the node record and says
 * when the node pays the payout address.
 */
import { buildPayoutRecipientLine, buildUpdateNodeCommand } from "../../src/protocol/index.ts";
import type { ChainContext } from "../../src/protocol/index.ts";
import { showOutcome } from "../step-view.ts";
import { copyable, el, show, type Step } from "../dom.ts";
import type { NodeTargetFields } from "./node-target.ts";
import { watchNodePayout } from "./node-watch.ts";

/** Renders step 3 for the paired payout address; the node fields update it live. */
export function runApplyStep(
  step: Step,
  ctx: ChainContext,
  input: { operator: string; payoutRecipient: string },
  target: NodeTargetFields,
): void {
  step.setState("active");
  const line = buildPayoutRecipientLine(ctx, input);
  const commandSlot = el("div", {});
  const render = () => {
    const values = target.values();
    if (!values) return show(commandSlot, el("p", { class: "error" }, "Fix the fields above to see the command."));
    show(
      commandSlot,
      copyable("update-node command", buildUpdateNodeCommand(ctx, { ...input, ...values }), "update-node-command"),
    );
  };
  target.onChange(render);
  render();
  const verdict = el("div", { "aria-live": "polite" });
  // The next action first: the command a running node needs and its copy button, then the settings it is built
  // from, then the line for a node that has not started yet.
  show(
    step.body,
    el("h3", {}, "Changing a node that already runs?"),
    el("p", {}, "Run this on the node machine. The node's operator key signs it; nothing here touches your wallet."),
    commandSlot,
    el("p", { class: "muted" }, "Your node's key, home or container differ? Change them here; the command follows."),
    target.elements,
    el("h3", {}, "Starting a new node?"),
    el("p", {}, "Put this line in the node container's environment before its first start:"),
    copyable("environment line", line, "payout-line"),
    el("h3", {}, "Has the node applied it?"),
    verdict,
  );
  watchNodePayout(verdict, ctx, input, (sentence) => {
    step.setState("done");
    showOutcome(el("p", { class: "success", "data-testid": "outcome" }, sentence));
  });
}
