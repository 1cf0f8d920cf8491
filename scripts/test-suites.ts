/**
 * `npm test`'s suites side by side. The workerd suite (`vitest run`) keeps the cores busy for about
 * a minute; the browser files mostly wait (for pages, blocks, polls and expiries), so they run in
 * four processes at once (scripts/browser-groups.ts, where a file no group names runs in the last),
 * each with its own devnet, webhook receiver and servers on free ports, and a whole run takes about
 * as long as its longest browser group. One process streams its output; the others are printed
 * whole when they end, so outputs never interleave. Exits 1 when any fails, after repeating why each failed.
 */
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { browserGroups } from "./browser-groups.ts";
import { whyItFailed } from "./failure-summary.ts";

const VITEST = "node_modules/vitest/vitest.mjs";
const E2E = "test/e2e";

interface Outcome {
  name: string;
  ok: boolean;
  /** What the suite printed. */
  output: string;
}

function suite(name: string, args: string[], streamed: boolean): Promise<Outcome> {
  // Colours as the terminal would get them, also for the suites whose output is held back.
  const env = process.stdout.isTTY ? { ...process.env, FORCE_COLOR: "1" } : process.env;
  const child = spawn(process.execPath, [VITEST, "run", ...args], { stdio: ["ignore", "pipe", "pipe"], env });
  const held: Buffer[] = [];
  for (const [from, to] of [
    [child.stdout, process.stdout],
    [child.stderr, process.stderr],
  ] as const)
    from.on("data", (chunk: Buffer) => {
      held.push(chunk);
      if (streamed) to.write(chunk);
    });
  return new Promise((done) => {
    child.once("close", (code) => {
      const output = Buffer.concat(held).toString();
      if (!streamed) process.stdout.write(`\n── ${name} ──\n${output}\n── end of ${name} ──\n\n`);
      done({ name, ok: code === 0, output });
    });
  });
}

const outcomes = await Promise.all([
  suite("workerd suite", [], false),
  ...browserGroups(readdirSync(E2E, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".test.ts"))).map(
    (files, i) =>
      suite(
        `browser suite, group ${i + 1}`,
        ["--config", "vitest.e2e.config.ts", ...files.map((file) => `${E2E}/${file}`)],
        i === 0,
      ),
  ),
]);
const failed = outcomes.filter((o) => !o.ok);
for (const { name, output } of failed) process.stderr.write(`\n── why the ${name} failed ──\n${whyItFailed(output)}\n`);
if (failed.length > 0) {
  console.error(`npm test: the ${failed.map((o) => o.name).join(" and the ")} failed`);
  process.exitCode = 1;
}
