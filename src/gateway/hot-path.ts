/**
 * The gateway's cache status layer, which every gateway request passes: answers a fresh hot key
 * at once (a replay of the headers and body of the last answer given from that entry, with Age
 * and Cache-Control brought up to date: nothing parsed, matched or built twice), writes X-Cache
 * and its Server-Timing metrics (the cache's, and the shield's on a miss through it) for every
 * gateway answer, and hands each full answer's headers to its hot entry for the next replay.
 *
 * Its place in the chain is what makes a replay equal to the answer it copies: inside `timing`
 * and the request context (whose headers are added after it, to both), outside CORS (whose
 * headers it keeps in the list).
 */
import type { MiddlewareHandler } from "hono";
import { setMetric } from "hono/timing";
import type { GatewayEnv } from "./gateway-env";
import { ageSeconds } from "./cache-entry";
import { xCache } from "./cache-status";
import { hotReplayable, keepHeaders } from "./hot-cache";
import { HEIGHT_HEADER } from "./match";
import { cacheControlOf } from "./respond";

export function cacheStatus(): MiddlewareHandler<GatewayEnv> {
  return async (c, next) => {
    const replay = replayHot(c.req.raw, c.req.url, c.get("startedAt"), c.get("config"));
    if (replay) {
      c.set("cache", "HIT");
      c.set("route", replay.route);
      c.res = replay.response;
    } else {
      await next();
      const answered = c.get("answered");
      if (answered && c.res.status === answered.answer.status) keepHeaders(answered.key, answered.answer, c.res.headers);
    }
    const status = c.get("cache") ?? "BYPASS";
    const shield = c.get("shield");
    c.set("cache", status);
    c.res.headers.set("x-cache", xCache(status, shield));
    setMetric(c, "cache", status);
    if (shield) setMetric(c, "shield", shield.ms, "fault" in shield ? "fail-open" : shield.status);
  };
}

/**
 * The answer to a plain GET or HEAD of a URL whose hot entry is fresh and has been answered in
 * full once; null for anything else (a conditional or historical request goes the usual way).
 * A URL is a hot key only in the canonical form the gateway validated, so nothing is re-checked.
 */
function replayHot(request: Request, url: string, now: number, config: GatewayEnv["Variables"]["config"]): { response: Response; route: string } | null {
  if (request.method !== "GET" && request.method !== "HEAD") return null;
  const entry = hotReplayable(url, now);
  if (!entry || request.headers.has("if-none-match") || request.headers.has(HEIGHT_HEADER)) return null;
  const { answer } = entry;
  const age = ageSeconds(answer, now);
  const headers = new Headers(entry.headers!);
  headers.set("age", String(age));
  headers.set("cache-control", cacheControlOf(answer, age, config));
  return { response: new Response(answer.body, { status: answer.status, headers }), route: entry.route };
}
