/**
 * Step 1: pair the customer's wallet. A QR code drawn in the page, an "Open wallet" link whose
 * href is the connect deep link, and inside the wallet's web view its native bridge instead.
 * Nothing opens the wallet's scheme by itself: that would reload the page and lose the session.
 */
import { el, failure, show, type Step } from "../dom.ts";
import { qrImage } from "../qr.ts";
import { PairingError, type SessionClient, type WalletIdentity } from "../session-client.ts";
import type { WalletBridge } from "../wallet-bridge.ts";

/** Runs the connect step until a wallet is paired; every failure offers a retry. */
export async function runConnectStep(step: Step, client: SessionClient, bridge: WalletBridge | null): Promise<WalletIdentity> {
  step.setState("active");
  for (;;) {
    try {
      const identity = await attempt(step, client, bridge);
      step.setState("done");
      show(
        step.body,
        el("p", {}, "Connected. Your wallet's payout address is:"),
        el("p", { class: "address strong", "data-testid": "paired-address" }, identity.address),
        identity.accountLabel ? el("p", { class: "muted" }, `Account: ${identity.accountLabel}`) : null,
      );
      return identity;
    } catch (error) {
      step.setState("failed");
      await failure(step.body, sentenceFor(error), "Start again");
      step.setState("active");
    }
  }
}

async function attempt(step: Step, client: SessionClient, bridge: WalletBridge | null): Promise<WalletIdentity> {
  show(step.body, el("p", { class: "muted" }, "Preparing a connection request…"));
  const pending = await client.start();
  let cancelledHere = false;
  let declined = false;

  const cancel = el("button", { type: "button", class: "secondary" }, "Cancel");
  cancel.addEventListener("click", () => {
    cancelledHere = true;
    cancel.disabled = true;
    pending.cancel().catch(() => undefined);
  });
  const until = pending.expiresAt.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  const open = el("a", { class: bridge ? "button secondary" : "button primary", href: pending.link, "data-testid": "connect-link" }, "Open wallet");

  if (bridge) {
    const approve = el("button", { type: "button", class: "primary" }, "Connect this wallet");
    approve.addEventListener("click", async () => {
      approve.disabled = true;
      try {
        const answer = await bridge.open(pending.link);
        if (!answer?.approved) {
          declined = true;
          await pending.cancel();
        }
      } catch {
        declined = true;
        await pending.cancel().catch(() => undefined);
      }
    });
    show(
      step.body,
      el("p", {}, "You are inside your wallet app. Approve the connection to share your payout address with this page."),
      el("div", { class: "actions" }, approve, cancel),
      el("p", { class: "muted" }, `The request is valid until ${until}.`),
    );
  } else {
    show(
      step.body,
      el("p", {}, "Scan this code with your wallet app. On the phone that holds your wallet, tap “Open wallet” instead."),
      qrImage(pending.link, "QR code of the wallet connection request"),
      el("div", { class: "actions" }, open, cancel),
      el("p", { class: "muted" }, `The request is valid until ${until}. Your recovery phrase is never needed.`),
    );
  }

  try {
    return await pending.result;
  } catch (error) {
    if (error instanceof PairingError && error.kind === "cancelled") {
      if (cancelledHere) throw new PairingError("cancelled", "You cancelled the connection.");
      if (declined) throw new PairingError("cancelled", "Your wallet declined the connection.");
    }
    throw error;
  }
}

function sentenceFor(error: unknown): string {
  if (error instanceof PairingError) return error.message;
  return "Something went wrong while connecting the wallet.";
}
