/**
 * Property tests of the gateway's route table and validators through the Worker app, with the
 * upstream at the network edge (`fetch`) answering every request: any path and query is either
 * one of the table's queries, asked upstream at exactly its path with its parameters in canonical
 * order, or a refusal in the one error shape that no upstream sees; never a 5xx.
 */
import { toBech32 } from "@cosmjs/encoding";
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from "vitest";
import { readConfig } from "../../src/config";
import { errorBodySchema } from "../../src/error-body-schema";
import { GATEWAY_ROUTES } from "../../src/gateway/route-table";
import { DEVNET, gateway, tag } from "./helpers";

const config = readConfig(env);
const address = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((data) => toBech32(config.bech32Prefix, data));
const validatorAddress = fc
  .uint8Array({ minLength: 20, maxLength: 20 })
  .map((data) => toBech32(`${config.bech32Prefix}valoper`, data));
const txHash = fc.stringMatching(/^[0-9A-Fa-f]{64}$/);
const segment = fc.oneof(
  fc.constantFrom(
    "cosmos",
    config.namespace,
    "bank",
    "v1beta1",
    "balances",
    "incentives",
    "v1",
    "node",
    "campaign",
    "..",
    ".",
    "",
    "%2F",
    "%2e%2e",
    "\\",
    "%00",
  ),
  fc.stringMatching(/^[A-Za-z0-9._~%-]{1,12}$/),
  address,
);
const path = fc.array(segment, { minLength: 1, maxLength: 8 }).map((parts) => `/${parts.join("/")}`);
const query = fc
  .array(
    fc.tuple(
      fc.constantFrom("pagination.limit", "pagination.key", "pagination.reverse", "status", "x", "pagination.offset"),
      fc.string({ maxLength: 12 }),
    ),
    { maxLength: 4 },
  )
  .map((pairs) => (pairs.length ? `?${pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("&")}` : ""));

/** The shape every upstream path must have: one of the table's routes, filled in. */
const tableShapes = GATEWAY_ROUTES.map(
  (route) => new RegExp(`^${route.path.replace("{ns}", config.namespace).replace(/:\w+/g, "[A-Za-z0-9]+")}$`),
);
/** Where the gateway is mounted: each prefix itself and everything below it. */
const GATEWAY_PREFIXES = [`/api/${config.namespace}`, "/api/cosmos"];
/** Every reason the gateway refuses a request with before asking an upstream. */
const REFUSALS = [
  "PATH_NOT_CANONICAL",
  "ROUTE_NOT_FOUND",
  "INVALID_PATH_PARAMETER",
  "UNKNOWN_QUERY_PARAMETER",
  "DUPLICATE_QUERY_PARAMETER",
  "INVALID_QUERY_PARAMETER",
  "METHOD_NOT_ALLOWED",
];

let upstream: MockInstance<typeof fetch>;
beforeEach(() => {
  upstream = vi
    .spyOn(globalThis, "fetch")
    .mockImplementation(async () => Response.json({ ok: true }, { headers: { "x-cosmos-block-height": "10" } }));
});
afterEach(() => vi.restoreAllMocks());

/** The upstream requests made since the last call, as the path and query below the upstream's base URL. */
function askedSince(base: string): string[] {
  const urls = upstream.mock.calls.map(([input]) => (input instanceof Request ? input.url : String(input)));
  upstream.mockClear();
  return urls.map((url) => url.slice(base.length));
}

const sortedPairs = (search: string) =>
  [...new URLSearchParams(search)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

describe("the gateway under arbitrary paths, queries and methods", () => {
  it(
    "asks an upstream only for a table route, at exactly its path with its parameters sorted, and refuses " +
      "everything else in the one error shape",
    async () => {
      const t = tag();
      const base = `${DEVNET}/~${t}`;
      const gw = gateway([t]);
      await fc.assert(
        fc.asyncProperty(path, query, fc.constantFrom("GET", "HEAD", "POST", "OPTIONS"), async (p, q, method) => {
          askedSince(base);
          const response = await gw.fetch(`/api${p}${q}`, { method });
          const asked = askedSince(base);
          // As the Worker sees it: the runtime has resolved dot segments already.
          const sent = new URL(`https://edge.test/api${p}${q}`);
          const underGateway = GATEWAY_PREFIXES.some(
            (prefix) => sent.pathname === prefix || sent.pathname.startsWith(`${prefix}/`),
          );
          expect(response.status).toBeLessThan(500);
          // Dot segments that climb out of /api (`/api/%2e%2e`) reach the page's document at `/`, not the API.
          if (sent.pathname !== "/api" && !sent.pathname.startsWith("/api/")) {
            expect(asked).toEqual([]);
            return;
          }
          if (response.status >= 400) {
            expect(asked).toEqual([]);
            expect(response.headers.get("cache-control")).toBe("no-store");
            if (underGateway) expect(response.headers.get("x-cache")).toBe("BYPASS");
            if (method === "HEAD") return;
            const reason = errorBodySchema.parse(await response.json()).details[0]!.reason;
            expect(REFUSALS).toContain(reason);
            if (method === "POST" && underGateway)
              expect([response.status, reason]).toEqual([405, "METHOD_NOT_ALLOWED"]);
            return;
          }
          expect(underGateway).toBe(true);
          if (method === "OPTIONS") {
            expect([response.status, asked]).toEqual([204, []]);
            return;
          }
          expect([method === "GET" || method === "HEAD", response.status]).toEqual([true, 200]);
          // A hit asks nothing; a miss asks once, for the request's own path and parameters.
          expect(asked.length).toBeLessThanOrEqual(1);
          expect(["HIT", "MISS"]).toContain(response.headers.get("x-cache"));
          for (const upstreamPath of asked) {
            const [askedPath, askedQuery = ""] = upstreamPath.split("?");
            expect(
              tableShapes.some((shape) => shape.test(askedPath!)),
              askedPath,
            ).toBe(true);
            expect(askedPath).toBe(sent.pathname.slice("/api".length));
            expect([...new URLSearchParams(askedQuery)]).toEqual(sortedPairs(sent.search));
          }
        }),
        { numRuns: 300 },
      );
    },
  );

  it("asks for every table route filled with valid parameters at exactly that path", async () => {
    const t = tag();
    const base = `${DEVNET}/~${t}`;
    const gw = gateway([t]);
    const filled = fc
      .tuple(
        fc.constantFrom(...GATEWAY_ROUTES),
        address,
        validatorAddress,
        fc.bigInt({ min: 0n, max: 0xffff_ffff_ffff_ffffn }),
        txHash,
      )
      .map(([route, a, v, id, hash]) =>
        route.path
          .replace("{ns}", config.namespace)
          .replace(
            /:(\w+)/g,
            (_, name: string) =>
              ({ address: a, validatorAddress: v, uint64: String(id), txHash: hash })[route.params![name]!],
          ),
      );
    await fc.assert(
      fc.asyncProperty(filled, async (p) => {
        askedSince(base);
        const response = await gw.fetch(`/api${p}`);
        expect(response.status).toBe(200);
        const asked = askedSince(base);
        if (response.headers.get("x-cache") === "MISS") expect(asked).toEqual([p]);
      }),
      { numRuns: 300 },
    );
  });

  it("gives one cache entry per meaning: the order of the query parameters does not matter", async () => {
    const t = tag();
    const base = `${DEVNET}/~${t}`;
    await fc.assert(
      fc.asyncProperty(address, fc.integer({ min: 1, max: 100 }), fc.boolean(), async (a, limit, reverse) => {
        const gw = gateway([t]);
        const p = `/cosmos/bank/v1beta1/balances/${a}`;
        askedSince(base);
        await gw.fetch(`/api${p}?pagination.reverse=${reverse}&pagination.limit=${limit}`);
        await gw.settle();
        const other = await gw.fetch(`/api${p}?pagination.limit=${limit}&pagination.reverse=${reverse}`);
        expect(other.headers.get("x-cache")).toBe("HIT");
        expect(askedSince(base)).toEqual([`${p}?pagination.limit=${limit}&pagination.reverse=${reverse}`]);
      }),
      { numRuns: 50 },
    );
  });
});
