/**
 * Writes the OpenAPI document's template among the assets (public/api/openapi.template.json), which
 * the Worker fills with its configuration (src/openapi/template.ts). Run by `npm run build` and
 * before the runtime tests (vitest.config.ts), so the served document is never older than the code.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { OPENAPI_TEMPLATE_PATH } from "../src/openapi/template-path.ts";
import { loadReference } from "./load-reference.ts";

/** The template's file: the assets' folder holds it at the path the Worker fetches. */
export const OPENAPI_TEMPLATE_FILE = `public${OPENAPI_TEMPLATE_PATH}`;

/** Writes the template; also vitest's globalSetup, as this module's default. */
export default async function writeOpenApiTemplate(): Promise<void> {
  mkdirSync(dirname(OPENAPI_TEMPLATE_FILE), { recursive: true });
  writeFileSync(OPENAPI_TEMPLATE_FILE, (await loadReference()).openApiTemplate());
}
