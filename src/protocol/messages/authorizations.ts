/**
 * Reading `GET /<namespace>/incentives/v1/operator_authorizations/<payout>`: is an operator
 * already authorized by a payout recipient? A listed pair counts as success, like
 * ErrAuthorizationExists. Read as the network's own client reads it: the list under
 * `authorizations` (or `Authorization`), operators compared trimmed and case-insensitively.
 */
import * as z from "zod/mini";
import type { ChainContext } from "../chain-context.ts";
import { parseChainAnswer } from "../chain-answer.ts";

/** Gateway path (under `/api`) of the operators a payout recipient has authorized. */
export function operatorAuthorizationsPath(ctx: Pick<ChainContext, "namespace">, payoutRecipient: string): string {
  return `/${ctx.namespace}/incentives/v1/operator_authorizations/${encodeURIComponent(payoutRecipient)}`;
}

/** What is read of each entry: its operator. */
const entries = z.array(z.looseObject({ operator: z.string() }));
const authorizationList = z
  .looseObject({ authorizations: z.optional(entries), Authorization: z.optional(entries) })
  .check(
    z.refine(
      (answer) => answer.authorizations !== undefined || answer.Authorization !== undefined,
      "must list authorizations (or Authorization)",
    ),
  );

/**
 * The operators an `operator_authorizations` answer lists (trimmed, lowercase); a ChainAnswerError when it lists
 * nothing readable.
 */
export function listedOperators(body: unknown): string[] {
  const answer = parseChainAnswer(authorizationList, body, "The operator_authorizations answer");
  return (answer.authorizations ?? answer.Authorization ?? []).map((entry) => entry.operator.trim().toLowerCase());
}

/** True when an `operator_authorizations` answer lists `operator`; false for an answer that lists nothing readable. */
export function listsOperator(body: unknown, operator: string): boolean {
  try {
    return listedOperators(body).includes(operator.trim().toLowerCase());
  } catch {
    return false;
  }
}
