/**
 * The field schemas every message shares: account and validator addresses (bech32 with the
 * network's prefix), amounts (integer strings in the smallest unit) and labels.
 */
import * as z from "zod/mini";
import { accountAddressSchema } from "../address.ts";
import { describeFirstIssue } from "../schema-issues.ts";
import { freeText } from "../text.ts";
import { MessageError } from "./errors.ts";

/** Largest amount a Cosmos `sdk.Int` holds: 256 bits, 78 decimal digits at most. */
const MAX_AMOUNT = 2n ** 256n - 1n;
const INTEGER_STRING = /^(0|[1-9][0-9]*)$/;

/** A bech32 address with exactly `prefix` and a 20-byte payload. */
export const addressSchema = accountAddressSchema;

/**
 * An amount in the smallest unit: a decimal integer string, no sign, no leading zeros, above zero.
 * Built when a message is, like every field schema here: the Worker imports this module but builds
 * no messages, so a schema made at load would only weigh on its bundle.
 */
export const amountSchema = () =>
  z.string().check(
    z.superRefine((value, ctx) => {
      const problem = !INTEGER_STRING.test(value)
        ? "must be a whole number of the smallest unit, written as digits only"
        : value === "0"
          ? "must be greater than zero"
          : value.length > 78 || BigInt(value) > MAX_AMOUNT
            ? "is larger than a 256-bit integer"
            : null;
      if (problem) ctx.addIssue({ code: "custom", message: problem, input: value });
    }),
  );

/** A free label: up to 64 characters, no control characters. */
export const labelSchema = () => freeText(64);

/** Parses `value` with `schema`, or throws a MessageError naming the first offending field. */
export function parseFields<S extends z.ZodMiniType>(
  schema: S,
  value: unknown,
  reason = "INVALID_MESSAGE",
): z.output<S> {
  const result = z.safeParse(schema, value, { reportInput: true });
  if (result.success) return result.data;
  const { field, message } = describeFirstIssue(result.error);
  throw new MessageError(reason, message, field || undefined);
}
