/**
 * The pairing session of a host's onboarding page: signed for that onboarding (stored on its first
 * use, src/sessions/signed-ids.ts) while it waits for a wallet, so the wallet's confirm alone pairs
 * it; none once it is paired or ended, so a reload shows the next step instead of a new pairing.
 * The page's first response carries one, and the page asks for the next when that one has ended.
 */
import type { Context } from "hono";
import type { AppEnv } from "../../app-env";
import type { Config } from "../../config";
import type { ErrorSpec } from "../../errors";
import { isRefusal } from "../../http/answer";
import { firstSession, type FirstSession } from "../../page/first-session";
import type { OnboardingCustomerView } from "../../protocol/index";
import { PAIRING_CLOSED, SIGNED_SESSIONS_OFF } from "../refusals";

export async function onboardingSession(c: Context<AppEnv>, id: string): Promise<FirstSession | ErrorSpec> {
  const view = await c.env.ONBOARDINGS.get(c.env.ONBOARDINGS.idFromName(id)).customer();
  if (isRefusal(view)) return view;
  return boundSession(c.get("config"), new URL(c.req.url).origin, Date.now(), id, view.body);
}

/** The session for onboarding `id` as `view` shows it: one signed for it while it is open, else why none. */
export async function boundSession(
  config: Config,
  origin: string,
  now: number,
  id: string,
  view: Pick<OnboardingCustomerView, "status">,
): Promise<FirstSession | ErrorSpec> {
  if (view.status !== "open") return PAIRING_CLOSED(view.status);
  return (await firstSession(config, origin, now, id)) ?? SIGNED_SESSIONS_OFF;
}
