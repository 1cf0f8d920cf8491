/**
 * What the gateway accepts in a path parameter or query value, as zod/mini schemas, so nothing
 * that is not a plain address, id or Cosmos pagination value reaches an upstream.
 */
import * as z from "zod/mini";
import { accountAddressSchema } from "../protocol/index";

/** Kinds of path parameter a route row may name. */
export type ParamKind = "address" | "uint64";

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

const bool = z.enum(["true", "false"], { error: 'must be "true" or "false"' });

/** Values of every query parameter a route may take. */
export const QUERY_VALUES: Readonly<Record<QueryName, z.ZodMiniType<string>>> = {
  // A store key from a previous page's next_key: base64 (standard or URL-safe); empty means none.
  "pagination.key": z.string().check(z.maxLength(1024, "is too long"), z.regex(/^[A-Za-z0-9+/_-]*={0,2}$/, "must be base64 (a previous next_key)")),
  "pagination.offset": uint64,
  "pagination.limit": uint64,
  "pagination.count_total": bool,
  "pagination.reverse": bool,
  status: z.enum(["BOND_STATUS_UNSPECIFIED", "BOND_STATUS_UNBONDED", "BOND_STATUS_UNBONDING", "BOND_STATUS_BONDED"], {
    error: "must be one of BOND_STATUS_BONDED, BOND_STATUS_UNBONDING, BOND_STATUS_UNBONDED, BOND_STATUS_UNSPECIFIED",
  }),
};

/** The schema of each path parameter kind for the network's address prefix. */
export function paramSchemas(bech32Prefix: string): Readonly<Record<ParamKind, z.ZodMiniType<string>>> {
  return {
    address: accountAddressSchema(bech32Prefix),
    uint64,
  };
}

/** The first problem with `value`, or null when `schema` accepts it. */
export function problemWith(schema: z.ZodMiniType<string>, value: string): string | null {
  const result = z.safeParse(schema, value);
  return result.success ? null : result.error.issues[0]!.message;
}
