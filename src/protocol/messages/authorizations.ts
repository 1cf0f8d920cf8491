/**
 * Reading `GET /<namespace>/incentives/v1/operator_authorizations/<payout>`: is an operator
 * already authorized by a payout recipient? A listed pair counts as success, like
 * ErrAuthorizationExists.
 */
import type { ChainContext } from "../chain-context.ts";

/** Gateway path (under `/api`) of the operators a payout recipient has authorized. */
export function operatorAuthorizationsPath(ctx: Pick<ChainContext, "namespace">, payoutRecipient: string): string {
  return `/${ctx.namespace}/incentives/v1/operator_authorizations/${encodeURIComponent(payoutRecipient)}`;
}

/**
 * True when an `operator_authorizations` answer lists `operator`. The response body is not fixed
 * by the spec, so this looks for an entry whose `operator` (or `operator_address`) is the
 * operator, in any array of the body, or for the bare address in a string array.
 */
export function listsOperator(body: unknown, operator: string, depth = 0): boolean {
  if (depth > 4 || typeof body !== "object" || body === null) return false;
  if (Array.isArray(body)) {
    return body.some((entry) => {
      if (entry === operator) return true;
      if (typeof entry !== "object" || entry === null) return false;
      const record = entry as Record<string, unknown>;
      return record.operator === operator || record.operator_address === operator || listsOperator(entry, operator, depth + 1);
    });
  }
  return Object.values(body).some((value) => typeof value === "object" && listsOperator(value, operator, depth + 1));
}
