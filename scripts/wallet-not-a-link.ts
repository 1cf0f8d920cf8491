/**
 * What the wallet simulator (scripts/wallet.ts) refuses before reading a link, in words: an empty
 * argument, a page's HTML, or a page's address, whose onboarding's state it reads and names.
 */

/** A refusal whose message the simulator prints as it is. */
class NotALink extends Error {}

/** What a page of an ended or paired onboarding says instead of a link, by its status. */
const NOTHING_TO_PAIR: Record<string, string> = {
  applied: "is applied already: its node pays the payout, nothing is left to pair",
  cancelled: "was cancelled: nothing is left to pair",
  expired: "expired: nothing is left to pair",
  connected: "is connected already: a wallet is paired, sign its authorization instead (the page's second step)",
  authorized: "is authorized already: a wallet is paired and authorized, the host applies the payout next",
};

/**
 * Throws, in words, for what is not a wallet link: an empty argument (a page that carried no
 * connect link, or a variable left unset), a page's HTML, or the page's own address, whose
 * onboarding's state it reads and names (a host re-running a guide gets its applied onboarding back).
 */
export async function refuseWhatIsNoLink(input: string, server: string): Promise<void> {
  if (input === "")
    throw new NotALink(
      "the link is empty: nothing to connect or sign. A host's onboarding page carries no connect link once its " +
        "onboarding is paired or ended (GET /api/onboarding-pages/<id> says its status), or the variable holding " +
        "the link was never set",
    );
  if (input.startsWith("<"))
    throw new NotALink("this is a page's HTML, not a wallet link: give the link of its “Open wallet” button");
  if (!/^https?:\/\//i.test(input)) return;
  const id = /[?&]onboarding=(ob_[0-9a-f]{32})\b/.exec(input)?.[1];
  if (id === undefined)
    throw new NotALink("this is a web address, not a wallet link: give the link of the page's “Open wallet” button");
  const origin = new URL(input).origin || server;
  let status: number;
  let state: string | undefined;
  try {
    const response = await fetch(`${origin}/api/onboarding-pages/${id}`);
    status = response.status;
    state = ((await response.json().catch(() => null)) as { status?: string } | null)?.status;
  } catch {
    throw new NotALink(`this is the page of onboarding ${id}, not a wallet link, and ${origin} cannot be reached`);
  }
  if (status === 200 && state !== undefined && NOTHING_TO_PAIR[state] !== undefined)
    throw new NotALink(
      `this is the page of onboarding ${id}, not a wallet link, and the onboarding ${NOTHING_TO_PAIR[state]}. A new ` +
        "onboarding needs a new Idempotency-Key",
    );
  throw new NotALink(
    `this is the page of onboarding ${id} (${status === 200 ? state : `answered ${status}`}), not a wallet link: ` +
      "give the link of its “Open wallet” button",
  );
}
