import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { buildApp } from "../../src/app";
import { readConfig } from "../../src/config";
import { NETWORK_PROFILES } from "../../src/config/profiles";
import { routeNote } from "../../src/gateway/route-notes";
import { GATEWAY_ROUTES } from "../../src/gateway/route-table";
import { openApiDocument } from "../../src/openapi/document";
import { fillOpenApi, templateConfig } from "../../src/openapi/template";

type Operation = { summary?: string; description?: string; responses?: Record<string, unknown> };
type Doc = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
};

async function document(): Promise<Doc> {
  const response = await exports.default.fetch(new Request("https://edge.test/api/openapi.json"));
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("application/json");
  return response.json<Doc>();
}

describe("GET /api/openapi.json", () => {
  it("is OpenAPI 3.1 with the configured wallet path and namespace", async () => {
    const doc = await document();
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toContain("/api/wallet/sessions/{id}/confirm");
    expect(Object.keys(doc.paths)).toContain("/api/chain/incentives/v1/operator_authorizations/{payout_recipient}");
    const own = (p: string) =>
      p.startsWith("/api/wallet/") ||
      p.startsWith("/api/onboarding") ||
      [
        "/api/config",
        "/api/health",
        "/api/openapi.json",
        "/api/events",
        "/api/webhook/retry",
        "/api/overview",
        "/api/gateway",
      ].includes(p);
    expect(Object.keys(doc.paths).filter((p) => !own(p))).toHaveLength(GATEWAY_ROUTES.length);
    expect(Object.keys(doc.paths)).toContain("/api/onboardings/{id}/events");
  });

  it("is the document of this deployment's configuration, as the generator writes it", async () => {
    expect(await document()).toEqual(JSON.parse(JSON.stringify(openApiDocument(readConfig(env)))));
  });

  it("stays true for every profile and for variables that override one", () => {
    // The build's template, filled in as the Worker does, against the generator run with each configuration.
    const template = JSON.stringify(openApiDocument(templateConfig(readConfig({ NETWORK_PROFILE: "local" }))));
    const overrides = {
      WALLET_PATH: "pairing",
      CHAIN_NAMESPACE: "fork",
      BECH32_PREFIX: "fk",
      CHAIN_ID: "fork-1",
      SESSION_TTL_MAX_SECONDS: "321",
      ONBOARDING_TTL: "4321",
      NATIVE_DENOM: "ufork",
      NODE_BINARY: "forkd",
      WALLET_SCHEME: "forkwallet",
      UPSTREAM_URLS: "https://lcd.fork.example",
    };
    const configs = [
      ...Object.keys(NETWORK_PROFILES).map((profile) => ({
        NETWORK_PROFILE: profile,
        CHAIN_ID: "chain-1",
        UPSTREAM_URLS: "https://lcd.example",
      })),
      { NETWORK_PROFILE: "neutral", ...overrides },
      { NETWORK_PROFILE: "testnet", ...overrides },
    ].map((vars) => readConfig(vars));
    for (const config of configs) {
      expect(JSON.parse(fillOpenApi(template, config)), `${config.profile} ${config.walletPath}`).toEqual(
        JSON.parse(JSON.stringify(openApiDocument(config))),
      );
    }
  });

  it("describes every route the app serves, with a summary and answers", async () => {
    const doc = await document();
    const app = buildApp(readConfig(env));
    const served = app.routes
      // Middleware, method-refusal fallbacks, the gateway's wildcard (checked row by row below) and the page's HTML.
      .filter((r) => r.method !== "ALL" && !r.path.endsWith("*") && r.path.startsWith("/api/"))
      .map((r) => ({ path: r.path.replace(/:(\w+)/g, "{$1}").replace(/\/$/, ""), method: r.method.toLowerCase() }));
    expect(served.length).toBeGreaterThanOrEqual(7);
    for (const { path, method } of served) {
      const operation = doc.paths[path]?.[method];
      expect(operation, `${method.toUpperCase()} ${path} is not in the OpenAPI document`).toBeDefined();
      expect(operation!.summary, `${method.toUpperCase()} ${path} has no summary`).toBeTruthy();
      expect(Object.keys(operation!.responses ?? {}).length).toBeGreaterThan(0);
    }
    for (const route of GATEWAY_ROUTES) {
      const { summary } = routeNote(route);
      expect(summary, `gateway route ${route.path} has no summary`).toMatch(/\w{3,}/);
      const path = `/api${route.path.replace("{ns}", "chain").replace(/:(\w+)/g, "{$1}")}`;
      expect(doc.paths[path]?.get?.summary).toBe(summary);
    }
  });

  it("takes its request bodies and shapes from the handlers' zod schemas", async () => {
    const doc = await document();
    const create = doc.paths["/api/wallet/sessions"]!.post as unknown as {
      requestBody: {
        content: {
          "application/json": { schema: { properties: Record<string, unknown>; additionalProperties: boolean } };
        };
      };
    };
    const body = create.requestBody.content["application/json"].schema;
    expect(Object.keys(body.properties).sort()).toEqual([
      "chain_id",
      "expires_at",
      "origin",
      "relay_url",
      "session_id",
      "v",
    ]);
    expect(body.additionalProperties).toBe(false);
    expect(doc.components.schemas.Error).toMatchObject({ type: "object", required: ["code", "message", "details"] });
    const refs = JSON.stringify(doc).match(/"#\/components\/schemas\/(\w+)"/g) ?? [];
    for (const ref of refs) expect(doc.components.schemas).toHaveProperty(ref.slice(22, -1));
  });
});
