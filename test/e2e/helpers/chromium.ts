/**
 * The one place that decides which Chromium the browser tests drive, and with which flags:
 * `CHROMIUM_PATH` if set; else the build that the npm package `@sparticuz/chromium` ships (linux
 * x64); else a system Chromium or Chrome. With none of them the run fails; it never skips.
 */
import sparticuz from "@sparticuz/chromium";
import { chmodSync, existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";

/** Where a system Chromium or Chrome is looked for, in this order. */
const SYSTEM_CHROMIUM_PATHS = [
  "/usr/bin/chromium",
  "/usr/lib/chromium/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
];

/** Flags for a system browser or `CHROMIUM_PATH`: headless, and nothing that calls out. */
export const SYSTEM_CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Flags of the npm build's recommended set that these tests must not run with. */
export const DROPPED_NPM_BUILD_ARGS = [
  // Turns the same-origin policy off: a page could read any origin, so an origin bug would pass.
  "--disable-web-security",
  "--allow-running-insecure-content",
  "--disable-site-isolation-trials",
  // Allows one browser context per browser (a second one closes it); only needed where no process may fork.
  "--single-process",
];

/** The browser the run uses. */
export interface ChromiumChoice {
  source: "CHROMIUM_PATH" | "@sparticuz/chromium" | "system";
  executablePath: string;
  args: string[];
}

/** What the choice looks at; the real machine by default, fakes in the tests. */
export interface ChromiumHost {
  env: Record<string, string | undefined>;
  platform: string;
  arch: string;
  exists(path: string): boolean;
  /** Unpacks the npm build (if not yet) and gives its binary. */
  npmBuild(): Promise<string>;
}

/** Picks the browser; throws, naming the three ways to provide one, when there is none. */
export async function chooseChromium(host: ChromiumHost = machine): Promise<ChromiumChoice> {
  const given = host.env.CHROMIUM_PATH;
  if (given) {
    if (!host.exists(given)) throw new Error(`CHROMIUM_PATH is ${given}, which does not exist`);
    return { source: "CHROMIUM_PATH", executablePath: given, args: SYSTEM_CHROMIUM_ARGS };
  }
  if (host.platform === "linux" && host.arch === "x64") {
    return { source: "@sparticuz/chromium", executablePath: await host.npmBuild(), args: npmBuildArgs() };
  }
  const system = SYSTEM_CHROMIUM_PATHS.find((path) => host.exists(path));
  if (system) return { source: "system", executablePath: system, args: SYSTEM_CHROMIUM_ARGS };
  throw new Error(
    `No Chromium for the browser tests. Provide one of: (1) CHROMIUM_PATH=/path/to/chromium-or-chrome; ` +
      `(2) the npm devDependency @sparticuz/chromium, which has a build for linux x64 only (this is ` +
      `${host.platform} ${host.arch}); ` +
      `(3) a system Chromium or Chrome at ${SYSTEM_CHROMIUM_PATHS.join(", ")}.`,
  );
}

/** The npm build's recommended flags less the dropped ones. */
function npmBuildArgs(): string[] {
  return sparticuz.args.filter((arg) => !DROPPED_NPM_BUILD_ARGS.includes(arg));
}

/**
 * Runs `unpack` (which writes into `os.tmpdir()`) in a staging folder renamed to `folder` when
 * complete, so a run stopped mid-unpack, or two runs at once, never start a half-written binary;
 * an existing `folder` is used as it is. Gives the binary's path inside `folder`.
 */
export async function unpackOnce(folder: string, binaryName: string, unpack: () => Promise<string>): Promise<string> {
  const binary = join(folder, binaryName);
  if (existsSync(binary)) return binary;
  const staging = mkdtempSync(`${folder}.partial-`);
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = staging;
  // The package reads tmpdir() synchronously on the call, so the override ends before any await.
  let unpacking: Promise<string>;
  try {
    unpacking = unpack();
  } finally {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
  }
  try {
    const unpacked = await unpacking;
    if (relative(staging, unpacked) !== binaryName)
      throw new Error(`the unpacked binary is at ${unpacked}, not in ${staging}`);
    // mkdtemp makes it private; other users of the machine may share the unpacked build.
    chmodSync(staging, 0o755);
    renameSync(staging, folder);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    // Another run renamed its complete copy into place first.
    if (existsSync(binary)) return binary;
    throw error;
  }
  return binary;
}

/** The installed package's version, so an upgrade unpacks anew instead of reusing an old build. */
function npmBuildVersion(): string {
  const entry = createRequire(import.meta.url).resolve("@sparticuz/chromium");
  return (JSON.parse(readFileSync(join(dirname(entry), "..", "package.json"), "utf8")) as { version: string }).version;
}

const machine: ChromiumHost = {
  env: process.env,
  platform: process.platform,
  arch: process.arch,
  exists: existsSync,
  npmBuild: () =>
    unpackOnce(join(tmpdir(), `sparticuz-chromium-${npmBuildVersion()}`), "chromium", () => sparticuz.executablePath()),
};
