/** The session confirm's body in the OpenAPI document (src/openapi/document.ts). */
import type { Config } from "../config";
import { ACCOUNT_LABEL_MAX } from "../protocol/index";

type Json = Record<string, unknown>;

/** The confirm body as the wallet sends it (read by `normalizeWalletProof`, not by a schema). */
export function walletProofBody(config: Config): Json {
  const text = (description: string) => ({ type: "string", description });
  return {
    type: "object",
    required: ["address"],
    properties: {
      session_id: text("The path's session id (or sessionId)"),
      sessionId: text("camelCase spelling of session_id"),
      address: text(`Account address, bech32 with prefix "${config.bech32Prefix}"`),
      pubkey_base64: text("The wallet's public key, base64 or base64url (or pubkeyBase64); required"),
      pubkeyBase64: text("camelCase spelling of pubkey_base64"),
      account_label: text(`Account name shown by the page, at most ${ACCOUNT_LABEL_MAX} characters (or accountLabel)`),
      accountLabel: text("camelCase spelling of account_label"),
    },
    additionalProperties: true,
  };
}
