/**
 * Every 400 of the host API, the customer's page and the sessions names the rule the input broke:
 * the limit, the format, the type or the values, after the field's name (never zod's bare
 * "Invalid input", never a field name glued to a sentence).
 */
import { describe, expect, it } from "vitest";
import { HOST_KEYS } from "../host-settings";
import { WALLET, api, createPayload, mintSessionId, postJson } from "../helpers/sessions";
import { accountAddress, createOnboarding, hostPost, host, page } from "../onboardings/helpers";

type Refusal = { status: number; reason: string; message: string; field?: string };

async function refusal(response: Response): Promise<Refusal> {
  const body = await response.json<{
    message: string;
    details: { reason: string; metadata: Record<string, string> }[];
  }>();
  return {
    status: response.status,
    reason: body.details[0]!.reason,
    message: body.message,
    field: body.details[0]!.metadata.field,
  };
}

const create = (fields: Record<string, unknown>) =>
  hostPost("", { operator: accountAddress(), ...fields }).then(refusal);

describe("the host API's 400s name the rule", () => {
  it.each([
    ["a reference over 128 characters", { reference: "r".repeat(129) }, "reference must be at most 128 characters"],
    ["an empty reference", { reference: "" }, "reference must not be empty"],
    ["a label over 64 characters", { label: "l".repeat(65) }, "label must be at most 64 characters"],
    ["a label with a control character", { label: "a\u0007b" }, "label must not contain control characters"],
    ["a label that is not text", { label: 7 }, "label must be a string"],
    [
      "a return_url over 2048 characters",
      { return_url: `https://host.example/${"p".repeat(2048)}` },
      "return_url must be at most 2048 characters",
    ],
    ["an unknown field", { colour: "blue" }, 'Unknown field "colour"'],
  ])("%s", async (_name, fields, message) => {
    const answer = await create(fields);
    expect(answer.status).toBe(400);
    expect(answer.message).toBe(message);
    expect(answer.message).not.toContain("Invalid input");
  });

  it("an unknown field names itself in details[0].metadata.field (a misspelt reference)", async () => {
    expect(await create({ referance: "order-1042" })).toMatchObject({
      status: 400,
      reason: "INVALID_FIELD",
      field: "referance",
      message: 'Unknown field "referance"',
    });
  });

  it("a missing or malformed operator", async () => {
    expect((await refusal(await hostPost("", {}))).message).toBe("operator is required (a string)");
    expect((await create({ operator: "hope1nope" })).message).toBe(
      "operator is not valid bech32 (bad characters or checksum)",
    );
  });

  it("a bad onboarding id says what an id is, after its name", async () => {
    const answer = await refusal(await host("/ob_nope"));
    expect(answer).toMatchObject({
      status: 400,
      reason: "INVALID_ONBOARDING_ID",
      field: "id",
      message: "id must be ob_ followed by 32 lowercase hex characters",
    });
  });

  it("a key sent only in the URL gets the advice to rotate it", async () => {
    const answer = await refusal(await api(`/api/onboardings?api_key=${HOST_KEYS[0]}`));
    expect(answer).toMatchObject({ status: 401, reason: "CREDENTIALS_IN_URL" });
    expect(answer.message).toContain("rotate");
  });
});

describe("the customer page's 400s name the rule", () => {
  it("a payout body of neither form, a bad session id, a bad transaction hash", async () => {
    const { id } = await createOnboarding({ operator: accountAddress() });
    expect((await refusal(await page.payout(id, { session_id: "cs_nope" }))).message).toBe(
      "session_id must be cs_ followed by 32 lowercase hex characters",
    );
    expect((await refusal(await page.payout(id, { source: "in_app", address: "nope" }))).message).toBe(
      "address is not valid bech32 (bad characters or checksum)",
    );
    expect((await refusal(await page.payout(id, { source: "elsewhere", address: accountAddress() }))).message).toBe(
      'source must be "in_app"',
    );
    expect((await refusal(await page.authorization(id, "abc"))).message).toBe(
      "txhash must be a transaction hash (64 hex characters)",
    );
    expect((await refusal(await page.view("ob_nope"))).message).toBe(
      "id must be ob_ followed by 32 lowercase hex characters",
    );
  });
});

describe("the sessions' 400s name the rule", () => {
  const createWith = (overrides: Record<string, unknown>) =>
    postJson(WALLET, createPayload(mintSessionId(), overrides)).then(refusal);
  it.each([
    ["a chain_id over 64 characters", { chain_id: "c".repeat(65) }, "chain_id must be at most 64 characters"],
    ["an empty chain_id", { chain_id: "" }, "chain_id must not be empty"],
    [
      "an origin name over 80 characters",
      { origin: { name: "n".repeat(81), url: "https://edge.test" } },
      "origin.name must be at most 80 characters",
    ],
    ["an origin without its url", { origin: { name: "Edge" } }, "origin.url is required (a string)"],
    [
      "a relay_url over 512 characters",
      { relay_url: `https://edge.test/${"r".repeat(512)}` },
      "relay_url must be at most 512 characters",
    ],
    ["an expires_at that is no date-time", { expires_at: "tomorrow" }, "expires_at must be an ISO 8601 date-time"],
    ["another protocol version", { v: 2 }, "v must be 1"],
    ["a bad session_id", { session_id: "cs_1" }, "session_id must be cs_ followed by 32 lowercase hex characters"],
  ])("%s", async (_name, overrides, message) => {
    const answer = await createWith(overrides);
    expect(answer.status).toBe(400);
    expect(answer.message).toBe(message);
  });

  it("a bad session id in the path", async () => {
    expect((await refusal(await api(`${WALLET}/cs_nope`))).message).toBe(
      "id must be cs_ followed by 32 lowercase hex characters",
    );
  });
});
