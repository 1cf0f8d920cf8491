/**
 * Step 1: pair the customer's wallet. In a browser: a QR code drawn in the page and an "Open
 * wallet" link whose href is the connect deep link; the wallet relays its proof to the session.
 * Inside the wallet app: its bridge's `requestConnect` with the same payload, whose answer is the
 * paired identity (the session row stays pending; the page cancels nothing). A bridge that
 * declines, fails or answers nonsense falls back to the QR and link, and the session keeps
 * waiting for a relayed proof. Nothing opens the wallet's scheme by itself.
 */
import {
  encodeWalletPayload,
  isAccountAddress,
  readConnectAnswer,
  type ChainContext,
} from "../../src/protocol/index.ts";
import { OPEN_ON_THIS_PHONE, SCAN_CAPTION, SCAN_ELSEWHERE_CAPTION } from "../../src/page/first-screen-words.ts";
import { el, failure, show, type Step } from "../dom.ts";
import { qrElement } from "../qr.ts";
import { shortAddress } from "../step-view.ts";
import { PairingError, type SessionClient } from "../session-client.ts";
import { bridgeReason, openWalletLink, type WalletApp } from "../wallet-bridge.ts";

/** The wallet the page paired with, and how it learnt the address. */
export interface PairedWallet {
  address: string;
  pubkeyBase64: string | null;
  accountLabel: string | null;
  via: "wallet app" | "relayed proof";
  /** The pairing session the relayed proof connected; null from the wallet app (its row stays pending). */
  sessionId: string | null;
}

/** Runs the connect step until a wallet is paired; every failure offers a retry. */
export async function runConnectStep(
  step: Step,
  ctx: ChainContext,
  client: SessionClient,
  app: Promise<WalletApp>,
): Promise<PairedWallet> {
  step.setState("active");
  for (;;) {
    try {
      const paired = await attempt(step, ctx, client, app);
      step.setState("done", `Connected: ${shortAddress(paired.address)}`);
      show(
        step.body,
        el(
          "p",
          {},
          paired.via === "wallet app"
            ? "Connected through your wallet app. Your wallet's payout address is:"
            : "Connected. Your wallet's payout address is:",
        ),
        el("p", { class: "address strong", "data-testid": "paired-address" }, paired.address),
        paired.accountLabel ? el("p", { class: "muted" }, `Account: ${paired.accountLabel}`) : null,
      );
      return paired;
    } catch (error) {
      step.setState("failed");
      await failure(step.body, sentenceFor(error), "Start again");
      step.setState("active");
    }
  }
}

async function attempt(
  step: Step,
  ctx: ChainContext,
  client: SessionClient,
  appFound: Promise<WalletApp>,
): Promise<PairedWallet> {
  // The document's step 1 (src/page/): its QR stays on screen while this script takes its session over.
  const served = servedCode(step.body);
  if (!served) show(step.body, el("p", { class: "muted" }, "Preparing a connection request…"));
  const [pending, app] = await Promise.all([client.start(), appFound]);
  const code =
    served?.link === pending.link ? served.qr : qrElement(pending.link, "QR code of the wallet connection request");
  let cancelledHere = false;
  let settled = false;
  const cancel = el("button", { type: "button", class: "secondary" }, "Cancel");
  cancel.addEventListener("click", () => {
    cancelledHere = true;
    cancel.disabled = true;
    pending.cancel().catch(() => undefined);
  });
  const until = pending.expiresAt.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  const relayed = pending.result.then(
    (identity): PairedWallet => ({
      address: identity.address,
      pubkeyBase64: identity.pubkeyBase64 ?? null,
      accountLabel: identity.accountLabel ?? null,
      via: "relayed proof",
      sessionId: identity.sessionId,
    }),
  );
  // Once the bridge has answered, a later expiry of the still-pending row must not surface as an unhandled rejection.
  relayed.catch(() => undefined);

  const showCodes = (why?: string) =>
    show(
      step.body,
      why ? el("p", { class: "notice", role: "status", "data-testid": "bridge-fallback" }, why) : null,
      // As the document lays it out (src/page/first-session.ts); the stylesheet puts the button first on a phone.
      el(
        "div",
        { class: "connect" },
        el("p", { class: "connect-lead" }, OPEN_ON_THIS_PHONE),
        el(
          "figure",
          { class: "connect-code" },
          el(
            "figcaption",
            {},
            el("span", { class: "for-pointer" }, SCAN_CAPTION),
            el("span", { class: "for-touch" }, SCAN_ELSEWHERE_CAPTION),
          ),
          code,
        ),
        el(
          "div",
          { class: "actions" },
          openWalletLink(app, ctx.walletScheme, pending.link, {
            class: "button primary",
            "data-testid": "connect-link",
          }),
          cancel,
        ),
        el(
          "p",
          { class: "muted connect-note" },
          `The request is valid until ${until}. Your recovery phrase is never needed.`,
        ),
      ),
    );

  const bridge = app.bridge;
  let winner: Promise<PairedWallet> = relayed;
  if (!bridge) {
    showCodes();
  } else {
    const viaBridge = new Promise<PairedWallet>((resolve) => {
      const approve = el("button", { type: "button", class: "primary" }, "Connect with this wallet");
      approve.addEventListener("click", async () => {
        approve.disabled = true;
        let answer: unknown;
        try {
          answer = await bridge.requestConnect(encodeWalletPayload(pending.payload));
        } catch (error) {
          if (settled) return;
          return showCodes(
            `Your wallet app declined or could not complete the connection${bridgeReason(error)}. Scan the code or ` +
              `use “Open wallet” instead; this request keeps waiting for your wallet.`,
          );
        }
        if (settled) return;
        const read = readConnectAnswer(ctx, answer);
        if (!read.ok)
          return showCodes(
            `Your wallet app's answer cannot be used: ${read.problem}. Scan the code or use “Open wallet” instead; ` +
              `this request keeps waiting for your wallet.`,
          );
        resolve({
          address: read.address,
          pubkeyBase64: read.pubkeyBase64,
          accountLabel: read.accountLabel,
          via: "wallet app",
          sessionId: null,
        });
      });
      const active = app.activeAddress();
      show(
        step.body,
        el(
          "p",
          {},
          "You are inside your wallet app. Approve the connection to share your payout address with this page.",
        ),
        active && isAccountAddress(active, ctx.bech32Prefix)
          ? el(
              "p",
              { "data-testid": "active-account" },
              "Your wallet's active account is ",
              el("span", { class: "address" }, active),
              ".",
            )
          : null,
        el(
          "div",
          { class: "actions" },
          approve,
          openWalletLink(app, ctx.walletScheme, pending.link, {
            class: "button secondary",
            "data-testid": "connect-link",
          }),
          cancel,
        ),
        el("p", { class: "muted" }, `The request is valid until ${until}.`),
      );
    });
    winner = Promise.race([viaBridge, relayed]);
  }

  try {
    return await winner;
  } catch (error) {
    if (error instanceof PairingError && error.kind === "cancelled" && cancelledHere) {
      throw new PairingError("cancelled", "You cancelled the connection.");
    }
    throw error;
  } finally {
    // A bridge reply that arrives after the step has its answer changes nothing.
    settled = true;
  }
}

/** The QR code and link the document itself showed in step 1, if it still does. */
function servedCode(body: HTMLElement): { qr: Element; link: string } | null {
  const qr = body.querySelector("svg.qr");
  const link = body.querySelector("a[data-testid='connect-link']")?.getAttribute("href");
  return qr && link ? { qr, link } : null;
}

function sentenceFor(error: unknown): string {
  if (error instanceof PairingError) return error.message;
  return "Something went wrong while connecting the wallet.";
}
