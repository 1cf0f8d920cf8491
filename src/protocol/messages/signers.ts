/** The signer rule of table G: which address must sign each message. */
import type { ChainContext } from "../chain-context.ts";
import { MessageError } from "./errors.ts";
import type { TxMessage } from "./tx-message.ts";
import { typeUrls } from "./type-urls.ts";

/** Which key signs a message: the customer's payout key, the node's operator key, or a plain account. */
type SignerRole = "payout" | "operator" | "account";

/**
 * The address that must sign `message` and the role of its key: payoutRecipient for the
 * authorization messages, operator for MsgUpdateNode, fromAddress / delegatorAddress for the
 * Cosmos ones. Throws for a type URL outside table G.
 */
export function signerOf(ctx: ChainContext, message: TxMessage): { address: string; role: SignerRole } {
  const urls = typeUrls(ctx);
  const value = message.value as Record<string, unknown>;
  const field = (name: string) => {
    const address = value[name];
    if (typeof address !== "string") throw new MessageError("INVALID_MESSAGE", `${name} is missing`, name);
    return address;
  };
  switch (message.typeUrl) {
    case urls.authorizeOperator:
    case urls.revokeOperatorAuthorization:
      return { address: field("payoutRecipient"), role: "payout" };
    case urls.updateNode:
      return { address: field("operator"), role: "operator" };
    case urls.send:
      return { address: field("fromAddress"), role: "account" };
    case urls.delegate:
    case urls.undelegate:
      return { address: field("delegatorAddress"), role: "account" };
    default:
      throw new MessageError(
        "UNKNOWN_MESSAGE",
        `${message.typeUrl} is not a message of this network's table`,
        "typeUrl",
      );
  }
}

/** Throws unless every message is signed by `signer` (one transaction has one signer here). */
export function requireSigner(ctx: ChainContext, messages: readonly TxMessage[], signer: string): void {
  for (const message of messages) {
    const expected = signerOf(ctx, message).address;
    if (expected !== signer) {
      throw new MessageError(
        "WRONG_SIGNER",
        `${message.typeUrl} must be signed by ${expected}, not ${signer}`,
        "signer",
      );
    }
  }
}
