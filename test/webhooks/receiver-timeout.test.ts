/**
 * The receiver's 10 s (docs/HOSTS.md), held at the delivery itself: an attempt of a deployment
 * that leaves HOST_WEBHOOK_TIMEOUT_MS unset gives a receiver that never answers 10 s and no
 * more. Observed at the outbound edge: the `fetch` the attempt makes never answers, and the timer
 * the platform would run (`AbortSignal.timeout`) is one the test fires, so no test waits 10 s.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { readConfig } from "../../src/config";
import { deliver } from "../../src/webhooks/standard-webhook";

afterEach(() => vi.restoreAllMocks());

/** The webhook of a testnet deployment that sets its URL and secret, and nothing else. */
const deployed = () =>
  readConfig({
    NETWORK_PROFILE: "testnet",
    HOST_WEBHOOK_URL: "https://host.example/hooks",
    HOST_WEBHOOK_SECRET: `whsec_${btoa("a".repeat(32))}`,
  } as unknown as Env).hostWebhook!;

describe("an attempt whose receiver never answers", () => {
  it("is cut off at 10 s, as deployed, and logged as no answer within 10 s", async () => {
    const timers: { ms: number; controller: AbortController }[] = [];
    vi.spyOn(AbortSignal, "timeout").mockImplementation((ms) => {
      const controller = new AbortController();
      timers.push({ ms, controller });
      return controller.signal;
    });
    let sent: AbortSignal | null | undefined;
    vi.spyOn(globalThis, "fetch").mockImplementation(
      (_url, init) =>
        new Promise<Response>((_resolve, reject) => {
          sent = init?.signal;
          sent?.addEventListener("abort", () => reject(sent!.reason));
        }),
    );

    const attempt = deliver(deployed(), { id: "msg_receiver_timeout", body: "{}" });
    await vi.waitUntil(() => sent !== undefined);
    // One timer, of 10,000 ms, and it is the one the receiver's request carries.
    expect(timers.map((t) => t.ms)).toEqual([10_000]);
    expect(sent).toBe(timers[0]!.controller.signal);
    timers[0]!.controller.abort(new DOMException("The operation timed out.", "TimeoutError"));
    expect(await attempt).toMatchObject({ error: "no answer within 10 s" });
  });
});
