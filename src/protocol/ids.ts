/** Random identifiers: `cs_` pairing sessions, `pl_` sign requests and `ob_` onboardings. */
import { toHex } from "./hex.ts";

/** 32 lowercase hex characters from the platform's CSPRNG (a dashless UUID's length). */
function randomHex32(): string {
  return toHex(crypto.getRandomValues(new Uint8Array(16)));
}

/** A fresh session id: `cs_` + 32 lowercase hex characters, minted by the page as the SDK does. */
export function mintSessionId(): string {
  return `cs_${randomHex32()}`;
}

/** A fresh sign-request id: `pl_` + 32 lowercase hex characters. */
export function mintSignRequestId(): string {
  return `pl_${randomHex32()}`;
}

/** `cs_` and 32 lowercase hex characters: the SDK's dashless UUID. */
export const SESSION_ID_PATTERN = /^cs_[0-9a-f]{32}$/;

/** A fresh onboarding id: `ob_` + 32 lowercase hex characters. Its URL is the customer's capability. */
export function mintOnboardingId(): string {
  return `ob_${randomHex32()}`;
}

export const ONBOARDING_ID_PATTERN = /^ob_[0-9a-f]{32}$/;
export const SIGN_REQUEST_ID_PATTERN = /^pl_[0-9a-f]{32}$/;
