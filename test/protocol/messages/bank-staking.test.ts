import { describe, expect, it } from "vitest";
import { buildSend } from "../../../src/protocol/index";
import { signerOf } from "../../../src/protocol/index";
import { buildDelegate, buildUndelegate } from "../../../src/protocol/index";
import { OTHER, address, refusal, workerContext } from "./helpers";

const ctx = workerContext();
const from = address(ctx.bech32Prefix, 4);
const to = address(ctx.bech32Prefix, 5);
const validator = address(`${ctx.bech32Prefix}valoper`, 6);

describe("MsgSend", () => {
  it("sends the native denom's smallest unit, signed by fromAddress", () => {
    const message = buildSend(ctx, { fromAddress: from, toAddress: to, amount: "1500000" });
    expect(message).toEqual({
      typeUrl: "/cosmos.bank.v1beta1.MsgSend",
      value: { fromAddress: from, toAddress: to, amount: [{ denom: ctx.nativeDenom, amount: "1500000" }] },
    });
    expect(signerOf(ctx, message)).toEqual({ address: from, role: "account" });
  });

  it("takes the denom from the context", () => {
    const message = buildSend(OTHER, { fromAddress: address("acme", 1), toAddress: address("acme", 2), amount: "7" });
    expect(message.value.amount).toEqual([{ denom: "uacme", amount: "7" }]);
  });

  it("accepts the largest 256-bit amount", () => {
    const max = (2n ** 256n - 1n).toString();
    expect(buildSend(ctx, { fromAddress: from, toAddress: to, amount: max }).value.amount[0]!.amount).toBe(max);
  });

  it.each([
    ["zero", "0"],
    ["a decimal", "1.5"],
    ["a negative number", "-1"],
    ["a leading zero", "010"],
    ["an exponent", "1e6"],
    ["a denom suffix", "100uchain"],
    ["spaces", " 100"],
    ["the empty string", ""],
    ["more than 256 bits", (2n ** 256n).toString()],
  ])("refuses %s as an amount", (_name, amount) => {
    expect(refusal(() => buildSend(ctx, { fromAddress: from, toAddress: to, amount })).field).toBe("amount");
  });

  it("refuses a number instead of an integer string", () => {
    expect(refusal(() => buildSend(ctx, { fromAddress: from, toAddress: to, amount: 100 as never })).field).toBe(
      "amount",
    );
  });

  it("refuses sending to oneself and a foreign prefix", () => {
    expect(refusal(() => buildSend(ctx, { fromAddress: from, toAddress: from, amount: "1" })).reason).toBe(
      "SEND_TO_SELF",
    );
    expect(refusal(() => buildSend(ctx, { fromAddress: from, toAddress: address("osmo", 5), amount: "1" })).field).toBe(
      "toAddress",
    );
  });
});

describe("MsgDelegate and MsgUndelegate", () => {
  it("delegate to a <prefix>valoper validator, signed by delegatorAddress", () => {
    const message = buildDelegate(ctx, { delegatorAddress: from, validatorAddress: validator, amount: "42" });
    expect(message).toEqual({
      typeUrl: "/cosmos.staking.v1beta1.MsgDelegate",
      value: { delegatorAddress: from, validatorAddress: validator, amount: { denom: ctx.nativeDenom, amount: "42" } },
    });
    expect(signerOf(ctx, message).address).toBe(from);
    const undelegate = buildUndelegate(ctx, { delegatorAddress: from, validatorAddress: validator, amount: "42" });
    expect(undelegate.typeUrl).toBe("/cosmos.staking.v1beta1.MsgUndelegate");
    expect(signerOf(ctx, undelegate).address).toBe(from);
  });

  it("refuses an account address as validator and a validator as delegator", () => {
    expect(refusal(() => buildDelegate(ctx, { delegatorAddress: from, validatorAddress: to, amount: "1" })).field).toBe(
      "validatorAddress",
    );
    expect(
      refusal(() => buildUndelegate(ctx, { delegatorAddress: validator, validatorAddress: validator, amount: "1" }))
        .field,
    ).toBe("delegatorAddress");
  });

  it("refuses a bad amount", () => {
    expect(
      refusal(() => buildUndelegate(ctx, { delegatorAddress: from, validatorAddress: validator, amount: "0" })).field,
    ).toBe("amount");
  });
});
