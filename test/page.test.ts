/**
 * The page's document as the Worker serves it (`GET /`, src/page/): the assets' index.html with
 * the page settings and, for a link with a valid operator, the first session create filled in;
 * never cached; and the one inline script allowed by its hash in public/_headers.
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import headers from "../public/_headers?raw";
import indexHtml from "../public/index.html?raw";
import { scriptJson } from "../src/page";
import { SESSION_ID_PATTERN } from "../src/protocol/index";
import { accountAddress, ORIGIN, WALLET, CHAIN_ID } from "./helpers/sessions";

/** The static index.html's ETag: a browser that holds it asks with it, and must still get the filled-in page. */
const assetTag = (await env.ASSETS.fetch(`${ORIGIN}/`)).headers.get("etag") ?? "";
const get = (path: string) => exports.default.fetch(new Request(`${ORIGIN}${path}`, { headers: { "if-none-match": assetTag } }));

/** The text of the `<script type="application/json" id=…>` block. */
function block(html: string, id: string): string {
  const match = html.match(new RegExp(`<script type="application/json" id="${id}">([\\s\\S]*?)</script>`));
  if (!match) throw new Error(`no #${id} block`);
  return match[1]!;
}

describe("GET / (the page's document)", () => {
  it("carries the settings /api/config answers, no session for a link without an operator, and is never cached", async () => {
    expect(assetTag).not.toBe("");
    const response = await get("/");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("etag")).toBeNull();
    // public/_headers still applies: the Worker fills the assets' own answer in.
    expect(response.headers.get("content-security-policy")).toMatch(/^default-src 'self'; script-src 'self' 'sha256-/);
    const html = await response.text();
    const settings = await (await get("/api/config")).json();
    expect(JSON.parse(block(html, "page-settings"))).toEqual(settings);
    expect(block(html, "first-session")).toBe("");
  });

  it("carries a session create for a link with a valid operator, fresh on every load, which the server accepts", async () => {
    const path = `/?operator=${accountAddress()}&label=rack-1`;
    const first = JSON.parse(block(await (await get(path)).text(), "first-session"));
    const again = JSON.parse(block(await (await get(path)).text(), "first-session"));
    expect(first.url).toBe(WALLET);
    expect(first.body).toEqual({
      v: 1,
      session_id: expect.stringMatching(SESSION_ID_PATTERN),
      chain_id: CHAIN_ID,
      origin: { name: "Hosted node onboarding", url: ORIGIN },
      relay_url: `${ORIGIN}${WALLET}/${first.body.session_id}/confirm`,
    });
    expect(again.body.session_id).not.toBe(first.body.session_id);

    const created = await exports.default.fetch(
      new Request(`${ORIGIN}${first.url}`, { method: "POST", headers: { "content-type": "application/json", origin: ORIGIN }, body: JSON.stringify(first.body) }),
    );
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ session_id: first.body.session_id, status: "pending", origin: first.body.origin });
  });

  it("carries no session create when the operator is not an address of the network", async () => {
    for (const operator of ["not-an-address", accountAddress("other"), ""]) {
      expect(block(await (await get(`/?operator=${operator}`)).text(), "first-session"), operator).toBe("");
    }
  });

  it("inlines JSON that no value can end early: every < is escaped", () => {
    const value = { label: "</script><script>alert(1)</script>" };
    expect(scriptJson(value)).not.toContain("<");
    expect(JSON.parse(scriptJson(value))).toEqual(value);
  });
});

describe("the page's one inline script", () => {
  it("is allowed by its sha256 in public/_headers, and is the only inline code", async () => {
    const inline = [...indexHtml.matchAll(/<script(?![^>]*\b(?:src=|type="application\/json"))[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
    expect(inline).toHaveLength(1);
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(inline[0])));
    const hash = btoa(String.fromCharCode(...digest));
    expect(headers).toContain(`script-src 'self' 'sha256-${hash}';`);
  });
});
