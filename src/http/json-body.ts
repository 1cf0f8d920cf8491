/** Reads a JSON object body under a size limit, refusing everything else with a clear error. */
import { ApiError, GrpcCode, invalidArgument } from "../errors";

/**
 * Returns the parsed JSON object of `request`.
 * Refuses a non-JSON content type (415), a body over `limitBytes` (413, without reading past the
 * limit), malformed JSON and anything that is not a plain object (400).
 */
export async function readJsonObject(request: Request, limitBytes: number): Promise<Record<string, unknown>> {
  const mediaType = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (mediaType !== "application/json") {
    throw new ApiError({
      status: 415,
      code: GrpcCode.INVALID_ARGUMENT,
      reason: "UNSUPPORTED_MEDIA_TYPE",
      message: "The body must be JSON sent with Content-Type: application/json",
    });
  }
  const text = await readLimited(request, limitBytes);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidArgument("MALFORMED_JSON", "The body is not valid JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalidArgument("MALFORMED_JSON", "The body must be a JSON object");
  }
  return value as Record<string, unknown>;
}

function tooLarge(limitBytes: number): ApiError {
  return new ApiError({
    status: 413,
    code: GrpcCode.INVALID_ARGUMENT,
    reason: "BODY_TOO_LARGE",
    message: `The body must be at most ${limitBytes} bytes`,
    metadata: { limit_bytes: String(limitBytes) },
  });
}

async function readLimited(request: Request, limitBytes: number): Promise<string> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > limitBytes) throw tooLarge(limitBytes);
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limitBytes) {
      await reader.cancel();
      throw tooLarge(limitBytes);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw invalidArgument("MALFORMED_JSON", "The body is not valid UTF-8");
  }
}
