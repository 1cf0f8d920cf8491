/**
 * Property tests over the session endpoints themselves: for any method, path id, content type and
 * body, the answer is the one the rules give (its status, its reason and the field it names), in
 * the one error shape; a refused create leaves no session behind and a refused confirm changes
 * nothing.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { errorBodySchema } from "../../src/error-body-schema";
import { normalizeWalletProof, SESSION_ID_PATTERN } from "../../src/protocol/index";
import { SESSION_CREATE_BODY_LIMIT } from "../../src/sessions/schemas";
import {
  CHAIN_ID,
  ORIGIN,
  PREFIX,
  TTL_MAX_SECONDS,
  WALLET,
  api,
  createPayload,
  createSession,
  mintSessionId,
  proofFor,
} from "../helpers/sessions";

/** What a request must be answered with: a status, and for a refusal the reasons allowed and the field named. */
interface Expected {
  status: number;
  reasons?: readonly string[];
  /** The refused field, or the start of its dotted path (`origin` for `origin.url`). */
  field?: string;
  /** A word the message must contain (an unknown field has no path to name). */
  names?: string;
}

/** Checks `response` against `expected`; a refusal must have the one error shape. */
async function expectAnswer(response: Response, expected: Expected, method = "GET"): Promise<void> {
  const text = await response.text();
  expect(response.status, text).toBe(expected.status);
  if (response.status < 400 || method === "HEAD") return;
  const body = errorBodySchema.parse(JSON.parse(text));
  const { reason, metadata } = body.details[0]!;
  expect(expected.reasons, text).toContain(reason);
  if (expected.field !== undefined) expect(metadata.field ?? "", text).toMatch(new RegExp(`^${expected.field}(\\.|$)`));
  if (expected.names !== undefined) expect(body.message).toContain(expected.names);
}

const JSON_TYPES = ["application/json", "application/json; charset=utf-8", "APPLICATION/JSON"];
const contentType = fc.constantFrom(...JSON_TYPES, "text/plain", "", "application/x-www-form-urlencoded");

/** The reasons a create may give when one field of a valid payload is replaced. */
const CREATE_FIELD_REASONS: Record<string, readonly string[]> = {
  v: ["INVALID_FIELD"],
  session_id: ["INVALID_FIELD", "INVALID_RELAY_URL"],
  chain_id: ["INVALID_FIELD", "CHAIN_ID_MISMATCH"],
  origin: ["INVALID_FIELD", "INVALID_URL", "INVALID_ORIGIN", "INSECURE_ORIGIN", "ORIGIN_MISMATCH"],
  expires_at: ["INVALID_FIELD", "EXPIRES_AT_IN_PAST", "EXPIRES_AT_TOO_LATE"],
  relay_url: ["INVALID_FIELD", "INVALID_URL", "INVALID_RELAY_URL", "INSECURE_ORIGIN"],
};

/** An edit of one field of a valid payload, with the answer it must get when the rules know it exactly. */
type Edit = { key: string; value: unknown; valid: Record<string, unknown>; exact?: Expected };
/** A create body: arbitrary text, arbitrary JSON, or a valid payload with one field replaced or added. */
type CreateBody = { text: string; edit: Edit | null };

const later = (seconds: number) => new Date(Date.now() + seconds * 1000).toISOString();
const refusal = (reason: string, field: string): Expected => ({ status: 400, reasons: [reason], field });

/** Near misses of each rule of a create, each with its exact answer (`valid` is the payload edited). */
const nearMisses: fc.Arbitrary<(valid: Record<string, unknown>) => Omit<Edit, "valid">> = fc.oneof(
  fc.constantFrom(2, "1", 0, null).map((value) => () => ({ key: "v", value, exact: refusal("INVALID_FIELD", "v") })),
  fc.string({ minLength: 1, maxLength: 64 }).map((value) => () => ({
    key: "chain_id",
    value,
    exact: value === CHAIN_ID ? { status: 201 } : refusal("CHAIN_ID_MISMATCH", "chain_id"),
  })),
  fc
    .string({ minLength: 65, maxLength: 80 })
    .map((value) => () => ({ key: "chain_id", value, exact: refusal("INVALID_FIELD", "chain_id") })),
  fc.constant(() => ({ key: "session_id", value: mintSessionId(), exact: refusal("INVALID_RELAY_URL", "relay_url") })),
  fc
    .tuple(
      fc.string({ minLength: 1, maxLength: 80 }),
      fc.constantFrom(
        ["https://evil.test", "ORIGIN_MISMATCH"],
        ["http://127.0.0.1:8787", "ORIGIN_MISMATCH"],
        ["http://edge.test", "INSECURE_ORIGIN"],
        ["https://edge.test/app", "INVALID_ORIGIN"],
        ["https://user@edge.test", "INVALID_ORIGIN"],
        ["edge.test", "INVALID_URL"],
        [ORIGIN, null],
      ),
    )
    .map(([name, [url, reason]]) => () => ({
      key: "origin",
      value: { name, url },
      exact: reason ? refusal(reason, "origin.url") : { status: 201 },
    })),
  fc.integer({ min: -86_400, max: 0 }).map((seconds) => () => ({
    key: "expires_at",
    value: later(seconds),
    exact: refusal("EXPIRES_AT_IN_PAST", "expires_at"),
  })),
  fc.integer({ min: TTL_MAX_SECONDS + 5, max: 2 * 86_400 }).map((seconds) => () => ({
    key: "expires_at",
    value: later(seconds),
    exact: refusal("EXPIRES_AT_TOO_LATE", "expires_at"),
  })),
  fc
    .integer({ min: 5, max: TTL_MAX_SECONDS - 5 })
    .map((seconds) => () => ({ key: "expires_at", value: later(seconds), exact: { status: 201 } })),
  fc
    .constantFrom<[(confirm: string) => string, string]>(
      [(confirm) => confirm.replace("https://edge.test", "https://evil.test"), "INVALID_RELAY_URL"],
      [(confirm) => confirm.replace("https://", "http://"), "INSECURE_ORIGIN"],
      [(confirm) => confirm.replace("https://", "https://user:pw@"), "INVALID_RELAY_URL"],
      [(confirm) => `${confirm}/`, "INVALID_RELAY_URL"],
      [(confirm) => confirm.replace("https://", ""), "INVALID_URL"],
    )
    .map(([edit, reason]) => (valid: Record<string, unknown>) => ({
      key: "relay_url",
      value: edit(valid.relay_url as string),
      exact: refusal(reason, "relay_url"),
    })),
);

const createBodies: fc.Arbitrary<CreateBody> = fc.oneof(
  fc.string().map((text) => ({ text, edit: null })),
  fc.jsonValue().map((value) => ({ text: JSON.stringify(value), edit: null })),
  fc
    .tuple(fc.constantFrom(...Object.keys(CREATE_FIELD_REASONS), "extra", "__proto__"), fc.jsonValue())
    .map(([key, value]) => {
      const valid = createPayload();
      return { text: JSON.stringify({ ...valid, [key]: value }), edit: { key, value, valid } };
    }),
  // Weighted: each near miss tests one rule's exact answer.
  {
    weight: 3,
    arbitrary: nearMisses.map((make) => {
      const valid = createPayload();
      const edit = { ...make(valid), valid };
      return { text: JSON.stringify({ ...valid, [edit.key]: edit.value }), edit };
    }),
  },
);

/** The answer the rules give a create, in the order the server applies them. */
function expectedCreate({ text, edit }: CreateBody, type: string): Expected {
  if (!JSON_TYPES.includes(type)) return { status: 415, reasons: ["UNSUPPORTED_MEDIA_TYPE"] };
  if (new TextEncoder().encode(text).length > SESSION_CREATE_BODY_LIMIT)
    return { status: 413, reasons: ["BODY_TOO_LARGE"] };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { status: 400, reasons: ["MALFORMED_JSON"] };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return { status: 400, reasons: ["MALFORMED_JSON"] };
  // Anything but an edited payload lacks chain_id and origin.
  if (!edit) return { status: 400, reasons: ["INVALID_FIELD"] };
  if (edit.exact) return edit.exact;
  if (!Object.hasOwn(CREATE_FIELD_REASONS, edit.key))
    return { status: 400, reasons: ["INVALID_FIELD"], names: edit.key };
  if (JSON.stringify(edit.value) === JSON.stringify(edit.valid[edit.key])) return { status: 201 };
  return { status: 400, reasons: CREATE_FIELD_REASONS[edit.key]!, field: edit.key };
}

/** The answer the rules give any method on `${WALLET}/${id}${tail}` with the body `{}`, for an id never created. */
function expectedOnPath(method: string, id: string, tail: string): Expected {
  if (tail === "/" || tail === "/confirm/x") return { status: 404, reasons: ["ROUTE_NOT_FOUND"] };
  const wellFormed = SESSION_ID_PATTERN.test(id);
  if (tail === "") {
    if (!["GET", "HEAD", "DELETE"].includes(method)) return { status: 405, reasons: ["METHOD_NOT_ALLOWED"] };
    return wellFormed
      ? { status: 404, reasons: ["SESSION_NOT_FOUND"] }
      : { status: 400, reasons: ["INVALID_SESSION_ID"], field: "id" };
  }
  if (method !== "POST") return { status: 405, reasons: ["METHOD_NOT_ALLOWED"] };
  // The body `{}` is refused before the Durable Object is asked.
  return wellFormed
    ? { status: 400, reasons: ["INVALID_PROOF"], field: "session_id" }
    : { status: 400, reasons: ["INVALID_SESSION_ID"], field: "id" };
}

// Each property makes hundreds of requests; on a busy machine that outlasts the default 5 s.
describe("session endpoints under arbitrary input", { timeout: 60_000 }, () => {
  it("answer a create as the rules say, and leave no session behind when they refuse it", async () => {
    await fc.assert(
      fc.asyncProperty(createBodies, contentType, async (body, type) => {
        const response = await api(WALLET, {
          method: "POST",
          body: body.text,
          headers: type ? { "content-type": type } : {},
        });
        const expected = expectedCreate(body, type);
        await expectAnswer(response, expected, "POST");
        const named = /"session_id":"(cs_[0-9a-f]{32})"/.exec(body.text)?.[1];
        if (expected.status >= 400 && named) expect((await api(`${WALLET}/${named}`)).status).toBe(404);
      }),
      { numRuns: 400 },
    );
  });

  it("answer any method on any session path as the rules say", async () => {
    // Segments a URL keeps as they are: no dot segments, no escapes.
    const segment = fc.oneof(fc.constant(mintSessionId()), fc.stringMatching(/^[A-Za-z0-9_~-][A-Za-z0-9_.~-]{0,39}$/));
    const method = fc.constantFrom("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS");
    const suffix = fc.constantFrom("", "/confirm", "/confirm/x", "/");
    await fc.assert(
      fc.asyncProperty(method, segment, suffix, async (m, id, tail) => {
        const response = await api(`${WALLET}/${id}${tail}`, {
          method: m,
          body: m === "GET" || m === "HEAD" ? undefined : "{}",
          headers: { "content-type": "application/json" },
        });
        await expectAnswer(response, expectedOnPath(m, id, tail), m);
      }),
      { numRuns: 150 },
    );
  });

  it(
    "answer a confirm as normalizeWalletProof and the state machine decide, and leave the row unchanged after a " +
      "refusal",
    async () => {
      const mutation = fc.record({
        key: fc.constantFrom(
          "session_id",
          "address",
          "pubkey_base64",
          "account_label",
          "sessionId",
          "pubkeyBase64",
          "extra",
        ),
        value: fc.jsonValue(),
      });
      await fc.assert(
        fc.asyncProperty(mutation, fc.boolean(), async ({ key, value }, settleFirst) => {
          const sessionId = await createSession();
          if (settleFirst)
            await api(`${WALLET}/${sessionId}/confirm`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify(proofFor(sessionId)),
            });
          const before = await (await api(`${WALLET}/${sessionId}`)).text();
          const text = JSON.stringify({ ...proofFor(sessionId), [key]: value });
          const verdict = normalizeWalletProof(JSON.parse(text), { sessionId, bech32Prefix: PREFIX });
          const expected: Expected = !verdict.ok
            ? { status: 400, reasons: [verdict.problem.reason], field: verdict.problem.field }
            : settleFirst
              ? { status: 409, reasons: ["SESSION_ALREADY_CONNECTED"] }
              : { status: 200 };
          const response = await api(`${WALLET}/${sessionId}/confirm`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: text,
          });
          if (response.status === 200)
            expect(await response.clone().json()).toMatchObject({
              status: "connected",
              address: verdict.ok ? verdict.proof.address : null,
            });
          await expectAnswer(response, expected, "POST");
          if (expected.status !== 200) expect(await (await api(`${WALLET}/${sessionId}`)).text()).toBe(before);
        }),
        { numRuns: 60 },
      );
    },
  );
});
