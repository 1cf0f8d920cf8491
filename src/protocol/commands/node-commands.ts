/**
 * The commands of onboarding step 3, as exact strings to paste: the `PAYOUT_RECIPIENT` line for a
 * new node and `tx incentives update-node` for an existing one, optionally run inside the node's
 * container with `docker exec`.
 */
import type { ChainContext } from "../chain-context.ts";
import { buildUpdateNode } from "../messages/incentives.ts";
import { checkContainerName, checkKeyName, commandLine } from "./shell.ts";

/** Where the node runs: its operator key's name in the keyring, and optionally its container. */
export interface NodeTarget {
  /** Name of the operator key in the node's keyring (`--from`). */
  keyName: string;
  /** Container the node binary runs in; the command is wrapped in `docker exec <container>`. */
  container?: string;
}

/** The words of a node-binary invocation, wrapped for a container when one is named. */
export function nodeInvocation(ctx: ChainContext, target: NodeTarget, args: readonly string[]): string[] {
  const words = [ctx.nodeBinary, ...args];
  return target.container === undefined || target.container === "" ? words : ["docker", "exec", checkContainerName(target.container), ...words];
}

/**
 * `<binary> tx incentives update-node "" --payout-recipient <payout> --from <key> --chain-id <id>
 * --sign-mode pq-direct -y`, signed on the node by its operator key. Validates both addresses
 * through MsgUpdateNode's builder; a hostile key name is quoted, a hostile container refused.
 */
export function buildUpdateNodeCommand(
  ctx: ChainContext,
  input: { operator: string; payoutRecipient: string } & NodeTarget,
): string {
  const { payoutRecipient } = buildUpdateNode(ctx, { operator: input.operator, payoutRecipient: input.payoutRecipient }).value;
  const args = ["tx", "incentives", "update-node", "", "--payout-recipient", payoutRecipient, "--from", checkKeyName(input.keyName), "--chain-id", ctx.chainId, "--sign-mode", "pq-direct", "-y"];
  return commandLine(nodeInvocation(ctx, input, args));
}

/** `PAYOUT_RECIPIENT=<payout>`: the environment line for a new node's container. */
export function buildPayoutRecipientLine(ctx: ChainContext, input: { operator: string; payoutRecipient: string }): string {
  const { payoutRecipient } = buildUpdateNode(ctx, { operator: input.operator, payoutRecipient: input.payoutRecipient }).value;
  return `PAYOUT_RECIPIENT=${payoutRecipient}`;
}
