/**
 * What a wallet reads from a connect QR: the link or its bare base64 payload, as the SDK's parseConnectUrl reads them.
 */
import { describe, expect, it } from "vitest";
import {
  buildConnectPayload,
  chainContext,
  connectDeepLink,
  decodeWalletPayload,
  encodeWalletPayload,
  mintSessionId,
  parseDeepLink,
} from "../../src/protocol/index";
import { readConfig } from "../../src/config";
import { connectPayloadSchema } from "../../src/protocol/wallet-schemas";
import { env } from "cloudflare:workers";

const ctx = chainContext(readConfig(env));
const sessionId = mintSessionId();
/** A payload whose base64 ends in padding (the name's length picks it), so "unpadded" differs. */
const payload = ["Nödé ✓", "Nödé ✓.", "Nödé ✓.."]
  .map((name) => buildConnectPayload(ctx, { sessionId, origin: { name, url: "https://edge.test" } }))
  .find((p) => encodeWalletPayload(p).endsWith("="))!;
const link = connectDeepLink(ctx.walletScheme, payload);
const bare = decodeURIComponent(new URL(link).searchParams.get("p")!);

describe("reading a connect QR", () => {
  it("reads a connect link: URL-encoded standard base64 of UTF-8 JSON", () => {
    expect(link).toMatch(new RegExp(`^${ctx.walletScheme}://connect\\?p=[A-Za-z0-9%]+$`));
    expect(parseDeepLink(link)).toEqual({ scheme: ctx.walletScheme, action: "connect", payload });
  });

  it("reads the bare base64 payload, padded or not, and with surrounding spaces, as atob does", () => {
    expect(bare).toMatch(/=$/);
    expect(decodeWalletPayload(bare)).toEqual(payload);
    expect(decodeWalletPayload(` ${bare.replace(/=+$/, "")}\n`)).toEqual(payload);
  });

  it("refuses text that is not base64, and base64 of something that is not JSON", () => {
    expect(() => decodeWalletPayload("A".repeat(29))).toThrow(/not base64/);
    expect(() => decodeWalletPayload(`${bare}=`)).toThrow(/not base64/);
    expect(() => decodeWalletPayload(btoa("this is not json at all, no"))).toThrow(/not JSON/);
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
