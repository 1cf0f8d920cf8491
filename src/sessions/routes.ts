/** Session endpoints under `/api/<wallet_path>/sessions` (service-interface.md group F). */
import { Hono } from "hono";
import type { AppEnv } from "../app-env";
import { methodNotAllowed } from "../http/method-not-allowed";
import { cancelSession, confirmSession, createSession, readSession } from "./handlers";

export function sessionRoutes(): Hono<AppEnv> {
  return new Hono<AppEnv>()
    .post("/", createSession)
    .get("/:id", readSession)
    .delete("/:id", cancelSession)
    .post("/:id/confirm", confirmSession)
    .all("/", methodNotAllowed("POST"))
    .all("/:id", methodNotAllowed("GET, HEAD, DELETE"))
    .all("/:id/confirm", methodNotAllowed("POST"));
}
