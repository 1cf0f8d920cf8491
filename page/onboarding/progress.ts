/**
 * What the chain has said about a hosted onboarding, in sentences: the authorization with its
 * height, the wait for the host, and the node paying the payout address. The host applies the
 * payout, so no command is shown here.
 */
import { addressItem, el, show, type Step } from "../dom.ts";
import { shortAddress } from "../step-view.ts";
import { nodePaysSentence } from "../steps/node-watch.ts";
import { isAuthorized, type CustomerView } from "./view.ts";

/** The authorization as the chain showed it, once it has. */
function authorizedSentence(view: CustomerView): string {
  if (view.authorization.required === false)
    return "No authorization was needed: your payout address is the node's operator address.";
  const height = view.authorization.height;
  return typeof height === "number" ? `Authorized on chain at height ${height}.` : "Authorized on chain.";
}

/** Step 2 once the chain lists the authorization: both addresses and the sentence. */
export function showAuthorized(step: Step, view: CustomerView): void {
  if (!isAuthorized(view.status) || view.payout === null) return;
  show(
    step.body,
    el(
      "dl",
      { class: "pair" },
      ...addressItem("Your payout address (wallet)", view.payout, "payout-address"),
      ...addressItem("Your node's operator address", view.operator, "operator-address"),
    ),
    el("p", { "data-testid": "authorize-done" }, authorizedSentence(view)),
  );
  if (view.authorization.required === false) step.setState("skipped", "No authorization needed");
  else
    step.setState(
      "done",
      typeof view.authorization.height === "number" ? `Authorized: block ${view.authorization.height}` : "Authorized",
    );
}

/** Step 3 of a hosted onboarding: what has happened on the node so far. */
export function showHostProgress(step: Step, view: CustomerView): void {
  if (!isAuthorized(view.status) || view.payout === null) {
    step.setState("waiting");
    show(
      step.body,
      el(
        "p",
        { class: "muted" },
        "After the authorization, your host applies the payout on your node. There is nothing for you to run.",
      ),
    );
    return;
  }
  const authorized = el("p", { "data-testid": "progress-authorized" }, authorizedSentence(view));
  if (view.status === "authorized") {
    step.setState("active");
    show(
      step.body,
      authorized,
      el("p", { class: "muted", "data-testid": "progress-waiting" }, "Waiting for your host to apply it…"),
    );
    return;
  }
  step.setState("done", `Applied: ${shortAddress(view.payout)}`);
  show(
    step.body,
    authorized,
    el(
      "p",
      { class: "success", "data-testid": "node-applied" },
      nodePaysSentence(view.payout, view.node.height ?? null),
    ),
  );
}
