/**
 * Answers from the chain's nodes are untrusted input: each reader says, with a small `z.looseObject`
 * schema, what it reads of an answer (other fields are left alone), and an answer without it is
 * refused with a ChainAnswerError that names what is missing, never read through a cast.
 */
import * as z from "zod/mini";
import { describeIssue } from "./schema-issues.ts";

/** A node's answer lacked what the reader needs; the message names the field and the answer. */
export class ChainAnswerError extends Error {
  override name = "ChainAnswerError";
}

/** A node's answer body as JSON, or a ChainAnswerError: "<what> is not JSON". */
export function chainJson(body: string, what: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    throw new ChainAnswerError(`${what} is not JSON`);
  }
}

/** `value` as `schema` reads it, or a ChainAnswerError: "<what> is malformed: <field> <problem>". */
export function parseChainAnswer<S extends z.ZodMiniType>(schema: S, value: unknown, what: string): z.output<S> {
  const result = z.safeParse(schema, value, { reportInput: true });
  if (result.success) return result.data;
  throw new ChainAnswerError(`${what} is malformed: ${describeIssue(result.error.issues[0]!, "the answer").message}`);
}
