/**
 * The page's document as the Worker serves it (`GET /`, src/page/): the assets' index.html with
 * the page settings, the stylesheet inline (allowed by its hash) and, for a link that needs a
 * wallet connection, step 1 itself: a signed session, its connect link and its QR as SVG; never
 * cached; no inline script; and a load that stores nothing.
 */
import { runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import headers from "../../public/_headers?raw";
import indexHtml from "../../public/index.html?raw";
import { readConfig } from "../../src/config";
import { scriptJson } from "../../src/page";
import { firstSession } from "../../src/page/first-session";
import { PAGE_ORIGIN_NAME } from "../../src/protocol/page-origin";
import { parseDeepLink, SESSION_ID_PATTERN, type ConnectPayload } from "../../src/protocol/index";
import { decodeSvg } from "../helpers/qr";
import { createOnboarding } from "../onboardings/helpers";
import { accountAddress, CHAIN_ID, ORIGIN, TTL_MAX_SECONDS, WALLET } from "../helpers/sessions";

/** The static index.html's ETag: a browser that holds it asks with it, and must still get the filled-in page. */
const assetTag = (await env.ASSETS.fetch(`${ORIGIN}/`)).headers.get("etag") ?? "";
const get = (path: string) =>
  exports.default.fetch(new Request(`${ORIGIN}${path}`, { headers: { "if-none-match": assetTag } }));
/** A host's onboarding, open: its page carries a session signed for it. */
const ONBOARDING = (await createOnboarding({ operator: accountAddress(), label: "Page" })).id;
const stylesheet = await (await env.ASSETS.fetch(`${ORIGIN}/styles.css`)).text();

/** The text of the `<script type="application/json" id=…>` block. */
function block(html: string, id: string): string {
  const match = html.match(new RegExp(`<script type="application/json" id="${id}">([\\s\\S]*?)</script>`));
  if (!match) throw new Error(`no #${id} block`);
  return match[1]!;
}

/** The document's step 1: its first session, the QR's SVG and the "Open wallet" link. */
async function firstScreen(path: string) {
  const response = await get(path);
  const html = await response.text();
  const text = block(html, "first-session");
  const first = text === "" ? null : (JSON.parse(text) as { session_id: string; expires_at: string; link: string });
  const svg = /<section id="step-connect"[\s\S]*?(<svg [\s\S]*?<\/svg>)/.exec(html)?.[1] ?? null;
  const href = /<a [^>]*data-testid="connect-link" href="([^"]*)"/.exec(html)?.[1]?.replaceAll("&amp;", "&") ?? null;
  return { response, html, first, svg, href };
}

async function storedKeys(sessionId: string): Promise<string[]> {
  const stub = env.PAIRING_SESSIONS.get(env.PAIRING_SESSIONS.idFromName(sessionId));
  return runInDurableObject(stub, async (_instance, state) => [...(await state.storage.list()).keys()]);
}

const sha256 = async (text: string) => {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return `'sha256-${btoa(String.fromCharCode(...digest))}'`;
};

describe("GET / (the page's document)", () => {
  it(
    "carries the settings /api/config answers, no session for a link without an operator, and is never " + "cached",
    async () => {
      expect(assetTag).not.toBe("");
      const { response, html, first, svg } = await firstScreen("/");
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^text\/html/);
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(response.headers.get("etag")).toBeNull();
      const settings = await (await get("/api/config")).json();
      expect(JSON.parse(block(html, "page-settings"))).toEqual(settings);
      expect(first).toBeNull();
      expect(svg).toBeNull();
      expect(html).toMatch(/<ol id="steps" class="steps" hidden>/);
    },
  );

  it(
    "puts the stylesheet inline, allowed by its sha256 added to public/_headers' policy; no inline script, no " +
      "unsafe-inline",
    async () => {
      const { response, html } = await firstScreen(`/?operator=${accountAddress()}`);
      expect(stylesheet).toContain(".qr{");
      expect(html).toContain(`<style>${stylesheet}</style>`);
      expect(html).not.toContain('href="/styles.css"');
      const policy = headers.match(/Content-Security-Policy: (.*)/)![1]!;
      expect(response.headers.get("content-security-policy")).toBe(
        policy.replace("style-src 'self'", `style-src 'self' ${await sha256(stylesheet)}`),
      );
      expect(policy).toMatch(/script-src 'self';/);
      expect(policy).not.toContain("unsafe-inline");
      const inlineScripts = [...html.matchAll(/<script(?![^>]*\b(?:src=|type="application\/json"))[^>]*>/g)];
      expect(inlineScripts).toEqual([]);
      expect(indexHtml).not.toMatch(/ style=/);
    },
  );

  for (const [name, path] of [
    ["a self-hoster's link (a valid operator)", () => `/?operator=${accountAddress()}&label=rack-1`],
    ["a host's onboarding link", () => `/?onboarding=${ONBOARDING}`],
  ] as const) {
    it(`shows step 1 for ${name}: the connect link and its QR, of a signed session fresh on every load`, async () => {
      const before = Date.now();
      const { html, first, svg, href } = await firstScreen(path());
      const bound = path().includes("onboarding") ? `?onboarding=${ONBOARDING}` : "";
      const after = Date.now();
      const again = await firstScreen(path());
      expect(first!.session_id).toMatch(SESSION_ID_PATTERN);
      expect(again.first!.session_id).not.toBe(first!.session_id);
      const payload = parseDeepLink(first!.link).payload as ConnectPayload;
      expect(payload).toEqual({
        v: 1,
        session_id: first!.session_id,
        chain_id: CHAIN_ID,
        origin: { name: PAGE_ORIGIN_NAME, url: ORIGIN },
        expires_at: first!.expires_at,
        relay_url: `${ORIGIN}${WALLET}/${first!.session_id}/confirm${bound}`,
      });
      // The server's default life, from when it answered (taken down to the second): between the clock before the load
      // and after it.
      const life = Math.min(300, TTL_MAX_SECONDS) * 1000;
      expect(Date.parse(first!.expires_at)).toBeGreaterThanOrEqual(Math.floor((before + life) / 1000) * 1000);
      expect(Date.parse(first!.expires_at)).toBeLessThanOrEqual(after + life);
      expect(href).toBe(first!.link);
      expect(decodeSvg(svg!)).toBe(first!.link);
      expect(html).toMatch(/<ol id="steps" class="steps">/);
      expect(html).not.toContain("Loading…");
      // Nothing is stored until the session is used.
      expect(await storedKeys(first!.session_id)).toEqual([]);
    });
  }

  it("lays out a host's onboarding as its script does: the host applies the payout, no sweep", async () => {
    const { html } = await firstScreen(`/?onboarding=${ONBOARDING}`);
    expect(html).toContain(
      '<h2 id="h-apply" tabindex="-1">3. Your host applies the payout <span class="state"></span></h2>',
    );
    expect(html).toMatch(/<li data-step="sweep" hidden(="")?>/);
    const self = await firstScreen(`/?operator=${accountAddress()}`);
    expect(self.html).toMatch(/<li data-step="sweep">/);
  });

  it(
    "names who asks and for which node in the first HTML, escaped: a host's " +
      "onboarding (its return URL's host, label, operator) and a self-hoster's link",
    async () => {
      const label = 'rack <b>3</b> & "north"';
      const escaped = "rack &lt;b&gt;3&lt;/b&gt; &amp; &quot;north&quot;";
      const operator = accountAddress();
      const onboarding = await createOnboarding({ operator, label, return_url: "https://hosting.example/orders/7" });
      const hosted = await firstScreen(`/?onboarding=${onboarding.id}`);
      const summary = /<div id="page-summary">([\s\S]*?)<\/div>\s*<p class="intro">/.exec(hosted.html)?.[1] ?? "";
      expect(summary).toContain(
        `<p>Your hosting provider, hosting.example, sent you here to have your node “${escaped}” ` +
          "pay its rewards to your own wallet.</p>",
      );
      expect(summary).toContain(`<span class="address" data-testid="onboarding-operator">${operator}</span>`);
      expect(hosted.html).not.toContain("<b>3</b>");

      const own = await firstScreen(`/?operator=${operator}&label=${encodeURIComponent(label)}`);
      expect(own.html).toContain(
        `<p>This connects your node “${escaped}” to your own wallet: its rewards will go there.</p>`,
      );
      expect(own.html).toContain(`<span class="address" data-testid="node-operator">${operator}</span>`);
      expect(own.html).not.toContain("<b>3</b>");
      // An onboarding the server does not know, or no operator: nobody is named.
      for (const path of [`/?onboarding=ob_${"5".repeat(32)}`, "/?operator=not-an-address", "/"])
        expect((await firstScreen(path)).html, path).toContain('<div id="page-summary"></div>');
    },
  );

  it(
    "carries no session when the operator is not an address " +
      "of the network, or the onboarding is malformed or unknown",
    async () => {
      for (const path of [
        `/?onboarding=ob_${"5".repeat(32)}`,
        "/?operator=not-an-address",
        `/?operator=${accountAddress("other")}`,
        "/?operator=",
        `/?onboarding=ob_123&operator=${accountAddress()}`,
      ]) {
        const { first, svg } = await firstScreen(path);
        expect(first, path).toBeNull();
        expect(svg, path).toBeNull();
      }
    },
  );

  it("answers a burst of loads with 200 and stores no session for any of them", async () => {
    const loads = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        firstScreen(i % 2 ? `/?onboarding=${ONBOARDING}` : `/?operator=${accountAddress()}`),
      ),
    );
    expect(loads.map((l) => l.response.status)).toEqual(loads.map(() => 200));
    const ids = loads.map((l) => l.first!.session_id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(await storedKeys(id)).toEqual([]);
  });

  it(
    "carries no session where no signing key is configured (a deployment without SESSION_SIGNING_KEY): the script " +
      "creates it",
    async () => {
      const config = readConfig(env);
      expect(await firstSession({ ...config, sessionSigningKey: null }, ORIGIN, Date.now())).toBeNull();
      expect(await firstSession(config, ORIGIN, Date.now())).not.toBeNull();
    },
  );

  it("inlines JSON that no value can end early: every < is escaped", () => {
    const value = { label: "</script><script>alert(1)</script>" };
    expect(scriptJson(value)).not.toContain("<");
    expect(JSON.parse(scriptJson(value))).toEqual(value);
  });
});
