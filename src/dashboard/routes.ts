/**
 * `/dashboard/sign-in`, `/dashboard/session`, `/dashboard/sign-out`: the Worker's part of the
 * dashboard (its page is assets), and the overview's figures under the host API.
 */
import type { AppEnv } from "../app-env";
import { methodNotAllowed } from "../http/method-not-allowed";
import { secureTransport } from "../http/origin-guards";
import { Hono } from "../http/router";
import { hostAuth } from "../onboardings/http/host-auth";
import { noQuery } from "../onboardings/http/requests";
import { currentSession, signIn, signOut } from "./handlers";
import { overview } from "./overview";

/** The dashboard's session endpoints, answered `no-store` like the host API, over https only (http on loopback). */
export function dashboardRoutes(): Hono<AppEnv> {
  return new Hono<AppEnv>()
    .use(async (c, next) => {
      await next();
      c.res.headers.set("cache-control", "no-store");
    })
    .use(secureTransport)
    .post("/sign-in", signIn)
    .get("/session", currentSession)
    .post("/sign-out", signOut)
    .all("/sign-in", methodNotAllowed("POST"))
    .all("/session", methodNotAllowed("GET, HEAD"))
    .all("/sign-out", methodNotAllowed("POST"));
}

/** `/api/overview`: the dashboard's figures, for a host API key or a dashboard session. */
export function overviewRoutes(): Hono<AppEnv> {
  return new Hono<AppEnv>().use(hostAuth()).get("/", noQuery, overview).all("/", methodNotAllowed("GET, HEAD"));
}
