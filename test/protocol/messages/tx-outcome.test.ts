import { describe, expect, it } from "vitest";
import {
  canonicalTxHash,
  isAuthorizationExists,
  listedOperators,
  readTxAnswer,
  txLookupPath,
} from "../../../src/protocol/index";

const HASH = "A".repeat(63) + "F";
const response = (fields: Record<string, unknown>) => ({
  tx: {},
  tx_response: { txhash: HASH, height: "1234", ...fields },
});

describe("what a transaction answer means", () => {
  it("code 0 in a block is success", () => {
    expect(readTxAnswer(200, response({ code: 0, codespace: "", raw_log: "" }))).toEqual({
      kind: "included",
      txhash: HASH,
      height: "1234",
    });
  });

  it("a missing code reads as 0, as the wallet SDK reads it", () => {
    expect(readTxAnswer(200, response({})).kind).toBe("included");
  });

  it("ErrAuthorizationExists counts as success", () => {
    const answer = response({
      code: 1107,
      codespace: "incentives",
      raw_log: "failed to execute message; message index: 0: operator authorization already exists",
    });
    expect(readTxAnswer(200, answer)).toEqual({ kind: "already-authorized", txhash: HASH, height: "1234" });
  });

  it("any other code is the chain's own failure, worded codespace: raw_log", () => {
    expect(readTxAnswer(200, response({ code: 13, codespace: "sdk", raw_log: "insufficient fee" }))).toEqual({
      kind: "failed",
      txhash: HASH,
      reason: "sdk: insufficient fee",
    });
    expect(readTxAnswer(200, response({ code: "4", raw_log: "unauthorized" }))).toEqual({
      kind: "failed",
      txhash: HASH,
      reason: "unauthorized",
    });
    expect(readTxAnswer(200, response({ code: 7, codespace: "incentives", raw_log: "" }))).toEqual({
      kind: "failed",
      txhash: HASH,
      reason: "incentives: on-chain code 7",
    });
  });

  it("not found (404, the LCD's code 5) is not yet", () => {
    expect(readTxAnswer(404, { code: 5, message: "tx not found", details: [] })).toEqual({ kind: "pending" });
  });

  it("anything else says nothing about the transaction", () => {
    expect(readTxAnswer(503, { code: 13, message: "upstream down" })).toEqual({
      kind: "unreadable",
      status: 503,
      problem: "the node answered HTTP 503",
    });
    // Each names what the answer lacks.
    const unreadable = (problem: RegExp) => ({
      kind: "unreadable",
      status: 200,
      problem: expect.stringMatching(problem),
    });
    expect(readTxAnswer(200, { tx: {} })).toEqual(
      unreadable(/^The transaction answer is malformed: tx_response is required \(an object\)$/),
    );
    expect(readTxAnswer(200, null)).toEqual(
      unreadable(/^The transaction answer is malformed: the answer must be an object$/),
    );
    expect(readTxAnswer(200, response({ txhash: "not-a-hash" }))).toEqual(
      unreadable(/: tx_response\.txhash must be a transaction hash/),
    );
    expect(readTxAnswer(200, response({ txhash: undefined }))).toEqual(
      unreadable(/: tx_response\.txhash is required \(a string\)$/),
    );
    expect(readTxAnswer(200, response({ code: "x" }))).toEqual(unreadable(/: tx_response\.code must be an integer$/));
    expect(readTxAnswer(200, response({ code: 1.5 }))).toEqual(unreadable(/: tx_response\.code must be an integer$/));
    expect(readTxAnswer(200, response({ height: { block: 1 } }))).toEqual(
      unreadable(/: tx_response\.height must be a (string|number)$/),
    );
    expect(readTxAnswer(200, response({ code: 13, raw_log: ["x"] }))).toEqual(
      unreadable(/: tx_response\.raw_log must be a string$/),
    );
  });

  it("a broadcast's tx_response reads the same way", () => {
    expect(readTxAnswer(200, { tx_response: { txhash: HASH.toLowerCase(), code: 0, height: 0 } })).toEqual({
      kind: "included",
      txhash: HASH,
      height: "0",
    });
  });
});

describe("transaction hashes", () => {
  it("are 64 hex characters, canonically uppercase", () => {
    expect(canonicalTxHash(` ${HASH.toLowerCase()} `)).toBe(HASH);
    expect(canonicalTxHash(HASH.slice(1))).toBeNull();
    expect(canonicalTxHash(`${HASH.slice(1)}G`)).toBeNull();
    expect(canonicalTxHash(42)).toBeNull();
  });

  it("are looked up at the LCD's standard path", () => {
    expect(txLookupPath(HASH)).toBe(`/cosmos/tx/v1beta1/txs/${HASH}`);
  });
});

describe("an operator_authorizations answer", () => {
  it("lists its operators, trimmed and lowercase, under either spelling", () => {
    expect(listedOperators({ authorizations: [{ operator: " ABC " }], pagination: {} })).toEqual(["abc"]);
    expect(listedOperators({ Authorization: [] })).toEqual([]);
  });

  it("is refused, naming what it lacks, when it lists nothing readable", () => {
    expect(() => listedOperators({ pagination: {} })).toThrow(
      "The operator_authorizations answer is malformed: the answer must list authorizations (or Authorization)",
    );
    expect(() => listedOperators({ authorizations: ["abc"] })).toThrow("authorizations.0 must be an object");
    expect(() => listedOperators({ authorizations: [{ payout_recipient: "x" }] })).toThrow(
      "authorizations.0.operator is required (a string)",
    );
    expect(() => listedOperators("nope")).toThrow("the answer must be an object");
  });
});

describe("a chain error read for ErrAuthorizationExists", () => {
  it("is not that error when it is malformed", () => {
    expect(isAuthorizationExists({ details: "ErrAuthorizationExists" })).toBe(false);
    expect(isAuthorizationExists({ details: [null, { reason: 7 }] })).toBe(false);
    expect(isAuthorizationExists({ error: { message: "authorization already exists" } })).toBe(true);
  });
});
