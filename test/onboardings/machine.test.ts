import { describe, expect, it } from "vitest";
import { cancel, create, expire, observe, pair, type MachineRules } from "../../src/onboardings/machine";
import { nextWakeAt, recordAttempt } from "../../src/onboardings/outbox";
import { checkDelayMs, MIN_ATTEMPTS, MIN_RETRY_SPAN_MS, nextAttemptAt } from "../../src/onboardings/schedule";
import type { OnboardingState } from "../../src/onboardings/state";
import { accountAddress } from "./helpers";

const T0 = Date.parse("2026-11-01T00:00:00Z");
let n = 0;
const rules: MachineRules = { present: (record) => ({ ...record, url: "u" }) as never, mintEventId: () => `msg_${++n}`, checkMs: 6000 };
const operator = accountAddress();
const payout = accountAddress();

function opened(): OnboardingState {
  return create(null, { id: "ob_1", operator, label: "", reference: null, origin: "https://edge.test", return_url: null }, T0, 7 * 86_400_000).state!;
}
function connected(): OnboardingState {
  return pair(opened(), { address: payout, source: "relay" }, T0 + 1000, rules).state!;
}

describe("the onboarding state machine", () => {
  it("moves to authorized and applied only on readings of the chain, one event per status, in order", () => {
    let state = connected();
    state = observe(state, { authorizations: { listed: false, height: 10 } }, T0 + 2000, rules);
    expect(state.record.status).toBe("connected");
    state = observe(state, { authorizations: { listed: true, height: 12 }, node: { payoutRecipient: operator, height: 12 } }, T0 + 3000, rules);
    expect(state.record).toMatchObject({ status: "authorized", authorization: { required: true, height: 12 }, node: { payout_recipient: operator, height: 12 } });
    state = observe(state, { node: { payoutRecipient: payout, height: 15 } }, T0 + 4000, rules);
    expect(state.record.status).toBe("applied");
    expect(state.events.map((e) => e.type)).toEqual(["onboarding.connected", "onboarding.authorized", "onboarding.applied"]);
    expect(state.events.map((e) => JSON.parse(e.body).data.status)).toEqual(["connected", "authorized", "applied"]);
    expect(state.watch.next_check_at).toBeNull();
  });

  it("ignores an answer at a lower height than one already read", () => {
    let state = observe(connected(), { authorizations: { listed: false, height: 20 } }, T0 + 2000, rules);
    state = observe(state, { authorizations: { listed: true, height: 19 } }, T0 + 3000, rules);
    expect(state.record.status).toBe("connected");
    state = observe(state, { authorizations: { listed: true, height: 21 } }, T0 + 4000, rules);
    expect(state.record.status).toBe("authorized");
    state = observe(state, { node: { payoutRecipient: payout, height: 30 } }, T0 + 5000, rules);
    const older = observe({ ...state, record: { ...state.record, status: "authorized" } }, { node: { payoutRecipient: operator, height: 29 } }, T0 + 6000, rules);
    expect(older.record.node).toEqual({ payout_recipient: payout, height: 30 });
  });

  it("stops on a claimed authorization signed by another address, with the reason for the host", () => {
    let state = connected();
    state = { ...state, watch: { ...state.watch, claimed_txhash: "AA" } };
    state = observe(state, { tx: { txhash: "AA", signer: accountAddress(), height: 5 } }, T0 + 2000, rules);
    expect(state.record).toMatchObject({ status: "cancelled", problem: { reason: "SIGNER_MISMATCH" } });
    expect(state.events.at(-1)!.type).toBe("onboarding.cancelled");
  });

  it("cancels any state before applied, never after; expires only past expires_at", () => {
    expect(cancel(opened(), T0, rules).state!.record.status).toBe("cancelled");
    expect(cancel(connected(), T0, rules).state!.record.status).toBe("cancelled");
    const applied = observe(observe(connected(), { authorizations: { listed: true, height: 1 } }, T0, rules), { node: { payoutRecipient: payout, height: 2 } }, T0, rules);
    expect(cancel(applied, T0, rules).answer).toMatchObject({ status: 409, reason: "ONBOARDING_APPLIED" });
    expect(expire(opened(), T0 + 7 * 86_400_000 - 1, rules).record.status).toBe("open");
    expect(expire(opened(), T0 + 7 * 86_400_000, rules).record.status).toBe("expired");
    expect(expire(applied, T0 + 30 * 86_400_000, rules).record.status).toBe("applied");
  });

  it("reads the chain every ONBOARDING_CHECK_SECONDS for 30 minutes after a change, then slower, at most every 5 minutes", () => {
    expect(checkDelayMs(0, 6000)).toBe(6000);
    expect(checkDelayMs(30 * 60_000, 6000)).toBe(6000);
    expect(checkDelayMs(3_600_000, 6000)).toBe(12_000);
    expect(checkDelayMs(100 * 3_600_000, 6000)).toBe(300_000);
    const state = observe(connected(), {}, T0 + 2 * 3_600_000, rules);
    expect(state.watch.next_check_at! - (T0 + 2 * 3_600_000)).toBe(checkDelayMs(2 * 3_600_000 - 1000, 6000));
  });
});

describe("delivery retries", () => {
  it("retries within 10 s, then within 60 s, then backs off; gives up only after 8 attempts over 24 hours", () => {
    expect(nextAttemptAt(1, T0, T0)! - T0).toBeLessThanOrEqual(10_000);
    expect(nextAttemptAt(2, T0, T0 + 5000)! - T0).toBeLessThanOrEqual(60_000);
    let at = T0;
    let attempts = 0;
    for (;;) {
      attempts++;
      const next = nextAttemptAt(attempts, T0, at);
      if (next === null) break;
      expect(next).toBeGreaterThan(at);
      at = next;
    }
    expect(attempts).toBeGreaterThanOrEqual(MIN_ATTEMPTS);
    expect(at - T0).toBeGreaterThanOrEqual(MIN_RETRY_SPAN_MS);
  });

  it("holds later events behind a failing one and marks a given-up event failed so the next one goes", () => {
    let state = pair(opened(), { address: operator, source: "in_app" }, T0, rules).state!;
    const [first, second] = state.events;
    expect(nextWakeAt(state, true)).toBe(T0);
    state = recordAttempt(state, first!.id, { at: new Date(T0).toISOString(), status: 500, ms: 3 }, T0);
    expect(nextWakeAt(state, true)).toBeLessThanOrEqual(T0 + 10_000);
    expect(state.events[1]).toEqual(second);
    state = recordAttempt(state, first!.id, { at: new Date(T0 + 2 * MIN_RETRY_SPAN_MS).toISOString(), error: "x", ms: 1 }, T0 + 2 * MIN_RETRY_SPAN_MS);
    expect(state.events[0]!.failed_at).toBeNull();
    for (let i = 0; i < MIN_ATTEMPTS; i++) state = recordAttempt(state, first!.id, { at: new Date(T0 + 2 * MIN_RETRY_SPAN_MS).toISOString(), status: 500, ms: 1 }, T0 + 2 * MIN_RETRY_SPAN_MS);
    expect(state.events[0]!.failed_at).not.toBeNull();
    expect(state.events[0]!.next_attempt_at).toBeNull();
  });
});
