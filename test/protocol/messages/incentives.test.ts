import { describe, expect, it } from "vitest";
import { SelfAuthorizationError } from "../../../src/protocol/index";
import { buildAuthorizeOperator, buildRevokeOperatorAuthorization, buildUpdateNode } from "../../../src/protocol/index";
import { signerOf } from "../../../src/protocol/index";
import { OTHER, address, refusal, workerContext } from "./helpers";

const ctx = workerContext();
const payout = address(ctx.bech32Prefix, 1);
const operator = address(ctx.bech32Prefix, 2);

describe("MsgAuthorizeOperator", () => {
  it("has the namespace's type URL and the value fields of the spec", () => {
    expect(buildAuthorizeOperator(ctx, { payoutRecipient: payout, operator, label: "Node 1" })).toEqual({
      typeUrl: `/${ctx.namespace}.incentives.v1.MsgAuthorizeOperator`,
      value: { payoutRecipient: payout, operator, label: "Node 1" },
    });
  });

  it("takes its type URL and prefix from the context, not a literal", () => {
    const p = address("acme", 1);
    const o = address("acme", 2);
    expect(buildAuthorizeOperator(OTHER, { payoutRecipient: p, operator: o }).typeUrl).toBe(
      "/acme.incentives.v1.MsgAuthorizeOperator",
    );
    expect(refusal(() => buildAuthorizeOperator(OTHER, { payoutRecipient: payout, operator: o })).field).toBe(
      "payoutRecipient",
    );
  });

  it("defaults the label to an empty string", () => {
    expect(buildAuthorizeOperator(ctx, { payoutRecipient: payout, operator }).value.label).toBe("");
  });

  it("is signed by the payout key", () => {
    expect(signerOf(ctx, buildAuthorizeOperator(ctx, { payoutRecipient: payout, operator }))).toEqual({
      address: payout,
      role: "payout",
    });
  });

  it("refuses payout == operator as ErrSelfAuthorization, before anything is signed", () => {
    const error = refusal(() => buildAuthorizeOperator(ctx, { payoutRecipient: payout, operator: payout }));
    expect(error).toBeInstanceOf(SelfAuthorizationError);
    expect(error.reason).toBe("ErrSelfAuthorization");
  });

  it.each([
    ["a wrong prefix", { payoutRecipient: address("cosmos", 1), operator }, "payoutRecipient"],
    [
      "a bad checksum",
      { payoutRecipient: payout.slice(0, -1) + (payout.endsWith("q") ? "p" : "q"), operator },
      "payoutRecipient",
    ],
    ["upper case", { payoutRecipient: payout, operator: operator.toUpperCase() }, "operator"],
    ["a missing operator", { payoutRecipient: payout }, "operator"],
    ["a non-string address", { payoutRecipient: 42, operator }, "payoutRecipient"],
    ["a label with a newline", { payoutRecipient: payout, operator, label: "a\nb" }, "label"],
    ["a label of 65 characters", { payoutRecipient: payout, operator, label: "x".repeat(65) }, "label"],
    ["an unknown field", { payoutRecipient: payout, operator, mnemonic: "abandon abandon" }, "mnemonic"],
  ])("refuses %s", (_name, input, field) => {
    const error = refusal(() => buildAuthorizeOperator(ctx, input as never));
    expect(error.field ?? "").toBe(field);
    expect(error.message).not.toBe("");
  });

  it("refuses a 32-byte (contract-sized) address", () => {
    const error = refusal(() =>
      buildAuthorizeOperator(ctx, { payoutRecipient: address(ctx.bech32Prefix, 9, 32), operator }),
    );
    expect(error.message).toContain("20-byte");
  });
});

describe("MsgRevokeOperatorAuthorization", () => {
  it("is built under the namespace and signed by the payout key", () => {
    const message = buildRevokeOperatorAuthorization(ctx, { payoutRecipient: payout, operator });
    expect(message).toEqual({
      typeUrl: `/${ctx.namespace}.incentives.v1.MsgRevokeOperatorAuthorization`,
      value: { payoutRecipient: payout, operator },
    });
    expect(signerOf(ctx, message).role).toBe("payout");
  });

  it("refuses a bad address and the self pair", () => {
    expect(refusal(() => buildRevokeOperatorAuthorization(ctx, { payoutRecipient: "nope", operator })).field).toBe(
      "payoutRecipient",
    );
    expect(
      refusal(() => buildRevokeOperatorAuthorization(ctx, { payoutRecipient: operator, operator })),
    ).toBeInstanceOf(SelfAuthorizationError);
  });
});

describe("MsgUpdateNode", () => {
  it("is built under the namespace and signed by the operator key", () => {
    const message = buildUpdateNode(ctx, { operator, payoutRecipient: payout });
    expect(message).toEqual({
      typeUrl: `/${ctx.namespace}.incentives.v1.MsgUpdateNode`,
      value: { operator, payoutRecipient: payout },
    });
    expect(signerOf(ctx, message)).toEqual({ address: operator, role: "operator" });
  });

  it("allows the operator to be its own payout recipient", () => {
    expect(buildUpdateNode(ctx, { operator, payoutRecipient: operator }).value.payoutRecipient).toBe(operator);
  });

  it("refuses a bad payout address", () => {
    expect(refusal(() => buildUpdateNode(ctx, { operator, payoutRecipient: `${payout}x` })).field).toBe(
      "payoutRecipient",
    );
  });
});

describe("signerOf", () => {
  it("refuses a type URL outside the table", () => {
    expect(refusal(() => signerOf(ctx, { typeUrl: "/cosmos.gov.v1.MsgVote", value: {} })).reason).toBe(
      "UNKNOWN_MESSAGE",
    );
  });
});
