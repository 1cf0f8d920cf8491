/**
 * The tell of a bound session (src/sessions/machine.ts): the pairing session owes its onboarding the
 * confirmed address until the onboarding answers. Its figures, each pinned at its boundary as
 * docs/SESSIONS.md states them (written out, never through the constants): a tell not answered is
 * tried again 1 s later, doubling, at most every 10 minutes; a tell under way holds a 30 s lease;
 * the onboarding is waited for 5 s at most. And the wallet's answer is what the onboarding decided.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { answerWithin, boundRefusal, TELL_TIMEOUT_MS } from "../../src/sessions/bound-onboarding";
import { confirmAnswer, transition, type StoredSession } from "../../src/sessions/machine";
import {
  ONBOARDING_ALREADY_PAIRED,
  ONBOARDING_APPLIED,
  ONBOARDING_CANCELLED,
  ONBOARDING_EXPIRED,
  ONBOARDING_NOT_FOUND,
} from "../../src/onboardings/refusals";

const T0 = Date.parse("2030-01-01T00:00:00.000Z");
const RULES = { retentionMs: 3_600_000 };
const OB = "ob_0123456789abcdef0123456789abcdef";
const proof = {
  session_id: "cs_0123456789abcdef0123456789abcdef",
  address: "chain1a",
  pubkey_base64: "k",
  account_label: null,
};

const pending: StoredSession = {
  session_id: proof.session_id,
  status: "pending",
  chain_id: "chain-devnet-1",
  origin: { name: "Test", url: "https://edge.test" },
  created_at: new Date(T0).toISOString(),
  expires_at: new Date(T0 + 300_000).toISOString(),
  address: null,
  pubkey_base64: null,
  account_label: null,
  connected_at: null,
  onboarding: { id: OB, tell_at: null, failures: 0 },
};

const confirmed = () => transition(pending, { type: "confirm", proof }, T0, RULES);

afterEach(() => vi.useRealTimers());

describe("the tell's figures", () => {
  it("holds a 30 s lease: the confirm's alarm is 30 s ahead while the tell is under way", () => {
    const t = confirmed();
    expect(t.effects).toContainEqual({ type: "schedule", at: T0 + 30_000 });
    expect(t.effects).toContainEqual({ type: "tell", onboardingId: OB, address: "chain1a" });
    expect(t.row!.onboarding!.tell_at).toBe(T0);
  });

  it("tries again exactly 1 s after the first tell went unanswered (not 999 ms), then 2 s, 4 s", () => {
    let row = confirmed().row!;
    row = transition(row, { type: "told", ok: false }, T0, RULES).row!;
    expect(row.onboarding!.tell_at).toBe(T0 + 1000);
    expect(transition(row, { type: "alarm" }, T0 + 999, RULES).effects).toEqual([{ type: "schedule", at: T0 + 1000 }]);
    const due = transition(row, { type: "alarm" }, T0 + 1000, RULES);
    expect(due.effects).toContainEqual({ type: "tell", onboardingId: OB, address: "chain1a" });
    expect(due.effects).toContainEqual({ type: "schedule", at: T0 + 1000 + 30_000 });
    row = transition(row, { type: "told", ok: false }, T0, RULES).row!;
    expect(row.onboarding!.tell_at).toBe(T0 + 2000);
    row = transition(row, { type: "told", ok: false }, T0, RULES).row!;
    expect(row.onboarding!.tell_at).toBe(T0 + 4000);
  });

  it("waits at most 10 minutes between tells, however many failed", () => {
    let row = confirmed().row!;
    const waits: number[] = [];
    for (let i = 0; i < 15; i++) {
      row = transition(row, { type: "told", ok: false }, T0, RULES).row!;
      waits.push(row.onboarding!.tell_at! - T0);
    }
    // 1 s doubling: 512 s after the 10th failure, then the 10 minutes' cap from the 11th on.
    expect(waits[9]).toBe(512_000);
    expect(waits.slice(10)).toEqual([600_000, 600_000, 600_000, 600_000, 600_000]);
  });

  it("waits 5 s for the onboarding's answer: not settled at 4999 ms, refused at 5000 ms", async () => {
    expect(TELL_TIMEOUT_MS).toBe(5000);
    vi.useFakeTimers();
    const outcome = vi.fn();
    answerWithin(new Promise(() => undefined), TELL_TIMEOUT_MS).then(outcome, (err: Error) => outcome(err.message));
    await vi.advanceTimersByTimeAsync(4999);
    expect(outcome).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(outcome).toHaveBeenCalledWith("no answer within 5000 ms");
    await expect(answerWithin(Promise.resolve("paired"), TELL_TIMEOUT_MS)).resolves.toBe("paired");
  });
});

describe("the wallet's answer is what the onboarding decided", () => {
  const told = (refused: Parameters<typeof boundRefusal>[0] | null) => {
    const t = confirmed();
    const row = transition(t.row, { type: "told", ok: true, refused: refused && boundRefusal(refused) }, T0, RULES).row;
    return { row, first: confirmAnswer(row, t.answer!) };
  };

  it("200 with the row when it took the wallet, and for the same proof again", () => {
    const { row, first } = told(null);
    expect(first).toMatchObject({ status: 200, body: { status: "connected", address: "chain1a" } });
    expect(row!.onboarding).toMatchObject({ tell_at: null, refused: null });
    const again = transition(row, { type: "confirm", proof }, T0 + 5, RULES);
    expect(again.effects).toEqual([]);
    expect(confirmAnswer(again.row, again.answer!)).toMatchObject({ status: 200 });
  });

  it.each([
    [ONBOARDING_ALREADY_PAIRED, 409, "ONBOARDING_ALREADY_PAIRED", /already paired with another wallet/],
    [ONBOARDING_APPLIED, 409, "ONBOARDING_ALREADY_PAIRED", /already paired with another wallet/],
    [ONBOARDING_CANCELLED, 410, "ONBOARDING_CANCELLED", /was cancelled; this wallet was not connected/],
    [ONBOARDING_EXPIRED, 410, "ONBOARDING_EXPIRED", /expired; this wallet was not connected/],
    [ONBOARDING_NOT_FOUND, 410, "ONBOARDING_NOT_FOUND", /no longer exists/],
  ])("%o: %i %s, and the same again for the same proof", (refusal, status, reason, message) => {
    const { row, first } = told(refusal);
    expect(first).toMatchObject({ status, reason, message: expect.stringMatching(message) });
    const again = transition(row, { type: "confirm", proof }, T0 + 5, RULES);
    expect(confirmAnswer(again.row, again.answer!)).toEqual(first);
  });

  it("503 while the onboarding has not answered; the same proof again tells it again", () => {
    const t = confirmed();
    const row = transition(t.row, { type: "told", ok: false }, T0, RULES).row!;
    expect(confirmAnswer(row, t.answer!)).toMatchObject({ status: 503, reason: "ONBOARDING_NOT_ANSWERING" });
    const again = transition(row, { type: "confirm", proof }, T0 + 10, RULES);
    expect(again.effects).toContainEqual({ type: "tell", onboardingId: OB, address: "chain1a" });
    expect(again.effects).toContainEqual({ type: "schedule", at: T0 + 10 + 30_000 });
    // Another proof is still refused as before: the first confirm wins.
    const other = transition(row, { type: "confirm", proof: { ...proof, address: "chain1b" } }, T0 + 10, RULES);
    expect(confirmAnswer(other.row, other.answer!)).toMatchObject({ status: 409, reason: "SESSION_ALREADY_CONNECTED" });
  });
});
