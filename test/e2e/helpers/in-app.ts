/**
 * A fake of the wallet app's web view, of the real shape (docs/WALLET-PROTOCOL.md "Inside the wallet
 * app"): the bridge `<Stem>Mobile = {isAvailable, requestConnect, requestSign}`, the in-app flag,
 * the active address and `ReactNativeWebView.postMessage`, under the names the server's
 * `wallet_bridge` setting gives. Its answers come from Node: `requestSign` runs the wallet
 * simulator on the payload, which broadcasts through the devnet's `/__devnet/txs`, and returns
 * the transaction hash it printed.
 */
import type { Page } from "playwright-core";
import { inject } from "vitest";
import { walletAppGlobals, type WalletAppGlobals } from "../../../src/protocol/index.ts";
import { runWallet } from "./wallet.ts";

/** How the fake app behaves; every answer may also be a rejection. */
export interface FakeApp {
  /** Inject the bridge: now (before the page's scripts), `late` (1 s after load), or never. */
  bridge: "now" | "late" | "never";
  activeAddress?: string;
  /** Answers `requestConnect(payload)`; throwing is a decline. */
  connect?(encodedPayload: string): unknown;
  /** Answers `requestSign(payload)`; default: the simulator signs as `--address signer`. */
  sign?(encodedPayload: string): Promise<unknown>;
  signer?: string;
}

/** What the page handed the fake app. */
export interface AppRecord {
  connects: string[];
  signs: string[];
  /** Every string posted to `ReactNativeWebView.postMessage`. */
  posted: string[];
}

/** The injected names for the server under test. */
async function serverWalletGlobals(): Promise<WalletAppGlobals> {
  const settings = (await (await fetch(`${inject("baseUrl")}/api/config`)).json()) as { wallet_bridge: string };
  return walletAppGlobals(settings.wallet_bridge);
}

/** The transaction hash the simulator printed after broadcasting. */
function broadcastHash(output: string): string {
  const match = /^broadcast: ([0-9A-F]{64})$/m.exec(output);
  if (!match) throw new Error(`the simulator did not broadcast: ${output}`);
  return match[1]!;
}

/** Installs the fake app on `page` before its scripts run; returns what the page handed it. */
export async function installFakeApp(page: Page, app: FakeApp): Promise<AppRecord> {
  const names = await serverWalletGlobals();
  const record: AppRecord = { connects: [], signs: [], posted: [] };
  await page.exposeFunction("__fakeAppConnect", async (payload: string) => {
    record.connects.push(payload);
    return app.connect ? { answer: await app.connect(payload) } : { error: "no connect answer set" };
  });
  await page.exposeFunction("__fakeAppSign", async (payload: string) => {
    record.signs.push(payload);
    try {
      const answer = app.sign
        ? await app.sign(payload)
        : { txhash: broadcastHash(await runWallet(...(app.signer ? ["--address", app.signer] : []), payload)) };
      return { answer };
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error) };
    }
  });
  await page.exposeFunction("__fakeAppPosted", (message: string) => void record.posted.push(message));
  await page.addInitScript(
    ({ names, bridge, activeAddress }) => {
      type Reply = { answer?: unknown; error?: string };
      const w = window as unknown as Record<string, any>;
      const settle = async (reply: Promise<Reply>) => {
        const { answer, error } = await reply;
        if (error !== undefined) throw new Error(error);
        return answer;
      };
      w.ReactNativeWebView = { postMessage: (message: string) => w.__fakeAppPosted(message) };
      w[names.inAppFlag] = true;
      if (activeAddress) w[names.activeAddress] = activeAddress;
      const inject = () => {
        w[names.bridge] = {
          isAvailable: true,
          requestConnect: (payload: string) => settle(w.__fakeAppConnect(payload)),
          requestSign: (payload: string) => settle(w.__fakeAppSign(payload)),
        };
      };
      if (bridge === "now") inject();
      if (bridge === "late") addEventListener("load", () => setTimeout(inject, 1000));
    },
    { names, bridge: app.bridge, activeAddress: app.activeAddress },
  );
  return record;
}
