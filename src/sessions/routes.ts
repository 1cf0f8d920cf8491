/** Session endpoints under `/api/<wallet_path>/sessions` (docs/WALLET-PROTOCOL.md): path, validation, handler. */
import { Hono } from "../http/router";
import type { AppEnv } from "../app-env";
import { methodNotAllowed } from "../http/method-not-allowed";
import { sameOriginBrowser, secureTransport } from "../http/origin-guards";
import { cancelSession, confirmSession, createSession, readSession } from "./handlers";
import { createRateLimit } from "./rate-limit";
import { newSessionBody, sessionIdParam, walletProofBody } from "./requests";

export function sessionRoutes(): Hono<AppEnv> {
  return new Hono<AppEnv>()
    .post("/", secureTransport, sameOriginBrowser, createRateLimit, newSessionBody, createSession)
    .get("/:id", sessionIdParam, readSession)
    .delete("/:id", sessionIdParam, sameOriginBrowser, cancelSession)
    .post("/:id/confirm", secureTransport, sessionIdParam, walletProofBody, confirmSession)
    .all("/", methodNotAllowed("POST"))
    .all("/:id", methodNotAllowed("GET, HEAD, DELETE"))
    .all("/:id/confirm", methodNotAllowed("POST"));
}
