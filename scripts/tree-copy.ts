/**
 * Copies of the project in a temporary folder, for tools that must not touch the working tree
 * (`npm run mutate`) or that run an older revision beside it (`npm run bench:page -- --against`).
 * A copy's node_modules is a folder of links to this checkout's entries, so vitest, wrangler and
 * the workerd plugin run there unchanged while the caches they write (vite's) stay in the copy.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

/** The working tree as it is now (tracked and untracked files, not ignored ones), in a new temporary folder. */
export function copyWorkingTree(root = process.cwd()): string {
  const dir = mkdtempSync(join(tmpdir(), "chain-edge-copy-"));
  const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z"], {
    cwd: root,
    encoding: "utf8",
  })
    .split("\0")
    .filter(Boolean);
  for (const file of files) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    try {
      copyFileSync(join(root, file), join(dir, file));
    } catch (error) {
      // Tracked but deleted in the working tree: the copy has it deleted too.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
  linkNodeModules(root, dir);
  return dir;
}

/** The files of git revision `rev`, in a new temporary folder (no worktree is registered). */
export function copyRevision(rev: string, root = process.cwd()): string {
  const dir = mkdtempSync(join(tmpdir(), "chain-edge-copy-"));
  const archive = execFileSync("git", ["archive", "--format=tar", rev], { cwd: root, maxBuffer: 1 << 30 });
  execFileSync("tar", ["-x", "-C", dir], { input: archive });
  linkNodeModules(root, dir);
  return dir;
}

function linkNodeModules(root: string, dir: string): void {
  mkdirSync(join(dir, "node_modules"));
  for (const entry of readdirSync(join(root, "node_modules"))) {
    // vite's and vitest's caches: each copy keeps its own.
    if (!entry.startsWith(".vite")) symlinkSync(resolve(root, "node_modules", entry), join(dir, "node_modules", entry));
  }
}

/**
 * Removes a copy, first ending with SIGTERM any process still working in it (a server whose run
 * was cut short), found by its working folder (Linux's /proc; elsewhere none are found).
 */
export function removeCopy(dir: string): void {
  for (const pid of processesIn(dir)) {
    try {
      process.kill(pid, "SIGTERM");
    } catch {
      // Gone meanwhile.
    }
  }
  rmSync(dir, { recursive: true, force: true });
}

function processesIn(dir: string): number[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  return entries
    .filter((entry) => /^\d+$/.test(entry) && Number(entry) !== process.pid)
    .filter((pid) => {
      try {
        return readlinkSync(`/proc/${pid}/cwd`).startsWith(dir);
      } catch {
        return false;
      }
    })
    .map(Number);
}
