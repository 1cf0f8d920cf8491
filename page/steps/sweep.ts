/**
 * Step 4, optional: sweep the operator's leftover balance to the payout address with a
 * `tx bank send` run on the node, keeping a small reserve on the operator. The operator pays the
 * fee from it, because a fee grant cannot pay for a MsgSend.
 */
import { buildSweep, DEFAULT_SWEEP_RESERVE } from "../../src/protocol/index.ts";
import type { ChainContext } from "../../src/protocol/index.ts";
import { copyable, el, show, type Step } from "../dom.ts";
import { nativeBalance } from "../gateway.ts";
import type { NodeTargetFields } from "./node-target.ts";

/** Renders step 4: balance (read from the gateway when it can), fee reserve, and the command. */
export function runSweepStep(
  step: Step,
  ctx: ChainContext,
  input: { operator: string; payoutRecipient: string },
  target: NodeTargetFields,
): void {
  const balance = el("input", {
    id: "sweep-balance",
    type: "text",
    inputmode: "numeric",
    autocomplete: "off",
    "aria-describedby": "sweep-balance-help",
  });
  const reserve = el("input", {
    id: "sweep-reserve",
    type: "text",
    inputmode: "numeric",
    autocomplete: "off",
    value: DEFAULT_SWEEP_RESERVE,
    "aria-describedby": "sweep-reserve-help",
  });
  const balanceHelp = el(
    "p",
    { id: "sweep-balance-help", class: "muted" },
    `The operator's balance in ${ctx.nativeDenom}, the smallest unit.`,
  );
  const output = el("div", { "aria-live": "polite" });
  const render = () => {
    const where = target.values();
    if (!where) return show(output, el("p", { class: "error" }, "Fix the node fields in step 3 first."));
    if (balance.value.trim() === "")
      return show(output, el("p", { class: "muted" }, "Enter the operator's balance to see the command."));
    try {
      const sweep = buildSweep(ctx, {
        ...input,
        ...where,
        balance: balance.value.trim(),
        reserve: reserve.value.trim(),
      });
      show(
        output,
        el(
          "p",
          {},
          `This sends ${sweep.amount} ${ctx.nativeDenom} to your payout address and keeps ${reserve.value.trim()} ` +
            `${ctx.nativeDenom} on the operator for the fee.`,
        ),
        copyable("sweep command", sweep.command, "sweep-command"),
      );
    } catch (error) {
      show(
        output,
        el("p", { class: "error" }, error instanceof Error ? `${error.message}.` : "These amounts cannot be swept."),
      );
    }
  };
  for (const field of [balance, reserve]) field.addEventListener("input", render);
  target.onChange(render);
  render();
  show(
    step.body,
    el(
      "details",
      {},
      el("summary", {}, "Sweep leftover operator balance to your payout address"),
      el(
        "p",
        {},
        "Optional. The operator key pays this fee from the reserve it keeps: a fee grant cannot pay for a send.",
      ),
      el(
        "div",
        { class: "fields" },
        el("label", { for: "sweep-balance" }, "Operator balance"),
        balanceHelp,
        balance,
        el("label", { for: "sweep-reserve" }, "Reserve"),
        el(
          "p",
          { id: "sweep-reserve-help", class: "muted" },
          `Kept on the operator to pay the fee and its node's own proofs, in ${ctx.nativeDenom}.`,
        ),
        reserve,
      ),
      output,
    ),
  );
  nativeBalance(ctx, input.operator)
    .then((amount) => {
      if (amount !== null && balance.value === "") {
        balance.value = amount;
        balanceHelp.textContent = `Read from the network: the operator holds ${amount} ${ctx.nativeDenom}.`;
        render();
      }
    })
    .catch(() => {
      balanceHelp.textContent =
        `The network gateway did not answer; enter the operator's balance in ` + `${ctx.nativeDenom} yourself.`;
    });
  step.setState("optional");
}
