/**
 * `npm run deploy -- --env <environment> [--dry-run]`: one command from a new Cloudflare account to
 * a running service, through wrangler's own CLI only (scripts/deploy/wrangler.ts).
 *
 * 1. the login (`wrangler whoami`); 2. the environment's D1 database, created when its id is the
 * placeholder and its id written into wrangler.toml; 3. its migrations; 4. each missing secret,
 * generated from 32 random bytes and set with `wrangler secret put` (stdin); 5. `wrangler deploy
 * --env`; 6. the page's and the dashboard's URLs, the new host API key, and what is left by hand.
 * Run again, it finds the database and the secrets there and changes neither. `--dry-run` reads the
 * account and prints each command that would change it, running none of those. The top-level
 * configuration (the local profile, whose session signing key is public) is never deployed.
 */
import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import {
  type Environment,
  environmentNames,
  environmentProblems,
  LOCAL_PROFILE,
  readEnvironment,
  withDatabaseId,
} from "./deploy/configuration.ts";
import { CommandFailed, printedJson, Wrangler } from "./deploy/wrangler.ts";

const CONFIG = "wrangler.toml";

/** The secrets the deploy makes when missing; UPSTREAM_AUTH_HEADER is the host's own, never invented. */
const SECRETS = {
  SESSION_SIGNING_KEY: { make: () => randomBytes(32).toString("hex"), note: "32 random bytes, hex" },
  HOST_WEBHOOK_SECRET: {
    make: () => `whsec_${randomBytes(32).toString("base64")}`,
    note: "whsec_ + base64 of 32 random bytes",
  },
  HOST_API_KEYS: { make: () => randomBytes(32).toString("hex"), note: "a host API key: 32 random bytes, hex" },
} as const;
type SecretName = keyof typeof SECRETS;

class Refusal extends Error {}

const log = (line: string) => console.log(line);

function options(): { env: string; dryRun: boolean } {
  const { values } = parseArgs({ options: { env: { type: "string" }, "dry-run": { type: "boolean" } } });
  const names = environmentNames(readFileSync(CONFIG, "utf8"));
  const which = `one of wrangler.toml's environments: ${names.join(", ")}`;
  if (values.env === undefined)
    throw new Refusal(
      `npm run deploy needs --env <environment>, ${which} (npm run deploy -- --env ${names[0] ?? "<environment>"}). ` +
        `The top-level configuration is the ${LOCAL_PROFILE} profile, for npm run dev only: it is never deployed.`,
    );
  if (!names.includes(values.env))
    throw new Refusal(
      `--env ${values.env} is not ${which}` +
        (values.env === LOCAL_PROFILE ? ` (the ${LOCAL_PROFILE} profile is never deployed)` : ""),
    );
  return { env: values.env, dryRun: values["dry-run"] ?? false };
}

interface Login {
  readonly loggedIn: boolean;
}

/** Step 1: the login; with several accounts, the one wrangler will use must be named. */
async function checkLogin(wrangler: Wrangler, environment: Environment, dryRun: boolean): Promise<Login> {
  const whoami = await wrangler.read(["whoami", "--json"]);
  if (!whoami.ok) {
    const how = "run `npx wrangler login` (or set CLOUDFLARE_API_TOKEN)";
    if (!dryRun) throw new Refusal(`Not logged in to Cloudflare: ${how}, then run this again.`);
    log(`Not logged in (${how}): what follows is what a run does on an empty account.`);
    return { loggedIn: false };
  }
  const user = printedJson(whoami.stdout) as { email?: string; accounts?: { name: string; id: string }[] };
  const accounts = user.accounts ?? [];
  const chosen = process.env.CLOUDFLARE_ACCOUNT_ID ?? environment.accountId;
  if (accounts.length > 1 && chosen === undefined)
    throw new Refusal(
      `This login reaches ${accounts.length} accounts (${accounts.map((a) => `${a.name}: ${a.id}`).join(", ")}): ` +
        `name one, e.g. CLOUDFLARE_ACCOUNT_ID=${accounts[0]!.id} npm run deploy -- --env ${environment.name}`,
    );
  const account = chosen === undefined ? accounts[0] : accounts.find((a) => a.id === chosen);
  if (account === undefined && accounts.length > 0)
    throw new Refusal(`Account ${chosen} is not one this login reaches (${accounts.map((a) => a.id).join(", ")})`);
  log(
    `Logged in${user.email ? ` as ${user.email}` : ""}${account ? `, account ${account.name} (${account.id})` : ""}.`,
  );
  return { loggedIn: true };
}

/** Steps 2 and 3: each D1 database of the environment there, its id in wrangler.toml, its migrations applied. */
async function provisionDatabases(wrangler: Wrangler, environment: Environment, login: Login, dryRun: boolean) {
  const list = async () => {
    if (!login.loggedIn) return [];
    const listed = await wrangler.read(["d1", "list", "--json"]);
    if (!listed.ok) throw new Error(`wrangler d1 list failed:\n${listed.stderr || listed.stdout}`);
    return printedJson(listed.stdout) as { uuid: string; name: string }[];
  };
  let written = false;
  for (const db of environment.databases) {
    const where = `[[env.${environment.name}.d1_databases]] ${db.binding}`;
    const databases = await list();
    if (db.id !== null) {
      if (login.loggedIn && !databases.some((d) => d.uuid === db.id))
        throw new Refusal(
          `${where} names database_id ${db.id}, which this account does not have: log in to the account that ` +
            `has it, or set it back to the placeholder so that a database is created here`,
        );
      log(`D1 database ${db.name} is there (${db.id}).`);
    } else {
      let id = databases.find((d) => d.name === db.name)?.uuid;
      if (id !== undefined) log(`D1 database ${db.name} is already in the account (${id}): using it.`);
      else if (await wrangler.change(["d1", "create", db.name])) {
        id = (await list()).find((d) => d.name === db.name)?.uuid;
        if (id === undefined) throw new Error(`wrangler d1 create ${db.name} ran, but d1 list does not show it`);
      }
      if (id === undefined) log(`would write the new database's id into ${where} in ${CONFIG}`);
      else if (dryRun) log(`would write database_id = "${id}" into ${where} in ${CONFIG}`);
      else {
        writeFileSync(CONFIG, withDatabaseId(readFileSync(CONFIG, "utf8"), environment.name, db.binding, id));
        log(`Wrote database_id = "${id}" into ${where} in ${CONFIG}.`);
        written = true;
      }
    }
    if (db.migrations)
      await wrangler.change(["d1", "migrations", "apply", db.binding, "--remote", "--env", environment.name]);
  }
  return { written };
}

/** Step 4: each missing secret generated and set (never printed, but for a new host API key, returned). */
async function provisionSecrets(wrangler: Wrangler, environment: Environment, login: Login) {
  let present: string[] = [];
  if (login.loggedIn) {
    const listed = await wrangler.read(["secret", "list", "--env", environment.name, "--format", "json"]);
    // A Worker never deployed has no secrets: wrangler says it is not found.
    if (listed.ok) present = (printedJson(listed.stdout) as { name: string }[]).map((s) => s.name);
    else if (!/not found/i.test(listed.stderr + listed.stdout))
      throw new Error(`wrangler secret list failed:\n${listed.stderr || listed.stdout}`);
  }
  let hostKey: string | null = null;
  for (const name of Object.keys(SECRETS) as SecretName[]) {
    if (present.includes(name)) {
      log(`Secret ${name} is set on ${environment.workerName}: left as it is.`);
      continue;
    }
    const value = SECRETS[name].make();
    const put = await wrangler.change(["secret", "put", name, "--env", environment.name], {
      value,
      note: SECRETS[name].note,
    });
    if (put && name === "HOST_API_KEYS") hostKey = value;
  }
  return { hostKey };
}

/** Steps 5 and 6: deploy, then where it answers and what is left by hand. */
async function deploy(wrangler: Wrangler, environment: Environment) {
  let deployed: Awaited<ReturnType<Wrangler["change"]>>;
  try {
    deployed = await wrangler.change(["deploy", "--env", environment.name]);
  } catch (error) {
    // A new account has no workers.dev subdomain, and wrangler registers one only when asked at a terminal.
    if (error instanceof CommandFailed && /register a workers\.dev subdomain/i.test(error.output))
      throw new Error(
        `${error.message}. This account has no workers.dev subdomain yet: register one at the link above (once ` +
          `per account), or give [env.${environment.name}] a custom domain, then run npm run deploy -- --env ` +
          `${environment.name} again; what is set stays set.`,
      );
    throw error;
  }
  // wrangler prints the workers.dev URL it serves (with the account's subdomain) and each custom domain.
  const output = deployed ? deployed.stdout + deployed.stderr : "";
  const workersDev = /https:\/\/[\w.-]+\.workers\.dev/.exec(output)?.[0];
  const customDomain = /^\s*([\w.-]+\.[a-z]{2,}) \(custom domain/im.exec(output)?.[1];
  return {
    base: customDomain
      ? `https://${customDomain}`
      : (workersDev ?? `https://${environment.workerName}.<your workers.dev subdomain>.workers.dev`),
    workersDev,
  };
}

function leftByHand(environment: Environment, written: boolean): string[] {
  const vars = `[env.${environment.name}.vars]`;
  const left: string[] = [];
  if (written) left.push(`Commit ${CONFIG}: it now holds this account's database id.`);
  if (!environment.routes)
    left.push(
      `A custom domain: uncomment the routes line of [env.${environment.name}] with your hostname and run this ` +
        "again. The Cache API stores nothing on workers.dev: the gateway caches only behind a custom domain. " +
        "With a route, workers_dev defaults to false and the workers.dev host stops answering.",
    );
  else if (environment.workersDev)
    left.push(
      `workers_dev = true under [env.${environment.name}] keeps ${environment.workerName}.<subdomain>.workers.dev ` +
        "answering beside the custom domain: remove it once the domain serves.",
    );
  if (!environment.access)
    left.push(
      `Access: put /dashboard behind a Cloudflare Access application, then set ACCESS_TEAM_DOMAIN and ACCESS_AUD ` +
        `under ${vars} (docs/HOSTS.md, "The dashboard"); until then the dashboard signs in with a host API key.`,
    );
  if (!environment.webhook)
    left.push(
      `Webhooks: set HOST_WEBHOOK_URL (https) under ${vars}, after setting a HOST_WEBHOOK_SECRET your receiver ` +
        "also holds (the one set here is never shown): docs/HOSTS.md, Deploy.",
    );
  if (!environment.rpcUpstreams)
    left.push(
      `/rpc and the live face (/rpc/websocket) are off: set RPC_UPSTREAM_URLS (your CometBFT nodes) under ${vars} ` +
        "to serve them.",
    );
  left.push(
    `A node provider's key, if your nodes need one: npx wrangler secret put UPSTREAM_AUTH_HEADER --env ` +
      `${environment.name} (its value is "Header-Name: value").`,
  );
  return left;
}

async function main() {
  const { env, dryRun } = options();
  const config = readFileSync(CONFIG, "utf8");
  const problems = environmentProblems(config, env);
  if (problems.length > 0)
    throw new Refusal(`[env.${env}] in ${CONFIG} cannot be deployed as it stands:\n  ${problems.join("\n  ")}`);
  const environment = readEnvironment(config, env)!;
  log(`${dryRun ? "Dry run: " : ""}deploying [env.${env}] of ${CONFIG} as the Worker ${environment.workerName}.`);
  const wrangler = new Wrangler({ dryRun, log });
  const login = await checkLogin(wrangler, environment, dryRun);
  const { written } = await provisionDatabases(wrangler, environment, login, dryRun);
  const { hostKey } = await provisionSecrets(wrangler, environment, login);
  const keyBlock = hostKey && [
    "",
    "The host API key (shown this once; the Worker keeps it only as the secret HOST_API_KEYS):",
    `  ${hostKey}`,
  ];
  let where: Awaited<ReturnType<typeof deploy>>;
  try {
    where = await deploy(wrangler, environment);
  } catch (error) {
    // The key is set already and cannot be read back: it must not be lost with the failed deploy.
    if (keyBlock) log(keyBlock.join("\n"));
    throw error;
  }
  log(
    [
      "",
      dryRun ? "A run would deploy:" : `Deployed ${environment.workerName} (--env ${env}).`,
      `  page:       ${where.base}/`,
      `  dashboard:  ${where.base}/dashboard/`,
      `  health:     ${where.base}/api/health`,
      ...(where.workersDev && where.workersDev !== where.base ? [`  workers.dev: ${where.workersDev}/`] : []),
      ...(keyBlock || []),
      "",
      "Left to do by hand:",
      ...leftByHand(environment, written).map((line) => `  - ${line}`),
    ].join("\n"),
  );
}

try {
  await main();
} catch (error) {
  console.error(error instanceof Refusal ? error.message : `Deploy stopped: ${(error as Error).message}`);
  process.exitCode = 1;
}
