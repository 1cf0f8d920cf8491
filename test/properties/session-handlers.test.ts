/**
 * Property tests over the session endpoints themselves: any method, path id, content type and
 * body gets a 2xx or a 4xx in the one error shape; never a 5xx; a refused create leaves no session
 * behind and a refused confirm changes nothing.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { WALLET, api, createPayload, createSession, mintSessionId, proofFor } from "../helpers/sessions";

async function expectNoServerError(response: Response): Promise<void> {
  expect(response.status, await response.clone().text()).toBeLessThan(500);
  if (response.status >= 400) {
    const body = await response.json<{ code: number; message: string; details: unknown[] }>();
    expect(typeof body.code).toBe("number");
    expect(body.message.length).toBeGreaterThan(0);
    expect(Array.isArray(body.details)).toBe(true);
  }
}

const contentType = fc.constantFrom("application/json", "application/json; charset=utf-8", "text/plain", "", "application/x-www-form-urlencoded", "APPLICATION/JSON");
const validCreate = createPayload();
const createBodies = fc.oneof(
  fc.string(),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.record({ key: fc.constantFrom(...Object.keys(validCreate), "extra", "__proto__"), value: fc.jsonValue() }).map(({ key, value }) =>
    JSON.stringify({ ...createPayload(), [key]: value }),
  ),
);

// Each property makes hundreds of requests; on a busy machine that outlasts the default 5 s.
describe("session endpoints under arbitrary input", { timeout: 60_000 }, () => {
  it("never answer 5xx to a create, and leave no session behind when they refuse one", async () => {
    await fc.assert(
      fc.asyncProperty(createBodies, contentType, async (body, type) => {
        const response = await api(WALLET, { method: "POST", body, headers: type ? { "content-type": type } : {} });
        await expectNoServerError(response);
        const named = /"session_id":"(cs_[0-9a-f]{32})"/.exec(body)?.[1];
        if (response.status >= 400 && named) expect((await api(`${WALLET}/${named}`)).status).toBe(404);
      }),
      { numRuns: 150 },
    );
  });

  it("never answer 5xx to any method on any session path", async () => {
    const segment = fc.oneof(fc.constant(mintSessionId()), fc.stringMatching(/^[A-Za-z0-9_%.~-]{0,40}$/));
    const method = fc.constantFrom("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS");
    const suffix = fc.constantFrom("", "/confirm", "/confirm/x", "/");
    await fc.assert(
      fc.asyncProperty(method, segment, suffix, async (m, id, tail) => {
        const response = await api(`${WALLET}/${id}${tail}`, { method: m, body: m === "GET" || m === "HEAD" ? undefined : "{}", headers: { "content-type": "application/json" } });
        if (m !== "HEAD") await expectNoServerError(response);
        else expect(response.status).toBeLessThan(500);
      }),
      { numRuns: 150 },
    );
  });

  it("leave the row unchanged after any refused confirm", async () => {
    const mutation = fc.record({ key: fc.constantFrom("session_id", "address", "pubkey_base64", "account_label", "sessionId", "pubkeyBase64", "extra"), value: fc.jsonValue() });
    await fc.assert(
      fc.asyncProperty(mutation, fc.boolean(), async ({ key, value }, settleFirst) => {
        const sessionId = await createSession();
        if (settleFirst) await api(`${WALLET}/${sessionId}/confirm`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(proofFor(sessionId)) });
        const before = await (await api(`${WALLET}/${sessionId}`)).text();
        const response = await api(`${WALLET}/${sessionId}/confirm`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ ...proofFor(sessionId), [key]: value }),
        });
        await expectNoServerError(response);
        if (response.status !== 200) expect(await (await api(`${WALLET}/${sessionId}`)).text()).toBe(before);
      }),
      { numRuns: 60 },
    );
  });
});
