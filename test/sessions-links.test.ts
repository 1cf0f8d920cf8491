/** What a wallet reads from a connect QR: the link or its bare base64 payload, as the SDK's parseConnectUrl reads them. */
import { describe, expect, it } from "vitest";
import { buildConnectPayload, chainContext, connectDeepLink, connectPayloadSchema, mintSessionId, readConnectInput } from "../src/protocol/index";
import { readConfig } from "../src/config";
import { env } from "cloudflare:workers";

const ctx = chainContext(readConfig(env));
const payload = buildConnectPayload(ctx, { sessionId: mintSessionId(), origin: { name: "Nödé ✓", url: "https://edge.test" } });
const link = connectDeepLink(ctx.walletScheme, payload);
const bare = decodeURIComponent(new URL(link).searchParams.get("p")!);

describe("readConnectInput", () => {
  it("reads a connect link: URL-encoded standard base64 of UTF-8 JSON", () => {
    expect(link).toMatch(new RegExp(`^${ctx.walletScheme}://connect\\?p=[A-Za-z0-9%]+$`));
    expect(readConnectInput(link)).toEqual({ scheme: ctx.walletScheme, payload });
  });

  it("reads the bare base64 payload, padded or not, and with surrounding spaces", () => {
    expect(readConnectInput(bare)).toEqual({ scheme: null, payload });
    expect(readConnectInput(` ${bare.replace(/=+$/, "")}\n`)).toEqual({ scheme: null, payload });
  });

  it("refuses a sign link, text that is neither, and base64 of something that is not JSON", () => {
    expect(() => readConnectInput(`${ctx.walletScheme}://sign?p=${encodeURIComponent(bare)}`)).toThrow(/Not a connect link/);
    expect(() => readConnectInput("hello")).toThrow(/Not a wallet link/);
    expect(() => readConnectInput(btoa("this is not json at all, no"))).toThrow(/not JSON/);
    expect(() => readConnectInput("A".repeat(29))).toThrow(/not base64/);
  });
});

describe("connectPayloadSchema", () => {
  it("accepts a connect payload, with fields beyond it ignored", () => {
    expect(connectPayloadSchema.safeParse(payload).success).toBe(true);
    expect(connectPayloadSchema.safeParse({ ...payload, extra: 1 }).success).toBe(true);
  });

  it("refuses a sign request, another version and a malformed session id", () => {
    expect(connectPayloadSchema.safeParse({ ...payload, preview: {} }).success).toBe(false);
    expect(connectPayloadSchema.safeParse({ ...payload, v: 2 }).success).toBe(false);
    expect(connectPayloadSchema.safeParse({ ...payload, session_id: "cs_1" }).success).toBe(false);
  });
});
