/**
 * The host API's refusals name their cause: an empty or malformed bearer key is called that (not
 * "not a valid key"), and an empty operator is "empty" (not "not valid bech32"), the two traps a
 * shell variable left unset sets in a newcomer's first call (docs/HOSTS.md, sections 1 and 2).
 */
import { describe, expect, it } from "vitest";
import { mintOnboardingId } from "../../src/protocol/index";
import { HOST_KEYS } from "../host-settings";
import { api } from "../helpers/sessions";
import { hostPost } from "./helpers";

const refusal = async (response: Response) =>
  response.json<{ message: string; details: { reason: string; metadata?: Record<string, string> }[] }>();

describe("the host API's door says what is wrong with the bearer key", () => {
  it.each([
    ["an empty key", "Bearer ", /bearer key is empty/],
    ["an empty key after spaces", "Bearer    ", /bearer key is empty/],
    ["the word alone", "Bearer", /bearer key is empty/],
    ["a shell variable that was not expanded", "Bearer $", /bearer key is malformed: .*at least 32 .*this one has 1/],
    [
      "a key with a tab inside",
      `Bearer ${HOST_KEYS[0]}\t${HOST_KEYS[1]}`,
      /malformed: it holds a space or a line break/,
    ],
    ["two keys side by side", `Bearer ${HOST_KEYS[0]} ${HOST_KEYS[1]}`, /malformed: it holds a space or a line break/],
    ["another scheme", `Basic ${HOST_KEYS[0]}`, /must be Bearer <key>/],
    [
      "a well-formed key that is not configured",
      `Bearer ${"k".repeat(40)}`,
      /is not one of this deployment's HOST_API/,
    ],
  ])("%s: 401 INVALID_CREDENTIALS whose message says so", async (_name, authorization, words) => {
    const response = await api(`/api/onboardings/${mintOnboardingId()}`, { headers: { authorization } });
    expect(response.status).toBe(401);
    const body = await refusal(response);
    expect(body.details[0]!.reason).toBe("INVALID_CREDENTIALS");
    expect(body.message).toMatch(words);
    for (const key of HOST_KEYS) expect(body.message).not.toContain(key);
  });
});

describe("create says an empty operator is empty", () => {
  it.each([
    ["empty", ""],
    ["spaces only", "   "],
  ])('operator %s: 400 INVALID_FIELD, "operator is empty"', async (_name, operator) => {
    const response = await hostPost("", { operator });
    expect(response.status).toBe(400);
    const body = await refusal(response);
    expect(body.details[0]).toMatchObject({ reason: "INVALID_FIELD", metadata: { field: "operator" } });
    expect(body.message).toMatch(/operator is empty/);
    expect(body.message).not.toMatch(/bech32/);
  });
});
