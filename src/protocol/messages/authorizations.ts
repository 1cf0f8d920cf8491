/**
 * Reading `GET /<namespace>/incentives/v1/operator_authorizations/<payout>`: is an operator
 * already authorized by a payout recipient? A listed pair counts as success, like
 * ErrAuthorizationExists. Read as the network's own client reads it: the list under
 * `authorizations` (or `Authorization`), operators compared trimmed and case-insensitively.
 */
import type { ChainContext } from "../chain-context.ts";

/** Gateway path (under `/api`) of the operators a payout recipient has authorized. */
export function operatorAuthorizationsPath(ctx: Pick<ChainContext, "namespace">, payoutRecipient: string): string {
  return `/${ctx.namespace}/incentives/v1/operator_authorizations/${encodeURIComponent(payoutRecipient)}`;
}

/** True when an `operator_authorizations` answer lists `operator`. */
export function listsOperator(body: unknown, operator: string): boolean {
  if (typeof body !== "object" || body === null) return false;
  const record = body as Record<string, unknown>;
  const list = record.authorizations ?? record.Authorization;
  if (!Array.isArray(list)) return false;
  const wanted = normalized(operator);
  return list.some((entry) => typeof entry === "object" && entry !== null && normalized((entry as Record<string, unknown>).operator) === wanted);
}

function normalized(value: unknown): string {
  return typeof value === "string" ? value.trim().toLowerCase() : "\u0000";
}
