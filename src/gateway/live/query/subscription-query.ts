/**
 * A subscriber's query, checked as the live face takes it: at most 512 characters and 16
 * conditions, CometBFT's grammar, and exactly one `tm.event = '<type>'` naming a served type.
 * Consensus-internal types (`Vote`, `NewRound`, …) are refused: they concern validators, and
 * serving them would take a subscription upstream per type.
 */
import { RpcError } from "../../rpc/rpc-error";
import { compileQuery, type EventKeys } from "./match";
import { parseQuery, QuerySyntaxError } from "./parse";

/** The event types the live face serves, all derived from the one upstream `NewBlock`. */
const SERVED_EVENT_TYPES = ["NewBlock", "NewBlockHeader", "NewBlockEvents", "Tx"] as const;
export type ServedEventType = (typeof SERVED_EVENT_TYPES)[number];

/** Longest query, in characters. */
const MAX_QUERY_LENGTH = 512;
/** Most conditions in one query. */
const MAX_QUERY_CONDITIONS = 16;

/** A checked query: the type it names and its matcher. */
export interface SubscriptionQuery {
  type: ServedEventType;
  matches(event: EventKeys): boolean;
}

const invalid = (why: string) => new RpcError(-32602, why);

/** Checks and compiles `query`; throws the -32602 refusal that says why. */
export function subscriptionQuery(query: unknown): SubscriptionQuery {
  if (typeof query !== "string" || query.trim() === "") throw invalid("query must be a non-empty string");
  if (query.length > MAX_QUERY_LENGTH) throw invalid(`a query holds at most ${MAX_QUERY_LENGTH} characters`);
  let conditions;
  try {
    conditions = parseQuery(query);
  } catch (err) {
    if (err instanceof QuerySyntaxError) throw invalid(`failed to parse query: ${err.message}`);
    throw err;
  }
  if (conditions.length > MAX_QUERY_CONDITIONS)
    throw invalid(`a query holds at most ${MAX_QUERY_CONDITIONS} conditions`);
  const events = conditions.filter((c) => c.tag === "tm.event");
  const [event] = events;
  if (events.length !== 1 || event?.op !== "=" || event.arg?.kind !== "string")
    throw invalid("a query holds exactly one tm.event = '<type>' condition");
  const type = event.arg.text;
  if (!(SERVED_EVENT_TYPES as readonly string[]).includes(type))
    throw invalid(
      `tm.event '${type.slice(0, 32)}' is not served here: ${SERVED_EVENT_TYPES.join(", ")} only ` +
        "(consensus-internal events are a validator's concern)",
    );
  return { type: type as ServedEventType, matches: compileQuery(conditions) };
}
