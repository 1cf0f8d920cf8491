/**
 * One sentence for a zod refusal, shared by the Worker's validation, the message builders and the
 * reads of the chain's answers. zod/mini carries no locale (its own text is "Invalid input"), so
 * the rule an input broke is said here from the issue itself: the limit, the format, the values.
 */
import type * as z from "zod/mini";

/** zod's text for an issue whose schema gave none. */
const UNWORDED = "Invalid input";

const article = (noun: string) => (/^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`);
/** zod's names of types, in words. */
const typeWords = (expected: string) =>
  expected === "int" ? "an integer" : expected === "null" ? "null" : article(expected);

/** A size with its unit: characters of a string, items of a list, or the number itself. */
function size(n: number | bigint, origin: string): string {
  if (origin === "string") return `${n} character${n === 1 ? "" : "s"}`;
  if (origin === "array" || origin === "set") return `${n} item${n === 1 ? "" : "s"}`;
  return String(n);
}

/** Words of the string formats the schemas use. */
const FORMATS: Readonly<Record<string, string>> = {
  datetime: "an ISO 8601 date-time",
  url: "a URL",
  email: "an email address",
  uuid: "a UUID",
};

/**
 * What is wrong, as the schema said it or else from the issue: a phrase that follows the field's
 * name ("must be at most 128 characters"), or a sentence of the schema's own (capitalised).
 */
export function issueProblem(issue: z.core.$ZodIssue): string {
  if (issue.message && issue.message !== UNWORDED) return issue.message;
  switch (issue.code) {
    case "invalid_type":
      return issue.input === undefined
        ? `is required (${typeWords(issue.expected)})`
        : `must be ${typeWords(issue.expected)}`;
    case "too_big":
      return `must be ${issue.inclusive === false ? "less than" : "at most"} ${size(issue.maximum, issue.origin)}`;
    case "too_small":
      if (issue.origin === "string" && Number(issue.minimum) === 1) return "must not be empty";
      return `must be ${issue.inclusive === false ? "more than" : "at least"} ${size(issue.minimum, issue.origin)}`;
    case "invalid_format":
      return issue.format === "regex" && issue.pattern
        ? `must match ${issue.pattern}`
        : `must be ${FORMATS[issue.format] ?? article(issue.format)}`;
    case "invalid_value":
      return issue.values.length === 1
        ? `must be ${JSON.stringify(issue.values[0])}`
        : `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "not_multiple_of":
      return `must be a multiple of ${issue.divisor}`;
    case "unrecognized_keys":
      return (
        `has unknown field${issue.keys.length > 1 ? "s" : ""} ` +
        `${issue.keys.map((k) => JSON.stringify(k)).join(", ")}`
      );
    case "invalid_union":
      return "matches none of the accepted forms";
    default:
      return "is invalid";
  }
}

/**
 * The issue to tell: the issue itself, or, when no option of a union fits, the first issue of the
 * option the input came closest to (the fewest issues, then the deepest), with its whole path.
 */
function telling(issue: z.core.$ZodIssue): z.core.$ZodIssue {
  if (issue.code !== "invalid_union") return issue;
  const options = issue.errors.filter((issues) => issues.length > 0);
  if (options.length === 0) return issue;
  const closest = options.reduce((best, o) =>
    o.length < best.length || (o.length === best.length && o[0]!.path.length > best[0]!.path.length) ? o : best,
  );
  return telling({ ...closest[0]!, path: [...issue.path, ...closest[0]!.path] } as z.core.$ZodIssue);
}

/**
 * One issue as one sentence: the dotted path of the offending field (or `whole`, the value itself) and what is wrong
 * with it.
 */
export function describeIssue(raw: z.core.$ZodIssue, whole = "input"): { field: string; message: string } {
  const issue = telling(raw);
  const field = issue.path.map(String).join(".");
  if (issue.code === "unrecognized_keys") {
    return {
      // The unknown field itself (the first, when several), so a client sees which one it sent by mistake.
      field: [...issue.path.map(String), issue.keys[0]!].join("."),
      message:
        `Unknown field${issue.keys.length > 1 ? "s" : ""} ` +
        `${issue.keys.map((k) => JSON.stringify(k)).join(", ")}${field ? ` in ${field}` : ""}`,
    };
  }
  const problem = issueProblem(issue);
  // A schema's own sentence stands alone; a phrase follows the field's name.
  const message = /^[A-Z]/.test(problem) ? problem : `${field || whole} ${problem}`;
  return { field, message };
}

/** The first issue of a refusal, as `describeIssue` tells it. */
export function describeFirstIssue(error: z.core.$ZodError): { field: string; message: string } {
  return describeIssue(error.issues[0]!);
}
