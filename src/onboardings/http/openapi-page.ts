/** The customer page's endpoints in the OpenAPI document (src/openapi/document.ts), from their handlers' schemas. */
import type { Config } from "../../config";
import { idParam, json, noStore, type Json, type OpenApiParts } from "./openapi-parts";
import { authorizationClaimSchema, PAGE_BODY_LIMIT, payoutSchema } from "./schemas";

/** Paths of the customer page's endpoints: its view, the payout it pairs, its next session, the authorization. */
export function customerPagePaths(config: Config, { schema, errorAnswer }: OpenApiParts): Record<string, Json> {
  const customerView = {
    description:
      "The customer's view: the onboarding without reference and commands, plus host (where return_url leads)",
    headers: noStore,
    content: json({ $ref: "#/components/schemas/OnboardingCustomerView" }),
  };
  return {
    "/api/onboarding-pages/{id}": {
      get: {
        tags: ["onboardings"],
        operationId: "readOnboardingPage",
        summary: "The customer's view of an onboarding (or a subscription to it)",
        description:
          "The id is the capability. With Upgrade: websocket (from this origin only) the view is pushed at once and " +
          "on every change; the socket closes once the onboarding has ended.",
        parameters: [idParam],
        responses: {
          "200": customerView,
          "101": { description: "WebSocket push of the view" },
          "404": errorAnswer("No such onboarding"),
          "403": errorAnswer("A WebSocket from another origin"),
        },
      },
    },
    "/api/onboarding-pages/{id}/payout": {
      post: {
        tags: ["onboardings"],
        operationId: "pairOnboardingPayout",
        summary: "Pair the customer's payout",
        description:
          "{session_id}: a pairing session the wallet's relayed confirm connected (the address is read from it; " +
          "payout_source relay). {source: in_app, address}: the address the wallet app's bridge returned " +
          "(payout_source in_app). The first payout stays.",
        parameters: [idParam],
        requestBody: { required: true, content: json(schema(payoutSchema(config), "input")) },
        responses: {
          "200": customerView,
          "400": errorAnswer("Bad body"),
          "403": errorAnswer(
            "Another origin, plain http from a non-loopback host, or a " +
              "session another onboarding's page carried (SESSION_OF_ANOTHER_ONBOARDING)",
          ),
          "404": errorAnswer("No such onboarding"),
          "409": errorAnswer("Another payout is already paired, or the session has no confirm yet"),
          "410": errorAnswer("Cancelled or expired"),
          "413": errorAnswer(`Body over ${PAGE_BODY_LIMIT} bytes`),
        },
      },
    },
    "/api/onboarding-pages/{id}/session": {
      post: {
        tags: ["onboardings"],
        operationId: "newOnboardingPairingSession",
        summary: "A new pairing session signed for this onboarding",
        description:
          "For the page, when the session its document carried has " +
          "ended: {session_id, expires_at, link, onboarding}, stored " +
          "on its first use; the wallet's relayed confirm of it pairs " +
          "the onboarding by itself. Only while the onboarding is open.",
        parameters: [idParam],
        responses: {
          "200": { description: "The session, as the document's #first-session carries it", headers: noStore },
          "403": errorAnswer("Another origin, or plain http from a non-loopback host"),
          "404": errorAnswer("No such onboarding"),
          "409": errorAnswer(
            "No longer open (PAIRING_CLOSED), or this deployment signs no sessions (SIGNED_SESSIONS_OFF): create one",
          ),
        },
      },
    },
    "/api/onboarding-pages/{id}/authorization": {
      post: {
        tags: ["onboardings"],
        operationId: "claimOnboardingAuthorization",
        summary: "Report the authorization's transaction hash from the wallet app",
        description:
          "Looked up on the chain: an authorization signed by another address than the paired payout stops the " +
          "onboarding (409 SIGNER_MISMATCH); one no block holds yet is looked up again with every read of the chain.",
        parameters: [idParam],
        requestBody: { required: true, content: json(schema(authorizationClaimSchema, "input")) },
        responses: {
          "200": customerView,
          "400": errorAnswer(
            "Not a transaction hash, or a transaction that authorizes nothing here (NOT_AN_AUTHORIZATION)",
          ),
          "404": errorAnswer("No such onboarding"),
          "409": errorAnswer("Signed by another address (SIGNER_MISMATCH), or no payout paired yet"),
          "410": errorAnswer("Cancelled or expired"),
        },
      },
    },
  };
}
