/**
 * Step 2 of onboarding as one decision: given the paired payout address and the operator, either
 * no authorization is needed (they are equal: ErrSelfAuthorization avoided) or here is the
 * MsgAuthorizeOperator sign request in each form the wallet takes: deep link, the in-app bridge's
 * base64, and the QR's content.
 */
import type { ChainContext } from "./chain-context.ts";
import { SelfAuthorizationError } from "./messages/errors.ts";
import { buildAuthorizeOperator } from "./messages/incentives.ts";
import { encodeWalletPayload, signDeepLink } from "./deep-links.ts";
import { buildSignRequest, signQrContent, type SignRequest } from "./sign-request.ts";

/** Either the step is skipped, or the wallet must sign `request`. */
export type AuthorizationStep =
  | { readonly kind: "skip"; readonly reason: string }
  | {
      readonly kind: "sign";
      readonly request: SignRequest;
      /** `<scheme>://sign?p=…`: the "Open wallet" action. */
      readonly link: string;
      /** The base64 the in-app bridge's `requestSign` takes (the link's `p`, not URL-encoded). */
      readonly encoded: string;
      /** What the QR code shows, or null when the request is too large for one. */
      readonly qrContent: string | null;
    };

/** Decides the authorize step for a payout recipient and an operator; invalid addresses throw. */
export function planOperatorAuthorization(
  ctx: ChainContext,
  input: {
    payoutRecipient: string;
    operator: string;
    label?: string;
    origin: { name: string; url: string };
    now?: number;
  },
): AuthorizationStep {
  let message;
  try {
    message = buildAuthorizeOperator(ctx, {
      payoutRecipient: input.payoutRecipient,
      operator: input.operator,
      label: input.label,
    });
  } catch (error) {
    if (!(error instanceof SelfAuthorizationError)) throw error;
    return {
      kind: "skip",
      reason:
        "Your wallet address is the node's operator address, so the node already pays you: no authorization is needed.",
    };
  }
  const request = buildSignRequest(ctx, {
    origin: input.origin,
    signer: input.payoutRecipient,
    messages: [message],
    title: "Authorize your node's operator",
    now: input.now,
  });
  return {
    kind: "sign",
    request,
    link: signDeepLink(ctx.walletScheme, request),
    encoded: encodeWalletPayload(request),
    qrContent: signQrContent(ctx.walletScheme, request),
  };
}
