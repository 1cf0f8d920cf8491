import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { readConfig } from "../../../src/config";
import { deepLinkMessage, readConnectAnswer, readSignAnswer, walletAppGlobals } from "../../../src/protocol/index";
import { address, workerContext } from "./helpers";

const ctx = workerContext();

describe("the wallet app's injected names", () => {
  it("follow the configured stem: <Stem>Mobile, __<STEM>_IN_APP__, __<STEM>_ACTIVE_ADDRESS__", () => {
    expect(walletAppGlobals("AcmeWallet")).toEqual({
      bridge: "AcmeWalletMobile",
      inAppFlag: "__ACME_WALLET_IN_APP__",
      activeAddress: "__ACME_WALLET_ACTIVE_ADDRESS__",
    });
    expect(walletAppGlobals("Pay2Go").inAppFlag).toBe("__PAY2_GO_IN_APP__");
  });

  it("come from the configuration, which holds a usable stem", () => {
    const stem = readConfig(env).walletBridge;
    expect(walletAppGlobals(stem).bridge).toBe(`${stem}Mobile`);
  });

  it("refuse a stem that cannot name a global", () => {
    expect(() => walletAppGlobals("acme wallet")).toThrow(/PascalCase/);
    expect(() => walletAppGlobals("")).toThrow(/PascalCase/);
  });
});

describe("the open-wallet message posted to the app", () => {
  it("is {type: <scheme>_deeplink, url}", () => {
    const url = `${ctx.walletScheme}://sign?p=abc%3D`;
    expect(JSON.parse(deepLinkMessage(ctx.walletScheme, url))).toEqual({ type: `${ctx.walletScheme}_deeplink`, url });
  });
});

describe("requestConnect's answer", () => {
  const payout = address(ctx.bech32Prefix, 7);

  it("is the paired identity when its address passes the protocol's check", () => {
    expect(readConnectAnswer(ctx, { address: payout, pubkeyBase64: "AAEC", accountLabel: "Main" })).toEqual({
      ok: true,
      address: payout,
      pubkeyBase64: "AAEC",
      accountLabel: "Main",
    });
    expect(readConnectAnswer(ctx, { address: ` ${payout.toUpperCase()} ` })).toEqual({
      ok: true,
      address: payout,
      pubkeyBase64: null,
      accountLabel: null,
    });
  });

  it("is refused, with the reason, when the address is missing or not the network's", () => {
    expect(readConnectAnswer(ctx, null)).toEqual({ ok: false, problem: "it gave no address" });
    expect(readConnectAnswer(ctx, { address: 42 })).toEqual({ ok: false, problem: "it gave no address" });
    expect(readConnectAnswer(ctx, { address: address("other", 7) })).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/must start with/),
    });
    expect(readConnectAnswer(ctx, { address: address(ctx.bech32Prefix, 7, 32) })).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/20-byte/),
    });
    const mixed = ctx.bech32Prefix.toUpperCase() + payout.slice(ctx.bech32Prefix.length);
    expect(readConnectAnswer(ctx, { address: mixed })).toEqual({
      ok: false,
      problem: "its address must be lowercase bech32",
    });
  });
});

describe("requestSign's answer", () => {
  it("is its transaction hash, canonical, or null when it gave none", () => {
    expect(readSignAnswer({ txhash: "ab".repeat(32) })).toBe("AB".repeat(32));
    expect(readSignAnswer({ txhash: "" })).toBeNull();
    expect(readSignAnswer({})).toBeNull();
    expect(readSignAnswer("AB".repeat(32))).toBeNull();
  });
});
