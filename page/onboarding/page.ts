/**
 * The customer's page of a host's onboarding (`/?onboarding=ob_…`). The operator and label are
 * the onboarding's; nothing in the query string changes them. The customer connects the wallet
 * as on the self-hoster's page, the page hands the paired payout to the server and asks for the
 * authorization, and from then on shows what the server has verified on the chain, pushed over
 * a WebSocket, through the node paying the payout. The host applies it: no command is shown.
 */
import {
  isOnboardingEnded,
  ONBOARDING_ID_PATTERN,
  type ChainContext,
  type WalletAppGlobals,
} from "../../src/protocol/index.ts";
import { el, failure, show, step } from "../dom.ts";
import { createSessionClient, type FirstSession } from "../session-client.ts";
import { runAuthorizeStep } from "../steps/authorize.ts";
import { runConnectStep, type PairedWallet } from "../steps/connect.ts";
import { detachable } from "../detachable-step.ts";
import { shortAddress } from "../step-view.ts";
import { findWalletApp } from "../wallet-bridge.ts";
import {
  fetchOnboardingView,
  fetchPairingSession,
  OnboardingApiError,
  submitAuthorization,
  submitPayout,
} from "./api.ts";
import { followOnboarding } from "./follow.ts";
import { backToHost, endedSentence, INVALID_LINK_SENTENCE, onboardingSummary, showEnd } from "./notices.ts";
import { showAuthorized, showHostProgress } from "./progress.ts";
import { isAuthorized, type CustomerView } from "./view.ts";

/** What the hosted page needs from the page's settings. */
export interface HostedPageSettings {
  ctx: ChainContext;
  walletApp: WalletAppGlobals;
  sessionTtlMaxSeconds: number;
  /** Shown to the wallet as who asks. */
  originName: string;
  /** The signed session the document carried, shown as step 1 before this script ran. */
  first: FirstSession | null;
}

/** Runs the page of onboarding `id` until it ends. */
export async function runHostedOnboarding(id: string, settings: HostedPageSettings): Promise<void> {
  const status = document.getElementById("page-status")!;
  show(status, el("p", { class: "muted" }, "Loading your onboarding…"));
  const view = ONBOARDING_ID_PATTERN.test(id) ? await loadView(id, status) : null;
  if (view === null) {
    // The document's step 1 (its QR and link) leads nowhere for a link the server does not know.
    document.getElementById("steps")!.hidden = true;
    show(step("step-connect").body);
    return show(
      status,
      el("p", { class: "error", role: "alert", "data-testid": "onboarding-ended" }, INVALID_LINK_SENTENCE),
    );
  }
  await new HostedOnboarding(id, settings, status).run(view);
}

/** The view, retried on a plain sentence while the server cannot answer; null for a link it does not know. */
async function loadView(id: string, status: HTMLElement): Promise<CustomerView | null> {
  for (;;) {
    try {
      return await fetchOnboardingView(id);
    } catch (error) {
      if (error instanceof OnboardingApiError && (error.status === 404 || error.status === 400)) return null;
      await failure(
        status,
        error instanceof Error ? error.message : "The onboarding could not be loaded.",
        "Try again",
      );
      show(status, el("p", { class: "muted" }, "Loading…"));
    }
  }
}

class HostedOnboarding {
  private readonly notice = el("div", { class: "outcome" });
  private readonly steps = document.getElementById("steps")!;
  private readonly connect = step("step-connect");
  private readonly authorize = step("step-authorize");
  private readonly progress = step("step-apply");
  /** Aborted once the chain lists the authorization or the onboarding ends: the sign request is moot. */
  private readonly authorizing = new AbortController();
  /** The authorize step as its runner sees it; cut off once the server's word replaces it. */
  private readonly authorizeRunner = detachable(this.authorize);
  private follower: { stop(): void } | null = null;
  /** The last view the server gave: its host and return URL make the way back. */
  private latest: CustomerView | null = null;
  private finished = false;
  private payoutKnown!: (payout: string) => void;
  private readonly payoutElsewhere = new Promise<string>((resolve) => (this.payoutKnown = resolve));
  private readonly id: string;
  private readonly settings: HostedPageSettings;
  private readonly status: HTMLElement;

  constructor(id: string, settings: HostedPageSettings, status: HTMLElement) {
    this.id = id;
    this.settings = settings;
    this.status = status;
  }

  async run(view: CustomerView): Promise<void> {
    // Where the document already showed it (src/page/first-summary.ts), in the same words.
    show(document.getElementById("page-summary")!, onboardingSummary(view));
    show(this.status, this.notice);
    if (view.status === "cancelled" || view.status === "expired") return this.end(endedSentence(view)!, view);
    this.prepareSteps();
    if (view.payout !== null) this.showPaired(view.payout);
    this.take(view);
    if (isOnboardingEnded(view.status)) return;
    this.follow();

    const payout = view.payout ?? (await this.pairPayout());
    if (payout === null) return;
    this.showPaired(payout);
    // Already on the chain (or ended): the server's word stands in step 2, nothing to sign.
    if (this.finished || this.authorizing.signal.aborted) return;
    const { ctx, sessionTtlMaxSeconds, walletApp, originName } = this.settings;
    await runAuthorizeStep(
      this.authorizeRunner.step,
      ctx,
      {
        payoutRecipient: payout,
        operator: view.operator,
        label: view.label,
        origin: { name: originName, url: location.origin },
        ttlSeconds: sessionTtlMaxSeconds,
        signal: this.authorizing.signal,
        onSigned: (txhash) => this.reportSignature(txhash),
      },
      await findWalletApp(walletApp),
    );
  }

  /** Step 3 is the host's; the optional sweep is a command, which a hosted customer never runs. */
  private prepareSteps(): void {
    const heading = this.progress.section.querySelector("h2")?.firstChild;
    if (heading) heading.textContent = "3. Your host applies the payout ";
    document.getElementById("step-sweep")?.closest("li")?.setAttribute("hidden", "");
    this.authorize.setState("waiting");
    this.steps.hidden = false;
  }

  /** Shows what a new view says; the server's word wins over anything the steps showed. */
  private take(view: CustomerView): void {
    if (this.finished) return;
    this.latest = view;
    if (view.status === "cancelled" || view.status === "expired") return this.end(endedSentence(view)!, view);
    if (view.payout !== null) this.payoutKnown(view.payout);
    if (isAuthorized(view.status)) {
      this.authorizing.abort();
      this.authorizeRunner.detach();
      showAuthorized(this.authorize, view);
    }
    showHostProgress(this.progress, view);
    if (view.status === "applied") {
      this.finished = true;
      this.follower?.stop();
      showEnd(this.notice, view);
    }
  }

  private follow(): void {
    this.follower = followOnboarding(this.id, {
      view: (view) => this.take(view),
      gaveUp: () => {
        const again = el("button", { type: "button", class: "secondary" }, "Check again");
        again.addEventListener("click", () => (show(this.notice), this.follow()), { once: true });
        show(this.notice, el("p", {}, "The page stopped checking after 30 minutes."), again);
      },
    });
  }

  /** Ends the page with one plain sentence and no steps left to take. */
  private end(sentence: string, view: CustomerView | null): void {
    this.finished = true;
    this.authorizing.abort();
    this.authorizeRunner.detach();
    this.follower?.stop();
    this.steps.hidden = true;
    // The document's QR and link lead nowhere now.
    show(this.connect.body);
    show(
      this.notice,
      el("p", { class: "error", role: "alert", "data-testid": "onboarding-ended" }, sentence),
      view ? backToHost(view) : null,
    );
  }

  /**
   * Connects the wallet and hands its address to the server; null once the onboarding ended. A
   * payout paired elsewhere meanwhile (another device) is taken as it is.
   */
  private async pairPayout(): Promise<string | null> {
    const { ctx, walletApp, originName, first } = this.settings;
    // The document's own session: its QR is already on screen, and a wallet may have confirmed it.
    // Each later session is signed for this onboarding too: the wallet's confirm pairs it on the server.
    const signed = () => fetchPairingSession(this.id);
    const client = createSessionClient(ctx, { origin: location.origin, originName, first, signed });
    const app = findWalletApp(walletApp);
    for (;;) {
      const runner = detachable(this.connect);
      const paired = await Promise.race([runConnectStep(runner.step, ctx, client, app), this.payoutElsewhere]);
      // Its pending request may still settle later; what it would show then goes nowhere.
      runner.detach();
      if (this.finished) return null;
      if (typeof paired === "string") return paired;
      const taken = await this.submit(paired);
      if (taken !== undefined) return taken;
    }
  }

  /** The payout the server took, null once the onboarding ended, undefined to connect again. */
  private async submit(paired: PairedWallet): Promise<string | null | undefined> {
    for (;;) {
      try {
        const view = await submitPayout(
          this.id,
          paired.sessionId !== null ? { sessionId: paired.sessionId } : { inAppAddress: paired.address },
        );
        this.take(view);
        return this.finished ? null : (view.payout ?? paired.address);
      } catch (error) {
        const refused =
          error instanceof OnboardingApiError ? error : new OnboardingApiError(0, null, "Something went wrong.");
        if (refused.status === 404 || refused.status === 410) {
          await this.refresh();
          if (!this.finished) this.end("This onboarding has ended. There is nothing more to do here.", null);
          return null;
        }
        this.connect.setState("failed");
        if (refused.status === 409) {
          await failure(this.connect.body, `${refused.message.replace(/[.!?]+$/, "")}.`, "Continue");
          const view = await this.refresh();
          if (this.finished) return null;
          if (view?.payout) return view.payout;
          this.connect.setState("active");
          return undefined;
        }
        await failure(
          this.connect.body,
          `Your wallet is connected, but the onboarding server did not take its address. ${refused.message}`,
          "Try again",
        );
        this.connect.setState("active");
      }
    }
  }

  /** Reads the view again and shows it; null when the server cannot answer now. */
  private async refresh(): Promise<CustomerView | null> {
    try {
      const view = await fetchOnboardingView(this.id);
      this.take(view);
      return view;
    } catch {
      return null;
    }
  }

  /**
   * Tells the server which transaction the wallet app signed. A signer other than the paired
   * payout stops the onboarding (409): its sentence is shown as it comes, and the step stops.
   */
  private async reportSignature(txhash: string): Promise<void> {
    try {
      this.take(await submitAuthorization(this.id, txhash));
    } catch (error) {
      if (!(error instanceof OnboardingApiError)) return;
      if (error.status === 409 || error.status === 410) {
        // The refusal's own words, even when the push said "cancelled" first.
        this.end(`${error.message.replace(/[.!?]+$/, "")}.`, this.latest);
        throw error;
      }
      // Anything else: the server still reads the chain itself, and the step follows the transaction.
    }
  }

  /** The paired address, large, with what to check, before the authorization uses it. */
  private showPaired(payout: string): void {
    this.connect.setState("done", `Connected: ${shortAddress(payout)}`);
    show(
      this.connect.body,
      el("p", {}, "Your wallet is connected. Its payout address is:"),
      el("p", { class: "address strong", "data-testid": "paired-address" }, payout),
      el(
        "p",
        { class: "notice", "data-testid": "check-address" },
        "Check that this is the address your wallet shows. Your node's rewards will go to it.",
      ),
    );
  }
}
