import type { Handler } from "hono";
import type { AppEnv } from "../app-env";
import type { Config } from "../config";
import { boundSession } from "../onboardings/http/pairing-session";
import { connectStepHtml, firstSession, pageKind, type FirstSession, type PageKind } from "./first-session";
import { hostedSummaryHtml, hostedView, ownNodeSummaryHtml } from "./first-summary";
import { pageSettings } from "./settings";

/** JSON safe inside a `<script>` element: no `<` can close it. */
export const scriptJson = (value: unknown) => JSON.stringify(value).replaceAll("<", "\\u003c");

/** The inline stylesheet's CSP source, computed once per stylesheet text. */
const styleSources = new Map<string, Promise<string>>();
function styleSource(css: string): Promise<string> {
  let source = styleSources.get(css);
  if (!source) {
    source = crypto.subtle
      .digest("SHA-256", new TextEncoder().encode(css))
      .then((d) => `'sha256-${btoa(String.fromCharCode(...new Uint8Array(d)))}'`);
    styleSources.set(css, source);
  }
  return source;
}

/**
 * `GET /`: the onboarding page (public/index.html from the assets, with its `_headers`), filled in
 * so that its first screen needs this one response: the settings `GET /api/config` answers; the
 * stylesheet inline (allowed by its hash, added to the asset's CSP); and, for a link that needs a
 * wallet connection (a valid operator, or a host's onboarding), step 1 itself: a signed session
 * (stored on first use), its connect link and its QR code as SVG, which work without JavaScript
 * and which the page's script takes over. Every load gets its own session, so no cache may keep it.
 * A host's onboarding gets one only while it waits for a wallet (`open`), signed for it: a reload
 * after the wallet's confirm shows the next step, not a new pairing.
 */
export function onboardingPage(config: Config): Handler<AppEnv> {
  const settings = scriptJson(pageSettings(config));
  return async (c) => {
    const url = new URL(c.req.url);
    const kind = pageKind(config, url);
    const now = Date.now();
    // Plain GETs: the browser's conditional headers would get a 304 for a document that differs.
    // One read of a host's onboarding serves both who asks (the summary) and whether to pair (the session).
    const [asset, stylesheet, hosted] = await Promise.all([
      c.env.ASSETS.fetch(new Request(new URL("/", url))),
      c.env.ASSETS.fetch(new Request(new URL("/styles.css", url))),
      kind === "onboarding" ? hostedView(c.env, url.searchParams.get("onboarding") ?? "") : null,
    ]);
    if (!asset.ok) return asset;
    const css = stylesheet.ok ? await stylesheet.text() : null;
    const first = await sessionFor(config, kind, url, now, hosted);
    const summary = firstSummary(kind, url, hosted);
    let rewriter = new HTMLRewriter()
      .on("script#page-settings", { element: (e) => void e.setInnerContent(settings, { html: true }) })
      .on("script#first-session", {
        element: (e) => void e.setInnerContent(first ? scriptJson(first) : "", { html: true }),
      });
    if (css !== null && !css.includes("</")) {
      rewriter = rewriter.on('link[rel="stylesheet"][href="/styles.css"]', {
        element: (e) => void e.replace(`<style>${css}</style>`, { html: true }),
      });
    }
    if (summary !== null) {
      rewriter = rewriter.on("#page-summary", { element: (e) => void e.setInnerContent(summary, { html: true }) });
    }
    if (first) {
      rewriter = rewriter
        .on("#page-status", { element: (e) => void e.setInnerContent("") })
        .on("ol#steps", { element: (e) => void e.removeAttribute("hidden") })
        .on("#step-connect .state", { element: (e) => void e.setInnerContent("In progress") })
        .on("#step-connect", { element: (e) => void e.setAttribute("data-state", "active") })
        .on("#step-connect .body", {
          element: (e) => void e.setInnerContent(connectStepHtml(first, now), { html: true }),
        });
      if (kind === "onboarding") {
        // As the hosted page's script lays the steps out: the host applies the payout; no sweep.
        rewriter = rewriter
          .on("#h-apply", {
            element: (e) =>
              void e.setInnerContent('3. Your host applies the payout <span class="state"></span>', { html: true }),
          })
          .on('li[data-step="sweep"]', { element: (e) => void e.setAttribute("hidden", "") });
      }
    }
    const page = rewriter.transform(asset);
    const response = new Response(page.body, page);
    response.headers.set("cache-control", "no-store");
    response.headers.delete("etag");
    const csp = response.headers.get("content-security-policy");
    if (css !== null && csp !== null && !css.includes("</")) {
      response.headers.set(
        "content-security-policy",
        csp.replace("style-src 'self'", `style-src 'self' ${await styleSource(css)}`),
      );
    }
    return response;
  };
}

/**
 * The session step 1 shows: none without a link that needs one; for a host's onboarding, one
 * signed for it while it is `open` (src/onboardings/http/pairing-session.ts), none once it is paired,
 * ended or unknown. An onboarding that cannot be read now gets one: it changes nothing.
 */
function sessionFor(
  config: Config,
  kind: PageKind | null,
  url: URL,
  now: number,
  hosted: Hosted,
): Promise<FirstSession | null> | null {
  if (kind !== "onboarding") return kind === null ? null : firstSession(config, url.origin, now);
  const id = url.searchParams.get("onboarding")!;
  if (hosted === "unreadable") return firstSession(config, url.origin, now, id);
  if (hosted === null || hosted === "unknown") return null;
  return boundSession(config, url.origin, now, id, hosted).then((session) => ("reason" in session ? null : session));
}

type Hosted = Awaited<ReturnType<typeof hostedView>> | null;

/**
 * Who asks and for which node, for a link that names one: the host's onboarding as the server has it, or the link's own
 * operator.
 */
function firstSummary(kind: PageKind | null, url: URL, hosted: Hosted): string | null {
  if (kind === "onboarding") return hosted !== null && typeof hosted === "object" ? hostedSummaryHtml(hosted) : null;
  if (kind === "operator") {
    // Read as the page's script reads them (page/start-form.ts).
    const operator = url.searchParams.get("operator")?.trim() ?? "";
    return ownNodeSummaryHtml(operator, (url.searchParams.get("label") ?? "").trim().slice(0, 64));
  }
  return null;
}
