/**
 * The commands of onboarding step 3, as exact strings to paste: the `PAYOUT_RECIPIENT` line for a
 * new node and `tx incentives update-node` for an existing one, run inside the node's container
 * with `docker exec` when one is named, as the network's hosting guide prints them.
 */
import type { ChainContext } from "../chain-context.ts";
import { buildUpdateNode } from "../messages/incentives.ts";
import { checkContainerName, checkHome, checkKeyName, checkKeyringBackend, commandLine } from "./shell.ts";

/** The name the network's node kit gives the operator key in its keyring. */
export const DEFAULT_KEY_NAME = "operator";

/** Where and how the node signs: its operator key, home, keyring backend and optional container. */
export interface NodeTarget {
  /** Name of the operator key in the node's keyring (`--from`). */
  keyName: string;
  /** The node's `--home`. */
  home: string;
  /** The node's `--keyring-backend`. */
  keyringBackend: string;
  /** Container the node binary runs in; the command is wrapped in `docker exec <container>`. Empty: none. */
  container?: string;
}

/** The words of a node-binary invocation, wrapped for a container when one is named. */
export function nodeInvocation(ctx: ChainContext, target: NodeTarget, args: readonly string[]): string[] {
  const words = [ctx.nodeBinary, ...args];
  return target.container === undefined || target.container === ""
    ? words
    : ["docker", "exec", checkContainerName(target.container), ...words];
}

/** The flags every signed node transaction ends with: home, keyring, chain, the network's sign mode, no prompt. */
export function signingFlags(ctx: ChainContext, target: NodeTarget): string[] {
  return [
    "--home",
    checkHome(target.home),
    "--keyring-backend",
    checkKeyringBackend(target.keyringBackend),
    "--chain-id",
    ctx.chainId,
    "--sign-mode",
    "pq-direct",
    "-y",
  ];
}

/**
 * `[docker exec <container>] <binary> tx incentives update-node "" --payout-recipient <payout>
 * --from <key> --home <home> --keyring-backend <backend> --chain-id <id> --sign-mode pq-direct -y`,
 * signed on the node by its operator key (`""` keeps the node's label). Validates both addresses
 * through MsgUpdateNode's builder; a hostile key name or home is quoted, a bad container or
 * keyring backend refused.
 */
export function buildUpdateNodeCommand(
  ctx: ChainContext,
  input: { operator: string; payoutRecipient: string } & NodeTarget,
): string {
  const { payoutRecipient } = buildUpdateNode(ctx, {
    operator: input.operator,
    payoutRecipient: input.payoutRecipient,
  }).value;
  const args = [
    "tx",
    "incentives",
    "update-node",
    "",
    "--payout-recipient",
    payoutRecipient,
    "--from",
    checkKeyName(input.keyName),
    ...signingFlags(ctx, input),
  ];
  return commandLine(nodeInvocation(ctx, input, args));
}

/** `PAYOUT_RECIPIENT=<payout>`: the environment line for a new node's container. */
export function buildPayoutRecipientLine(
  ctx: ChainContext,
  input: { operator: string; payoutRecipient: string },
): string {
  const { payoutRecipient } = buildUpdateNode(ctx, {
    operator: input.operator,
    payoutRecipient: input.payoutRecipient,
  }).value;
  return `PAYOUT_RECIPIENT=${payoutRecipient}`;
}
