/**
 * `npm run wallet -- [options] <deep link | sign QR content | session id>`: a wallet simulator for local runs.
 *
 * - A connect link (`<scheme>://connect?p=…`) or a bare `cs_…` session id: confirms the session
 *   as the wallet app would, posting the proof (address, a 1952-byte ML-DSA-65-sized public key,
 *   account label) to the payload's relay URL, or to `<server>/api/<wallet_path>/sessions/<id>/confirm`.
 * - A sign request, as its link (`<scheme>://sign?p=…`) or as the raw base64 a sign QR shows:
 *   checks it, then "signs and broadcasts" its transaction through the devnet
 *   (`POST /__devnet/txs`), printing the transaction hash and its outcome. A failure with
 *   "authorization already exists" (ErrAuthorizationExists) counts as success, as the network's
 *   clients treat it; any other failure exits non-zero with the chain's text.
 *
 * The address is deterministic (from --seed, default "payout") unless --address names one. It
 * never asks for, accepts or stores a recovery phrase: there is none, the key is fake.
 *
 * Options:
 *   --address <bech32>   confirm with this address (must carry the server's prefix)
 *   --seed <text>        derive the address and key from this text (default "payout")
 *   --label <text>       account label sent with the proof (default "Simulator")
 *   --server <url>       the Worker, for session ids and settings (default http://127.0.0.1:8787)
 *   --devnet <url>       the devnet (default http://127.0.0.1:1317)
 *   --refuse             decline: a connect is cancelled (DELETE), a sign request is not broadcast
 */
import { toBech32 } from "@cosmjs/encoding";
import { createHash } from "node:crypto";
import { parseArgs } from "node:util";
import * as z from "zod/mini";
import { accountAddressProblem } from "../src/protocol/index.ts";
import { chainContextFromSettings, type ChainContext } from "../src/protocol/index.ts";
import { readTxAnswer } from "../src/protocol/index.ts";
import { decodeWalletPayload, parseDeepLink } from "../src/protocol/index.ts";
import { SESSION_ID_PATTERN } from "../src/protocol/index.ts";
import { signRequestSchema, type SignRequest } from "../src/protocol/index.ts";

/** Size of an ML-DSA-65 public key, the network's signing scheme. */
const PUBKEY_BYTES = 1952;

const connectPayloadSchema = z.object({
  v: z.optional(z.literal(1)),
  session_id: z.string().check(z.regex(SESSION_ID_PATTERN)),
  chain_id: z.string(),
  origin: z.object({ name: z.string(), url: z.string() }),
  expires_at: z.optional(z.string()),
  relay_url: z.optional(z.string()),
});

class WalletError extends Error {}

/** Deterministic bytes from a seed: SHA-256 in counter mode. */
function seededBytes(seed: string, length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0, offset = 0; offset < length; i++, offset += 32) {
    out.set(createHash("sha256").update(`wallet-simulator:${seed}:${i}`).digest().subarray(0, Math.min(32, length - offset)), offset);
  }
  return out;
}

async function fetchJson(url: string, init?: RequestInit): Promise<{ status: number; body: unknown }> {
  let response: Response;
  try {
    response = await fetch(url, init);
  } catch {
    throw new WalletError(`cannot reach ${new URL(url).origin}; is it running?`);
  }
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: keep the text.
  }
  return { status: response.status, body };
}

async function settingsOf(server: string): Promise<ChainContext> {
  const { status, body } = await fetchJson(`${server}/api/config`);
  if (status !== 200) throw new WalletError(`${server}/api/config answered ${status}`);
  return chainContextFromSettings(body);
}

function identity(ctx: ChainContext, options: { address?: string; seed: string }) {
  const address = options.address ?? toBech32(ctx.bech32Prefix, seededBytes(`${options.seed}:address`, 20));
  const problem = accountAddressProblem(address, ctx.bech32Prefix);
  if (problem) throw new WalletError(`--address ${problem}`);
  return { address, pubkeyBase64: Buffer.from(seededBytes(`${options.seed}:pubkey`, PUBKEY_BYTES)).toString("base64") };
}

async function connect(target: { sessionId: string; relayUrl?: string; server: string; chainId?: string }, options: Options): Promise<void> {
  const ctx = await settingsOf(target.server);
  if (target.chainId !== undefined && target.chainId !== ctx.chainId) {
    throw new WalletError(`the link is for chain ${target.chainId}, the server runs ${ctx.chainId}`);
  }
  const sessionUrl = `${target.server}/api/${ctx.walletPath}/sessions/${target.sessionId}`;
  if (options.refuse) {
    const { status, body } = await fetchJson(sessionUrl, { method: "DELETE" });
    if (status !== 200) throw new WalletError(`declining failed: ${status} ${JSON.stringify(body)}`);
    console.log(`declined: session ${target.sessionId} is ${(body as { status?: string }).status}`);
    return;
  }
  const relayUrl = target.relayUrl ?? `${sessionUrl}/confirm`;
  if (new URL(relayUrl).origin !== new URL(target.server).origin) throw new WalletError(`relay_url ${relayUrl} is not on the page's origin`);
  const { address, pubkeyBase64 } = identity(ctx, options);
  const proof = { session_id: target.sessionId, address, pubkey_base64: pubkeyBase64, account_label: options.label };
  const { status, body } = await fetchJson(relayUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(proof) });
  if (status !== 200) throw new WalletError(`the server refused the proof: ${status} ${JSON.stringify(body)}`);
  console.log(`connected: session ${target.sessionId} as ${address}`);
}

async function sign(request: SignRequest, options: Options): Promise<void> {
  const ctx = await settingsOf(new URL(request.origin.url).origin);
  if (request.chain_id !== ctx.chainId) throw new WalletError(`the request is for chain ${request.chain_id}, not ${ctx.chainId}`);
  if (Date.parse(request.expires_at) <= Date.now()) throw new WalletError(`sign request ${request.id} expired at ${request.expires_at}`);
  const signer = options.address ?? request.account_hint;
  if (signer !== request.account_hint) throw new WalletError(`the request must be signed by ${request.account_hint}, this wallet holds ${signer}`);
  console.log(`${request.preview.title}: ${request.preview.summary}`);
  for (const message of request.preview.messages) console.log(`  ${message.type}: ${message.summary ?? ""}`);
  if (options.refuse) {
    console.log(`refused: sign request ${request.id} was not signed`);
    return;
  }
  const { memo, messages } = request.transaction;
  const { status, body } = await fetchJson(`${options.devnet}/__devnet/txs`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ signer, ...(memo === undefined ? {} : { memo }), messages }),
  });
  const outcome = readTxAnswer(status, body);
  switch (outcome.kind) {
    case "included":
      console.log(`broadcast: ${outcome.txhash}`);
      console.log(`included: ${outcome.txhash} at height ${outcome.height}`);
      return;
    case "already-authorized":
      console.log(`broadcast: ${outcome.txhash}`);
      console.log(`already authorized: ${outcome.txhash} failed with ErrAuthorizationExists (counts as success)`);
      return;
    case "failed":
      console.log(`broadcast: ${outcome.txhash}`);
      throw new WalletError(`transaction ${outcome.txhash} failed: ${outcome.reason}`);
    default:
      throw new WalletError(`the devnet did not take the transaction: ${status} ${JSON.stringify(body)}`);
  }
}

/** A sign request from a parsed payload, or a WalletError that says why it is not one. */
function signRequestOf(payload: unknown): SignRequest {
  const parsed = z.safeParse(signRequestSchema, payload);
  if (!parsed.success) throw new WalletError(`not a sign request: ${parsed.error.issues[0]!.path.join(".") || "payload"} ${parsed.error.issues[0]!.message}`);
  return parsed.data as SignRequest;
}

interface Options {
  address?: string;
  seed: string;
  label: string;
  server: string;
  devnet: string;
  refuse: boolean;
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      address: { type: "string" },
      seed: { type: "string", default: "payout" },
      label: { type: "string", default: "Simulator" },
      server: { type: "string", default: "http://127.0.0.1:8787" },
      devnet: { type: "string", default: "http://127.0.0.1:1317" },
      refuse: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help || positionals.length !== 1) {
    console.log("usage: npm run wallet -- [--address <bech32> | --seed <text>] [--label <text>] [--server <url>] [--devnet <url>] [--refuse] <deep link | sign QR content | cs_ session id>");
    process.exitCode = values.help ? 0 : 2;
    return;
  }
  const options: Options = { ...values, server: values.server.replace(/\/+$/, ""), devnet: values.devnet.replace(/\/+$/, "") };
  const input = positionals[0]!.trim();
  if (SESSION_ID_PATTERN.test(input)) return connect({ sessionId: input, server: options.server }, options);

  // A scanned sign QR holds the request's raw base64 rather than a link.
  if (!input.includes("://")) return sign(signRequestOf(decodeWalletPayload(input)), options);
  const link = parseDeepLink(input);
  if (link.action === "connect") {
    const parsed = z.safeParse(connectPayloadSchema, link.payload);
    if (!parsed.success) throw new WalletError("the connect link's payload is not a connect payload");
    const payload = parsed.data;
    return connect({ sessionId: payload.session_id, relayUrl: payload.relay_url, server: new URL(payload.origin.url).origin, chainId: payload.chain_id }, options);
  }
  return sign(signRequestOf(link.payload), options);
}

main().catch((error: unknown) => {
  console.error(`wallet: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
