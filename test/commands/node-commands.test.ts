import { describe, expect, it } from "vitest";
import { buildPayoutRecipientLine, buildUpdateNodeCommand } from "../../src/protocol/index";
import { shellWord } from "../../src/protocol/index";
import { buildSweep } from "../../src/protocol/index";
import { OTHER, address, refusal, workerContext } from "../messages/helpers";

const ctx = workerContext();
const payout = address(ctx.bech32Prefix, 1);
const operator = address(ctx.bech32Prefix, 2);

describe("update-node command", () => {
  it("is the exact command of the spec", () => {
    expect(buildUpdateNodeCommand(ctx, { operator, payoutRecipient: payout, keyName: "operator" })).toBe(
      `${ctx.nodeBinary} tx incentives update-node "" --payout-recipient ${payout} --from operator --chain-id ${ctx.chainId} --sign-mode pq-direct -y`,
    );
  });

  it("wraps in docker exec for a container", () => {
    expect(buildUpdateNodeCommand(ctx, { operator, payoutRecipient: payout, keyName: "op", container: "node-1" })).toBe(
      `docker exec node-1 ${ctx.nodeBinary} tx incentives update-node "" --payout-recipient ${payout} --from op --chain-id ${ctx.chainId} --sign-mode pq-direct -y`,
    );
  });

  it("uses the context's binary and chain id", () => {
    const p = address("acme", 1);
    const o = address("acme", 2);
    expect(buildUpdateNodeCommand(OTHER, { operator: o, payoutRecipient: p, keyName: "k" })).toBe(
      `acmed tx incentives update-node "" --payout-recipient ${p} --from k --chain-id acme-main-7 --sign-mode pq-direct -y`,
    );
  });

  it.each([
    ["node; rm -rf /", "'node; rm -rf /'"],
    ["$(reboot)", "'$(reboot)'"],
    ["`id`", "'`id`'"],
    ["it's", "'it'\\''s'"],
    ["a b", "'a b'"],
    ["x && y | z > /etc/passwd", "'x && y | z > /etc/passwd'"],
    ["-", "-"],
  ])("quotes the hostile key name %j as one word", (keyName, word) => {
    const command = buildUpdateNodeCommand(ctx, { operator, payoutRecipient: payout, keyName });
    expect(command).toContain(` --from ${word} --chain-id `);
  });

  it.each([["a\nb"], ["a\rb"], [""], ["x".repeat(65)], ["nul\u0000"]])("refuses the key name %j", (keyName) => {
    expect(refusal(() => buildUpdateNodeCommand(ctx, { operator, payoutRecipient: payout, keyName })).reason).toBe("INVALID_KEY_NAME");
  });

  it.each([["node;id"], ["$(id)"], ["-it"], ["a b"], ["node\n1"], ["`x`"], ["/x"]])("refuses the container name %j", (container) => {
    expect(refusal(() => buildUpdateNodeCommand(ctx, { operator, payoutRecipient: payout, keyName: "k", container })).reason).toBe("INVALID_CONTAINER_NAME");
  });

  it("refuses a bad payout address", () => {
    expect(refusal(() => buildUpdateNodeCommand(ctx, { operator, payoutRecipient: "x; rm -rf /", keyName: "k" })).field).toBe("payoutRecipient");
  });
});

describe("PAYOUT_RECIPIENT line", () => {
  it("is the variable for a new node's container", () => {
    expect(buildPayoutRecipientLine(ctx, { operator, payoutRecipient: payout })).toBe(`PAYOUT_RECIPIENT=${payout}`);
  });

  it("refuses anything but an address of the network", () => {
    expect(refusal(() => buildPayoutRecipientLine(ctx, { operator, payoutRecipient: `${payout}\nrm -rf /` })).field).toBe("payoutRecipient");
  });
});

describe("sweep", () => {
  it("sends balance minus the fee reserve and pays the reserve as the fee from the operator", () => {
    const sweep = buildSweep(ctx, { operator, payoutRecipient: payout, balance: "1000000", feeReserve: "20000", keyName: "operator", container: "node-1" });
    expect(sweep.amount).toBe("980000");
    expect(sweep.message).toEqual({
      typeUrl: "/cosmos.bank.v1beta1.MsgSend",
      value: { fromAddress: operator, toAddress: payout, amount: [{ denom: ctx.nativeDenom, amount: "980000" }] },
    });
    expect(sweep.command).toBe(
      `docker exec node-1 ${ctx.nodeBinary} tx bank send operator ${payout} 980000${ctx.nativeDenom} --fees 20000${ctx.nativeDenom} --chain-id ${ctx.chainId} --sign-mode pq-direct -y`,
    );
  });

  it("handles amounts beyond 2^53 exactly", () => {
    expect(buildSweep(ctx, { operator, payoutRecipient: payout, balance: "90071992547409930", feeReserve: "1", keyName: "k" }).amount).toBe("90071992547409929");
  });

  it("refuses when nothing would be left after the reserve", () => {
    expect(refusal(() => buildSweep(ctx, { operator, payoutRecipient: payout, balance: "5000", feeReserve: "5000", keyName: "k" })).reason).toBe("NOTHING_TO_SWEEP");
  });

  it("refuses bad balances and reserves", () => {
    expect(refusal(() => buildSweep(ctx, { operator, payoutRecipient: payout, balance: "1.5", feeReserve: "1", keyName: "k" })).reason).toBe("INVALID_BALANCE");
    expect(refusal(() => buildSweep(ctx, { operator, payoutRecipient: payout, balance: "10", feeReserve: "-1", keyName: "k" })).reason).toBe("INVALID_FEE_RESERVE");
  });

  it("refuses sweeping to the operator itself", () => {
    expect(refusal(() => buildSweep(ctx, { operator, payoutRecipient: operator, balance: "10", feeReserve: "1", keyName: "k" })).reason).toBe("SEND_TO_SELF");
  });
});

describe("shellWord", () => {
  it("leaves plain words alone and writes the empty word as \"\"", () => {
    expect(shellWord(payout)).toBe(payout);
    expect(shellWord("")).toBe('""');
  });
});
