/**
 * The zod schema of the one error body (src/errors.ts), for the OpenAPI document and the tests
 * that read refusals; the Worker only writes that body, so the schema stays out of the Worker.
 */
import * as z from "zod/mini";
import type { ErrorBody } from "./errors";

export const errorBodySchema: z.ZodMiniType<ErrorBody> = z.object({
  code: z.number().check(z.int()),
  message: z.string(),
  details: z.array(
    z.object({
      "@type": z.literal("type.googleapis.com/google.rpc.ErrorInfo"),
      reason: z.string(),
      domain: z.string(),
      metadata: z.record(z.string(), z.string()),
    }),
  ),
});
