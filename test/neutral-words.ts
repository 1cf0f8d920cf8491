/**
 * The runtime suite runs wrangler.toml's local profile with the neutral profile's words set as
 * variables on top: every test then shows that a variable overrides its profile and that no brand
 * word hides in logic. The end-to-end suite runs the local profile untouched, as `npm run dev` does.
 */
import { NETWORK_PROFILES } from "../src/config/profiles.ts";

export const NEUTRAL_TEST_VARS: Readonly<Record<string, string>> = {
  ...Object.fromEntries(Object.entries(NETWORK_PROFILES.neutral.vars)),
  CHAIN_ID: "chain-devnet-1",
};
