/** Turns a zod refusal into the one error shape, naming the field and what is wrong with it. */
import * as z from "zod/mini";
import { invalidArgument } from "../errors";

/** Parses `value` with `schema`, or throws a 400 whose message names the first offending field. */
export function parseOrRefuse<S extends z.ZodMiniType>(schema: S, value: unknown, reason = "INVALID_FIELD"): z.output<S> {
  const result = z.safeParse(schema, value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = issue.path.map(String).join(".");
  const message =
    issue.code === "unrecognized_keys"
      ? `Unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => JSON.stringify(k)).join(", ")}${field ? ` in ${field}` : ""}`
      : `${field || "body"}: ${issue.message}`;
  return refuse(reason, message, field);
}

function refuse(reason: string, message: string, field: string): never {
  throw invalidArgument(reason, message, field ? { field } : undefined);
}
