/**
 * The OpenAPI document as a build-time asset. `npm run build` writes the document of src/openapi/document.ts
 * with a placeholder for every setting it names (public/api/openapi.template.json, only reachable
 * through the Worker since /api/* runs it first); the Worker fills in its own configuration with a
 * string replace. The document is then code in no Worker bundle, and stays true for any profile
 * and any variable that overrides one (test/openapi/document.test.ts compares it with the generator's).
 */
import type { Handler } from "hono";
import type { AppEnv } from "../app-env";
import type { Config } from "../config";
import { OPENAPI_TEMPLATE_PATH } from "./template-path";

/** The settings the document names; a setting not listed here must not appear in it. */
const OPENAPI_SETTINGS = [
  "walletPath",
  "namespace",
  "bech32Prefix",
  "chainId",
  "sessionTtlMaxSeconds",
  "onboardingTtlSeconds",
] as const satisfies readonly (keyof Config)[];

type Setting = (typeof OPENAPI_SETTINGS)[number];

const placeholder = (name: Setting) => `@@${name}@@`;

/** `config` with a placeholder for every setting the document names (for the build). */
export function templateConfig(config: Config): Config {
  const marked: Record<string, unknown> = { ...config };
  for (const name of OPENAPI_SETTINGS) marked[name] = placeholder(name);
  return marked as unknown as Config;
}

/**
 * The template's text with `config`'s settings in place of the placeholders, each as JSON string content.
 * @internal Exported for its tests only.
 */
export function fillOpenApi(template: string, config: Config): string {
  return template.replace(/@@(\w+)@@/g, (token, name: string) =>
    (OPENAPI_SETTINGS as readonly string[]).includes(name)
      ? JSON.stringify(String(config[name as Setting])).slice(1, -1)
      : token,
  );
}

/** The document for `config`, from the assets; throws (a logged 500) when the build did not write the template. */
async function servedOpenApi(assets: Fetcher, origin: string, config: Config): Promise<string> {
  const template = await assets.fetch(new Request(new URL(OPENAPI_TEMPLATE_PATH, origin)));
  if (!template.ok)
    throw new Error(
      `${OPENAPI_TEMPLATE_PATH} is not among the assets (HTTP ${template.status}); npm run build writes it`,
    );
  return fillOpenApi(await template.text(), config);
}

/** The `GET /api/openapi.json` handler for `config`: the document filled once, then served from memory. */
export function openApiRoute(config: Config): Handler<AppEnv> {
  let openApi: string | undefined;
  return async (c) => {
    openApi ??= await servedOpenApi(c.env.ASSETS, c.req.url, config);
    return c.body(openApi, 200, { "content-type": "application/json", "cache-control": "public, max-age=300" });
  };
}
