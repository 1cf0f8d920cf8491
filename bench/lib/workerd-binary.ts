/** The workerd binary that wrangler itself runs (its own pinned copy, not the test plugin's). */
import { createRequire } from "node:module";

export function wranglerWorkerd(): { path: string; version: string } {
  const fromWrangler = createRequire(createRequire(import.meta.url).resolve("wrangler/package.json"));
  const workerd = fromWrangler("workerd") as { default: string; version: string };
  return { path: workerd.default, version: workerd.version };
}
