/**
 * `npm run deploy`'s only way to the account: wrangler's own CLI, found on PATH (under `npm run`,
 * the project's node_modules/.bin comes first, so it is the project's wrangler; a test puts a stub
 * first). Reads run in a dry run too; a command that changes the account is only printed there.
 */
import { spawn } from "node:child_process";

/** What one wrangler command printed and how it ended. */
export interface Outcome {
  readonly ok: boolean;
  readonly stdout: string;
  readonly stderr: string;
}

export interface WranglerOptions {
  /** Print the commands that change the account instead of running them. */
  readonly dryRun: boolean;
  /** Where each command is announced (the deploy's own output). */
  readonly log: (line: string) => void;
}

/** Runs wrangler with `args`; `input` goes to its stdin (a secret's value: never an argument, never printed). */
function run(args: readonly string[], options: { input?: string; show: boolean }): Promise<Outcome> {
  // Interactive prompts are off: stdout is a pipe, so wrangler takes its non-interactive defaults.
  const child = spawn("wrangler", args, {
    stdio: ["pipe", "pipe", "pipe"],
    shell: process.platform === "win32",
    env: { ...process.env, WRANGLER_HIDE_BANNER: "true" },
  });
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout.on("data", (chunk: Buffer) => {
    stdout.push(chunk);
    if (options.show) process.stdout.write(chunk);
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr.push(chunk);
    if (options.show) process.stderr.write(chunk);
  });
  child.stdin.end(options.input ?? "");
  return new Promise((done, fail) => {
    child.once("error", (error: NodeJS.ErrnoException) =>
      fail(
        error.code === "ENOENT"
          ? new Error("wrangler is not on PATH: run this as `npm run deploy -- --env <environment>`")
          : error,
      ),
    );
    child.once("close", (code) =>
      done({ ok: code === 0, stdout: Buffer.concat(stdout).toString(), stderr: Buffer.concat(stderr).toString() }),
    );
  });
}

/** A command that changes the account failed; what it printed was shown as it ran. */
export class CommandFailed extends Error {
  readonly output: string;

  constructor(args: readonly string[], outcome: Outcome) {
    super(`\`wrangler ${args.join(" ")}\` failed (its output is above)`);
    this.output = outcome.stdout + outcome.stderr;
  }
}

/** The wrangler CLI as the deploy drives it: reads run always, changes only outside a dry run. */
export class Wrangler {
  readonly #options: WranglerOptions;

  constructor(options: WranglerOptions) {
    this.#options = options;
  }

  /** A command that only reads the account: announced, run quietly (its output is parsed), also in a dry run. */
  read(args: readonly string[]): Promise<Outcome> {
    this.#options.log(`$ wrangler ${args.join(" ")}`);
    return run(args, { show: false });
  }

  /**
   * A command that changes the account: announced, its output shown; in a dry run only announced
   * (`note` says what stdin would carry). Throws when it fails.
   */
  async change(args: readonly string[], input?: { value: string; note: string }): Promise<Outcome | null> {
    const line = `wrangler ${args.join(" ")}${input ? `   (its value on stdin: ${input.note})` : ""}`;
    if (this.#options.dryRun) {
      this.#options.log(`would run: ${line}`);
      return null;
    }
    this.#options.log(`$ ${line}`);
    const outcome = await run(args, { input: input?.value, show: true });
    if (!outcome.ok) throw new CommandFailed(args, outcome);
    return outcome;
  }
}

/** The JSON value in `text` (wrangler may print a warning before or after it). */
export function printedJson(text: string): unknown {
  const start = text.search(/[[{]/);
  for (let end = text.length; start >= 0 && end > start; end--) {
    if (!"]}".includes(text[end - 1]!)) continue;
    try {
      return JSON.parse(text.slice(start, end));
    } catch {
      // A closing bracket inside what follows the JSON: try an earlier one.
    }
  }
  throw new Error(`wrangler printed no JSON where it should have: ${text.slice(0, 300)}`);
}
