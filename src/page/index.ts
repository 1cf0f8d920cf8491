import type { Handler } from "hono";
import type { AppEnv } from "../app-env";
import type { Config } from "../config";
import { pageSettings } from "../page-settings";
import { firstSessionRequest } from "./first-session";

/** JSON safe inside a `<script>` element: no `<` can close it. */
export const scriptJson = (value: unknown) => JSON.stringify(value).replaceAll("<", "\\u003c");

/**
 * `GET /`: the onboarding page (public/index.html from the assets, with its `_headers`) with what
 * its first screen needs filled in, so the QR waits for two round trips (this document, then the
 * session create beside app.js) instead of four: the settings `GET /api/config` answers, and,
 * when the link names a valid operator, the session create that the page's inline script sends
 * at once. The document carries a fresh session id, so no cache may keep it.
 */
export function onboardingPage(config: Config): Handler<AppEnv> {
  const settings = scriptJson(pageSettings(config));
  return async (c) => {
    const url = new URL(c.req.url);
    // A plain GET: the browser's conditional headers would get a 304 for a document that differs.
    const asset = await c.env.ASSETS.fetch(new Request(new URL("/", url)));
    if (!asset.ok) return asset;
    const first = firstSessionRequest(config, url);
    const page = new HTMLRewriter()
      .on("script#page-settings", { element: (e) => void e.setInnerContent(settings, { html: true }) })
      .on("script#first-session", { element: (e) => void e.setInnerContent(first ? scriptJson(first) : "", { html: true }) })
      .transform(asset);
    const response = new Response(page.body, page);
    response.headers.set("cache-control", "no-store");
    response.headers.delete("etag");
    return response;
  };
}
