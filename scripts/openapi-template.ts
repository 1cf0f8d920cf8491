/**
 * Writes the OpenAPI document's template among the assets (public/api/openapi.template.json), which
 * the Worker fills with its configuration (src/openapi/template.ts). Run by `npm run build` and
 * before the runtime tests (vitest.config.ts), so the served document is never older than the code.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { loadReference } from "./load-reference.ts";

export const OPENAPI_TEMPLATE_FILE = "public/api/openapi.template.json";

export async function writeOpenApiTemplate(): Promise<void> {
  mkdirSync("public/api", { recursive: true });
  writeFileSync(OPENAPI_TEMPLATE_FILE, (await loadReference()).openApiTemplate());
}

/** vitest globalSetup. */
export default writeOpenApiTemplate;
