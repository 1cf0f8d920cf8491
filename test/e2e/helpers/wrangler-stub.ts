/**
 * A stand-in for wrangler and the Cloudflare account behind it, for the deploy's tests: put first on
 * PATH (`stubAccount`), it answers the commands `npm run deploy` and the guide use the way wrangler
 * 4 does (its JSON, its errors, its URL lines), keeps the account (D1 databases, migrations applied,
 * Workers with their secrets and deployments) in a JSON file, and logs every call with its stdin.
 * Run as a program, it is that wrangler; imported, it makes an account and reads it back.
 */
import { randomUUID } from "node:crypto";
import { appendFileSync, chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isatty } from "node:tty";
import { fileURLToPath } from "node:url";
import { parse } from "smol-toml";

/** The account as the stub keeps it. */
export interface StubAccount {
  loggedIn: boolean;
  email: string;
  accounts: { name: string; id: string }[];
  /** The account's workers.dev subdomain (`<worker>.<subdomain>.workers.dev`); empty until one is registered. */
  subdomain: string;
  databases: { uuid: string; name: string }[];
  /** Migration files applied, by database id. */
  migrations: Record<string, string[]>;
  /** Workers by name: their secrets' values and how many times each was deployed. */
  workers: Record<string, { secrets: Record<string, string>; deploys: number }>;
  /** The next `wrangler deploy` fails (an upload refused). */
  failDeploy?: boolean;
}

/** One call of the stub: its arguments and what it read on stdin. */
export interface StubCall {
  args: string[];
  stdin: string;
}

const SELF = fileURLToPath(import.meta.url);

/** A new empty account in `folder` and the `bin` folder holding its `wrangler` (and an `npx` that runs from PATH). */
export function stubAccount(folder: string, account: Partial<StubAccount> = {}) {
  const bin = join(folder, "bin");
  mkdirSync(bin, { recursive: true });
  const state = join(folder, "account.json");
  const calls = join(folder, "calls.jsonl");
  writeFileSync(
    state,
    JSON.stringify({
      loggedIn: true,
      email: "host@example.net",
      accounts: [{ name: "Host", id: "0123456789abcdef0123456789abcdef" }],
      subdomain: "host-example",
      databases: [],
      migrations: {},
      workers: {},
      ...account,
    } satisfies StubAccount),
  );
  writeFileSync(calls, "");
  const shim = (file: string, body: string) => {
    writeFileSync(join(bin, file), `#!/bin/sh\n${body}\n`);
    chmodSync(join(bin, file), 0o755);
  };
  shim("wrangler", `STUB_ACCOUNT='${folder}' exec '${process.execPath}' '${SELF}' "$@"`);
  // The guide's `npx wrangler …` reaches the account's wrangler, as npx reaches the project's.
  shim("npx", 'exec "$@"');
  return {
    bin,
    read: (): StubAccount => JSON.parse(readFileSync(state, "utf8")),
    write: (change: Partial<StubAccount>) =>
      writeFileSync(state, JSON.stringify({ ...JSON.parse(readFileSync(state, "utf8")), ...change })),
    calls: (): StubCall[] =>
      readFileSync(calls, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line)),
  };
}

type Table = Record<string, unknown>;

/** The stub as wrangler: one command against the account in $STUB_ACCOUNT, configuration from ./wrangler.toml. */
function wrangler(args: string[]): number {
  const folder = process.env.STUB_ACCOUNT!;
  // isatty, not process.stdin.isTTY: opening process.stdin makes fd 0 non-blocking, and a read before the deploy
  // has written (a loaded machine) then fails with EAGAIN, which ended the stub with exit 1.
  const stdin = isatty(0) ? "" : readFileSync(0, "utf8");
  appendFileSync(join(folder, "calls.jsonl"), `${JSON.stringify({ args, stdin } satisfies StubCall)}\n`);
  const statePath = join(folder, "account.json");
  const account: StubAccount = JSON.parse(readFileSync(statePath, "utf8"));
  const save = () => writeFileSync(statePath, JSON.stringify(account, null, 2));
  const flag = (name: string) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const positional = args.filter((a, i) => !a.startsWith("--") && !args[i - 1]?.match(/^--(env|format)$/));
  const fail = (message: string) => {
    process.stderr.write(`✘ [ERROR] ${message}\n`);
    return 1;
  };
  const config = parse(readFileSync("wrangler.toml", "utf8")) as Table;
  const envName = flag("env");
  const env = (envName === undefined ? config : (config.env as Table)[envName]) as Table | undefined;
  if (env === undefined) return fail(`No environment found in configuration with name "${envName}".`);
  const workerName = envName === undefined ? String(config.name) : String(env.name ?? `${config.name}-${envName}`);
  const databases = (env.d1_databases ?? []) as Table[];
  const command = positional.slice(0, 3).join(" ");

  if (command.startsWith("login")) {
    account.loggedIn = true;
    save();
    console.log("Successfully logged in.");
    return 0;
  }
  if (!account.loggedIn) {
    if (args.includes("--json")) console.log(JSON.stringify({ loggedIn: false }));
    return fail("Not logged in. Run `wrangler login` first.");
  }
  if (command.startsWith("whoami")) {
    console.log(
      JSON.stringify({ loggedIn: true, authType: "OAuth Token", email: account.email, accounts: account.accounts }),
    );
    return 0;
  }
  if (command === "d1 list") {
    console.log(
      JSON.stringify(
        account.databases.map((d) => ({ ...d, created_at: "2026-11-28T00:00:00Z", version: "production" })),
      ),
    );
    return 0;
  }
  if (command.startsWith("d1 create")) {
    const name = positional[2]!;
    if (account.databases.some((d) => d.name === name))
      return fail(`A database with that name already exists [code: 7502]`);
    const uuid = randomUUID();
    account.databases.push({ uuid, name });
    save();
    console.log(`✅ Successfully created DB '${name}' in region WEUR\nCreated your new D1 database.\n`);
    console.log(`[[d1_databases]]\nbinding = "DB"\ndatabase_name = "${name}"\ndatabase_id = "${uuid}"`);
    return 0;
  }
  if (command === "d1 migrations apply") {
    const target = positional[3];
    const db = databases.find((d) => d.binding === target || d.database_name === target);
    const found = account.databases.find((d) => d.uuid === db?.database_id);
    if (!db || !found)
      return fail(`Couldn't find a D1 DB with the name or binding '${target}' in your wrangler.toml file.`);
    const files = readdirSync(String(db.migrations_dir))
      .filter((f) => f.endsWith(".sql"))
      .sort();
    const applied = account.migrations[found.uuid] ?? [];
    const pending = files.filter((f) => !applied.includes(f));
    account.migrations[found.uuid] = [...applied, ...pending];
    save();
    console.log(pending.length === 0 ? "✅ No migrations to apply!" : pending.map((f) => `${f} ✅`).join("\n"));
    return 0;
  }
  if (command === "secret list") {
    const worker = account.workers[workerName];
    if (!worker) return fail(`Worker "${workerName}"${envName ? ` (env: ${envName})` : ""} not found.`);
    console.log(JSON.stringify(Object.keys(worker.secrets).map((name) => ({ name, type: "secret_text" }))));
    return 0;
  }
  if (command.startsWith("secret put")) {
    account.workers[workerName] ??= { secrets: {}, deploys: 0 };
    account.workers[workerName].secrets[positional[2]!] = stdin.trimEnd();
    save();
    console.log(`✨ Success! Uploaded secret ${positional[2]}`);
    return 0;
  }
  if (command === "deploy") {
    for (const db of databases)
      if (!account.databases.some((d) => d.uuid === db.database_id))
        return fail(`binding ${db.binding} of type d1 must have a valid \`id\` specified [code: 10021]`);
    if (account.failDeploy) return fail("A request to the Cloudflare API failed. [code: 10000]");
    const routes = (env.routes ?? []) as { pattern: string; custom_domain?: boolean }[];
    // wrangler's rule: the workers.dev host serves when workers_dev says so, by default only without routes.
    const workersDev = env.workers_dev ?? routes.length === 0;
    if (workersDev && !account.subdomain) {
      // What wrangler does when stdout is not a terminal: it does not ask to register one.
      process.stderr.write(
        "▲ [WARNING] You need to register a workers.dev subdomain before publishing to workers.dev\n",
      );
      return fail(
        "You can either deploy your worker to one or more routes by specifying them in your wrangler.toml file, " +
          "or register a workers.dev subdomain here:\n" +
          `https://dash.cloudflare.com/${account.accounts[0]!.id}/workers/onboarding`,
      );
    }
    account.workers[workerName] ??= { secrets: {}, deploys: 0 };
    account.workers[workerName].deploys++;
    save();
    console.log(`Uploaded ${workerName} (1.00 sec)\nDeployed ${workerName} triggers (0.50 sec)`);
    if (workersDev) console.log(`  https://${workerName}.${account.subdomain}.workers.dev`);
    for (const route of routes)
      console.log(`  ${route.pattern}${route.custom_domain ? " (custom domain - zone name: example.net)" : ""}`);
    console.log(`Current Version ID: ${randomUUID()}`);
    return 0;
  }
  return fail(`the stub does not know \`wrangler ${args.join(" ")}\``);
}

if (process.argv[1] === SELF && existsSync(process.env.STUB_ACCOUNT ?? ""))
  process.exitCode = wrangler(process.argv.slice(2));
