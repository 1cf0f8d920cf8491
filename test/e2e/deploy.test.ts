/**
 * `npm run deploy` as a new host runs it: a fresh copy of the project (what the deploy reads and
 * writes) in a folder of its own, and a stub `wrangler` first on PATH standing in for the account
 * (helpers/wrangler-stub.ts), which keeps its databases, migrations, Workers and secrets and logs
 * every call. Then docs/HOSTS.md's deploy steps, run as written against a new account.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import { type StubAccount, stubAccount } from "./helpers/wrangler-stub.ts";

const PLACEHOLDER = "00000000-0000-0000-0000-000000000000";
const MIGRATIONS = readdirSync("migrations").filter((f) => f.endsWith(".sql"));
/** Commands that change an account; everything else the deploy runs only reads it. */
const CHANGES = /^(d1 create|d1 migrations apply|secret put|secret delete|secret bulk|deploy|login)/;

/**
 * A fresh copy of what the deploy reads and writes, outside the repository (so no parent's node_modules/.bin puts
 * the real wrangler before the stub), and a new account.
 */
function newHost(account: Partial<StubAccount> = {}) {
  const folder = mkdtempSync(join(tmpdir(), "chain-edge-deploy-"));
  const clone = join(folder, "clone");
  for (const path of ["package.json", "wrangler.toml", "migrations", "scripts/deploy.ts", "scripts/deploy"])
    cpSync(path, join(clone, path), { recursive: true });
  mkdirSync(join(clone, "node_modules"));
  symlinkSync(resolve("node_modules/smol-toml"), join(clone, "node_modules/smol-toml"));
  const stub = stubAccount(join(folder, "account"), account);
  // The stub first; then the Node that runs this test (22, which runs scripts/deploy.ts), for npm and the scripts.
  const PATH = `${stub.bin}:${dirname(process.execPath)}:${process.env.PATH}`;
  const run = (command: string, args: string[]) => {
    const done = spawnSync(command, args, { cwd: clone, env: { ...process.env, PATH }, encoding: "utf8" });
    return { status: done.status, stdout: done.stdout, stderr: done.stderr };
  };
  return {
    ...stub,
    clone,
    /** `npm run deploy -- …`, exactly as a host types it. */
    npm: (...args: string[]) => run("npm", ["run", "--silent", "deploy", "--", ...args]),
    /** What `npm run deploy` runs (package.json says so), without npm's start-up. */
    deploy: (...args: string[]) => run(process.execPath, ["scripts/deploy.ts", ...args]),
    bash: (code: string) => run("bash", ["-euo", "pipefail", "-c", code]),
    config: () => readFileSync(join(clone, "wrangler.toml"), "utf8"),
    /** The host's own edit of its wrangler.toml: `from` (which must be there) becomes `to`. */
    edit: (from: string, to: string) => {
      const config = readFileSync(join(clone, "wrangler.toml"), "utf8");
      if (!config.includes(from)) throw new Error(`wrangler.toml has no ${from}`);
      writeFileSync(join(clone, "wrangler.toml"), config.replace(from, to));
    },
    changes: () =>
      stub
        .calls()
        .map((c) => c.args.join(" "))
        .filter((c) => CHANGES.test(c)),
  };
}

/** A run that must succeed; when it does not, the failure shows what it printed. */
function expectDone(run: { status: number | null; stdout: string; stderr: string }) {
  expect(run.status, `exit ${run.status}\n${run.stdout}\n${run.stderr}`).toBe(0);
}

const databaseIdOf = (config: string, env?: string) => {
  const toml = parse(config) as { d1_databases: { database_id: string }[]; env: Record<string, typeof toml> };
  return (env ? toml.env[env]! : toml).d1_databases[0]!.database_id;
};

describe("npm run deploy", () => {
  it("is scripts/deploy.ts, so running that file is running the command", () => {
    expect(JSON.parse(readFileSync("package.json", "utf8")).scripts.deploy).toBe("node scripts/deploy.ts");
  });

  it("without --env refuses, naming the environments, and asks the account nothing", () => {
    const host = newHost();
    const run = host.npm();
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain("npm run deploy needs --env <environment>");
    expect(run.stderr).toContain("testnet, fork");
    expect(run.stderr).toContain("never deployed");
    expect(host.calls()).toEqual([]);
  });

  it.each([["local"], ["staging"]])("refuses --env %s, naming the environments", (env) => {
    const host = newHost();
    const run = host.deploy("--env", env);
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain(`--env ${env} is not one of wrangler.toml's environments: testnet, fork`);
    expect(host.calls()).toEqual([]);
  });

  it("takes an empty account to a running testnet: one database, its migrations, three secrets, one deploy", () => {
    const host = newHost();
    const run = host.npm("--env", "testnet");
    expect(run.stderr).toBe("");
    expectDone(run);

    const account = host.read();
    expect(account.databases).toHaveLength(1);
    const [db] = account.databases;
    expect(db!.name).toBe("chain-edge-onboardings-testnet");
    expect(account.migrations[db!.uuid]).toEqual(MIGRATIONS);
    // The id is written into the testnet environment only: the local profile and the fork keep the placeholder.
    expect(databaseIdOf(host.config(), "testnet")).toBe(db!.uuid);
    expect(databaseIdOf(host.config())).toBe(PLACEHOLDER);
    expect(databaseIdOf(host.config(), "fork")).toBe(PLACEHOLDER);
    expect(host.config().replace(db!.uuid, PLACEHOLDER)).toBe(readFileSync("wrangler.toml", "utf8"));

    const worker = account.workers["chain-edge-testnet"]!;
    expect(Object.keys(worker.secrets).sort()).toEqual(["HOST_API_KEYS", "HOST_WEBHOOK_SECRET", "SESSION_SIGNING_KEY"]);
    const { SESSION_SIGNING_KEY: signing, HOST_WEBHOOK_SECRET: webhook, HOST_API_KEYS: key } = worker.secrets;
    expect(Buffer.from(signing!, "hex")).toHaveLength(32);
    expect(signing).toMatch(/^[0-9a-f]{64}$/);
    expect(webhook).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(webhook!.slice("whsec_".length), "base64")).toHaveLength(32);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(worker.deploys).toBe(1);

    expect(host.changes()).toEqual([
      "d1 create chain-edge-onboardings-testnet",
      "d1 migrations apply ONBOARDING_INDEX --remote --env testnet",
      "secret put SESSION_SIGNING_KEY --env testnet",
      "secret put HOST_WEBHOOK_SECRET --env testnet",
      "secret put HOST_API_KEYS --env testnet",
      "deploy --env testnet",
    ]);
    // Secrets travel on stdin only, and only the host key is ever printed: once.
    for (const value of [signing!, webhook!, key!]) expect(host.calls().flatMap((c) => c.args)).not.toContain(value);
    expect(run.stdout).not.toContain(signing);
    expect(run.stdout).not.toContain(webhook!.slice("whsec_".length));
    expect(run.stdout.split(key!)).toHaveLength(2);

    expect(run.stdout).toContain("page:       https://chain-edge-testnet.host-example.workers.dev/\n");
    expect(run.stdout).toContain("dashboard:  https://chain-edge-testnet.host-example.workers.dev/dashboard/\n");
    for (const left of [
      "Access",
      "A custom domain",
      "workers_dev",
      "RPC_UPSTREAM_URLS",
      "UPSTREAM_AUTH_HEADER --env testnet",
    ])
      expect(run.stdout.slice(run.stdout.indexOf("Left to do by hand"))).toContain(left);
  });

  it("run again, creates no database and sets no secret: it applies what is new and deploys", () => {
    const host = newHost();
    expectDone(host.deploy("--env", "testnet"));
    const before = host.read();
    const config = host.config();
    const calls = host.calls().length;

    const again = host.deploy("--env", "testnet");
    expectDone(again);
    expect(
      host
        .calls()
        .slice(calls)
        .filter((c) => CHANGES.test(c.args.join(" "))),
    ).toEqual([
      { args: ["d1", "migrations", "apply", "ONBOARDING_INDEX", "--remote", "--env", "testnet"], stdin: "" },
      { args: ["deploy", "--env", "testnet"], stdin: "" },
    ]);
    const after = host.read();
    expect(after.databases).toEqual(before.databases);
    expect(after.workers["chain-edge-testnet"]!.secrets).toEqual(before.workers["chain-edge-testnet"]!.secrets);
    expect(after.workers["chain-edge-testnet"]!.deploys).toBe(2);
    expect(host.config()).toBe(config);
    expect(again.stdout).not.toContain(before.workers["chain-edge-testnet"]!.secrets.HOST_API_KEYS);
    expect(again.stdout).toContain("Secret HOST_API_KEYS is set on chain-edge-testnet: left as it is.");
  });

  it("makes different secrets on each new account", () => {
    const secrets = [newHost(), newHost()].map((host) => {
      expectDone(host.deploy("--env", "testnet"));
      return host.read().workers["chain-edge-testnet"]!.secrets;
    });
    for (const name of ["SESSION_SIGNING_KEY", "HOST_WEBHOOK_SECRET", "HOST_API_KEYS"])
      expect(secrets[0]![name]).not.toBe(secrets[1]![name]);
  });

  it("--dry-run reads the account and prints each change, running none and writing nothing", () => {
    const host = newHost();
    const dry = host.deploy("--env", "testnet", "--dry-run");
    expectDone(dry);
    expect(host.changes()).toEqual([]);
    expect(host.calls().map((c) => c.args.join(" "))).toEqual([
      "whoami --json",
      "d1 list --json",
      "secret list --env testnet --format json",
    ]);
    expect(host.config()).toBe(readFileSync("wrangler.toml", "utf8"));
    for (const change of [
      "would run: wrangler d1 create chain-edge-onboardings-testnet",
      "would run: wrangler d1 migrations apply ONBOARDING_INDEX --remote --env testnet",
      "would run: wrangler secret put SESSION_SIGNING_KEY --env testnet",
      "would run: wrangler secret put HOST_WEBHOOK_SECRET --env testnet",
      "would run: wrangler secret put HOST_API_KEYS --env testnet",
      "would run: wrangler deploy --env testnet",
    ])
      expect(dry.stdout).toContain(change);

    // On the account a run made, it would create nothing and set nothing.
    expectDone(host.deploy("--env", "testnet"));
    const calls = host.calls().length;
    const second = host.deploy("--env", "testnet", "--dry-run");
    expect(
      host
        .calls()
        .slice(calls)
        .filter((c) => CHANGES.test(c.args.join(" "))),
    ).toEqual([]);
    expect(second.stdout).not.toContain("would run: wrangler d1 create");
    expect(second.stdout).not.toContain("would run: wrangler secret put");
  });

  it("stops before changing anything when not logged in, and names the login", () => {
    const host = newHost({ loggedIn: false });
    const run = host.deploy("--env", "testnet");
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain("npx wrangler login");
    expect(host.changes()).toEqual([]);
  });

  it("asks which account when the login reaches several, unless CLOUDFLARE_ACCOUNT_ID names one", () => {
    const accounts = [
      { name: "One", id: "1".repeat(32) },
      { name: "Two", id: "2".repeat(32) },
    ];
    const host = newHost({ accounts });
    const run = host.deploy("--env", "testnet");
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain(`CLOUDFLARE_ACCOUNT_ID=${"1".repeat(32)} npm run deploy -- --env testnet`);
    expect(host.changes()).toEqual([]);
    const other = host.bash(`CLOUDFLARE_ACCOUNT_ID=${"3".repeat(32)} node scripts/deploy.ts --env testnet`);
    expect(other.status).not.toBe(0);
    expect(other.stderr).toContain(`Account ${"3".repeat(32)} is not one this login reaches`);
    expect(host.changes()).toEqual([]);
    const named = host.bash(`CLOUDFLARE_ACCOUNT_ID=${"2".repeat(32)} node scripts/deploy.ts --env testnet`);
    expectDone(named);
    expect(named.stdout).toContain(`account Two (${"2".repeat(32)})`);
  });

  it("uses the database an interrupted run created rather than a second one", () => {
    const host = newHost({
      databases: [{ uuid: "5b3f0d5e-0000-4000-8000-000000000001", name: "chain-edge-onboardings-testnet" }],
    });
    expectDone(host.deploy("--env", "testnet"));
    expect(host.read().databases).toHaveLength(1);
    expect(databaseIdOf(host.config(), "testnet")).toBe("5b3f0d5e-0000-4000-8000-000000000001");
    expect(host.changes()).not.toContain("d1 create chain-edge-onboardings-testnet");
  });

  it("refuses a database id this account does not have", () => {
    const host = newHost();
    host.edit(
      `database_name = "chain-edge-onboardings-testnet"\ndatabase_id = "${PLACEHOLDER}"`,
      `database_name = "chain-edge-onboardings-testnet"\ndatabase_id = "9e1a0000-0000-4000-8000-00000000abcd"`,
    );
    const run = host.deploy("--env", "testnet");
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain("database_id 9e1a0000-0000-4000-8000-00000000abcd, which this account does not have");
    expect(host.changes()).toEqual([]);
  });

  it("names the custom domain as the page's address once the environment has one", () => {
    const host = newHost();
    host.edit(
      '# routes = [{ pattern = "edge-testnet.example.net", custom_domain = true }]',
      'routes = [{ pattern = "edge.testnet-host.io", custom_domain = true }]',
    );
    const run = host.deploy("--env", "testnet");
    expectDone(run);
    expect(run.stdout).toContain("page:       https://edge.testnet-host.io/\n");
    expect(run.stdout).toContain("dashboard:  https://edge.testnet-host.io/dashboard/\n");
    expect(run.stdout).not.toContain("workers.dev/");
    const left = (out: string) => out.slice(out.indexOf("Left to do by hand"));
    expect(left(run.stdout)).not.toContain("A custom domain");
    expect(left(run.stdout)).not.toContain("workers_dev");

    // workers_dev = true keeps the workers.dev host beside the domain, and the deploy says how to end it.
    host.edit("[env.testnet]\n", "[env.testnet]\nworkers_dev = true\n");
    const both = host.deploy("--env", "testnet");
    expect(both.stdout).toContain("workers.dev: https://chain-edge-testnet.host-example.workers.dev/\n");
    expect(left(both.stdout)).toContain("workers_dev = true under [env.testnet] keeps");
  });

  it("on an account without a workers.dev subdomain, says to register one, and the next run only deploys", () => {
    const host = newHost({ subdomain: "" });
    const first = host.deploy("--env", "testnet");
    expect(first.status).not.toBe(0);
    expect(first.stderr).toContain("This account has no workers.dev subdomain yet: register one at the link above");
    const key = host.read().workers["chain-edge-testnet"]!.secrets.HOST_API_KEYS!;
    expect(first.stdout).toContain(key);

    host.write({ subdomain: "registered" });
    const calls = host.calls().length;
    const second = host.deploy("--env", "testnet");
    expectDone(second);
    expect(second.stdout).toContain("page:       https://chain-edge-testnet.registered.workers.dev/\n");
    expect(second.stdout).not.toContain(key);
    expect(
      host
        .calls()
        .slice(calls)
        .map((c) => c.args.join(" "))
        .filter((c) => CHANGES.test(c)),
    ).toEqual(["d1 migrations apply ONBOARDING_INDEX --remote --env testnet", "deploy --env testnet"]);
  });

  it("shows the new host API key even when the deploy after it fails", () => {
    const host = newHost({ failDeploy: true });
    const run = host.deploy("--env", "testnet");
    expect(run.status).not.toBe(0);
    const key = host.read().workers["chain-edge-testnet"]!.secrets.HOST_API_KEYS!;
    expect(run.stdout).toContain(key);
    expect(run.stderr).toContain("`wrangler deploy --env testnet` failed");
  });
});

describe("docs/HOSTS.md's deploy steps", () => {
  const guide = readFileSync("docs/HOSTS.md", "utf8");
  const steps = /<!-- runnable: deploy -->\n```sh\n([\s\S]*?)\n```/.exec(guide)?.[1];

  it("come first in the guide and in the README's deploy section", () => {
    expect(steps).toBeDefined();
    expect(guide.indexOf("<!-- runnable: deploy -->")).toBeLessThan(guide.indexOf("\n## ", guide.indexOf("\n## ") + 1));
    const readme = readFileSync("README.md", "utf8");
    const section = readme.slice(readme.indexOf("## Deploy"), readme.indexOf("\n## ", readme.indexOf("## Deploy") + 1));
    for (const line of steps!.split("\n").filter((l) => l.trim() && !l.startsWith("#")))
      expect(section).toContain(line.replace(/\s+#.*$/, ""));
  });

  it("run as written take a new account to a deployed testnet, and name the environment in every command", () => {
    const host = newHost({ loggedIn: false });
    const run = host.bash(steps!);
    expect(run.stderr).toBe("");
    expectDone(run);
    expect(host.read().workers["chain-edge-testnet"]!.deploys).toBe(1);
    expect(host.read().databases).toHaveLength(1);
    const texts = ["docs/HOSTS.md", "README.md", "wrangler.toml"].map((file) => readFileSync(file, "utf8"));
    for (const text of texts)
      for (const command of text.matchAll(/wrangler (?:secret put|deploy|d1 migrations apply)[^`\n]*/g))
        expect(command[0]).toMatch(/--env/);
  });
});
