/**
 * What the gateway accepts in a path parameter, query value or height header, as zod/mini
 * schemas, so nothing that is not a plain address, id or hash reaches an upstream.
 */
import * as z from "zod/mini";
import { accountAddressSchema, issueProblem } from "../protocol/index";

/** Kinds of path parameter a route row may name. */
export type ParamKind = "address" | "validatorAddress" | "uint64" | "txHash";

/** Query parameters a route row may allow. */
export type QueryName =
  | "pagination.key"
  | "pagination.offset"
  | "pagination.limit"
  | "pagination.count_total"
  | "pagination.reverse"
  | "status";

const UINT64_MAX = 0xffff_ffff_ffff_ffffn;

/** An unsigned 64-bit decimal, without sign or leading zeros (one spelling per number, one cache key). */
const uint64 = z.string().check(
  z.superRefine((value, ctx) => {
    const problem = !/^(0|[1-9][0-9]{0,19})$/.test(value)
      ? "must be an unsigned decimal integer without leading zeros"
      : BigInt(value) > UINT64_MAX
        ? "is larger than an unsigned 64-bit integer"
        : null;
    if (problem) ctx.addIssue({ code: "custom", message: problem, input: value });
  }),
);

/** A block height to read at: a positive uint64 (0 would mean "latest", which is the request without the header). */
export const blockHeightSchema = uint64.check(
  z.refine((value) => value !== "0", "must be a positive integer (leave the header out for the latest state)"),
);

/**
 * A pagination value, passed to the node as given. grpc-gateway parses it with Go's strconv
 * (`ParseUint(v, 0, 64)` takes hex, octal and `_`; `ParseBool` twelve spellings) and Go's two
 * base64 alphabets, and refuses the rest with its own 400; a shape check here would refuse
 * values the node reads, or copy its parsers. What the node refuses comes back as its answer.
 */
// Bounded all the same: a next_key is the base64 of a store key (tens of bytes), and an unbounded
// value would only make a cache key and an upstream request as large as the client likes.
const paginationValue = z.string().check(z.maxLength(1024, "is longer than 1024 characters"));

/** Values of every query parameter a route may take. */
export const QUERY_VALUES: Readonly<Record<QueryName, z.ZodMiniType<string>>> = {
  "pagination.key": paginationValue,
  "pagination.offset": paginationValue,
  "pagination.limit": paginationValue,
  "pagination.count_total": paginationValue,
  "pagination.reverse": paginationValue,
  status: z.enum(["BOND_STATUS_UNSPECIFIED", "BOND_STATUS_UNBONDED", "BOND_STATUS_UNBONDING", "BOND_STATUS_BONDED"], {
    error: "must be one of BOND_STATUS_BONDED, BOND_STATUS_UNBONDING, BOND_STATUS_UNBONDED, BOND_STATUS_UNSPECIFIED",
  }),
};

/** What each query parameter means, for the OpenAPI document. */
export const QUERY_DESCRIPTIONS: Readonly<Record<QueryName, string>> = {
  "pagination.key": "next_key of the previous page (base64); not together with pagination.offset",
  "pagination.offset": "Items to skip; not together with pagination.key",
  "pagination.limit": "Items per page (the node's default is 100)",
  "pagination.count_total": "Fill pagination.total (offset pages only)",
  "pagination.reverse": "Walk the list backwards",
  status: "Bond status to list",
};

/** A transaction hash: 64 hex digits (either case; the node reads both). */
const txHash = z.string().check(z.regex(/^[0-9A-Fa-f]{64}$/, "must be 64 hexadecimal digits"));

/** The schema of each path parameter kind for the network's address prefix. */
export function paramSchemas(bech32Prefix: string): Readonly<Record<ParamKind, z.ZodMiniType<string>>> {
  return {
    address: accountAddressSchema(bech32Prefix),
    validatorAddress: accountAddressSchema(`${bech32Prefix}valoper`),
    uint64,
    txHash,
  };
}

/** What each path parameter kind is, for the OpenAPI document. */
export function paramDescriptions(bech32Prefix: string): Readonly<Record<ParamKind, string>> {
  return {
    address: `Account address: bech32, prefix "${bech32Prefix}", lowercase, checksum verified`,
    validatorAddress:
      `Validator operator address: bech32, prefix "${bech32Prefix}valoper", lowercase, checksum ` + `verified`,
    uint64: "Unsigned 64-bit decimal, no leading zeros",
    txHash: "Transaction hash: 64 hexadecimal digits",
  };
}

/** The first problem with `value`, or null when `schema` accepts it. */
export function problemWith(schema: z.ZodMiniType<string>, value: string): string | null {
  const result = z.safeParse(schema, value, { reportInput: true });
  return result.success ? null : issueProblem(result.error.issues[0]!);
}
