/**
 * The onboarding page: (1) connect the wallet, (2) authorize the operator unless it is the payout
 * address itself, (3) apply the payout on the node, (4) optionally sweep the operator's balance.
 * Settings come with the document (the Worker fills them in, src/page/), and so does, for a link
 * that needs a wallet connection, step 1 itself: a signed session, its link and QR, which this
 * script takes over without creating another; every request stays on this origin.
 */
import { PAGE_ORIGIN_NAME } from "../src/protocol/page-origin.ts";
import { el, show, step } from "./dom.ts";
import { runHostedOnboarding } from "./onboarding/page.ts";
import { onboardingIdParam } from "./onboarding/view.ts";
import { createSessionClient } from "./session-client.ts";
import { readFirstSession, readSettings, type PageSettings } from "./settings.ts";
import { readParams, showStartForm } from "./start-form.ts";
import { runApplyStep } from "./steps/apply.ts";
import { runAuthorizeStep } from "./steps/authorize.ts";
import { runConnectStep } from "./steps/connect.ts";
import { createNodeTargetFields } from "./steps/node-target.ts";
import { runSweepStep } from "./steps/sweep.ts";
import { findWalletApp } from "./wallet-bridge.ts";

async function main(): Promise<void> {
  const status = document.getElementById("page-status")!;
  let settings: PageSettings;
  try {
    settings = readSettings();
  } catch (error) {
    return show(
      status,
      el("p", { class: "error", role: "alert" }, error instanceof Error ? error.message : "The page could not start."),
    );
  }
  show(status);
  const { ctx, walletApp, nodeDefaults, sessionTtlMaxSeconds } = settings;
  // A host's onboarding link: its operator and label are the server's, not the query string's.
  const onboardingId = onboardingIdParam(location.search);
  const first = readFirstSession();
  if (onboardingId !== null)
    return runHostedOnboarding(onboardingId, {
      ctx,
      walletApp,
      sessionTtlMaxSeconds,
      originName: PAGE_ORIGIN_NAME,
      first,
    });
  const { params, problem } = readParams(ctx, location.search);
  if (problem !== null) return showStartForm(document.getElementById("start") as HTMLFormElement, ctx, params, problem);

  document.getElementById("steps")!.hidden = false;
  // Looked for while the session is created: inside the app the bridge may arrive a little later.
  const app = findWalletApp(walletApp);
  const origin = { name: PAGE_ORIGIN_NAME, url: location.origin };
  const client = createSessionClient(ctx, { origin: location.origin, originName: PAGE_ORIGIN_NAME, first });

  const connect = step("step-connect");
  const authorize = step("step-authorize");
  const apply = step("step-apply");
  const sweep = step("step-sweep");
  for (const later of [authorize, apply, sweep]) later.setState("waiting");

  const paired = await runConnectStep(connect, ctx, client, app);
  // Focus without the browser's own jump: the step brings itself into view (page/step-view.ts).
  authorize.section.querySelector("h2")?.focus({ preventScroll: true });
  const pair = { operator: params.operator, payoutRecipient: paired.address };
  await runAuthorizeStep(
    authorize,
    ctx,
    { ...pair, label: params.label, origin, ttlSeconds: sessionTtlMaxSeconds },
    await app,
  );

  const target = createNodeTargetFields({
    ...nodeDefaults,
    keyName: params.keyName ?? nodeDefaults.keyName,
    container: params.container ?? nodeDefaults.container,
  });
  runApplyStep(apply, ctx, pair, target);
  runSweepStep(sweep, ctx, pair, target);
  apply.section.querySelector("h2")?.focus({ preventScroll: true });
}

void main();
