/**
 * Account addresses of the network: bech32 (BIP-173) with the configured prefix and a 20-byte
 * payload, lowercase as the chain prints them.
 */
import * as z from "zod/mini";
import { decodeBech32 } from "./bech32.ts";

/** BIP-173's upper bound on the length of a bech32 string. */
export const BECH32_MAX_LENGTH = 90;

/**
 * Why an address was refused, as a phrase that follows its name ("must be lowercase bech32"); `null` when it is a valid
 * account address.
 */
export function accountAddressProblem(value: string, prefix: string): string | null {
  // An unset shell variable or an empty form field: say so, not "not bech32".
  if (value === "") return "is empty";
  if (value.length > BECH32_MAX_LENGTH) return `is longer than ${BECH32_MAX_LENGTH} characters`;
  if (value !== value.toLowerCase()) return "must be lowercase bech32";
  const decoded = decodeBech32(value, BECH32_MAX_LENGTH);
  if (!decoded) return "is not valid bech32 (bad characters or checksum)";
  if (decoded.prefix !== prefix) return `must start with "${prefix}1"`;
  if (decoded.bytes.length !== 20) return `must carry a 20-byte account payload, not ${decoded.bytes.length} bytes`;
  return null;
}

/** True when `value` is an account address of the network with `prefix`. */
export function isAccountAddress(value: string, prefix: string): boolean {
  return accountAddressProblem(value, prefix) === null;
}

/** A zod schema for an account address with `prefix`; its issue says what is wrong. */
export function accountAddressSchema(prefix: string) {
  return z.string().check(
    z.superRefine((value, ctx) => {
      const problem = accountAddressProblem(value, prefix);
      if (problem) ctx.addIssue({ code: "custom", message: problem, input: value });
    }),
  );
}
