/**
 * The one per-client limit (src/http/rate-limit.ts) switched off: with `RATE_LIMITS=off` the
 * binding is not asked, so one client creates more sessions than `SESSION_CREATE_LIMITER` allows
 * in a minute (30; test/sessions/validation.test.ts holds the 429 of the 31st with the limit on).
 */
import { createExecutionContext, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { readConfig } from "../../src/config";
import { buildEntry } from "../../src/entry";
import { ORIGIN, WALLET, createPayload } from "../helpers/sessions";

describe("RATE_LIMITS=off", () => {
  it("lets one client create 40 sessions in a row", async () => {
    const worker = buildEntry(readConfig({ ...env, RATE_LIMITS: "off" }));
    const ip = `203.0.113.9-${crypto.randomUUID()}`;
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) {
      const request = new Request(`${ORIGIN}${WALLET}`, {
        method: "POST",
        headers: { "content-type": "application/json", "cf-connecting-ip": ip, origin: ORIGIN },
        body: JSON.stringify(createPayload()),
      });
      statuses.push((await worker(request, env, createExecutionContext())).status);
    }
    expect(statuses).toEqual(Array(40).fill(201));
  });
});
