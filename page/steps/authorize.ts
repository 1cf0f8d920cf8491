/**
 * Step 2: show the paired payout address beside the operator; when they differ, the payout key
 * signs MsgAuthorizeOperator. Inside the wallet app its bridge's `requestSign` signs and returns
 * the transaction hash, which the page follows through the gateway to its outcome; otherwise a QR
 * code and an "Open wallet" link, and the page waits until `operator_authorizations/<payout>`
 * lists the operator. An existing authorization counts as done; equal addresses skip the step
 * (ErrSelfAuthorization: no authorization is needed).
 */
import type { AuthorizationStep, ChainContext } from "../../src/protocol/index.ts";
import { planOperatorAuthorization, readSignAnswer } from "../../src/protocol/index.ts";
import { addressItem, el, failure, show, type Step } from "../dom.ts";
import { GatewayError, isOperatorAuthorized, waitForAuthorization, type AuthorizationEvidence } from "../gateway.ts";
import { qrElement } from "../qr.ts";
import { shortAddress } from "../step-view.ts";
import { SCAN_ELSEWHERE_CAPTION } from "../../src/page/first-screen-words.ts";
import { bridgeReason, openWalletLink, type WalletApp } from "../wallet-bridge.ts";

interface AuthorizeInput {
  payoutRecipient: string;
  operator: string;
  label: string;
  origin: { name: string; url: string };
  /** Longest life of a sign request, from the server's session limit. */
  ttlSeconds: number;
  /** Aborted, the step stops where it stands and leaves the page to its caller. */
  signal?: AbortSignal;
  /** Told the hash the wallet app returned; the step follows it once this resolves and stops if it rejects. */
  onSigned?(txhash: string): Promise<void>;
}

type SignPlan = Extract<AuthorizationStep, { kind: "sign" }>;

/** The transaction hash the wallet app returned, once it has; `wake` fires when it arrives. */
interface Signature {
  txhash: string | null;
  wake: EventTarget;
}

/** Runs step 2 until the operator is authorized or the step is skipped. */
export async function runAuthorizeStep(
  step: Step,
  ctx: ChainContext,
  input: AuthorizeInput,
  app: WalletApp,
): Promise<void> {
  step.setState("active");
  const pair = el(
    "dl",
    { class: "pair" },
    ...addressItem("Your payout address (wallet)", input.payoutRecipient, "payout-address"),
    ...addressItem("Your node's operator address", input.operator, "operator-address"),
  );
  const status = el("div", {});
  // The next action first: the request and its button, then the two addresses it names.
  show(step.body, status, pair);

  for (;;) {
    if (input.signal?.aborted) return;
    try {
      const plan = planOperatorAuthorization(ctx, { ...input, now: Date.now() });
      if (plan.kind === "skip") {
        show(status, el("p", { "data-testid": "authorize-skipped" }, `No signature needed. ${plan.reason}`));
        step.setState("skipped", "No authorization needed");
        return;
      }
      show(status, el("p", { class: "muted" }, "Checking whether this operator is already authorized…"));
      if (await isOperatorAuthorized(ctx, input.payoutRecipient, input.operator)) {
        show(
          status,
          el(
            "p",
            { "data-testid": "authorize-done" },
            "This operator is already authorized to pay you. Nothing to sign.",
          ),
        );
        step.setState("done", `Authorized: ${shortAddress(input.operator)}`);
        return;
      }
      const expiresAt = new Date(Math.min(Date.parse(plan.request.expires_at), Date.now() + input.ttlSeconds * 1000));
      const signature: Signature = { txhash: null, wake: new EventTarget() };
      const stop = new AbortController();
      input.signal?.addEventListener("abort", () => stop.abort(), { once: true });
      renderSignRequest(status, ctx, plan, expiresAt, app, signature, stop.signal, input.onSigned);
      try {
        const evidence = await waitForAuthorization(ctx, {
          payoutRecipient: input.payoutRecipient,
          operator: input.operator,
          deadline: expiresAt,
          txhash: () => signature.txhash,
          wake: signature.wake,
          signal: stop.signal,
        });
        show(status, el("p", { "data-testid": "authorize-done" }, doneSentence(evidence)));
      } finally {
        stop.abort();
      }
      step.setState("done", `Authorized: ${shortAddress(input.operator)}`);
      return;
    } catch (error) {
      if (input.signal?.aborted) return;
      step.setState("failed");
      await failure(status, sentenceFor(error), "Create a new request");
      step.setState("active");
    }
  }
}

class StepFailure extends Error {}

/** The sentence for a successful outcome; throws a StepFailure for the others. */
function doneSentence(evidence: AuthorizationEvidence): string {
  switch (evidence.kind) {
    case "listed":
      return "Authorized: your node's operator may now name you as its payout recipient.";
    case "included":
      return (
        `Authorized: transaction ${evidence.txhash} is on the ` +
        `network${evidence.height ? ` (block ${evidence.height})` : ""}. Your node's operator may now name you as ` +
        `its payout recipient.`
      );
    case "already-authorized":
      return (
        `Your wallet had already authorized this operator, so transaction ${evidence.txhash} changed nothing: ` +
        `that counts as done.`
      );
    case "failed":
      throw new StepFailure(
        `The network refused the authorization (transaction ${evidence.txhash}): ` +
          `${evidence.reason.replace(/[.!?]+$/, "")}.`,
      );
    case "expired":
      throw new StepFailure("The signing request expired before the authorization appeared on the network.");
  }
}

/** Shows the request; `settled` aborts once the step has its answer, so a late bridge reply changes nothing. */
function renderSignRequest(
  status: HTMLElement,
  ctx: ChainContext,
  plan: SignPlan,
  expiresAt: Date,
  app: WalletApp,
  signature: Signature,
  settled: AbortSignal,
  onSigned: AuthorizeInput["onSigned"],
): void {
  const until = expiresAt.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  const what = el("p", {}, "Sign this with your wallet: ", el("strong", {}, plan.request.preview.summary), ".");
  const waiting = el(
    "p",
    { class: "muted", "aria-live": "polite" },
    `Waiting for the authorization to appear on the network. The request is valid until ${until}.`,
  );
  const open = (primary: boolean) =>
    openWalletLink(
      app,
      ctx.walletScheme,
      plan.link,
      { class: primary ? "button primary" : "button secondary", "data-testid": "sign-link" },
      "Open wallet to sign",
    );

  const showCodes = (why?: string) =>
    show(
      status,
      why ? el("p", { class: "notice", role: "status", "data-testid": "bridge-fallback" }, why) : null,
      // As step 1: the stylesheet puts the button before the QR on a phone, the QR first elsewhere.
      el(
        "div",
        { class: "connect" },
        what,
        plan.qrContent === null
          ? el(
              "p",
              { class: "notice", "data-testid": "sign-qr-too-large" },
              "This request is too large for a QR code. On the phone that holds your wallet, use the “Open wallet " +
                "to sign” button.",
            )
          : el(
              "figure",
              { class: "connect-code" },
              el("figcaption", { class: "for-touch" }, SCAN_ELSEWHERE_CAPTION),
              qrElement(plan.qrContent, "QR code of the authorization to sign"),
            ),
        el("div", { class: "actions" }, open(true)),
        waiting,
      ),
    );

  const bridge = app.bridge;
  if (!bridge) return showCodes();
  const approve = el("button", { type: "button", class: "primary" }, "Sign in your wallet app");
  approve.addEventListener("click", async () => {
    approve.disabled = true;
    let answer: unknown;
    try {
      answer = await bridge.requestSign(plan.encoded);
    } catch (error) {
      if (settled.aborted) return;
      return showCodes(
        `Your wallet app declined or could not sign${bridgeReason(error)}. Scan the code with the phone that holds ` +
          `your wallet, or use “Open wallet to sign”.`,
      );
    }
    if (settled.aborted) return;
    const txhash = readSignAnswer(answer);
    if (txhash === null)
      return showCodes(
        "Your wallet app did not return a transaction hash. Scan the code with the phone that holds your wallet, or " +
          "use “Open wallet to sign”.",
      );
    try {
      await onSigned?.(txhash);
    } catch {
      // The caller refused the transaction and has taken the page over.
      return;
    }
    if (settled.aborted) return;
    signature.txhash = txhash;
    signature.wake.dispatchEvent(new Event("wake"));
    show(
      status,
      what,
      el(
        "p",
        {},
        "Your wallet app signed and sent transaction ",
        el("code", { "data-testid": "sign-txhash" }, txhash),
        ".",
      ),
      el("p", { class: "muted", "aria-live": "polite" }, "Waiting for the network to include it…"),
    );
  });
  show(status, what, el("div", { class: "actions" }, approve, open(false)), waiting);
}

function sentenceFor(error: unknown): string {
  if (error instanceof StepFailure) return error.message;
  if (error instanceof GatewayError) return `${error.message} The page cannot check your authorization right now.`;
  if (error instanceof Error && error.name === "MessageError")
    return `This authorization cannot be built: ${error.message}.`;
  return "Something went wrong while checking the authorization.";
}
