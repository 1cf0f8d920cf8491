/**
 * Every log line the Worker and its Durable Objects print: one JSON object on one line, which
 * Workers Logs indexes field by field. `event` names what happened (snake_case); `request_id`,
 * when the line belongs to a request, is the id the client got in `x-request-id`, so the id a user
 * reports finds every line of that request.
 */

export type LogLevel = "info" | "warn" | "error";

/** Fields of a line besides its level and event. */
export interface LogFields {
  request_id?: string;
  [field: string]: unknown;
}

/** Prints one line, through the console method of its level (Workers Logs shows the level from it). */
export function log(level: LogLevel, event: string, fields: LogFields = {}): void {
  const line = JSON.stringify({ level, event, ...fields });
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.log(line);
}

/** What went wrong, in words: an Error's message, or the thrown value as text. */
export const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));
