/**
 * `npm run mutate [-- <filter>]`: breaks the code on purpose, one mutation at a time, and checks
 * that the test named for it goes red. Each mutation of test/mutations.json names the claim it
 * guards (a SECURITY.md claim or a README rule), a unique piece of source text and what to put
 * in its place, and the test file(s) that must fail. The source is always restored.
 * Writes the outcome to docs/MUTATIONS.md; exits 1 if any mutation survived.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";

interface Mutation {
  claim: string;
  file: string;
  find: string;
  replace: string;
  tests: string[];
}

const mutations = (JSON.parse(readFileSync("test/mutations.json", "utf8")) as { mutations: Mutation[] }).mutations;
const filter = process.argv[2];
const chosen = filter ? mutations.filter((m) => m.claim.includes(filter) || m.file.includes(filter)) : mutations;
const results: { mutation: Mutation; outcome: "killed" | "SURVIVED" | "NOT APPLIED" }[] = [];

let restore: (() => void) | null = null;
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => (restore?.(), process.exit(130)));

function runTests(tests: string[]): boolean {
  const e2e = tests.filter((t) => t.startsWith("test/e2e/"));
  const runtime = tests.filter((t) => !t.startsWith("test/e2e/"));
  const runs = [
    ...(runtime.length ? [["vitest", "run", ...runtime]] : []),
    ...(e2e.length ? [["vitest", "run", "--config", "vitest.e2e.config.ts", ...e2e]] : []),
  ];
  return runs.every((args) => spawnSync("npx", args, { stdio: "ignore", env: process.env }).status === 0);
}

for (const mutation of chosen) {
  const original = readFileSync(mutation.file, "utf8");
  const count = original.split(mutation.find).length - 1;
  if (count !== 1) {
    results.push({ mutation, outcome: "NOT APPLIED" });
    console.log(`NOT APPLIED  ${mutation.claim} (${mutation.file}: the text occurs ${count} times)`);
    continue;
  }
  restore = () => writeFileSync(mutation.file, original);
  try {
    writeFileSync(mutation.file, original.replace(mutation.find, mutation.replace));
    const green = runTests(mutation.tests);
    results.push({ mutation, outcome: green ? "SURVIVED" : "killed" });
    console.log(`${green ? "SURVIVED   " : "killed     "}  ${mutation.claim}`);
  } finally {
    restore();
    restore = null;
  }
}

const table = [
  "# Mutations",
  "",
  "<!-- Written by `npm run mutate` from test/mutations.json; do not edit. -->",
  "",
  "Each row breaks the code on purpose and names the test that must go red. A row that survives is a claim no test guards.",
  "",
  "| claim | mutation | tests | outcome |",
  "|---|---|---|---|",
  ...results.map(({ mutation: m, outcome }) =>
    `| ${m.claim} | \`${m.file}\`: ${JSON.stringify(m.find).slice(1, -1).replaceAll("|", "\\|").slice(0, 80)} → ${JSON.stringify(m.replace).slice(1, -1).replaceAll("|", "\\|").slice(0, 60)} | ${m.tests.map((t) => `\`${t}\``).join(", ")} | ${outcome} |`,
  ),
];
if (!filter) writeFileSync("docs/MUTATIONS.md", `${table.join("\n")}\n`);
const bad = results.filter((r) => r.outcome !== "killed");
console.log(`${results.length - bad.length} killed, ${bad.length} survived or not applied`);
if (bad.length > 0) process.exitCode = 1;
