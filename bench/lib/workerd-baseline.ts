/**
 * The Worker as built at another commit (`BENCH_BASELINE=<git ref>`), so that a before/after
 * ratio is measured in one run, under the same load: a detached git worktree of the ref (sharing
 * this checkout's node_modules), bundled as `wrangler deploy` bundles it, then removed.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { WRANGLER_OFFLINE_ENV } from "../../scripts/offline-env.ts";

/** Builds `ref` into `dir` as `file`; returns the commit's short hash. */
export function buildBaseline(ref: string, dir: string, file: string): string {
  const commit = execFileSync("git", ["rev-parse", "--short", ref], { encoding: "utf8" }).trim();
  const checkout = mkdtempSync(join(tmpdir(), "chain-edge-baseline-"));
  const out = mkdtempSync(join(tmpdir(), "chain-edge-baseline-bundle-"));
  try {
    execFileSync("git", ["worktree", "add", "--detach", checkout, commit], { stdio: "ignore" });
    symlinkSync(resolve("node_modules"), join(checkout, "node_modules"));
    execFileSync("wrangler", ["deploy", "--dry-run", "--outdir", out], {
      cwd: checkout,
      env: { ...process.env, ...WRANGLER_OFFLINE_ENV },
      stdio: ["ignore", "ignore", "inherit"],
    });
    const main = readdirSync(out).find((name) => name.endsWith(".js"));
    if (!main) throw new Error(`wrangler wrote no JavaScript for ${ref}`);
    copyFileSync(join(out, main), join(dir, file));
    return commit;
  } finally {
    execFileSync("git", ["worktree", "remove", "--force", checkout], { stdio: "ignore" });
    rmSync(out, { recursive: true, force: true });
  }
}
