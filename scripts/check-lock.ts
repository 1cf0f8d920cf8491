/**
 * CI gate: the lock file names workerd's build for every platform Cloudflare ships, for every
 * workerd version in the tree. A lock missing one makes `npm ci` refuse on every machine and
 * `npm install` rewrite the lock on a fresh clone. `npm run check:lock`.
 */
import { readFileSync } from "node:fs";

const PLATFORMS = ["darwin-64", "darwin-arm64", "linux-64", "linux-arm64", "windows-64"];

interface LockEntry {
  version?: string;
  optionalDependencies?: Record<string, string>;
}
const lock = JSON.parse(readFileSync(new URL("../package-lock.json", import.meta.url), "utf8")) as {
  packages: Record<string, LockEntry>;
};

const problems: string[] = [];
let versions = 0;
for (const [path, entry] of Object.entries(lock.packages)) {
  if (!path.endsWith("node_modules/workerd")) continue;
  versions++;
  // npm places a platform build beside the workerd that asks for it, or in a folder above it.
  const folders = path.slice(0, -"workerd".length).split("node_modules/").slice(0, -1);
  for (const platform of PLATFORMS) {
    const name = `@cloudflare/workerd-${platform}`;
    const wanted = entry.optionalDependencies?.[name];
    const found = folders
      .map((_, i) => `${folders.slice(0, folders.length - i).join("node_modules/")}node_modules/${name}`)
      .find((p) => lock.packages[p]?.version === wanted);
    if (!found) problems.push(`${name}@${wanted ?? "?"} (wanted by ${path}@${entry.version})`);
  }
}
if (versions === 0) problems.push("no workerd in the lock at all");
if (problems.length > 0) {
  console.error(
    `package-lock.json lacks workerd builds:\n  ${problems.join("\n  ")}\nRegenerate it with \`npm install\` on a machine that reaches the registry, and commit it.`,
  );
  process.exit(1);
}
console.log(`package-lock.json: ${versions} workerd version(s), each with all ${PLATFORMS.length} platform builds`);
