/**
 * The block height on the wire. A Cosmos SDK node answers with it as gRPC header metadata, which
 * grpc-gateway writes as `Grpc-Metadata-X-Cosmos-Block-Height`; a proxy in front may rename it to
 * the bare `x-cosmos-block-height`. A client asks for the state at a past height with the request
 * header `x-cosmos-block-height` (the SDK's header matcher forwards it to gRPC).
 */
import { badRequest } from "./cosmos-errors.ts";

/** Which name the height header goes out under: grpc-gateway's own, or a renaming proxy's. */
export type HeightHeaderForm = "grpc-metadata" | "bare";

export const HEIGHT_HEADER: Record<HeightHeaderForm, string> = {
  "grpc-metadata": "Grpc-Metadata-X-Cosmos-Block-Height",
  bare: "x-cosmos-block-height",
};

/** The request header that asks for a historical read. */
export const REQUEST_HEIGHT_HEADER = "x-cosmos-block-height";

/** Reads a form name (DEVNET_HEIGHT_HEADER); unset means grpc-gateway's form. */
export function parseHeightHeaderForm(value: string | undefined): HeightHeaderForm {
  const form = value?.trim() || "grpc-metadata";
  if (form === "grpc-metadata" || form === "bare") return form;
  throw new Error(`height header form must be "grpc-metadata" or "bare", got ${JSON.stringify(value)}`);
}

/**
 * The height a request reads at: `latest` without the header or with 0 (the SDK's "latest"), else
 * the asked height. Refusals are code 3 / HTTP 400 here; the wording follows the SDK's
 * (`strconv.ParseInt` text, "cannot query with height in the future") but is assumed: a stock node
 * may map ErrInvalidHeight to another gRPC code.
 */
export function requestedHeight(header: string | string[] | undefined, latest: number): number {
  if (header === undefined) return latest;
  const raw = Array.isArray(header) ? header[0]! : header;
  if (!/^[+-]?\d+$/.test(raw)) {
    throw badRequest(
      `invalid height header ${JSON.stringify(REQUEST_HEIGHT_HEADER)}: strconv.ParseInt: parsing ${JSON.stringify(raw)}: invalid syntax: invalid request`,
    );
  }
  const asked = BigInt(raw);
  if (asked < 0n)
    throw badRequest(`height (${asked}) from ${JSON.stringify(REQUEST_HEIGHT_HEADER)} must be >= 0: invalid request`);
  if (asked > BigInt(latest))
    throw badRequest("cannot query with height in the future; please provide a valid height: invalid height");
  return asked === 0n ? latest : Number(asked);
}
