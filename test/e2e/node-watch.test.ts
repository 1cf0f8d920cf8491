/**
 * The self-hoster's step 3, verified: after the commands the page watches the node record through
 * the gateway and says when the node pays the paired payout, with the height. Real Chromium,
 * `wrangler dev`, the devnet, the wallet simulator, and the operator's MsgUpdateNode on the devnet.
 */
import { afterEach, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { assertClean, openBrowser, PHONE, type Browser } from "./helpers/browser.ts";
import { serverContext } from "./helpers/chain.ts";
import { applyOnNode, nodeOperators } from "./helpers/host.ts";
import { connectedAddress, runWallet } from "./helpers/wallet.ts";

const base = inject("baseUrl");
const ctx = await serverContext();
const operators = await nodeOperators(ctx);
let browser: Browser | undefined;

afterEach(async () => {
  await browser?.close();
  browser = undefined;
});

describe("the self-hoster's node watch", () => {
  it(
    "waits while the node pays someone else, then says the node pays the payout once its operator " + "applied it",
    async () => {
      // A registered node: only its operator can point it at a payout address that authorized it.
      const operator = operators[4]!;
      const b = (browser = await openBrowser(PHONE));
      await b.page.goto(`${base}/?operator=${operator}&label=watch-me`);
      const payout = connectedAddress(
        await runWallet(
          "--seed",
          `watch-${Date.now()}`,
          (await b.page.getByTestId("connect-link").getAttribute("href"))!,
        ),
      );
      await runWallet((await b.page.getByTestId("sign-link").getAttribute("href"))!);
      await b.page.getByTestId("authorize-done").waitFor({ state: "attached" });

      // The node still pays its old recipient: the page says it waits, and keeps looking.
      await expect.poll(() => b.page.getByTestId("node-watch").textContent()).toBe("Waiting for the node to apply it…");
      const before = b.guard.requests.filter((r) => r.includes(`/incentives/v1/node/${operator}`)).length;
      await expect
        .poll(() => b.guard.requests.filter((r) => r.includes(`/incentives/v1/node/${operator}`)).length)
        .toBeGreaterThan(before);
      expect(await b.page.getByTestId("node-applied").count()).toBe(0);
      expect(await b.page.locator("#step-apply .state").textContent()).toBe("In progress");

      const included = await applyOnNode(ctx, operator, payout);
      // The gateway may serve the record from its cache for one TTL (6 s) before the page sees it.
      const applied = b.page.getByTestId("node-applied");
      await applied.waitFor({ timeout: 60_000 });
      const match = /^Your node now pays (\S+) \(height (\d+)\)\.$/.exec((await applied.textContent())!);
      expect(match?.[1]).toBe(payout);
      expect(Number(match?.[2])).toBeGreaterThanOrEqual(included);
      expect(await b.page.locator("#step-apply .state").textContent()).toBe("Done");

      // Done: the watch stops asking.
      const asked = b.guard.requests.filter((r) => r.includes(`/incentives/v1/node/${operator}`)).length;
      await b.page.waitForTimeout(4000);
      expect(b.guard.requests.filter((r) => r.includes(`/incentives/v1/node/${operator}`)).length).toBe(asked);
      assertClean(b.guard);
    },
  );
});
