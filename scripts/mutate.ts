/**
 * `npm run mutate [-- <filter>…]`: breaks the code on purpose, one mutation at a time, and checks
 * that the test named for it goes red. Each mutation of test/mutations.json names the claim it
 * guards (a SECURITY.md claim or a README rule), a unique piece of source text and what to put
 * in its place, and the test file(s) that must fail.
 *
 * Mutations are made in a copy of the working tree (its tracked and untracked, not ignored,
 * files, as they are now; scripts/tree-copy.ts) in a temporary folder; the tests run there, and
 * the copy is removed at the end, also on Ctrl-C or SIGTERM. The working
 * tree itself is never written to, except docs/MUTATIONS.md, the outcome of each row's last run
 * (a filtered run updates its own rows) and the counts of test/mutations.json's `rounds`.
 * Exits 1 if any mutation survived.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { copyWorkingTree, removeCopy } from "./tree-copy.ts";

interface Mutation {
  claim: string;
  file: string;
  find: string;
  replace: string;
  tests: string[];
}

const mutations = (JSON.parse(readFileSync("test/mutations.json", "utf8")) as { mutations: Mutation[] }).mutations;
/** Rows whose claim or file contains any of the filters given; every row without one. */
const filters = process.argv.slice(2);
const chosen =
  filters.length > 0
    ? mutations.filter((m) => filters.some((f) => m.claim.includes(f) || m.file.includes(f)))
    : mutations;
const results: { mutation: Mutation; outcome: "killed" | "SURVIVED" | "NOT APPLIED" }[] = [];

const copy = copyWorkingTree();
console.log(`mutating a copy of the working tree in ${copy}`);
let running: ChildProcess | null = null;
let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => void stop());
}

/** Stops the test run under way (its whole process group), removes the copy, exits 130. */
async function stop(): Promise<void> {
  stopping = true;
  const child = running;
  if (child && child.exitCode === null) {
    const exited = new Promise((done) => child.once("exit", done));
    // On SIGINT (not SIGTERM) vitest tears its setup down (wrangler dev, the devnet); a run that hangs gets SIGKILL.
    signalGroup(child, "SIGINT");
    const late = setTimeout(() => signalGroup(child, "SIGKILL"), 15_000);
    await exited;
    clearTimeout(late);
  }
  removeCopy(copy);
  process.exit(130);
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // Already gone.
  }
}

/** Runs `npx <args>` in the copy, in its own process group so that a signal can reach all of it. */
function npx(args: string[]): Promise<boolean> {
  return new Promise((done) => {
    const child = spawn("npx", args, { cwd: copy, stdio: "ignore", env: process.env, detached: true });
    running = child;
    child.once("exit", (code) => {
      running = null;
      // A run cut short by a signal says nothing about the mutation; stop() ends the process.
      if (!stopping) done(code === 0);
    });
  });
}

async function runTests(tests: string[]): Promise<boolean> {
  const e2e = tests.filter((t) => t.startsWith("test/e2e/"));
  const runtime = tests.filter((t) => !t.startsWith("test/e2e/"));
  if (runtime.length && !(await npx(["vitest", "run", ...runtime]))) return false;
  // wrangler dev (started by the e2e setup) builds the page's bundle from the mutated copy first.
  return e2e.length === 0 || npx(["vitest", "run", "--config", "vitest.e2e.config.ts", ...e2e]);
}

try {
  for (const mutation of chosen) {
    const path = join(copy, mutation.file);
    const original = readFileSync(path, "utf8");
    const count = original.split(mutation.find).length - 1;
    if (count !== 1) {
      results.push({ mutation, outcome: "NOT APPLIED" });
      console.log(`NOT APPLIED  ${mutation.claim} (${mutation.file}: the text occurs ${count} times)`);
      continue;
    }
    try {
      writeFileSync(path, original.replace(mutation.find, mutation.replace));
      const green = await runTests(mutation.tests);
      results.push({ mutation, outcome: green ? "SURVIVED" : "killed" });
      console.log(`${green ? "SURVIVED   " : "killed     "}  ${mutation.claim}`);
    } finally {
      writeFileSync(path, original);
    }
  }
} finally {
  removeCopy(copy);
}

/** One round of reading the docs for rules (test/mutations.json `rounds`): what was read, how many rules, how many tests it added. */
interface Round {
  date: string;
  read: string;
  rules_checked: number;
  already_held: number;
  tests_added: number;
}

const rounds = (JSON.parse(readFileSync("test/mutations.json", "utf8")) as { rounds?: Round[] }).rounds ?? [];
const row = (m: Mutation, outcome: string) =>
  `| ${m.claim} | \`${m.file}\`: ${JSON.stringify(m.find).slice(1, -1).replaceAll("|", "\\|").slice(0, 80)} → ${JSON.stringify(m.replace).slice(1, -1).replaceAll("|", "\\|").slice(0, 60)} | ${m.tests.map((t) => `\`${t}\``).join(", ")} | ${outcome} |`;
/** Outcomes of the last run of each claim, as docs/MUTATIONS.md shows them: a filtered run updates only its own rows. */
const earlier = new Map<string, string>();
for (const line of readFileSync("docs/MUTATIONS.md", "utf8").split("\n")) {
  const cells = /^\| (.+?) \| `[^`]+`: .* \| ([A-Za-z ]+) \|$/.exec(line);
  if (cells) earlier.set(cells[1]!, cells[2]!);
}
const now = new Map(results.map(({ mutation, outcome }) => [mutation.claim, outcome]));
const outcomeOf = (m: Mutation) => now.get(m.claim) ?? earlier.get(m.claim) ?? "not run yet";
/** A row's area: the folder of the file it breaks, two levels deep (src/gateway/, durable-objects/live/), or the file. */
const areaOf = (m: Mutation) => {
  const folders = m.file.split("/").slice(0, -1).slice(0, 2);
  return folders.length === 0 ? m.file : `${folders.join("/")}/`;
};
const areas = new Map<string, { rows: number; killed: number }>();
for (const m of mutations) {
  const area = areas.get(areaOf(m)) ?? { rows: 0, killed: 0 };
  area.rows += 1;
  if (outcomeOf(m) === "killed") area.killed += 1;
  areas.set(areaOf(m), area);
}
const killed = mutations.filter((m) => outcomeOf(m) === "killed").length;
const table = [
  "# Mutations",
  "",
  "<!-- Written by `npm run mutate` from test/mutations.json; do not edit. -->",
  "",
  "Each row breaks the code on purpose and names the test that must go red. A row that survives is a claim no test guards.",
  "A run with a filter updates the rows it ran; the others keep the outcome of their last run.",
  "",
  `**${mutations.length} rows, ${killed} killed** by their last run; ${mutations.length - killed} survived, were not ` +
    "applied or have not run. Run them all with `npm run mutate`, or the rows whose claim or file holds a word with " +
    "`npm run mutate -- <word>…` (each runs in a copy of the tree; this file is the only one written). A new row goes " +
    "in test/mutations.json: the claim, the file, the text to find and what to put there, and the tests that must fail.",
  "",
  "| area | rows | killed |",
  "|---|---|---|",
  ...[...areas].sort(([a], [b]) => a.localeCompare(b)).map(([area, n]) => `| \`${area}\` | ${n.rows} | ${n.killed} |`),
  "",
  "## Rows",
  "",
  "| claim | mutation | tests | outcome |",
  "|---|---|---|---|",
  ...mutations.map((m) => row(m, outcomeOf(m))),
  ...(rounds.length === 0
    ? []
    : [
        "",
        "## Rounds",
        "",
        "Each round looked for rules (a limit, an order, a time or a refusal), broke each one in a copy and named the test that goes red; a rule no test held got one.",
        "",
        "| date | read | rules checked | already held by a test | tests added |",
        "|---|---|---|---|---|",
        ...rounds.map((r) => `| ${r.date} | ${r.read} | ${r.rules_checked} | ${r.already_held} | ${r.tests_added} |`),
      ]),
];
writeFileSync("docs/MUTATIONS.md", `${table.join("\n")}\n`);
const bad = results.filter((r) => r.outcome !== "killed");
console.log(`${results.length - bad.length} killed, ${bad.length} survived or not applied`);
if (bad.length > 0) process.exitCode = 1;
