/**
 * A REST path of the network's modules under another namespace (a guide or a client written for
 * another network) gets a 404 that names the prefix this deployment serves and the same path under it.
 */
import { describe, expect, it } from "vitest";
import { readConfig } from "../../src/config";
import { env } from "cloudflare:workers";
import { api } from "../helpers/sessions";

const served = readConfig(env).namespace;
const other = served === "hope" ? "chain" : "hope";

const refusal = async (response: Response) =>
  response.json<{ message: string; details: { reason: string; metadata?: Record<string, string> }[] }>();

describe("a path under another namespace", () => {
  it.each([
    [`/api/${other}/incentives/v1/params`, "incentives/v1/params"],
    [`/api/${other}/trustscore/v1/epoch`, "trustscore/v1/epoch"],
    ["/api/chainx/campaign/v1/campaigns", "campaign/v1/campaigns"],
  ])("%s: 404 naming the served prefix and the path under it", async (path, rest) => {
    const response = await api(path);
    expect(response.status).toBe(404);
    const body = await refusal(response);
    expect(body.details[0]).toMatchObject({
      reason: "ROUTE_NOT_FOUND",
      metadata: { served_prefix: `/api/${served}/` },
    });
    expect(body.message).toContain(`under /api/${served}/`);
    expect(body.message).toContain(`/api/${served}/${rest}`);
  });

  it("a path that is no module of the network keeps the plain 404", async () => {
    for (const path of [`/api/${other}/gov/v1/params`, "/api/nothing", `/api/${other}`]) {
      const body = await refusal(await api(path));
      expect(body.details[0]!.reason).toBe("ROUTE_NOT_FOUND");
      expect(body.message, path).toBe(`No route for GET ${path}`);
    }
  });
});
