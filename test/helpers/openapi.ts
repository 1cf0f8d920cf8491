/**
 * Real answers checked against the served `/api/openapi.json`: `expectDocumented(response, method,
 * path)` finds the operation's schema for the response's status and validates the JSON body with
 * every key declared (an object schema without `additionalProperties` counts as `false`). A small
 * JSON Schema validator for the keywords the document uses (workerd runs no code-generating
 * validator); a keyword or a `format` it does not know fails the check instead of passing silently.
 */
import { exports } from "cloudflare:workers";
import { expect } from "vitest";

type Schema = Record<string, any>;
export type OpenApiDocument = {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: Schema }> }> }>
  >;
  components: { schemas: Record<string, Schema> };
};

let served: Promise<OpenApiDocument> | undefined;

/** The document this Worker serves (read once per test file). */
export function servedDocument(): Promise<OpenApiDocument> {
  served ??= exports.default
    .fetch(new Request("https://edge.test/api/openapi.json"))
    .then((r) => r.json<OpenApiDocument>());
  return served;
}

/** The schema of `method path`'s JSON answer with `status`; fails the test when the document has none. */
function answerSchema(doc: OpenApiDocument, method: string, path: string, status: number): Schema {
  const operation = doc.paths[path]?.[method.toLowerCase()];
  expect(operation, `${method.toUpperCase()} ${path} is not in the document`).toBeDefined();
  const answer = operation!.responses[String(status)];
  expect(answer, `${method.toUpperCase()} ${path} documents no ${status} answer`).toBeDefined();
  const schema = answer!.content?.["application/json"]?.schema;
  expect(schema, `${method.toUpperCase()} ${path} ${status} has no JSON schema`).toBeDefined();
  return schema!;
}

/**
 * Checks that `response` (status and JSON body) is what the served document says `method path`
 * answers, every key declared; returns the body.
 */
export async function expectDocumented<T = any>(response: Response, method: string, path: string): Promise<T> {
  const doc = await servedDocument();
  const body = await response.clone().json();
  const problems = schemaProblems(doc, answerSchema(doc, method, path, response.status), body);
  expect(
    problems,
    `${method.toUpperCase()} ${path} ${response.status} answered what the document does not say`,
  ).toEqual([]);
  return body as T;
}

/** Annotations, which say nothing a value must be. */
const ANNOTATIONS = new Set([
  "description",
  "title",
  "$schema",
  "examples",
  "default",
  "deprecated",
  "readOnly",
  "writeOnly",
]);

/** The `format`s the document uses, each as a check of a string (any other format fails the check). */
const FORMATS: Record<string, (value: string) => boolean> = {
  // RFC 3339's date-time, as JSON Schema means it: a full date, a time and an offset.
  "date-time": (value) =>
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(value) && !Number.isNaN(Date.parse(value)),
  // An absolute URI: a scheme, then what the scheme takes.
  uri: (value) => /^[a-z][a-z0-9+.-]*:/i.test(value) && URL.canParse(value),
};

/** Every way `value` breaks `schema` (empty when it fits), each with the JSON path where. */
export function schemaProblems(doc: OpenApiDocument, schema: Schema, value: unknown, at = "$"): string[] {
  if (schema.$ref) {
    const name = String(schema.$ref).replace("#/components/schemas/", "");
    const target = doc.components.schemas[name];
    return target ? schemaProblems(doc, target, value, at) : [`${at}: unknown $ref ${schema.$ref}`];
  }
  const problems: string[] = [];
  for (const [keyword, rule] of Object.entries(schema)) {
    if (ANNOTATIONS.has(keyword)) continue;
    switch (keyword) {
      case "type": {
        const types: string[] = Array.isArray(rule) ? rule : [rule];
        if (!types.some((type) => typeOf(value, type)))
          problems.push(`${at}: ${JSON.stringify(value)} is not ${types.join(" or ")}`);
        break;
      }
      case "enum":
        if (!(rule as unknown[]).includes(value))
          problems.push(`${at}: ${JSON.stringify(value)} is not one of ${JSON.stringify(rule)}`);
        break;
      case "const":
        if (value !== rule) problems.push(`${at}: ${JSON.stringify(value)} is not ${JSON.stringify(rule)}`);
        break;
      case "pattern":
        if (typeof value === "string" && !new RegExp(rule as string, "u").test(value))
          problems.push(`${at}: "${value}" does not match ${rule}`);
        break;
      case "format": {
        const check = FORMATS[rule as string];
        if (!check) problems.push(`${at}: the check does not know the format "${rule}"`);
        else if (typeof value === "string" && !check(value)) problems.push(`${at}: "${value}" is not a ${rule}`);
        break;
      }
      case "minLength":
      case "maxLength":
        if (typeof value === "string" && (keyword === "minLength" ? value.length < rule : value.length > rule))
          problems.push(`${at}: length ${value.length} breaks ${keyword} ${rule}`);
        break;
      case "minimum":
      case "maximum":
        if (typeof value === "number" && (keyword === "minimum" ? value < rule : value > rule))
          problems.push(`${at}: ${value} breaks ${keyword} ${rule}`);
        break;
      case "anyOf":
      case "oneOf": {
        const fits = (rule as Schema[]).filter((option) => schemaProblems(doc, option, value, at).length === 0).length;
        if (keyword === "anyOf" ? fits === 0 : fits !== 1)
          problems.push(`${at}: ${JSON.stringify(value)} fits ${fits} of the ${keyword} options`);
        break;
      }
      case "allOf":
        for (const part of rule as Schema[]) problems.push(...schemaProblems(doc, part, value, at));
        break;
      case "items":
        if (Array.isArray(value))
          value.forEach((item, i) => problems.push(...schemaProblems(doc, rule, item, `${at}[${i}]`)));
        break;
      case "required":
        if (isObject(value))
          for (const key of rule as string[])
            if (!(key in value)) problems.push(`${at}: required key "${key}" is missing`);
        break;
      case "propertyNames":
        if (isObject(value))
          for (const key of Object.keys(value)) problems.push(...schemaProblems(doc, rule, key, `${at} key "${key}"`));
        break;
      case "properties":
      case "additionalProperties":
        break; // Below, together.
      default:
        problems.push(`${at}: the check does not know the keyword "${keyword}"`);
    }
  }
  if (isObject(value) && (schema.type === "object" || schema.properties)) {
    const declared: Record<string, Schema> = schema.properties ?? {};
    for (const [key, item] of Object.entries(value)) {
      if (key in declared) problems.push(...schemaProblems(doc, declared[key]!, item, `${at}.${key}`));
      else if (isObject(schema.additionalProperties))
        problems.push(...schemaProblems(doc, schema.additionalProperties, item, `${at}.${key}`));
      // Every key declared: an object schema that does not allow more keys explicitly allows none.
      else if (schema.additionalProperties !== true) problems.push(`${at}: key "${key}" is not declared`);
    }
  }
  return problems;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function typeOf(value: unknown, type: string): boolean {
  switch (type) {
    case "null":
      return value === null;
    case "object":
      return isObject(value);
    case "array":
      return Array.isArray(value);
    case "integer":
      return Number.isInteger(value);
    case "number":
      return typeof value === "number";
    default:
      return typeof value === type;
  }
}
