/** Percentiles and a machine line for benchmark reports. */
import { execFileSync } from "node:child_process";
import { cpus } from "node:os";

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)]!;
}

export function summarize(samples: readonly number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  return { n: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? NaN };
}

/** The machine, the date and the commit measured, so a reader can tell when a figure went stale. */
export function machine(): string {
  return `${cpus().length} cores (${cpus()[0]?.model.trim() ?? "unknown"}), Node ${process.version}, ${new Date().toISOString().slice(0, 10)}, commit ${measuredCommit()}`;
}

/** The short hash of HEAD, marked when the working tree differs from it (the figures then measure uncommitted code). */
function measuredCommit(): string {
  const git = (...args: string[]) =>
    execFileSync("git", args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  try {
    const dirty = git("status", "--porcelain", "--untracked-files=no", "--", ".", ":!docs/PERFORMANCE.md") !== "";
    return `\`${git("rev-parse", "--short", "HEAD")}\`${dirty ? " with uncommitted changes" : ""}`;
  } catch {
    return "unknown (not a git checkout)";
  }
}
