/**
 * The pairing is bound on the server: the session an onboarding page's first response carries is
 * signed for that onboarding, and the wallet's relayed confirm alone (no page) moves the onboarding
 * to `connected`, through the real session and onboarding objects. A reload after it mints no new
 * session; a session signed for one onboarding pairs no other; a tell that fails is kept and retried.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { parseDeepLink } from "../../src/protocol/index";
import { ORIGIN, WALLET, accountAddress, api, errorReason, postJson, proofFor } from "../helpers/sessions";
import {
  clockTo,
  config,
  createOnboarding,
  devnetNode,
  hostPost,
  onboardingStub,
  page,
  pairByRelay,
  readOnboarding,
  settle,
} from "./helpers";

afterEach(() => vi.useRealTimers());

interface Carried {
  session_id: string;
  expires_at: string;
  link: string;
  onboarding?: string;
}

/** Loads `/?onboarding=<id>` as a browser would; the session its document carries, or null. */
async function load(id: string): Promise<{ first: Carried | null; html: string }> {
  const html = await (await exports.default.fetch(new Request(`${ORIGIN}/?onboarding=${id}`))).text();
  const text = /<script type="application\/json" id="first-session">([^<]*)<\/script>/.exec(html)![1]!;
  return { first: text === "" ? null : JSON.parse(text), html };
}

/** Where the wallet posts its proof: the relay URL of the connect link, as the wallet app reads it. */
function relayUrlOf(first: Carried): string {
  return (parseDeepLink(first.link).payload as { relay_url: string }).relay_url;
}

function sessionStub(sessionId: string) {
  return env.PAIRING_SESSIONS.get(env.PAIRING_SESSIONS.idFromName(sessionId));
}

const operator = () => accountAddress();

describe("the wallet's relayed confirm of the page's session", () => {
  it("connects the onboarding with the confirmed payout, with no page in between", async () => {
    const onboarding = await createOnboarding({ operator: operator(), label: "Bound" });
    const { first } = await load(onboarding.id);
    expect(first!.onboarding).toBe(onboarding.id);
    const relay = relayUrlOf(first!);
    expect(relay).toBe(`${ORIGIN}${WALLET}/${first!.session_id}/confirm?onboarding=${onboarding.id}`);

    const payout = accountAddress();
    const confirmed = await postJson(relay, proofFor(first!.session_id, { address: payout }));
    expect(confirmed.status).toBe(200);
    expect(await confirmed.json()).not.toHaveProperty("onboarding");

    const after = await readOnboarding(onboarding.id);
    expect(after.status).toBe("connected");
    expect(after.payout).toBe(payout);
    expect(after.payout_source).toBe("relay");
    // The page's own report afterwards, as its script still sends it, changes nothing.
    expect((await page.payout(onboarding.id, { session_id: first!.session_id })).status).toBe(200);
    expect((await readOnboarding(onboarding.id)).payout).toBe(payout);
  });

  it("a reload after the confirm carries no new session", async () => {
    const onboarding = await createOnboarding({ operator: operator(), label: "Reload" });
    const { first } = await load(onboarding.id);
    await postJson(relayUrlOf(first!), proofFor(first!.session_id));
    const reloaded = await load(onboarding.id);
    expect(reloaded.first).toBeNull();
    expect(reloaded.html).not.toContain('data-testid="connect-qr"');
  });

  it("an onboarding link the server does not know carries no session", async () => {
    expect((await load(`ob_${"0".repeat(32)}`)).first).toBeNull();
  });
});

describe("the page's next session, once the document's has ended", () => {
  const next = (id: string) => postJson(`/api/onboarding-pages/${id}/session`, "", { headers: { origin: ORIGIN } });

  it("is signed for the onboarding while it is open, and its confirm alone pairs it", async () => {
    const onboarding = await createOnboarding({ operator: operator(), label: "Next" });
    const answer = await next(onboarding.id);
    expect(answer.status).toBe(200);
    const session = (await answer.json()) as Carried;
    expect(session.onboarding).toBe(onboarding.id);
    const payout = accountAddress();
    expect((await postJson(relayUrlOf(session), proofFor(session.session_id, { address: payout }))).status).toBe(200);
    expect(await readOnboarding(onboarding.id)).toMatchObject({ status: "connected", payout, payout_source: "relay" });

    const closed = await next(onboarding.id);
    expect(closed.status).toBe(409);
    expect(await errorReason(closed)).toBe("PAIRING_CLOSED");
    expect((await next(`ob_${"0".repeat(32)}`)).status).toBe(404);
  });
});

describe("a session signed for one onboarding", () => {
  it("cannot be used to pair another: naming it in the relay URL finds no session", async () => {
    const a = await createOnboarding({ operator: operator(), label: "A" });
    const b = await createOnboarding({ operator: operator(), label: "B" });
    const { first } = await load(a.id);
    const tampered = relayUrlOf(first!).replace(a.id, b.id);
    const refused = await postJson(tampered, proofFor(first!.session_id));
    expect(refused.status).toBe(404);
    expect(await errorReason(refused)).toBe("SESSION_NOT_FOUND");
    // Without the onboarding, or with a changed character, the id is not one the server signed either.
    expect((await postJson(`${WALLET}/${first!.session_id}/confirm`, proofFor(first!.session_id))).status).toBe(404);
    const changed = `${first!.session_id.slice(0, -1)}${first!.session_id.endsWith("0") ? "1" : "0"}`;
    expect((await postJson(`${WALLET}/${changed}/confirm?onboarding=${a.id}`, proofFor(changed))).status).toBe(404);
    expect((await readOnboarding(b.id)).status).toBe("open");
    expect((await readOnboarding(a.id)).status).toBe("open");
  });

  it("cannot be handed to another onboarding by its page either", async () => {
    const a = await createOnboarding({ operator: operator(), label: "A" });
    const b = await createOnboarding({ operator: operator(), label: "B" });
    const { first } = await load(a.id);
    expect((await postJson(relayUrlOf(first!), proofFor(first!.session_id))).status).toBe(200);
    const refused = await page.payout(b.id, { session_id: first!.session_id });
    expect(refused.status).toBe(403);
    expect(await errorReason(refused)).toBe("SESSION_OF_ANOTHER_ONBOARDING");
    expect((await readOnboarding(b.id)).status).toBe("open");
  });

  it("is stored with its onboarding by the page's own first read, and the later confirm still tells it", async () => {
    const onboarding = await createOnboarding({ operator: operator(), label: "Read first" });
    const { first } = await load(onboarding.id);
    const read = await api(`${WALLET}/${first!.session_id}?onboarding=${onboarding.id}`);
    expect(read.status).toBe(200);
    expect(await read.json()).not.toHaveProperty("onboarding");
    // The wallet's confirm finds the stored row: the relay URL's onboarding is not asked again.
    expect((await postJson(`${WALLET}/${first!.session_id}/confirm`, proofFor(first!.session_id))).status).toBe(200);
    expect((await readOnboarding(onboarding.id)).status).toBe("connected");
  });
});

describe("a tell that fails", () => {
  it("is stored with the connected row and retried by the alarm, after a restart too", async () => {
    const onboarding = await createOnboarding({ operator: operator(), label: "Unreachable" });
    const { first } = await load(onboarding.id);
    const sessionId = first!.session_id;
    const stub = sessionStub(sessionId);
    // Stored by its first read; then its onboarding object stops taking calls for 6 s (a hung object), so the tell
    // waits behind that.
    expect((await api(`${WALLET}/${sessionId}?onboarding=${onboarding.id}`)).status).toBe(200);
    const hung = runInDurableObject(onboardingStub(onboarding.id), (_instance, state) => {
      void state.blockConcurrencyWhile(() => new Promise((resolve) => setTimeout(resolve, 6_000)));
    });
    const payout = accountAddress();
    const proof = proofFor(sessionId, { address: payout });
    // The onboarding did not answer within the confirm's 5 s: the wallet is told so (503), never "connected".
    const unanswered = await postJson(relayUrlOf(first!), proof);
    expect(unanswered.status).toBe(503);
    expect(await errorReason(unanswered)).toBe("ONBOARDING_NOT_ANSWERING");
    await hung;
    const owed = await runInDurableObject(stub, async (_instance, state) => ({
      row: await state.storage.get<{ onboarding: { tell_at: number | null } }>("row"),
      alarm: await state.storage.getAlarm(),
    }));
    expect(owed.row!.onboarding.tell_at).not.toBeNull();
    expect(owed.alarm).toBe(owed.row!.onboarding.tell_at);

    // A restart forgets the instance (and its unreachable onboarding); storage still owes the tell.
    await runInDurableObject(stub, (_instance, state) => state.abort("restart")).catch(() => undefined);
    clockTo(owed.alarm! + 1);
    expect(await runDurableObjectAlarm(sessionStub(sessionId))).toBe(true);
    const after = await readOnboarding(onboarding.id);
    expect(after.status).toBe("connected");
    expect(after.payout).toBe(payout);
    const told = await runInDurableObject(sessionStub(sessionId), (_instance, state) =>
      state.storage.get<{ onboarding: { tell_at: number | null } }>("row"),
    );
    expect(told!.onboarding.tell_at).toBeNull();
    // The wallet's same confirm again now hears what the onboarding decided.
    expect((await postJson(relayUrlOf(first!), proof)).status).toBe(200);
  });
});

describe("the wallet's confirm answers what the onboarding decided", () => {
  /** An onboarding and its page's first session, stored by the page's own read. */
  async function bound(label: string, forOperator = operator()) {
    const onboarding = await createOnboarding({ operator: forOperator, label });
    const { first } = await load(onboarding.id);
    const proofs = new Map<string, ReturnType<typeof proofFor>>();
    // The wallet sends the same proof again when it retries: one proof per address.
    const proof = (address: string) =>
      proofs.get(address) ?? proofs.set(address, proofFor(first!.session_id, { address })).get(address)!;
    return { onboarding, first: first!, confirm: (address: string) => postJson(relayUrlOf(first!), proof(address)) };
  }

  it("410 ONBOARDING_CANCELLED for a cancelled onboarding, again on the same confirm, and nothing pairs", async () => {
    const { onboarding, confirm } = await bound("Cancelled");
    expect((await hostPost(`/${onboarding.id}/cancel`, "")).status).toBe(200);
    const payout = accountAddress();
    const refused = await confirm(payout);
    expect(refused.status, await refused.clone().text()).toBe(410);
    const body = (await refused.clone().json()) as { message: string };
    expect(await errorReason(refused)).toBe("ONBOARDING_CANCELLED");
    expect(body.message).toMatch(/was cancelled; this wallet was not connected to it/);
    expect((await confirm(payout)).status).toBe(410);
    expect(await readOnboarding(onboarding.id)).toMatchObject({ status: "cancelled", payout: null });
  });

  it("410 ONBOARDING_EXPIRED once the onboarding expired", async () => {
    // Created a lifetime less a minute ago (the session's own 5 minutes are far shorter than an onboarding's 7 days),
    // its page's session taken now, its confirm sent once the onboarding's minute has passed.
    const now = Date.now();
    clockTo(now - config.onboardingTtlSeconds * 1000 + 60_000);
    const onboarding = await createOnboarding({ operator: operator(), label: "Expired" });
    clockTo(now);
    const { first } = await load(onboarding.id);
    clockTo(now + 61_000);
    const refused = await postJson(relayUrlOf(first!), proofFor(first!.session_id));
    expect(refused.status).toBe(410);
    expect(await errorReason(refused)).toBe("ONBOARDING_EXPIRED");
  });

  it("409 when it holds another wallet; 200 when it already holds this same one", async () => {
    const { onboarding, confirm } = await bound("Taken");
    const other = accountAddress();
    expect((await pairByRelay(onboarding.id, other)).status).toBe(200);
    const refused = await confirm(accountAddress());
    expect(refused.status).toBe(409);
    expect(await errorReason(refused)).toBe("ONBOARDING_ALREADY_PAIRED");
    expect((await readOnboarding(onboarding.id)).payout).toBe(other);

    // A devnet node that pays its own operator: paired with that address, the chain's word applies it at once.
    const node = await devnetNode("paying-itself");
    const same = await bound("Same", node.operator);
    expect((await pairByRelay(same.onboarding.id, node.operator)).status).toBe(200);
    await settle(same.onboarding.id);
    expect((await readOnboarding(same.onboarding.id)).status).toBe("applied");
    // Applied since, the same wallet's confirm is still the one it took: 200.
    const again = await same.confirm(node.operator);
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ status: "connected", address: node.operator });
    expect((await readOnboarding(same.onboarding.id)).status).toBe("applied");
  });
});
