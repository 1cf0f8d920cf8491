/**
 * Property tests over the gateway's matcher and parameter validators: any path and query yields
 * a route with a canonical upstream path, or a 4xx; never an exception, and never a path that
 * leaves the route table.
 */
import { toBech32 } from "@cosmjs/encoding";
import { env, exports } from "cloudflare:workers";
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { readConfig } from "../../src/config";
import { ApiError } from "../../src/errors";
import { compileRoutes, matchQuery } from "../../src/gateway/match";
import { GATEWAY_ROUTES } from "../../src/gateway/route-table";

afterEach(() => vi.restoreAllMocks());

const config = readConfig(env);
const routes = compileRoutes(config);
const address = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((data) => toBech32(config.bech32Prefix, data));
const validatorAddress = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((data) => toBech32(`${config.bech32Prefix}valoper`, data));
const txHash = fc.stringMatching(/^[0-9A-Fa-f]{64}$/);
const segment = fc.oneof(
  fc.constantFrom("cosmos", config.namespace, "bank", "v1beta1", "balances", "incentives", "v1", "node", "campaign", "..", ".", "", "%2F", "%2e%2e", "\\", "%00"),
  fc.stringMatching(/^[A-Za-z0-9._~%-]{1,12}$/),
  address,
);
const path = fc.array(segment, { minLength: 1, maxLength: 8 }).map((parts) => `/${parts.join("/")}`);
const query = fc.array(
  fc.tuple(fc.constantFrom("pagination.limit", "pagination.key", "pagination.reverse", "status", "x", "pagination.offset"), fc.string({ maxLength: 12 })),
  { maxLength: 4 },
).map((pairs) => (pairs.length ? `?${pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("&")}` : ""));

/** The shape every upstream path must have: one of the table's routes, filled in. */
const tableShapes = GATEWAY_ROUTES.map(
  (route) => new RegExp(`^${route.path.replace("{ns}", config.namespace).replace(/:\w+/g, "[A-Za-z0-9]+")}(\\?.*)?$`),
);

describe("matchQuery", () => {
  it("answers any path and query with a table route or a 4xx", () => {
    fc.assert(
      fc.property(path, query, (p, q) => {
        try {
          const matched = matchQuery(routes, p, q);
          expect(tableShapes.some((shape) => shape.test(matched.upstreamPath)), matched.upstreamPath).toBe(true);
        } catch (err) {
          if (!(err instanceof ApiError) || err.status >= 500) throw err;
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("matches every table route filled with valid parameters to exactly that upstream path", () => {
    const filled = fc.tuple(fc.constantFrom(...GATEWAY_ROUTES), address, validatorAddress, fc.bigInt({ min: 0n, max: 0xffff_ffff_ffff_ffffn }), txHash).map(([route, a, v, id, hash]) =>
      route.path.replace("{ns}", config.namespace).replace(/:(\w+)/g, (_, name: string) => ({ address: a, validatorAddress: v, uint64: String(id), txHash: hash })[route.params![name]!]),
    );
    fc.assert(fc.property(filled, (p) => void expect(matchQuery(routes, p, "").upstreamPath).toBe(p)), { numRuns: 500 });
  });

  it("gives one cache key per meaning: query order does not matter", () => {
    fc.assert(
      fc.property(address, fc.integer({ min: 1, max: 100 }), fc.boolean(), (a, limit, reverse) => {
        const p = `/cosmos/bank/v1beta1/balances/${a}`;
        const one = matchQuery(routes, p, `?pagination.limit=${limit}&pagination.reverse=${reverse}`);
        const other = matchQuery(routes, p, `?pagination.reverse=${reverse}&pagination.limit=${limit}`);
        expect(one.upstreamPath).toBe(other.upstreamPath);
      }),
    );
  });
});

describe("the gateway under arbitrary paths", () => {
  it("never answers 5xx and never asks an upstream for a refused request", async () => {
    const upstream = vi.spyOn(globalThis, "fetch").mockImplementation(async () =>
      Response.json({ ok: true }, { headers: { "x-cosmos-block-height": "10" } }),
    );
    await fc.assert(
      fc.asyncProperty(path, query, fc.constantFrom("GET", "HEAD", "POST", "OPTIONS"), async (p, q, method) => {
        upstream.mockClear();
        const response = await exports.default.fetch(new Request(`https://edge.test/api${p}${q}`, { method }));
        expect(response.status).toBeLessThan(500);
        if (response.status >= 400) expect(upstream).not.toHaveBeenCalled();
      }),
      { numRuns: 300 },
    );
  });
});
