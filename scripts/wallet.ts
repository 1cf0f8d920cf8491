/**
 * `npm run wallet -- [options] <link | QR content | session id>`: a wallet simulator for local runs.
 *
 * - A connect link (`<scheme>://connect?p=…`), a connect QR's bare base64 payload (read as the
 *   SDK's `parseConnectUrl` reads it) or a bare `cs_…` session id: confirms the session as the
 *   wallet app does, posting `{session_id, address, pubkey_base64, account_label}` (snake_case,
 *   the label left out when empty, a 1952-byte ML-DSA-65-sized key) as JSON, without cookies, to
 *   the payload's relay_url, or to `<server>/api/<wallet_path>/sessions/<id>/confirm` for a bare id.
 * - A sign request, as its link (`<scheme>://sign?p=…`) or as the raw base64 a sign QR shows:
 *   checks it, then "signs and broadcasts" its transaction through the devnet
 *   (`POST /__devnet/txs`), printing the transaction hash and its outcome. A failure with
 *   "authorization already exists" (ErrAuthorizationExists) counts as success, as the network's
 *   clients treat it; any other failure exits non-zero with the chain's text.
 *
 * An empty argument, a page's HTML or a page's address is refused in words; for a host's
 * onboarding page the words name the onboarding's state (applied, cancelled, expired, …).
 *
 * The address is deterministic (from --seed, default "payout") unless --address names one. It
 * never asks for, accepts or stores a recovery phrase: there is none, the key is fake.
 *
 * Options:
 *   --address <bech32>   confirm with this address (must carry the server's prefix)
 *   --seed <text>        derive the address and key from this text (default "payout")
 *   --label <text>       account label sent with the proof (default "Simulator"; "" sends none)
 *   --server <url>       the Worker, for session ids and settings (default http://127.0.0.1:8787)
 *   --devnet <url>       the devnet (default http://127.0.0.1:1317)
 *   --refuse             decline: a connect is cancelled (DELETE), a sign request is not broadcast
 * Variants an SDK client may also send with a connect (for tests):
 *   --camel              camelCase field names (sessionId, pubkeyBase64, accountLabel)
 *   --uppercase          the address in uppercase bech32
 *   --base64url          the key in base64url without padding
 */
import { toBech32 } from "@cosmjs/encoding";
import { createHash } from "node:crypto";
import { parseArgs } from "node:util";
import * as z from "zod/mini";
import { chainContextFromSettings } from "../src/protocol/chain-settings.ts";
import type { ChainContext } from "../src/protocol/index.ts";
import { normalizeWalletProof } from "../src/protocol/index.ts";
import { readTxAnswer } from "../src/protocol/index.ts";
import { decodeWalletPayload, parseDeepLink } from "../src/protocol/index.ts";
import { SESSION_ID_PATTERN } from "../src/protocol/index.ts";
import type { SignRequest } from "../src/protocol/index.ts";
import { connectPayloadSchema, signRequestSchema } from "../src/protocol/wallet-schemas.ts";
import { refuseWhatIsNoLink } from "./wallet-not-a-link.ts";

/** Size of an ML-DSA-65 public key, the network's signing scheme. */
const PUBKEY_BYTES = 1952;

class WalletError extends Error {}

/** Deterministic bytes from a seed: SHA-256 in counter mode. */
function seededBytes(seed: string, length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0, offset = 0; offset < length; i++, offset += 32) {
    out.set(
      createHash("sha256")
        .update(`wallet-simulator:${seed}:${i}`)
        .digest()
        .subarray(0, Math.min(32, length - offset)),
      offset,
    );
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

/** A connect to confirm: from a link or payload (with its relay URL), or a bare session id. */
interface ConnectTarget {
  sessionId: string;
  server: string;
  relayUrl?: string;
  chainId?: string;
  expiresAt?: string;
  scheme?: string | null;
}

/** The proof body as the wallet app posts it, in the variant the options ask for. */
function proofBody(ctx: ChainContext, sessionId: string, options: Options): Record<string, string> {
  const address = options.address ?? toBech32(ctx.bech32Prefix, seededBytes(`${options.seed}:address`, 20));
  const key = Buffer.from(seededBytes(`${options.seed}:pubkey`, PUBKEY_BYTES)).toString(
    options.base64url ? "base64url" : "base64",
  );
  const names = options.camel
    ? { session: "sessionId", key: "pubkeyBase64", label: "accountLabel" }
    : { session: "session_id", key: "pubkey_base64", label: "account_label" };
  const body: Record<string, string> = {
    [names.session]: sessionId,
    address: options.uppercase ? address.toUpperCase() : address,
    [names.key]: key,
  };
  if (options.label !== "") body[names.label] = options.label;
  return body;
}

async function connect(target: ConnectTarget, options: Options): Promise<void> {
  const ctx = await settingsOf(target.server);
  if (target.chainId !== undefined && target.chainId !== ctx.chainId) {
    throw new WalletError(`the link is for chain ${target.chainId}, the server runs ${ctx.chainId}`);
  }
  if (target.scheme && target.scheme !== ctx.walletScheme) {
    throw new WalletError(
      `the link's scheme is ${target.scheme}://, this network's wallet answers ${ctx.walletScheme}://`,
    );
  }
  if (target.expiresAt !== undefined && !(Date.parse(target.expiresAt) > Date.now())) {
    throw new WalletError(`the connect request expired at ${target.expiresAt}`);
  }
  const sessionUrl = `${target.server}/api/${ctx.walletPath}/sessions/${target.sessionId}`;
  if (options.refuse) {
    // A session signed for a host's onboarding is found only with the onboarding its relay URL names.
    const query = target.relayUrl === undefined ? "" : new URL(target.relayUrl).search;
    const { status, body } = await fetchJson(`${sessionUrl}${query}`, { method: "DELETE" });
    if (status !== 200) throw new WalletError(`declining failed: ${status} ${JSON.stringify(body)}`);
    console.log(`declined: session ${target.sessionId} is ${(body as { status?: string }).status}`);
    return;
  }
  const relayUrl = target.relayUrl ?? `${sessionUrl}/confirm`;
  if (new URL(relayUrl).origin !== new URL(target.server).origin)
    throw new WalletError(`relay_url ${relayUrl} is not on the page's origin`);
  const proof = proofBody(ctx, target.sessionId, options);
  // The same rules as the server's: a proof this wallet sends must be one the protocol accepts.
  const checked = normalizeWalletProof(proof, { sessionId: target.sessionId, bech32Prefix: ctx.bech32Prefix });
  if (!checked.ok)
    throw new WalletError(
      checked.problem.field === "address" ? `--address: ${checked.problem.message}` : checked.problem.message,
    );
  const { status, body } = await fetchJson(relayUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(proof),
    credentials: "omit",
  });
  if (status !== 200) throw new WalletError(`the server refused the proof: ${status} ${JSON.stringify(body)}`);
  console.log(`connected: session ${target.sessionId} as ${(body as { address: string }).address}`);
}

/** Confirms the session of a connect payload read from a link (`scheme`) or a bare QR payload. */
function connectTo(scheme: string | null, payload: unknown, options: Options): Promise<void> {
  const parsed = z.safeParse(connectPayloadSchema, payload);
  if (!parsed.success) throw new WalletError("the connect link's payload is not a connect payload");
  const { session_id, relay_url, origin, chain_id, expires_at } = parsed.data;
  return connect(
    {
      sessionId: session_id,
      relayUrl: relay_url,
      server: new URL(origin.url).origin,
      chainId: chain_id,
      expiresAt: expires_at,
      scheme,
    },
    options,
  );
}

async function sign(request: SignRequest, options: Options): Promise<void> {
  const ctx = await settingsOf(new URL(request.origin.url).origin);
  if (request.chain_id !== ctx.chainId)
    throw new WalletError(`the request is for chain ${request.chain_id}, not ${ctx.chainId}`);
  if (Date.parse(request.expires_at) <= Date.now())
    throw new WalletError(`sign request ${request.id} expired at ${request.expires_at}`);
  const signer = options.address ?? request.account_hint;
  if (signer !== request.account_hint)
    throw new WalletError(`the request must be signed by ${request.account_hint}, this wallet holds ${signer}`);
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
  if (!parsed.success)
    throw new WalletError(
      `not a sign request: ${parsed.error.issues[0]!.path.join(".") || "payload"} ${parsed.error.issues[0]!.message}`,
    );
  return parsed.data as SignRequest;
}

interface Options {
  address?: string;
  seed: string;
  label: string;
  server: string;
  devnet: string;
  refuse: boolean;
  camel: boolean;
  uppercase: boolean;
  base64url: boolean;
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
      camel: { type: "boolean", default: false },
      uppercase: { type: "boolean", default: false },
      base64url: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help || positionals.length !== 1) {
    console.log(
      "usage: npm run wallet -- [--address <bech32> | --seed <text>] [--label <text>] [--server <url>] [--devnet <url>] [--refuse] [--camel] [--uppercase] [--base64url] <deep link | QR content | cs_ session id>",
    );
    process.exitCode = values.help ? 0 : 2;
    return;
  }
  const options: Options = {
    ...values,
    server: values.server.replace(/\/+$/, ""),
    devnet: values.devnet.replace(/\/+$/, ""),
  };
  const input = positionals[0]!.trim();
  await refuseWhatIsNoLink(input, options.server);
  if (SESSION_ID_PATTERN.test(input)) return connect({ sessionId: input, server: options.server }, options);

  // A scanned QR holds a link, or a payload's raw base64: a connect payload's or a sign request's.
  if (!input.includes("://")) {
    const payload = decodeWalletPayload(input);
    return connectPayloadSchema.safeParse(payload).success
      ? connectTo(null, payload, options)
      : sign(signRequestOf(payload), options);
  }
  const link = parseDeepLink(input);
  if (link.action === "connect") return connectTo(link.scheme, link.payload, options);
  return sign(signRequestOf(link.payload), options);
}

main().catch((error: unknown) => {
  console.error(`wallet: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
