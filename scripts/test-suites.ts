/**
 * `npm test`'s two suites side by side: the workerd suite (`vitest run`) keeps the cores busy,
 * while the browser suite (`vitest run --config vitest.e2e.config.ts`) mostly waits for pages,
 * polls and expiries, so on two cores both together take about as long as the browser suite alone.
 * The browser file that waits out an onboarding's life (60 s, the configuration's floor) runs in a
 * third process beside them, so its wait overlaps the rest instead of adding to it. They share
 * nothing but the machine (each starts its own devnet, webhook receiver and servers on free ports). The browser suite's output streams; the workerd suite's is printed whole when it
 * ends, so the two never interleave. Exits 1 when either fails.
 */
import { spawn } from "node:child_process";

const VITEST = "node_modules/vitest/vitest.mjs";

interface Outcome {
  name: string;
  ok: boolean;
}

function suite(name: string, args: string[], streamed: boolean): Promise<Outcome> {
  // Colours as the terminal would get them, also for the suite whose output is held back.
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

/** Browser files that mostly wait for the clock: each gets a process of its own. */
const WAITING_FILES = ["test/e2e/onboarding-expiry.test.ts"];
const browser = ["--config", "vitest.e2e.config.ts"];

const outcomes = await Promise.all([
  suite("workerd suite", [], false),
  suite("browser suite", [...browser, ...WAITING_FILES.flatMap((file) => ["--exclude", file])], true),
  ...WAITING_FILES.map((file) => suite(`browser suite: ${file}`, [...browser, file], false)),
]);
const failed = outcomes.filter((o) => !o.ok).map((o) => o.name);
if (failed.length > 0) {
  console.error(`npm test: the ${failed.join(" and the ")} failed`);
  process.exitCode = 1;
}
