/**
 * What docs/ARCHITECTURE.md says the Worker is made of, checked against what it is made of:
 * wrangler.toml's bindings and package.json's dependencies. Run by `npm run docs -- --check` beside
 * the code map's check (scripts/code-map.ts). Pure: it reads texts, so a test can feed it a page
 * as it once was and see what it would have caught.
 *
 * - every binding of wrangler.toml (its top level; the environments repeat them) is named on the
 *   page, and every Durable Object class and every database, bucket, namespace or queue binding in
 *   its diagram;
 * - the page never says "no database" (or no D1, KV, R2, queue) while one is bound;
 * - a binding the page's opening or diagram names in capitals is bound;
 * - every runtime dependency is named on the page, and its "Lean Worker" line names no package
 *   that is not one (a library the Worker dropped, or one only the tests use): what it puts in
 *   backticks is a package, or a package's entry (`zod/mini`);
 * - a scoped package (`@scope/name`) that any doc names is installed (package-lock.json), or is
 *   the wallet's SDK, which the service speaks to and never imports.
 */

export interface ProjectTexts {
  architecture: string;
  wranglerToml: string;
  packageJson: string;
  packageLock: string;
  /** Every other doc, by path (README.md, docs/*.md). */
  docs: Record<string, string>;
}

const PAGE = "docs/ARCHITECTURE.md";
/** Packages the docs name as other people's software: the wallet app's SDK. */
const NOT_OURS = new Set(["@hopenetwork/wallet"]);

/** Kinds of binding that store data, as wrangler.toml's tables name them and as prose does. */
const STORES: { table: string; words: RegExp; none: RegExp }[] = [
  { table: "d1_databases", words: /\bD1\b/, none: /\bno (database|D1)\b/i },
  { table: "kv_namespaces", words: /\bKV\b/, none: /\bno KV\b/i },
  { table: "r2_buckets", words: /\bR2\b/, none: /\bno R2\b/i },
  { table: "queues.producers", words: /\b[Qq]ueue\b/, none: /\bno queues?\b/i },
];

interface Binding {
  name: string;
  table: string;
  className?: string;
}

/** The top-level bindings of wrangler.toml: the table each sits in, its name, and a Durable Object's class. */
export function wranglerBindings(toml: string): Binding[] {
  const topLevel = toml.split(/^\[env\./m)[0]!;
  const bindings: Binding[] = [];
  let table = "";
  let current: Binding | null = null;
  for (const line of topLevel.split("\n")) {
    const header = /^\[\[?([a-z0-9_.]+)\]\]?\s*$/.exec(line.trim());
    if (header) {
      table = header[1]!;
      current = null;
      continue;
    }
    const field = /^(binding|name|class_name)\s*=\s*"([^"]+)"/.exec(line.trim());
    if (!field) continue;
    if (field[1] === "class_name") {
      if (current) current.className = field[2];
    } else if (/^[A-Z][A-Z0-9_]*$/.test(field[2]!) && table !== "migrations") {
      current = { name: field[2]!, table };
      bindings.push(current);
    }
  }
  return bindings;
}

/** What the page says that is not so, one sentence each; empty when it is true. */
export function architectureProblems(texts: ProjectTexts): string[] {
  const problems: string[] = [];
  const page = texts.architecture;
  const diagram = /```mermaid\n([\s\S]*?)```/.exec(page)?.[1] ?? "";
  const opening = page.slice(0, page.indexOf("\n## "));
  const bindings = wranglerBindings(texts.wranglerToml);
  const bound = new Set(bindings.map((b) => b.name));

  for (const binding of bindings) {
    if (!new RegExp(`\\b${binding.name}\\b`).test(page) && !(binding.className && page.includes(binding.className)))
      problems.push(`${PAGE} does not name the binding ${binding.name} (wrangler.toml's [${binding.table}])`);
    const store = STORES.find((s) => s.table === binding.table);
    const inDiagram = binding.className ?? binding.name;
    if ((binding.className || store) && !diagram.includes(inDiagram))
      problems.push(`${PAGE}'s diagram does not show ${inDiagram} (wrangler.toml binds it)`);
  }
  for (const store of STORES) {
    const isBound = bindings.some((b) => b.table === store.table);
    const denial = store.none.exec(page);
    if (isBound && denial) problems.push(`${PAGE} says "${denial[0]}", but wrangler.toml has [[${store.table}]]`);
    if (!isBound && store.words.test(diagram))
      problems.push(
        `${PAGE}'s diagram shows ${store.words.source.replaceAll("\\b", "")}, which wrangler.toml does not bind`,
      );
  }
  const named = new Set([...`${opening}\n${diagram}`.matchAll(/`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)`|D1: ([A-Z_]+)/g)]);
  for (const match of named) {
    const name = match[1] ?? match[2]!;
    if (!bound.has(name)) problems.push(`${PAGE} names the binding ${name}, which wrangler.toml does not have`);
  }

  const manifest = JSON.parse(texts.packageJson) as {
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };
  const runtime = Object.keys(manifest.dependencies ?? {});
  const every = new Set([...runtime, ...Object.keys(manifest.devDependencies ?? {})]);
  for (const name of runtime)
    if (!page.includes(`\`${name}`)) problems.push(`${PAGE} does not name the dependency ${name} (package.json)`);
  const lean = /\*\*Lean Worker\*\*([\s\S]*?)(?:\n- \*\*|\n## )/.exec(page)?.[1] ?? "";
  for (const [, name] of lean.matchAll(/`((?:@[a-z0-9-]+\/)?[a-z0-9][a-z0-9._-]*)(?:\/[a-z]+)?`/g))
    if (!runtime.includes(name!))
      problems.push(`${PAGE}'s "Lean Worker" names ${name}, which is not a dependency of the Worker (package.json)`);
  const installed = JSON.parse(texts.packageLock) as { packages: Record<string, unknown> };
  const known = (name: string) => every.has(name) || NOT_OURS.has(name) || `node_modules/${name}` in installed.packages;
  for (const [path, text] of Object.entries({ [PAGE]: page, ...texts.docs }))
    for (const [, name] of text.matchAll(/`(@[a-z0-9-]+\/[a-z0-9._-]+)/g))
      if (!known(name!)) problems.push(`${path} names the package ${name}, which is not installed (package-lock.json)`);
  return [...new Set(problems)];
}
