/**
 * Step 2: show the paired payout address beside the operator; when they differ, the payout key
 * signs MsgAuthorizeOperator (QR and link), and the page waits until the gateway's
 * `operator_authorizations/<payout>` lists the operator. An existing authorization counts as done;
 * equal addresses skip the step (ErrSelfAuthorization: no authorization is needed).
 */
import type { ChainContext } from "../../src/protocol/index.ts";
import { planOperatorAuthorization } from "../../src/protocol/index.ts";
import { addressItem, el, failure, show, type Step } from "../dom.ts";
import { GatewayError, isOperatorAuthorized, waitForOperatorAuthorization } from "../gateway.ts";
import { qrImage } from "../qr.ts";
import type { WalletBridge } from "../wallet-bridge.ts";

interface AuthorizeInput {
  payoutRecipient: string;
  operator: string;
  label: string;
  origin: { name: string; url: string };
  /** Longest life of a sign request, from the server's session limit. */
  ttlSeconds: number;
}

/** Runs step 2 until the operator is authorized or the step is skipped. */
export async function runAuthorizeStep(step: Step, ctx: ChainContext, input: AuthorizeInput, bridge: WalletBridge | null): Promise<void> {
  step.setState("active");
  const pair = el("dl", { class: "pair" }, ...addressItem("Your payout address (wallet)", input.payoutRecipient, "payout-address"), ...addressItem("Your node's operator address", input.operator, "operator-address"));
  const status = el("div", {});
  show(step.body, pair, status);

  for (;;) {
    try {
      const plan = planOperatorAuthorization(ctx, { ...input, now: Date.now() });
      if (plan.kind === "skip") {
        show(status, el("p", { "data-testid": "authorize-skipped" }, `No signature needed. ${plan.reason}`));
        step.setState("skipped");
        return;
      }
      show(status, el("p", { class: "muted" }, "Checking whether this operator is already authorized…"));
      if (await isOperatorAuthorized(ctx, input.payoutRecipient, input.operator)) {
        show(status, el("p", { "data-testid": "authorize-done" }, "This operator is already authorized to pay you. Nothing to sign."));
        step.setState("done");
        return;
      }
      const expiresAt = new Date(Math.min(Date.parse(plan.request.expires_at), Date.now() + input.ttlSeconds * 1000));
      const stop = new AbortController();
      renderSignRequest(status, plan.link, plan.request.preview.summary, expiresAt, bridge, stop);
      const authorized = await waitForOperatorAuthorization(ctx, {
        payoutRecipient: input.payoutRecipient,
        operator: input.operator,
        deadline: expiresAt,
        signal: stop.signal,
      });
      if (authorized) {
        show(status, el("p", { "data-testid": "authorize-done" }, "Authorized: your node's operator may now name you as its payout recipient."));
        step.setState("done");
        return;
      }
      throw new StepFailure("The signing request expired before the authorization appeared on the network.");
    } catch (error) {
      step.setState("failed");
      await failure(status, sentenceFor(error), "Create a new request");
      step.setState("active");
    }
  }
}

class StepFailure extends Error {}

function renderSignRequest(status: HTMLElement, link: string, summary: string, expiresAt: Date, bridge: WalletBridge | null, stop: AbortController) {
  const until = expiresAt.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  const open = el("a", { class: bridge ? "button secondary" : "button primary", href: link, "data-testid": "sign-link" }, "Open wallet to sign");
  const parts: (Node | null)[] = [
    el("p", {}, "Sign this with your wallet: ", el("strong", {}, summary), "."),
  ];
  if (bridge) {
    const approve = el("button", { type: "button", class: "primary" }, "Sign in this wallet");
    approve.addEventListener("click", async () => {
      approve.disabled = true;
      const answer = await bridge.open(link).catch(() => ({ approved: false }));
      if (!answer?.approved) stop.abort(new StepFailure("Your wallet refused to sign the authorization."));
      approve.disabled = false;
    });
    parts.push(el("div", { class: "actions" }, approve, open));
  } else {
    parts.push(qrImage(link, "QR code of the authorization to sign"), el("div", { class: "actions" }, open));
  }
  parts.push(el("p", { class: "muted", "aria-live": "polite" }, `Waiting for the authorization to appear on the network. The request is valid until ${until}.`));
  show(status, ...parts);
}

function sentenceFor(error: unknown): string {
  if (error instanceof StepFailure || error instanceof GatewayError) {
    return error instanceof GatewayError ? `${error.message} The page cannot check your authorization right now.` : error.message;
  }
  if (error instanceof Error && error.name === "MessageError") return `This authorization cannot be built: ${error.message}.`;
  return "Something went wrong while checking the authorization.";
}
