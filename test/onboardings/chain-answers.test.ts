/**
 * Malformed answers from the chain's nodes (the devnet's injected faults) are refused for what
 * they lack: a failed read that names it and is asked again, never a verdict on the onboarding
 * and never a crash.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { fault } from "../gateway/helpers";
import { accountAddress, authorizeOnChain, config, createOnboarding, page, readOnboarding, wake } from "./helpers";

afterEach(() => {
  vi.restoreAllMocks();
  // wake-ups move the clock on.
  vi.useRealTimers();
});

/** The warnings printed while `run` ran, as text. */
async function warnings(run: () => Promise<unknown>): Promise<string> {
  const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
  await run();
  const text = warn.mock.calls.map((call) => call.map(String).join(" ")).join("\n");
  warn.mockRestore();
  return text;
}

/** A JSON answer the devnet gives `times` times for paths under `prefix`. */
const answerWith = (prefix: string, body: unknown, times = 1) =>
  fault({ prefix, body: JSON.stringify(body), content_type: "application/json", times });

describe("a claimed transaction whose answer lacks what is read of it", () => {
  it("is kept and asked about again, not refused as an authorization of nothing", async () => {
    const operator = accountAddress();
    const payout = accountAddress();
    const { id } = await createOnboarding({ operator });
    await page.payout(id, { source: "in_app", address: payout });
    const tx = await authorizeOnChain(payout, operator);
    // The node answers the look-up with its tx_response but without the transaction itself.
    await answerWith(`/cosmos/tx/v1beta1/txs/${tx.txhash}`, {
      tx_response: { txhash: tx.txhash, code: 0, height: tx.height },
    });
    let claim!: Response;
    const warned = await warnings(async () => (claim = await page.authorization(id, tx.txhash)));
    expect(claim.status).toBe(200);
    expect(warned).toContain(`The answer about transaction ${tx.txhash} is malformed: tx is required (an object)`);
    // The next read of the chain gets a whole answer and finds the authorization.
    await wake(id);
    expect(await readOnboarding(id)).toMatchObject({ status: "authorized", authorization: { txhash: tx.txhash } });
  });

  it("an answer without its tx_response is no verdict either", async () => {
    const payout = accountAddress();
    const { id } = await createOnboarding({ operator: accountAddress() });
    await page.payout(id, { source: "in_app", address: payout });
    const txhash = "C0FFEE".repeat(10) + "C0DE";
    await answerWith(`/cosmos/tx/v1beta1/txs/${txhash}`, { tx: { body: { messages: [] } } });
    let claim!: Response;
    const warned = await warnings(async () => (claim = await page.authorization(id, txhash)));
    expect(claim.status).toBe(200);
    expect(warned).toContain("The transaction answer is malformed: tx_response is required (an object)");
  });

  it("names the message that lacks its operator instead of failing on it", async () => {
    const operator = accountAddress();
    const payout = accountAddress();
    const { id } = await createOnboarding({ operator });
    await page.payout(id, { source: "in_app", address: payout });
    const tx = await authorizeOnChain(payout, operator);
    const type = `/${config.namespace}.incentives.v1.MsgAuthorizeOperator`;
    const txResponse = { txhash: tx.txhash, code: 0, height: tx.height };
    await answerWith(`/cosmos/tx/v1beta1/txs/${tx.txhash}`, {
      tx: { body: { messages: [null] } },
      tx_response: txResponse,
    });
    // Every later look-up (the wake-up the claim starts by itself too) gets the second malformed answer, so the claim
    // stays open.
    await answerWith(
      `/cosmos/tx/v1beta1/txs/${tx.txhash}`,
      { tx: { body: { messages: [{ "@type": type, payout_recipient: payout }] } }, tx_response: txResponse },
      20,
    );
    const warned = await warnings(async () => expect((await page.authorization(id, tx.txhash)).status).toBe(200));
    expect(warned).toContain("is malformed: tx.body.messages.0 must be an object");
    const second = await warnings(() => wake(id));
    expect(second).toContain(`(its ${type}) is malformed: operator is required (a string)`);
  });
});

describe("readings of the chain that lack what is read of them", () => {
  it("an authorizations answer without its list is a failed read that says so, not 'not listed'", async () => {
    const operator = accountAddress();
    const payout = accountAddress();
    const { id } = await createOnboarding({ operator });
    await page.payout(id, { source: "in_app", address: payout });
    await answerWith(
      `/${config.namespace}/incentives/v1/operator_authorizations/${payout}`,
      { pagination: { next_key: null, total: "0" } },
      4,
    );
    const warned = await warnings(() => wake(id));
    expect(warned).toContain(
      "The operator_authorizations answer is malformed: the answer must list authorizations (or Authorization)",
    );
    expect((await readOnboarding(id)).status).toBe("connected");
  });

  it("a node answer whose node is not a record is a failed read that says so, not 'no node'", async () => {
    const operator = accountAddress();
    // The payout is the operator: no authorization is needed, so the node record is read at once.
    const { id } = await createOnboarding({ operator });
    await answerWith(`/${config.namespace}/incentives/v1/node/${operator}`, { node: "gone" }, 4);
    const warned = await warnings(async () => {
      await page.payout(id, { source: "in_app", address: operator });
      await wake(id);
    });
    expect(warned).toContain("The node answer is malformed: node must be an object");
    expect((await readOnboarding(id)).status).toBe("authorized");
  });
});
