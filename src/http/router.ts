/**
 * The Hono app every route table is built on: RegExpRouter alone (one regular expression for all
 * routes, strict about a trailing slash), without SmartRouter's fallback to a second router, which
 * the Worker's routes never need and its bundle would carry.
 */
import type { Env } from "hono";
import { HonoBase } from "hono/hono-base";
import { RegExpRouter } from "hono/router/reg-exp-router";

export class Hono<E extends Env = Env> extends HonoBase<E> {
  constructor() {
    super({ router: new RegExpRouter() });
  }
}
