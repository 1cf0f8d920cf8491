/**
 * `npm run test:stress`: `npm test` three times in a row while two busy loops (child processes
 * spinning a core each) run beside it, as on a shared two-core machine under load. Prints each
 * run's time and result, and exits 1 when any run failed: a suite that goes red only under load
 * is a suite that assumes timing. The busy loops end with this script (also on Ctrl-C).
 */
import { spawn, type ChildProcess } from "node:child_process";

const RUNS = Number(process.env.STRESS_RUNS ?? 3);
const BUSY_LOOPS = Number(process.env.STRESS_BUSY_LOOPS ?? 2);

const busy: ChildProcess[] = Array.from({ length: BUSY_LOOPS }, () =>
  spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }),
);
const stopBusy = () => {
  for (const child of busy) if (child.exitCode === null) child.kill("SIGKILL");
};
process.once("exit", stopBusy);
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.once(signal, () => {
    stopBusy();
    process.exit(130);
  });

function npmTest(): Promise<boolean> {
  const child = spawn("npm", ["test"], { stdio: "inherit" });
  return new Promise((done) => child.once("exit", (code) => done(code === 0)));
}

const results: { run: number; seconds: number; ok: boolean }[] = [];
for (let run = 1; run <= RUNS; run++) {
  console.log(`\n══ test:stress: run ${run} of ${RUNS}, beside ${BUSY_LOOPS} busy loops ══\n`);
  const started = performance.now();
  const ok = await npmTest();
  results.push({ run, seconds: Math.round((performance.now() - started) / 1000), ok });
}
stopBusy();

console.log(`\n══ test:stress: ${RUNS} runs of npm test beside ${BUSY_LOOPS} busy loops ══`);
for (const { run, seconds, ok } of results)
  console.log(`run ${run}: ${ok ? "passed" : "FAILED"} in ${Math.floor(seconds / 60)} min ${seconds % 60} s`);
const failed = results.filter((r) => !r.ok).length;
console.log(failed === 0 ? "all runs passed" : `${failed} of ${RUNS} runs failed`);
process.exitCode = failed === 0 ? 0 : 1;
