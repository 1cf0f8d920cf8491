/**
 * `npm run wallet -- [options] <link | payload | session id>`: a wallet simulator for local runs.
 *
 * - A connect link (`<scheme>://connect?p=…`), its bare base64 payload (both read as the SDK's
 *   `parseConnectUrl` reads them) or a bare `cs_…` session id: confirms the session as the wallet
 *   app does, posting `{session_id, address, pubkey_base64, account_label}` (snake_case, the label
 *   left out when empty, a 1952-byte ML-DSA-65-sized key) as JSON, without cookies, to the
 *   payload's relay_url, or to `<server>/api/<wallet_path>/sessions/<id>/confirm` for a bare id.
 * - A sign link (`<scheme>://sign?p=…`): "signs" by recording each MsgAuthorizeOperator in the
 *   devnet (`POST /__devnet/authorizations`); an existing authorization counts as success.
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
 *   --refuse             decline: a connect is cancelled (DELETE), a sign request is not recorded
 * Variants an SDK client may also send (for tests):
 *   --camel              camelCase field names (sessionId, pubkeyBase64, accountLabel)
 *   --uppercase          the address in uppercase bech32
 *   --base64url          the key in base64url without padding
 */
import { toBech32 } from "@cosmjs/encoding";
import { createHash } from "node:crypto";
import { parseArgs } from "node:util";
import * as z from "zod/mini";
import { chainContextFromSettings, type ChainContext } from "../src/protocol/index.ts";
import { connectPayloadSchema, normalizeWalletProof, readConnectInput } from "../src/protocol/index.ts";
import { isAuthorizationExists } from "../src/protocol/index.ts";
import { typeUrls } from "../src/protocol/index.ts";
import { parseDeepLink } from "../src/protocol/index.ts";
import { SESSION_ID_PATTERN } from "../src/protocol/index.ts";
import { signRequestSchema, type SignRequest } from "../src/protocol/index.ts";

/** Size of an ML-DSA-65 public key, the network's signing scheme. */
const PUBKEY_BYTES = 1952;

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
  const key = Buffer.from(seededBytes(`${options.seed}:pubkey`, PUBKEY_BYTES)).toString(options.base64url ? "base64url" : "base64");
  const names = options.camel
    ? { session: "sessionId", key: "pubkeyBase64", label: "accountLabel" }
    : { session: "session_id", key: "pubkey_base64", label: "account_label" };
  const body: Record<string, string> = { [names.session]: sessionId, address: options.uppercase ? address.toUpperCase() : address, [names.key]: key };
  if (options.label !== "") body[names.label] = options.label;
  return body;
}

async function connect(target: ConnectTarget, options: Options): Promise<void> {
  const ctx = await settingsOf(target.server);
  if (target.chainId !== undefined && target.chainId !== ctx.chainId) {
    throw new WalletError(`the link is for chain ${target.chainId}, the server runs ${ctx.chainId}`);
  }
  if (target.scheme && target.scheme !== ctx.walletScheme) {
    throw new WalletError(`the link's scheme is ${target.scheme}://, this network's wallet answers ${ctx.walletScheme}://`);
  }
  if (target.expiresAt !== undefined && !(Date.parse(target.expiresAt) > Date.now())) {
    throw new WalletError(`the connect request expired at ${target.expiresAt}`);
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
  const proof = proofBody(ctx, target.sessionId, options);
  // The same rules as the server's: a proof this wallet sends must be one the protocol accepts.
  const checked = normalizeWalletProof(proof, { sessionId: target.sessionId, bech32Prefix: ctx.bech32Prefix });
  if (!checked.ok) throw new WalletError(checked.problem.field === "address" ? `--address: ${checked.problem.message}` : checked.problem.message);
  const { status, body } = await fetchJson(relayUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(proof),
    credentials: "omit",
  });
  if (status !== 200) throw new WalletError(`the server refused the proof: ${status} ${JSON.stringify(body)}`);
  console.log(`connected: session ${target.sessionId} as ${(body as { address: string }).address}`);
}

async function sign(request: SignRequest, options: Options): Promise<void> {
  const ctx = await settingsOf(new URL(request.origin.url).origin);
  if (request.chain_id !== ctx.chainId) throw new WalletError(`the request is for chain ${request.chain_id}, not ${ctx.chainId}`);
  if (Date.parse(request.expires_at) <= Date.now()) throw new WalletError(`sign request ${request.id} expired at ${request.expires_at}`);
  const signer = options.address ?? request.account_hint;
  if (signer !== request.account_hint) throw new WalletError(`the request must be signed by ${request.account_hint}, this wallet holds ${signer}`);
  console.log(`${request.preview.title}: ${request.preview.messages.join("; ")}`);
  if (options.refuse) {
    console.log(`refused: sign request ${request.id} was not signed`);
    return;
  }
  const authorize = typeUrls(ctx).authorizeOperator;
  for (const message of request.transaction.messages) {
    if (message.typeUrl !== authorize) {
      console.log(`skipped ${message.typeUrl}: the devnet records only ${authorize}`);
      continue;
    }
    const value = message.value as { payoutRecipient?: string; operator?: string; label?: string };
    if (value.payoutRecipient !== signer) throw new WalletError(`${authorize} must be signed by its payoutRecipient ${value.payoutRecipient}`);
    const { status, body } = await fetchJson(`${options.devnet}/__devnet/authorizations`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ payout_recipient: value.payoutRecipient, operator: value.operator, label: value.label ?? "" }),
    });
    if (status === 201) console.log(`authorized: ${value.operator} pays ${value.payoutRecipient}`);
    else if (isAuthorizationExists(body)) console.log(`already authorized: ${value.operator} pays ${value.payoutRecipient} (counts as success)`);
    else throw new WalletError(`the devnet refused the authorization: ${status} ${JSON.stringify(body)}`);
  }
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
    console.log("usage: npm run wallet -- [--address <bech32> | --seed <text>] [--label <text>] [--server <url>] [--devnet <url>] [--refuse] [--camel] [--uppercase] [--base64url] <link | base64 payload | cs_ session id>");
    process.exitCode = values.help ? 0 : 2;
    return;
  }
  const options: Options = { ...values, server: values.server.replace(/\/+$/, ""), devnet: values.devnet.replace(/\/+$/, "") };
  const input = positionals[0]!.trim();
  if (SESSION_ID_PATTERN.test(input)) return connect({ sessionId: input, server: options.server }, options);

  if (/^[a-z][a-z0-9+.-]*:\/\/sign\?/.test(input)) {
    const link = parseDeepLink(input);
    const parsed = z.safeParse(signRequestSchema, link.payload);
    if (!parsed.success) throw new WalletError("the sign link's payload is not a sign request");
    return sign(parsed.data as SignRequest, options);
  }
  const { scheme, payload } = readConnectInput(input);
  const parsed = z.safeParse(connectPayloadSchema, payload);
  if (!parsed.success) throw new WalletError("the connect link's payload is not a connect payload");
  const { session_id, relay_url, origin, chain_id, expires_at } = parsed.data;
  return connect({ sessionId: session_id, relayUrl: relay_url, server: new URL(origin.url).origin, chainId: chain_id, expiresAt: expires_at, scheme }, options);
}

main().catch((error: unknown) => {
  console.error(`wallet: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
