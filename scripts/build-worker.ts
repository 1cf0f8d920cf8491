/**
 * Bundles the Worker exactly as `wrangler deploy` would (`--dry-run`, offline) and reports its
 * size. Used by the bundle-size check and the bundle benchmark.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { WRANGLER_OFFLINE_ENV } from "./offline-env.ts";

export interface WorkerBundle {
  dir: string;
  mainPath: string;
  bytes: number;
  gzipBytes: number;
}

export function buildWorker(): WorkerBundle {
  const dir = mkdtempSync(join(tmpdir(), "chain-edge-bundle-"));
  execFileSync("wrangler", ["deploy", "--dry-run", "--outdir", dir], {
    env: { ...process.env, ...WRANGLER_OFFLINE_ENV },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const main = readdirSync(dir).find((name) => name.endsWith(".js"));
  if (!main) throw new Error(`wrangler wrote no JavaScript to ${dir}`);
  const code = readFileSync(join(dir, main));
  return { dir, mainPath: join(dir, main), bytes: code.byteLength, gzipBytes: gzipSync(code, { level: 9 }).byteLength };
}
