/**
 * The confirm body against the real Worker and Durable Object: every variant an honest SDK client
 * may send is accepted and stored in one normalized form; every refused one answers 400 with the
 * field and reason and leaves the row as it was.
 */
import { toBech32 } from "@cosmjs/encoding";
import { describe, expect, it } from "vitest";
import { sessionRowSchema } from "../../src/protocol/session-row";
import {
  PREFIX,
  WALLET,
  accountAddress,
  api,
  confirm,
  createSession,
  errorReason,
  mintSessionId,
  postJson,
  publicKey,
  randomBytes,
} from "../helpers/sessions";

const toUrlSafe = (key: string) => key.replaceAll("+", "-").replaceAll("/", "_");
const unpadded = (key: string) => key.replace(/=+$/, "");
/** An ML-DSA-65 key: 1952 bytes, so its base64 ends in padding and the unpadded variants differ. */
const paddedKey = () => publicKey(1952);

async function rowOf(sessionId: string) {
  return (await api(`${WALLET}/${sessionId}`)).json<Record<string, unknown>>();
}

describe("confirm accepts every body the SDK accepts, normalized", () => {
  type Variant = [
    name: string,
    body: (id: string, address: string, key: string) => Record<string, unknown>,
    stored?: { label?: string | null },
  ];
  const variants: Variant[] = [
    [
      "snake_case, as the SDK's walletConfirmBody sends",
      (id, address, key) => ({ session_id: id, address, pubkey_base64: key, account_label: "Main" }),
      { label: "Main" },
    ],
    [
      "camelCase",
      (id, address, key) => ({ sessionId: id, address, pubkeyBase64: key, accountLabel: "Main" }),
      { label: "Main" },
    ],
    [
      "both spellings with equal values",
      (id, address, key) => ({
        session_id: id,
        sessionId: id,
        address,
        pubkey_base64: key,
        pubkeyBase64: key,
        account_label: "Main",
        accountLabel: "Main",
      }),
      { label: "Main" },
    ],
    [
      "an empty snake_case field beside a camelCase one",
      (id, address, key) => ({ session_id: "", sessionId: id, address, pubkey_base64: "", pubkeyBase64: key }),
    ],
    [
      "an all-uppercase address",
      (id, address, key) => ({ session_id: id, address: address.toUpperCase(), pubkey_base64: key }),
    ],
    [
      "an address with surrounding spaces",
      (id, address, key) => ({ session_id: id, address: ` \t${address}\n`, pubkey_base64: key }),
    ],
    [
      "a base64url key without padding",
      (id, address, key) => ({ session_id: id, address, pubkey_base64: unpadded(toUrlSafe(key)) }),
    ],
    [
      "a base64url key with padding",
      (id, address, key) => ({ session_id: id, address, pubkey_base64: toUrlSafe(key) }),
    ],
    [
      "a standard key without padding",
      (id, address, key) => ({ session_id: id, address, pubkey_base64: unpadded(key) }),
    ],
    [
      "an empty account_label",
      (id, address, key) => ({ session_id: id, address, pubkey_base64: key, account_label: "" }),
      { label: null },
    ],
    [
      "a null account_label",
      (id, address, key) => ({ session_id: id, address, pubkey_base64: key, account_label: null }),
      { label: null },
    ],
    [
      "an account_label that is not a string",
      (id, address, key) => ({ session_id: id, address, pubkey_base64: key, account_label: 7 }),
      { label: null },
    ],
    ["no account_label", (id, address, key) => ({ session_id: id, address, pubkey_base64: key }), { label: null }],
    [
      "a 64-character label",
      (id, address, key) => ({ session_id: id, address, pubkey_base64: key, account_label: "é".repeat(64) }),
      { label: "é".repeat(64) },
    ],
    [
      "extra fields (ignored, not stored)",
      (id, address, key) => ({
        session_id: id,
        address,
        pubkey_base64: key,
        connectedAt: "now",
        signature: "x",
        status: "cancelled",
      }),
    ],
  ];
  for (const [name, makeBody, stored] of variants) {
    it(`accepts ${name}`, async () => {
      const sessionId = await createSession();
      const address = accountAddress();
      const key = paddedKey();
      const response = await confirm(sessionId, makeBody(sessionId, address, key));
      expect(response.status, await response.clone().text()).toBe(200);
      const row = await response.json<Record<string, unknown>>();
      expect(row).toMatchObject({
        status: "connected",
        address,
        pubkey_base64: key,
        account_label: stored?.label ?? null,
      });
      expect(Object.keys(row).sort()).toEqual(Object.keys(sessionRowSchema.shape).sort());
      expect(await rowOf(sessionId)).toEqual(row);
    });
  }

  it("ignores a __proto__ field instead of reading through it", async () => {
    const sessionId = await createSession();
    const address = accountAddress();
    const body =
      `{"__proto__":{"address":"x","account_label":"Injected"},"session_id":"${sessionId}",` +
      `"address":"${address}","pubkey_base64":"${publicKey()}"}`;
    const response = await postJson(`${WALLET}/${sessionId}/confirm`, body);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ address, account_label: null });

    const other = await createSession();
    const onlyInherited =
      `{"__proto__":{"address":"${address}"},"session_id":"${other}",` + `"pubkey_base64":"${publicKey()}"}`;
    const refused = await postJson(`${WALLET}/${other}/confirm`, onlyInherited);
    expect(refused.status).toBe(400);
    expect(await errorReason(refused)).toBe("INVALID_ADDRESS");
  });

  it("accepts keys of other sizes than the network's: 32, 33 and 2592 bytes", async () => {
    for (const bytes of [32, 33, 2592]) {
      const sessionId = await createSession();
      expect(
        (
          await confirm(sessionId, {
            session_id: sessionId,
            address: accountAddress(),
            pubkey_base64: publicKey(bytes),
          })
        ).status,
      ).toBe(200);
    }
  });

  it("answers 200 to the same proof in another spelling, case and encoding, and changes nothing", async () => {
    const sessionId = await createSession();
    const address = accountAddress();
    const key = paddedKey();
    const first = await (
      await confirm(sessionId, { session_id: sessionId, address, pubkey_base64: key, account_label: "Main" })
    ).json();
    const again = await confirm(sessionId, {
      sessionId,
      address: address.toUpperCase(),
      pubkeyBase64: unpadded(toUrlSafe(key)),
      accountLabel: "Main",
      extra: 1,
    });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(first);
    expect(await rowOf(sessionId)).toEqual(first);
  });
});

describe("confirm refuses what docs/WALLET-PROTOCOL.md refuses: 400, the field and why, the row unchanged", () => {
  const valid = (id: string) => ({ session_id: id, address: accountAddress(), pubkey_base64: publicKey() });
  const flipChecksum = (address: string) => address.slice(0, -1) + (address.at(-1) === "q" ? "p" : "q");
  type Refusal = [name: string, body: (id: string) => unknown, reason: string, field: string, message?: RegExp];
  const refusals: Refusal[] = [
    ["a session_id that differs from the path", () => valid(mintSessionId()), "SESSION_ID_MISMATCH", "session_id"],
    [
      "no session_id",
      (id) => ({ ...valid(id), session_id: undefined }),
      "INVALID_PROOF",
      "session_id",
      /session_id is required/,
    ],
    ["a session_id that is a number", (id) => ({ ...valid(id), session_id: 42 }), "INVALID_PROOF", "session_id"],
    [
      "session_id and sessionId that differ",
      (id) => ({ ...valid(id), sessionId: mintSessionId() }),
      "INVALID_PROOF",
      "session_id",
      /session_id and sessionId are both present and differ/,
    ],
    [
      "pubkey_base64 and pubkeyBase64 that differ",
      (id) => ({ ...valid(id), pubkeyBase64: publicKey() }),
      "INVALID_PROOF",
      "pubkey_base64",
      /both present and differ/,
    ],
    [
      "account_label and accountLabel that differ",
      (id) => ({ ...valid(id), account_label: "A", accountLabel: "B" }),
      "INVALID_PROOF",
      "account_label",
      /both present and differ/,
    ],
    ["no address", (id) => ({ ...valid(id), address: undefined }), "INVALID_ADDRESS", "address", /address is required/],
    ["an address that is a number", (id) => ({ ...valid(id), address: 42 }), "INVALID_ADDRESS", "address"],
    [
      "an address with a bad checksum",
      (id) => ({ ...valid(id), address: flipChecksum(accountAddress()) }),
      "INVALID_ADDRESS",
      "address",
    ],
    [
      "an address with another prefix",
      (id) => ({ ...valid(id), address: accountAddress(`${PREFIX}x`) }),
      "INVALID_ADDRESS",
      "address",
      /must start with/,
    ],
    [
      "a mixed-case address",
      (id) => {
        const a = accountAddress();
        return { ...valid(id), address: a.slice(0, 8) + a.slice(8).toUpperCase() };
      },
      "INVALID_ADDRESS",
      "address",
      /mixes upper- and lowercase/,
    ],
    [
      "an address with a 32-byte payload",
      (id) => ({ ...valid(id), address: toBech32(PREFIX, randomBytes(32)) }),
      "INVALID_ADDRESS",
      "address",
      /20-byte/,
    ],
    [
      "an address longer than bech32 allows",
      (id) => ({ ...valid(id), address: `${PREFIX}1${"q".repeat(95)}` }),
      "INVALID_ADDRESS",
      "address",
    ],
    [
      "no pubkey_base64",
      (id) => ({ ...valid(id), pubkey_base64: undefined }),
      "INVALID_PUBKEY",
      "pubkey_base64",
      /pubkey_base64 is required/,
    ],
    [
      "an empty pubkey_base64",
      (id) => ({ ...valid(id), pubkey_base64: "" }),
      "INVALID_PUBKEY",
      "pubkey_base64",
      /required/,
    ],
    [
      "a pubkey that is not base64",
      (id) => ({ ...valid(id), pubkey_base64: "not base64!" }),
      "INVALID_PUBKEY",
      "pubkey_base64",
    ],
    [
      "a pubkey mixing both alphabets",
      (id) => ({ ...valid(id), pubkey_base64: `-+${publicKey().slice(2)}` }),
      "INVALID_PUBKEY",
      "pubkey_base64",
      /one alphabet/,
    ],
    [
      "a pubkey with wrong padding",
      (id) => ({ ...valid(id), pubkey_base64: `${publicKey()}=` }),
      "INVALID_PUBKEY",
      "pubkey_base64",
      /padding/,
    ],
    [
      "a pubkey whose last symbol has unused bits set",
      (id) => ({ ...valid(id), pubkey_base64: `${publicKey(32).slice(0, -2)}B=` }),
      "INVALID_PUBKEY",
      "pubkey_base64",
      /not canonical/,
    ],
    [
      "a pubkey of 31 bytes",
      (id) => ({ ...valid(id), pubkey_base64: publicKey(31) }),
      "INVALID_PUBKEY",
      "pubkey_base64",
      /32 to 4096 bytes/,
    ],
    [
      "a pubkey of 4097 bytes",
      (id) => ({ ...valid(id), pubkey_base64: publicKey(4097) }),
      "INVALID_PUBKEY",
      "pubkey_base64",
      /32 to 4096 bytes/,
    ],
    [
      "a label with control characters",
      (id) => ({ ...valid(id), account_label: "a\u0000b" }),
      "INVALID_PROOF",
      "account_label",
    ],
    [
      "a label of 65 characters",
      (id) => ({ ...valid(id), account_label: "x".repeat(65) }),
      "INVALID_PROOF",
      "account_label",
      /at most 64/,
    ],
  ];
  for (const [name, makeBody, reason, field, message] of refusals) {
    it(`refuses ${name}`, async () => {
      const sessionId = await createSession();
      const before = await rowOf(sessionId);
      const response = await confirm(sessionId, makeBody(sessionId));
      expect(response.status).toBe(400);
      const body = await response.clone().json<{ message: string; details: { metadata: { field?: string } }[] }>();
      expect(await errorReason(response)).toBe(reason);
      expect(body.details[0]!.metadata.field).toBe(field);
      if (message) expect(body.message).toMatch(message);
      expect(await rowOf(sessionId)).toEqual(before);
    });
  }
});
