/**
 * What lets a repeated JSON-RPC call be answered from the isolate's memory before it is parsed:
 * the cache key each single-call body was found to have, by the body without its id (the one
 * part that changes from call to call: CosmJS draws a new id for each). Only bodies of the
 * shape CosmJS sends (`{"jsonrpc":"2.0","id":<id>,…}`, no other `"id"`, no escape) are
 * remembered, and only once the call was parsed as JSON, checked and its key built; any other
 * body is parsed and checked. So a body the memo answers is byte for byte a valid one but for
 * its id, and the id is valid JSON: the memo never answers a body that is not JSON.
 */

/**
 * The head of a single call as CosmJS writes it; its group is the id as written, which is echoed: a
 * safe integer in JSON's own spelling (no leading zero, no `-0`, no fraction or exponent) or a
 * plain string. Anything else (`007` is not JSON) goes to the parser.
 */
const CALL_HEAD = /^\{"jsonrpc":"2\.0","id":(0|-?[1-9]\d{0,14}|"[\w .:-]{0,64}"),/;
/** Most bodies remembered; when full, the memo starts again. */
const MEMO_MAX = 1000;

const keys = new Map<string, string>();

/** The body's id (as JSON) and the memo's key for the rest of it, or null when it is not of the remembered shape. */
export function callShape(origin: string, body: string): { id: string; rest: string } | null {
  const head = CALL_HEAD.exec(body);
  if (!head) return null;
  const rest = body.slice(head[0].length);
  // A second id, spelled plainly or with an escape (`"\u0069d"`), would be the one a parser takes.
  return rest.includes('"id"') || rest.includes("\\") ? null : { id: head[1]!, rest: origin + rest };
}

/** The cache key a body of this shape was found to have, if any. */
export const rememberedKey = (rest: string): string | undefined => keys.get(rest);

export function rememberCall(rest: string, key: string): void {
  if (keys.size >= MEMO_MAX) keys.clear();
  keys.set(rest, key);
}

/** Forgets every remembered body (tests start from nothing). */
export function resetCallMemo(): void {
  keys.clear();
}

/** A body read before the router, for the handler to take instead of reading it again. */
const bodies = new WeakMap<Request, string>();

export const keepBody = (request: Request, body: string) => void bodies.set(request, body);
export const keptBody = (request: Request): string | undefined => bodies.get(request);
