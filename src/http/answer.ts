/**
 * What a Durable Object answers across RPC, in one shape for every object: the value with its
 * HTTP status, or the refusal itself (a value with its own status), which the Worker answers in
 * the one error shape.
 */
import { errorResponse, type ErrorSpec } from "../errors";

export type Answer<T> = { status: 200 | 201 | 202; body: T } | ErrorSpec;

/** True for an answer that refuses. */
export function isRefusal<T>(answer: Answer<T>): answer is ErrorSpec {
  return "reason" in answer;
}

/** The answer as a response: the value as JSON, never cached, or the refusal in the one error shape. */
export function respond<T>(answer: Answer<T>, headers: Record<string, string> = {}): Response {
  if (isRefusal(answer)) return errorResponse(answer);
  return Response.json(answer.body, { status: answer.status, headers: { "cache-control": "no-store", ...headers } });
}
