/**
 * `npm test`'s suites side by side. The workerd suite (`vitest run`) keeps the cores busy for about
 * a minute; the browser files mostly wait (for pages, blocks, polls and expiries), so they run in
 * three processes at once, each with its own devnet, webhook receiver and servers on free ports,
 * and a whole run takes about as long as its longest browser group. A browser file not named in
 * BROWSER_GROUPS runs in the last group, so a new file is never left out. One process streams its
 * output; the others are printed whole when they end, so outputs never interleave. Exits 1 when
 * any fails.
 */
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";

const VITEST = "node_modules/vitest/vitest.mjs";
const E2E = "test/e2e";

/**
 * The browser files in groups of about equal wall time (seconds measured on a quiet two-core machine):
 * the long flows with the follower's (150 s), the onboarding that waits out its 60 s life with the
 * host's tools (150 s), and every other file (150 s).
 */
const BROWSER_GROUPS: string[][] = [
  ["onboarding.test.ts", "chain-follower.test.ts"],
  [
    "onboarding-expiry.test.ts",
    "host-example.test.ts",
    "host-guide.test.ts",
    "host-loop.test.ts",
    "shell-safety.test.ts",
  ],
];

interface Outcome {
  name: string;
  ok: boolean;
}

function suite(name: string, args: string[], streamed: boolean): Promise<Outcome> {
  // Colours as the terminal would get them, also for the suites whose output is held back.
  const env = process.stdout.isTTY ? { ...process.env, FORCE_COLOR: "1" } : process.env;
  const child = spawn(process.execPath, [VITEST, "run", ...args], {
    stdio: streamed ? "inherit" : ["ignore", "pipe", "pipe"],
    env,
  });
  const held: Buffer[] = [];
  child.stdout?.on("data", (chunk: Buffer) => held.push(chunk));
  child.stderr?.on("data", (chunk: Buffer) => held.push(chunk));
  return new Promise((done) => {
    child.once("exit", (code) => {
      if (!streamed)
        process.stdout.write(`\n── ${name} ──\n${Buffer.concat(held).toString()}\n── end of ${name} ──\n\n`);
      done({ name, ok: code === 0 });
    });
  });
}

/** Every browser test file, in the groups above and the rest in a last group. */
function browserGroups(): string[][] {
  const files = readdirSync(E2E, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".test.ts"));
  const named = new Set(BROWSER_GROUPS.flat());
  for (const file of named) if (!files.includes(file)) throw new Error(`${E2E}/${file} is named but does not exist`);
  const rest = files.filter((file) => !named.has(file)).sort();
  return [...BROWSER_GROUPS, rest].map((group) => group.map((file) => `${E2E}/${file}`));
}

const outcomes = await Promise.all([
  suite("workerd suite", [], false),
  ...browserGroups().map((files, i) =>
    suite(`browser suite, group ${i + 1}`, ["--config", "vitest.e2e.config.ts", ...files], i === 0),
  ),
]);
const failed = outcomes.filter((o) => !o.ok).map((o) => o.name);
if (failed.length > 0) {
  console.error(`npm test: the ${failed.join(" and the ")} failed`);
  process.exitCode = 1;
}
