/** Turns a zod refusal into the one error shape, naming the field and what is wrong with it. */
import * as z from "zod/mini";
import { invalidArgument } from "../errors";
import { describeFirstIssue } from "../protocol/index";

/** Parses `value` with `schema`, or throws a 400 whose message names the first offending field. */
export function parseOrRefuse<S extends z.ZodMiniType>(
  schema: S,
  value: unknown,
  reason = "INVALID_FIELD",
): z.output<S> {
  const result = z.safeParse(schema, value, { reportInput: true });
  if (result.success) return result.data;
  const { field, message } = describeFirstIssue(result.error);
  throw invalidArgument(reason, message, field ? { field } : undefined);
}
