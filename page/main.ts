/**
 * The onboarding page: (1) connect the wallet, (2) authorize the operator unless it is the payout
 * address itself, (3) apply the payout on the node, (4) optionally sweep the operator's balance.
 * Settings come from the server; every request stays on this origin.
 */
import { el, failure, show, step } from "./dom.ts";
import { createSessionClient } from "./session-client.ts";
import { runHostedOnboarding } from "./onboarding/page.ts";
import { onboardingIdParam } from "./onboarding/view.ts";
import { loadSettings, type PageSettings } from "./settings.ts";
import { readParams, showStartForm } from "./start-form.ts";
import { runApplyStep } from "./steps/apply.ts";
import { runAuthorizeStep } from "./steps/authorize.ts";
import { runConnectStep } from "./steps/connect.ts";
import { createNodeTargetFields } from "./steps/node-target.ts";
import { runSweepStep } from "./steps/sweep.ts";
import { findWalletApp } from "./wallet-bridge.ts";

/** Shown to the wallet as who asks. */
const ORIGIN_NAME = "Hosted node onboarding";

async function settingsWithRetry(status: HTMLElement): Promise<PageSettings> {
  for (;;) {
    try {
      const settings = await loadSettings();
      show(status);
      return settings;
    } catch (error) {
      await failure(status, error instanceof Error ? error.message : "The page could not start.", "Retry");
      show(status, el("p", { class: "muted" }, "Loading…"));
    }
  }
}

async function main(): Promise<void> {
  const status = document.getElementById("page-status")!;
  const { ctx, walletApp, nodeDefaults, sessionTtlMaxSeconds } = await settingsWithRetry(status);
  // A host's onboarding link: its operator and label are the server's, not the query string's.
  const onboardingId = onboardingIdParam(location.search);
  if (onboardingId !== null) return runHostedOnboarding(onboardingId, { ctx, walletApp, sessionTtlMaxSeconds, originName: ORIGIN_NAME });
  const { params, problem } = readParams(ctx, location.search);
  if (problem !== null) return showStartForm(document.getElementById("start") as HTMLFormElement, ctx, params, problem);

  document.getElementById("steps")!.hidden = false;
  // Looked for while the session is created: inside the app the bridge may arrive a little later.
  const app = findWalletApp(walletApp);
  const origin = { name: ORIGIN_NAME, url: location.origin };
  const client = createSessionClient(ctx, { origin: location.origin, originName: ORIGIN_NAME });

  const connect = step("step-connect");
  const authorize = step("step-authorize");
  const apply = step("step-apply");
  const sweep = step("step-sweep");
  for (const later of [authorize, apply, sweep]) later.setState("waiting");

  const paired = await runConnectStep(connect, ctx, client, app);
  authorize.section.querySelector("h2")?.focus();
  const pair = { operator: params.operator, payoutRecipient: paired.address };
  await runAuthorizeStep(authorize, ctx, { ...pair, label: params.label, origin, ttlSeconds: sessionTtlMaxSeconds }, await app);

  const target = createNodeTargetFields({ ...nodeDefaults, keyName: params.keyName ?? nodeDefaults.keyName, container: params.container ?? nodeDefaults.container });
  runApplyStep(apply, ctx, pair, target);
  runSweepStep(sweep, ctx, pair, target);
  apply.section.querySelector("h2")?.focus();
}

void main();
