/**
 * The session state machine as a pure function: a table of (row, event, now) cases, and properties
 * over random event sequences. No Durable Object, no clock: `now` is an argument.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { SessionRow, WalletProof } from "../../src/protocol/index";
import { rowAt, transition, type SessionEvent, type Transition } from "../../src/sessions/machine";

const T0 = Date.parse("2030-01-01T00:00:00.000Z");
const TTL = 300_000;
const RULES = { retentionMs: 3_600_000 };
const ID = "cs_0123456789abcdef0123456789abcdef";

const pending: SessionRow = {
  session_id: ID,
  status: "pending",
  chain_id: "chain-devnet-1",
  origin: { name: "Test", url: "https://edge.test" },
  created_at: new Date(T0).toISOString(),
  expires_at: new Date(T0 + TTL).toISOString(),
  address: null,
  pubkey_base64: null,
  account_label: null,
  connected_at: null,
};

function proof(n: number, label: string | null = "Main"): WalletProof {
  return { session_id: ID, address: `chain1address${n}`, pubkey_base64: `key${n}`, account_label: label };
}

const connected: SessionRow = {
  ...pending,
  status: "connected",
  address: proof(1).address,
  pubkey_base64: proof(1).pubkey_base64,
  account_label: "Main",
  connected_at: new Date(T0 + 1000).toISOString(),
};
const cancelled: SessionRow = { ...pending, status: "cancelled" };
const expired: SessionRow = { ...pending, status: "expired" };
const { session_id, chain_id, origin, expires_at } = pending;
const create: SessionEvent = { type: "create", session: { session_id, chain_id, origin, expires_at } };

const BEFORE = T0 + 1000;
const AFTER = T0 + TTL;

type Case = [
  name: string,
  row: SessionRow | null,
  event: SessionEvent,
  now: number,
  expected: { status?: number; reason?: string; row: SessionRow | null; effects: string[] },
];

const settleEffects = ["store", "schedule", "notify"];
const cases: Case[] = [
  ["create on a new id", null, create, T0, { status: 201, row: pending, effects: ["store", "schedule"] }],
  [
    "create on a used id",
    connected,
    create,
    T0,
    { status: 409, reason: "SESSION_EXISTS", row: connected, effects: [] },
  ],
  [
    "read of an unknown id",
    null,
    { type: "read" },
    BEFORE,
    { status: 404, reason: "SESSION_NOT_FOUND", row: null, effects: [] },
  ],
  ["read of a pending row", pending, { type: "read" }, BEFORE, { status: 200, row: pending, effects: [] }],
  [
    "read of a pending row past expires_at (not written)",
    pending,
    { type: "read" },
    AFTER,
    { status: 410, reason: "SESSION_EXPIRED", row: pending, effects: [] },
  ],
  ["read of a connected row", connected, { type: "read" }, AFTER, { status: 200, row: connected, effects: [] }],
  ["read of a cancelled row", cancelled, { type: "read" }, BEFORE, { status: 200, row: cancelled, effects: [] }],
  [
    "read of an expired row",
    expired,
    { type: "read" },
    AFTER,
    { status: 410, reason: "SESSION_EXPIRED", row: expired, effects: [] },
  ],
  [
    "confirm of an unknown id",
    null,
    { type: "confirm", proof: proof(1) },
    BEFORE,
    { status: 404, reason: "SESSION_NOT_FOUND", row: null, effects: [] },
  ],
  [
    "confirm of a pending row",
    pending,
    { type: "confirm", proof: proof(1) },
    BEFORE + 500,
    { status: 200, row: { ...connected, connected_at: new Date(BEFORE + 500).toISOString() }, effects: settleEffects },
  ],
  [
    "the same proof again",
    connected,
    { type: "confirm", proof: proof(1) },
    AFTER,
    { status: 200, row: connected, effects: [] },
  ],
  [
    "another proof",
    connected,
    { type: "confirm", proof: proof(2) },
    BEFORE,
    { status: 409, reason: "SESSION_ALREADY_CONNECTED", row: connected, effects: [] },
  ],
  [
    "the same address with another label",
    connected,
    { type: "confirm", proof: proof(1, null) },
    BEFORE,
    { status: 409, reason: "SESSION_ALREADY_CONNECTED", row: connected, effects: [] },
  ],
  [
    "confirm of a cancelled row",
    cancelled,
    { type: "confirm", proof: proof(1) },
    BEFORE,
    { status: 410, reason: "SESSION_CANCELLED", row: cancelled, effects: [] },
  ],
  [
    "confirm of an expired row",
    expired,
    { type: "confirm", proof: proof(1) },
    BEFORE,
    { status: 410, reason: "SESSION_EXPIRED", row: expired, effects: [] },
  ],
  [
    "confirm of a pending row past expires_at",
    pending,
    { type: "confirm", proof: proof(1) },
    AFTER,
    { status: 410, reason: "SESSION_EXPIRED", row: pending, effects: [] },
  ],
  [
    "cancel of an unknown id",
    null,
    { type: "cancel" },
    BEFORE,
    { status: 404, reason: "SESSION_NOT_FOUND", row: null, effects: [] },
  ],
  [
    "cancel of a pending row",
    pending,
    { type: "cancel" },
    BEFORE,
    { status: 200, row: cancelled, effects: settleEffects },
  ],
  ["cancel again", cancelled, { type: "cancel" }, BEFORE, { status: 200, row: cancelled, effects: [] }],
  [
    "cancel of a connected row",
    connected,
    { type: "cancel" },
    BEFORE,
    { status: 409, reason: "SESSION_ALREADY_CONNECTED", row: connected, effects: [] },
  ],
  [
    "cancel of an expired row",
    expired,
    { type: "cancel" },
    AFTER,
    { status: 410, reason: "SESSION_EXPIRED", row: expired, effects: [] },
  ],
  [
    "cancel of a pending row past expires_at",
    pending,
    { type: "cancel" },
    AFTER,
    { status: 410, reason: "SESSION_EXPIRED", row: pending, effects: [] },
  ],
  ["alarm of a pending row", pending, { type: "alarm" }, AFTER, { row: expired, effects: settleEffects }],
  ["alarm of a connected row", connected, { type: "alarm" }, AFTER, { row: null, effects: ["erase"] }],
  ["alarm of a cancelled row", cancelled, { type: "alarm" }, AFTER, { row: null, effects: ["erase"] }],
  ["alarm of an expired row", expired, { type: "alarm" }, AFTER, { row: null, effects: ["erase"] }],
  ["alarm of nothing", null, { type: "alarm" }, AFTER, { row: null, effects: [] }],
];

describe("transition: one case per (state, event)", () => {
  it.each(cases)("%s", (_name, row, event, now, expected) => {
    const next = transition(row, event, now, RULES);
    expect(next.row).toEqual(expected.row);
    expect(next.effects.map((e) => e.type)).toEqual(expected.effects);
    if (event.type === "alarm") {
      expect(next.answer).toBeNull();
      return;
    }
    const answer = next.answer!;
    expect(answer.status).toBe(expected.status);
    if ("body" in answer) expect(answer.body).toEqual(expected.row ?? row);
    else expect(answer.reason).toBe(expected.reason);
  });

  it("schedules a new row's alarm at its expires_at, and a settled row's at the end of its retention", () => {
    expect(transition(null, create, T0, RULES).effects).toContainEqual({ type: "schedule", at: T0 + TTL });
    expect(transition(pending, { type: "cancel" }, BEFORE, RULES).effects).toContainEqual({
      type: "schedule",
      at: BEFORE + RULES.retentionMs,
    });
    expect(transition(pending, { type: "alarm" }, AFTER, RULES).effects).toContainEqual({
      type: "schedule",
      at: AFTER + RULES.retentionMs,
    });
  });

  it("keeps a row settled before its expiry until that expiry at least, so a signed id is never stored twice", () => {
    const brief = { retentionMs: 1000 };
    const expiresAt = Date.parse(pending.expires_at);
    expect(transition(pending, { type: "cancel" }, BEFORE, brief).effects).toContainEqual({
      type: "schedule",
      at: expiresAt,
    });
    expect(
      transition(
        pending,
        { type: "confirm", proof: { address: "a", pubkey_base64: "b", account_label: null } as WalletProof },
        BEFORE,
        brief,
      ).effects,
    ).toContainEqual({ type: "schedule", at: expiresAt });
    expect(transition(pending, { type: "alarm" }, AFTER, brief).effects).toContainEqual({
      type: "schedule",
      at: AFTER + 1000,
    });
  });

  it("stores what it notifies, before notifying (persist, then broadcast)", () => {
    for (const [, row, event, now] of cases) {
      const { effects } = transition(row, event, now, RULES);
      const notify = effects.findIndex((e) => e.type === "notify");
      if (notify === -1) continue;
      const store = effects.findIndex((e) => e.type === "store");
      expect(store).toBeGreaterThanOrEqual(0);
      expect(store).toBeLessThan(notify);
      expect(effects[store]).toEqual({ type: "store", row: (effects[notify] as { row: SessionRow }).row });
    }
  });

  it("reads a pending row past its expires_at as expired, and nothing else differently", () => {
    expect(rowAt(pending, AFTER - 1)).toBe(pending);
    expect(rowAt(pending, AFTER)).toEqual(expired);
    expect(rowAt(connected, AFTER + 10 * TTL)).toBe(connected);
    expect(rowAt(null, AFTER)).toBeNull();
  });
});

const anyRow = fc.constantFrom<SessionRow | null>(null, pending, connected, cancelled, expired);
const anyProof = fc.integer({ min: 1, max: 4 }).map((n) => proof(n));
const anyEvent: fc.Arbitrary<SessionEvent> = fc.oneof(
  fc.constant(create),
  fc.constant({ type: "read" } as const),
  fc.constant({ type: "cancel" } as const),
  anyProof.map((p) => ({ type: "confirm", proof: p }) as const),
  fc.constant({ type: "alarm" } as const),
);
const anyTime = fc.integer({ min: T0, max: T0 + 2 * TTL });
/** Events with non-decreasing times, as a Durable Object sees them. */
const history = fc.array(fc.tuple(anyEvent, fc.nat({ max: 60_000 })), { maxLength: 25 });

describe("transition: properties", () => {
  it("reads never change a row and have no effects", () => {
    fc.assert(
      fc.property(anyRow, anyTime, (row, now) => {
        const next = transition(row, { type: "read" }, now, RULES);
        expect(next.row).toBe(row);
        expect(next.effects).toEqual([]);
      }),
    );
  });

  it("settled rows never change, except that their alarm deletes them", () => {
    const settled = fc.constantFrom(connected, cancelled, expired);
    fc.assert(
      fc.property(settled, anyEvent, anyTime, (row, event, now) => {
        const next: Transition = transition(row, event, now, RULES);
        if (event.type === "alarm") {
          expect(next).toEqual({ row: null, effects: [{ type: "erase" }], answer: null });
        } else {
          expect(next.row).toBe(row);
          expect(next.effects).toEqual([]);
        }
      }),
    );
  });

  it("the first valid confirm wins: once connected, the row holds the first accepted proof for good", () => {
    fc.assert(
      fc.property(history, (steps) => {
        let row: SessionRow | null = null;
        let now = T0;
        let winner: WalletProof | null = null;
        for (const [event, wait] of steps) {
          now += wait;
          const before = row;
          const next = transition(row, event, now, RULES);
          const accepted = event.type === "confirm" && next.answer !== null && "body" in next.answer;
          if (accepted && winner === null) winner = event.proof;
          if (accepted)
            expect(event.proof).toMatchObject({ address: winner!.address, pubkey_base64: winner!.pubkey_base64 });
          if (before?.status === "connected" && next.row !== null) expect(next.row).toBe(before);
          row = next.row;
          // Deleted after its retention: the id may start a new life with a new winner.
          if (row === null) winner = null;
          if (row?.status === "connected")
            expect(row).toMatchObject({ address: winner!.address, pubkey_base64: winner!.pubkey_base64 });
        }
      }),
      { numRuns: 500 },
    );
  });

  it("never answers a refusal with effects, and never connects past expires_at", () => {
    fc.assert(
      fc.property(anyRow, anyEvent, anyTime, (row, event, now) => {
        const next = transition(row, event, now, RULES);
        if (next.answer && !("body" in next.answer)) {
          expect(next.effects).toEqual([]);
          expect(next.row).toBe(row);
        }
        if (next.row?.status === "connected" && row?.status === "pending")
          expect(now).toBeLessThan(Date.parse(row.expires_at));
      }),
    );
  });
});
