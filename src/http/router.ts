/**
 * The Hono app every route table is built on: `hono/tiny`, Hono's preset for a small bundle (its
 * PatternRouter alone, without SmartRouter's two routers). PatternRouter takes `/a/` for `/a`, so the
 * service's own routes refuse a trailing slash in src/app.ts (the gateway refuses its own).
 */
export { Hono } from "hono/tiny";
