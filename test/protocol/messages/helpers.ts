/** Chain contexts and addresses for the builder tests: the Worker's own config and a second brand. */
import { toBech32 } from "@cosmjs/encoding";
import { env } from "cloudflare:workers";
import { readConfig } from "../../../src/config";
import { chainContext, type ChainContext } from "../../../src/protocol/index";
import { MessageError } from "../../../src/protocol/index";

/** The context of the Worker under test, made from its Config as the server makes it. */
export function workerContext(): ChainContext {
  return chainContext(readConfig(env));
}

/** Another network's words: proves no builder holds a literal brand word. */
export const OTHER: ChainContext = {
  namespace: "acme",
  bech32Prefix: "acme",
  chainId: "acme-main-7",
  nativeDenom: "uacme",
  nodeBinary: "acmed",
  walletScheme: "acmewallet",
  walletPath: "pair",
};

/** A deterministic bech32 address: `bytes` bytes (an account's 20 by default) of `fill` under `prefix`. */
export function address(prefix: string, fill: number, bytes = 20): string {
  return toBech32(prefix, new Uint8Array(bytes).fill(fill));
}

/** The MessageError `fn` throws; fails the test when it throws nothing or something else. */
export function refusal(fn: () => unknown): MessageError {
  try {
    fn();
  } catch (error) {
    if (error instanceof MessageError) return error;
    throw error;
  }
  throw new Error("expected a MessageError");
}
