/** What the onboarding paths of the OpenAPI document share: the generator's parts, JSON content, the id parameter. */
import type * as z from "zod/mini";

export type Json = Record<string, unknown>;

export interface OpenApiParts {
  schema(s: z.ZodMiniType, io?: "input" | "output"): Json;
  errorAnswer(description: string): Json;
}

export const json = (body: Json) => ({ "application/json": { schema: body } });
export const noStore = { "Cache-Control": { schema: { type: "string", const: "no-store" } } };
export const idParam = {
  name: "id",
  in: "path",
  required: true,
  schema: { type: "string", pattern: "^ob_[0-9a-f]{32}$" },
  description: "Onboarding id: ob_ and 32 lowercase hex characters",
};
