import { describe, expect, it } from "vitest";
import { listsOperator, operatorAuthorizationsPath } from "../../../src/protocol/index";
import { buildSend } from "../../../src/protocol/index";
import { isAuthorizationExists } from "../../../src/protocol/index";
import { buildAuthorizeOperator } from "../../../src/protocol/index";
import { planOperatorAuthorization } from "../../../src/protocol/index";
import { buildConnectPayload } from "../../../src/protocol/index";
import {
  connectDeepLink,
  decodeWalletPayload,
  encodeWalletPayload,
  parseDeepLink,
  signDeepLink,
} from "../../../src/protocol/index";
import { mintSessionId } from "../../../src/protocol/index";
import { buildSignRequest, chooseQrContent, MAX_QR_CHARS, signQrContent } from "../../../src/protocol/index";
import * as z from "zod/mini";
import { signRequestSchema } from "../../../src/protocol/wallet-schemas";
import { OTHER, address, refusal, workerContext } from "./helpers";

const ctx = workerContext();
const payout = address(ctx.bech32Prefix, 1);
const operator = address(ctx.bech32Prefix, 2);
const origin = { name: "Node host", url: "https://onboard.example" };
const NOW = Date.parse("2030-01-02T03:04:05.000Z");

describe("connect payload and its deep link", () => {
  it("carries the session, chain id, origin, expiry and this origin's relay URL", () => {
    const sessionId = mintSessionId();
    expect(sessionId).toMatch(/^cs_[0-9a-f]{32}$/);
    const payload = buildConnectPayload(ctx, {
      sessionId,
      origin: { name: "Node host", url: "https://onboard.example/some/page?x=1" },
      now: NOW,
    });
    expect(payload).toEqual({
      v: 1,
      session_id: sessionId,
      chain_id: ctx.chainId,
      origin,
      expires_at: "2030-01-02T03:09:05.000Z",
      relay_url: `https://onboard.example/api/${ctx.walletPath}/sessions/${sessionId}/confirm`,
    });
  });

  it("links as <scheme>://connect?p=<URL-encoded base64 of the UTF-8 JSON>", () => {
    const payload = buildConnectPayload(ctx, {
      sessionId: mintSessionId(),
      origin: { name: "Nödé ✓", url: origin.url },
      now: NOW,
    });
    const link = connectDeepLink(ctx.walletScheme, payload);
    const p = link.slice(`${ctx.walletScheme}://connect?p=`.length);
    expect(link.startsWith(`${ctx.walletScheme}://connect?p=`)).toBe(true);
    expect(p).not.toMatch(/[+/=]/);
    const bytes = Uint8Array.from(atob(decodeURIComponent(p)), (c) => c.charCodeAt(0));
    expect(JSON.parse(new TextDecoder().decode(bytes))).toEqual(payload);
    expect(parseDeepLink(link)).toEqual({ scheme: ctx.walletScheme, action: "connect", payload });
  });

  it("uses the context's scheme", () => {
    const payload = buildConnectPayload(OTHER, { sessionId: mintSessionId(), origin, now: NOW });
    expect(connectDeepLink(OTHER.walletScheme, payload)).toMatch(/^acmewallet:\/\/connect\?p=/);
    expect(payload.relay_url).toContain("/api/pair/sessions/");
  });

  it.each([
    ["another action", "chainwallet://pay?p=e30%3D"],
    ["no payload", "chainwallet://connect"],
    ["bad base64", "chainwallet://connect?p=%%%"],
    ["base64 of non-JSON", `chainwallet://connect?p=${encodeURIComponent(btoa("hello"))}`],
    ["an https URL", "https://example.com/connect?p=e30%3D"],
  ])("parseDeepLink refuses %s", (_name, link) => {
    expect(() => parseDeepLink(link)).toThrow(/./);
  });
});

describe("sign request", () => {
  const message = buildAuthorizeOperator(ctx, { payoutRecipient: payout, operator, label: "Node 1" });
  const sentence = `Allow node operator ${operator} to pay its rewards to ${payout} (label "Node 1")`;

  it("has the wallet's shape: pl_ id, chain id, expiry, origin, account hint, preview objects, transaction", () => {
    const request = buildSignRequest(ctx, {
      origin,
      signer: payout,
      messages: [message],
      title: "Authorize",
      now: NOW,
    });
    expect(request.id).toMatch(/^pl_[0-9a-f]{32}$/);
    expect(request).toEqual({
      id: request.id,
      chain_id: ctx.chainId,
      expires_at: "2030-01-02T03:09:05.000Z",
      origin,
      account_hint: payout,
      preview: {
        title: "Authorize",
        summary: sentence,
        messages: [{ type: "MsgAuthorizeOperator", from: payout, to: operator, summary: sentence }],
      },
      transaction: { messages: [message] },
    });
    expect(request).not.toHaveProperty("session_id");
    expect(request).not.toHaveProperty("v");
    expect(z.safeParse(signRequestSchema, request).success).toBe(true);
  });

  it("carries memo, return_url and fee when given", () => {
    const request = buildSignRequest(ctx, {
      origin,
      signer: payout,
      messages: [message],
      memo: "onboarding",
      returnUrl: `${origin.url}/done?x=1`,
      fee: { amount: "5000", denom: ctx.nativeDenom, gas: "200000" },
    });
    expect(request.transaction.memo).toBe("onboarding");
    expect(request.return_url).toBe(`${origin.url}/done?x=1`);
    expect(request.preview.fee).toEqual({ amount: "5000", denom: ctx.nativeDenom, gas: "200000" });
    expect(z.safeParse(signRequestSchema, request).success).toBe(true);
  });

  it("trims title and summary, and refuses them blank", () => {
    const request = buildSignRequest(ctx, {
      origin,
      signer: payout,
      messages: [message],
      title: "  Authorize  ",
      summary: "\tAllow it\n",
    });
    expect([request.preview.title, request.preview.summary]).toEqual(["Authorize", "Allow it"]);
    const blankTitle = refusal(() =>
      buildSignRequest(ctx, { origin, signer: payout, messages: [message], title: " \n " }),
    );
    expect([blankTitle.reason, blankTitle.field]).toEqual(["EMPTY_PREVIEW", "title"]);
    const blankSummary = refusal(() =>
      buildSignRequest(ctx, { origin, signer: payout, messages: [message], summary: "" }),
    );
    expect([blankSummary.reason, blankSummary.field]).toEqual(["EMPTY_PREVIEW", "summary"]);
  });

  it("refuses a return_url off the request's origin and a malformed fee", () => {
    const offOrigin = refusal(() =>
      buildSignRequest(ctx, { origin, signer: payout, messages: [message], returnUrl: "https://elsewhere.example/" }),
    );
    expect([offOrigin.reason, offOrigin.field]).toEqual(["INVALID_RETURN_URL", "returnUrl"]);
    const badFee = refusal(() =>
      buildSignRequest(ctx, {
        origin,
        signer: payout,
        messages: [message],
        fee: { amount: "1.5", denom: "u", gas: "1" },
      }),
    );
    expect([badFee.reason, badFee.field]).toEqual(["INVALID_FEE", "fee.amount"]);
  });

  it("round-trips through its sign deep link", () => {
    const request = buildSignRequest(ctx, { origin, signer: payout, messages: [message], now: NOW });
    const link = signDeepLink(ctx.walletScheme, request);
    expect(link.startsWith(`${ctx.walletScheme}://sign?p=`)).toBe(true);
    expect(parseDeepLink(link)).toEqual({ scheme: ctx.walletScheme, action: "sign", payload: request });
  });

  it("refuses a signer other than the message's signer rule", () => {
    expect(refusal(() => buildSignRequest(ctx, { origin, signer: operator, messages: [message] })).reason).toBe(
      "WRONG_SIGNER",
    );
  });

  it("refuses an empty transaction and a malformed id", () => {
    expect(refusal(() => buildSignRequest(ctx, { origin, signer: payout, messages: [] })).reason).toBe(
      "EMPTY_TRANSACTION",
    );
    expect(
      refusal(() => buildSignRequest(ctx, { origin, signer: payout, messages: [message], id: "pl_x" })).reason,
    ).toBe("INVALID_ID");
  });

  it("previews a MsgSend with its parties, amount and denom", () => {
    const send = buildSend(ctx, { fromAddress: operator, toAddress: payout, amount: "990000" });
    const request = buildSignRequest(ctx, { origin, signer: operator, messages: [send] });
    const summary = `Send 990000 ${ctx.nativeDenom} from ${operator} to ${payout}`;
    expect(request.preview.summary).toBe(summary);
    expect(request.preview.messages).toEqual([
      { type: "MsgSend", from: operator, to: payout, amount: "990000", denom: ctx.nativeDenom, summary },
    ]);
  });

  it("the wallet's schema refuses a connect payload and a request without preview text", () => {
    const request = buildSignRequest(ctx, { origin, signer: payout, messages: [message], now: NOW });
    const connect = buildConnectPayload(ctx, { sessionId: mintSessionId(), origin, now: NOW });
    expect(z.safeParse(signRequestSchema, connect).success).toBe(false);
    expect(z.safeParse(signRequestSchema, { ...request, session_id: connect.session_id }).success).toBe(false);
    expect(z.safeParse(signRequestSchema, { ...request, v: 1 }).success).toBe(false);
    expect(z.safeParse(signRequestSchema, { ...request, preview: { ...request.preview, title: "  " } }).success).toBe(
      false,
    );
    expect(z.safeParse(signRequestSchema, { ...request, preview: { ...request.preview, summary: "" } }).success).toBe(
      false,
    );
    expect(
      z.safeParse(signRequestSchema, { ...request, preview: { ...request.preview, messages: ["a sentence"] } }).success,
    ).toBe(false);
  });
});

describe("sign QR content", () => {
  const message = buildAuthorizeOperator(ctx, { payoutRecipient: payout, operator, label: "n" });
  const withMemo = (memo: string) =>
    buildSignRequest(ctx, { origin, signer: payout, messages: [message], memo, now: NOW });
  /** A memo that brings the request's base64 to exactly `chars` characters (a multiple of 4). */
  const sized = (chars: number) => {
    const bare = encodeWalletPayload(withMemo("m")).length;
    return withMemo("m".repeat(1 + ((chars - bare) / 4) * 3));
  };

  it("is the raw base64 of the request while it fits 2800 characters", () => {
    const small = withMemo("");
    expect(signQrContent(ctx.walletScheme, small)).toBe(encodeWalletPayload(small));
    expect(decodeWalletPayload(signQrContent(ctx.walletScheme, small)!)).toEqual(small);
    const edge = sized(MAX_QR_CHARS);
    expect(encodeWalletPayload(edge)).toHaveLength(MAX_QR_CHARS);
    expect(signQrContent(ctx.walletScheme, edge)).toBe(encodeWalletPayload(edge));
  });

  it("is nothing when the request is too large, so the page offers only its Open wallet action", () => {
    const over = sized(MAX_QR_CHARS + 4);
    expect(signDeepLink(ctx.walletScheme, over).length).toBeGreaterThan(MAX_QR_CHARS);
    expect(signQrContent(ctx.walletScheme, over)).toBeNull();
    expect(MAX_QR_CHARS).toBe(2800);
  });

  it("follows the wallet's order: raw base64, else the link when that fits, else nothing", () => {
    const at = (n: number) => "x".repeat(n);
    expect(chooseQrContent(at(2800), at(10))).toBe(at(2800));
    expect(chooseQrContent(at(2801), at(2800))).toBe(at(2800));
    expect(chooseQrContent(at(2801), at(2801))).toBeNull();
  });
});

describe("planOperatorAuthorization", () => {
  it("skips the step when payout equals operator (ErrSelfAuthorization never reaches a wallet)", () => {
    const step = planOperatorAuthorization(ctx, { payoutRecipient: operator, operator, origin });
    expect(step.kind).toBe("skip");
    if (step.kind === "skip") expect(step.reason).toMatch(/no authorization is needed/);
  });

  it("otherwise asks the payout key to sign MsgAuthorizeOperator", () => {
    const step = planOperatorAuthorization(ctx, { payoutRecipient: payout, operator, label: "n", origin });
    if (step.kind !== "sign") throw new Error("expected a sign step");
    expect(step.request.account_hint).toBe(payout);
    expect(step.request.transaction.messages).toEqual([
      buildAuthorizeOperator(ctx, { payoutRecipient: payout, operator, label: "n" }),
    ]);
    expect(parseDeepLink(step.link).payload).toEqual(step.request);
    // The bridge takes the link's p (not URL-encoded); the small authorization fits a QR as raw base64.
    expect(step.encoded).toBe(decodeURIComponent(step.link.split("?p=")[1]!));
    expect(step.qrContent).toBe(step.encoded);
  });

  it("still validates equal addresses before skipping", () => {
    expect(refusal(() => planOperatorAuthorization(ctx, { payoutRecipient: "x", operator: "x", origin })).field).toBe(
      "payoutRecipient",
    );
  });
});

describe("an existing authorization counts as success", () => {
  it("recognises ErrAuthorizationExists in the error shape, a tx log, or a string", () => {
    expect(isAuthorizationExists({ code: 6, message: "operator authorization already exists", details: [] })).toBe(
      true,
    );
    expect(
      isAuthorizationExists({ code: 18, raw_log: "failed to execute message; authorization already exists" }),
    ).toBe(true);
    expect(isAuthorizationExists({ code: 2, message: "x", details: [{ reason: "ErrAuthorizationExists" }] })).toBe(
      true,
    );
    expect(isAuthorizationExists("Authorization already exists")).toBe(true);
  });

  it("does not mistake other failures for success", () => {
    expect(isAuthorizationExists({ code: 3, message: "self authorization is not allowed" })).toBe(false);
    expect(isAuthorizationExists(null)).toBe(false);
    expect(isAuthorizationExists({ code: 13, details: [{ reason: "INTERNAL" }] })).toBe(false);
  });

  it("finds the operator in an operator_authorizations answer", () => {
    const other = address(ctx.bech32Prefix, 3);
    expect(operatorAuthorizationsPath(ctx, payout)).toBe(
      `/${ctx.namespace}/incentives/v1/operator_authorizations/${payout}`,
    );
    expect(listsOperator({ authorizations: [{ payout_recipient: payout, operator, label: "" }] }, operator)).toBe(true);
    expect(listsOperator({ Authorization: [{ payoutRecipient: payout, operator }] }, operator)).toBe(true);
    expect(listsOperator({ authorizations: [{ operator: ` ${operator.toUpperCase()} ` }] }, operator)).toBe(true);
    expect(listsOperator({ operators: [operator] }, operator)).toBe(false);
    expect(listsOperator({ authorizations: [operator] }, operator)).toBe(false);
    expect(listsOperator({ authorizations: [{ payout_recipient: payout, operator: other }] }, operator)).toBe(false);
    expect(listsOperator({ authorizations: [] }, operator)).toBe(false);
    expect(listsOperator("nope", operator)).toBe(false);
  });
});
