/** One sentence for a zod refusal, shared by the Worker's validation and the message builders. */
import type * as z from "zod/mini";

/** The first issue of a refusal: the dotted path of the offending field and what is wrong with it. */
export function describeFirstIssue(error: z.core.$ZodError): { field: string; message: string } {
  const issue = error.issues[0]!;
  const field = issue.path.map(String).join(".");
  const message =
    issue.code === "unrecognized_keys"
      ? `Unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => JSON.stringify(k)).join(", ")}${field ? ` in ${field}` : ""}`
      : issue.code === "invalid_type"
        ? `${field || "input"} is required and must be ${issue.expected}`
        : `${field || "input"} ${issue.message}`;
  return { field, message };
}
