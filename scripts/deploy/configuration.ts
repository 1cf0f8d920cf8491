/**
 * What `npm run deploy` reads from wrangler.toml: the environments, each one's Worker name, D1
 * databases and settings, and what an environment lacks to be deployed. Reading parses the TOML;
 * the one write (a database's id) edits that line of the text, so every comment stays.
 */
import { parse } from "smol-toml";

/** The id every `database_id` carries until the deploy writes the account's own (it works offline). */
export const PLACEHOLDER_DATABASE_ID = "00000000-0000-0000-0000-000000000000";

/** The profile `npm run dev` serves, with its public session signing key: never deployed. */
export const LOCAL_PROFILE = "local";

/**
 * Configuration keys an environment does not inherit from the top level (wrangler's own list, for the
 * bindings); an environment without one of the top level's bindings deploys a Worker that lacks it.
 */
const NOT_INHERITED = [
  "ai",
  "analytics_engine_datasets",
  "browser",
  "d1_databases",
  "dispatch_namespaces",
  "durable_objects",
  "hyperdrive",
  "images",
  "kv_namespaces",
  "mtls_certificates",
  "pipelines",
  "queues",
  "r2_buckets",
  "ratelimits",
  "secrets_store_secrets",
  "send_email",
  "services",
  "tail_consumers",
  "vectorize",
  "version_metadata",
  "workflows",
] as const;

/** One `[[env.<name>.d1_databases]]` entry; `id` is null while it is the placeholder (or missing). */
interface Database {
  readonly binding: string;
  readonly name: string;
  readonly id: string | null;
  readonly migrations: boolean;
}

/** One deployable environment as the deploy needs it. */
export interface Environment {
  readonly name: string;
  /** `name` of the environment, or the top level's `name` + `-<environment>` (wrangler's rule). */
  readonly workerName: string;
  readonly profile: string | undefined;
  readonly databases: readonly Database[];
  /** Its vars name both of Access's variables (the dashboard behind Cloudflare Access). */
  readonly access: boolean;
  /** Its vars (or its profile) name CometBFT nodes: /rpc and the live face serve. */
  readonly rpcUpstreams: boolean;
  /** Its vars name the host's webhook receiver (HOST_WEBHOOK_URL). */
  readonly webhook: boolean;
  readonly routes: boolean;
  /** `account_id` of the environment or the top level: the account when a login reaches several. */
  readonly accountId: string | undefined;
  /** The `<worker>.<subdomain>.workers.dev` host serves: `workers_dev`, by default on only without routes (wrangler's rule). */
  readonly workersDev: boolean;
}

/** A host of the names reserved for examples (RFC 2606), as the fork's example and the commented lines use. */
const EXAMPLE_HOST = /(?:^|[/.,])example\.(?:com|net|org)\b|\.example\b/i;

type Table = Record<string, unknown>;

const table = (value: unknown): Table =>
  value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Table) : {};
const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/** The environments wrangler.toml defines (`[env.<name>]`), in its order. */
export function environmentNames(config: string): string[] {
  return Object.keys(table(parse(config).env));
}

/** Environment `name` of wrangler.toml, or undefined when it has none by that name. */
export function readEnvironment(config: string, name: string): Environment | undefined {
  const top = parse(config);
  const envs = table(top.env);
  if (!Object.hasOwn(envs, name)) return undefined;
  const env = table(envs[name]);
  const vars = table(env.vars);
  const databases = (Array.isArray(env.d1_databases) ? env.d1_databases : []).map((entry): Database => {
    const db = table(entry);
    const id = text(db.database_id);
    return {
      binding: text(db.binding) ?? "",
      name: text(db.database_name) ?? "",
      id: id === undefined || id === "" || id === PLACEHOLDER_DATABASE_ID ? null : id,
      migrations: text(db.migrations_dir) !== undefined,
    };
  });
  return {
    name,
    workerName: text(env.name) ?? `${text(top.name)}-${name}`,
    profile: text(vars.NETWORK_PROFILE),
    databases,
    access: Boolean(text(vars.ACCESS_TEAM_DOMAIN) && text(vars.ACCESS_AUD)),
    rpcUpstreams: Boolean(text(vars.RPC_UPSTREAM_URLS)),
    webhook: Boolean(text(vars.HOST_WEBHOOK_URL)),
    routes: env.routes !== undefined || env.route !== undefined,
    accountId: text(env.account_id) ?? text(top.account_id),
    workersDev:
      typeof env.workers_dev === "boolean" ? env.workers_dev : env.routes === undefined && env.route === undefined,
  };
}

/** The names of a binding key's entries (`binding` or `name` of each; `durable_objects.bindings` for objects). */
function bindingNames(scope: Table, key: (typeof NOT_INHERITED)[number]): string[] {
  const value = key === "durable_objects" ? table(scope.durable_objects).bindings : scope[key];
  const entries = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return entries.map((entry) => text(table(entry).binding) ?? text(table(entry).name) ?? key);
}

/**
 * Why environment `name` cannot be deployed as it stands, in words that say what to change; empty when it can.
 * Checked before anything touches the account.
 */
export function environmentProblems(config: string, name: string): string[] {
  const top = parse(config);
  const env = table(table(top.env)[name]);
  const problems: string[] = [];
  const profile = text(table(env.vars).NETWORK_PROFILE);
  if (profile === undefined)
    problems.push(`[env.${name}.vars] names no NETWORK_PROFILE: the Worker would refuse to serve`);
  if (profile === LOCAL_PROFILE)
    problems.push(
      `[env.${name}.vars] names the ${LOCAL_PROFILE} profile, which is never deployed (its session signing key is public)`,
    );
  for (const key of NOT_INHERITED) {
    const have = new Set(bindingNames(env, key));
    for (const binding of bindingNames(top, key))
      if (!have.has(binding))
        problems.push(
          `[env.${name}] lacks the ${key} binding ${binding} that the top level has (environments do not inherit it)`,
        );
  }
  for (const [variable, value] of Object.entries(table(env.vars)))
    if (typeof value === "string" && EXAMPLE_HOST.test(value))
      problems.push(`[env.${name}.vars] ${variable} names an example host (${value}): set your own`);
  for (const route of Array.isArray(env.routes) ? env.routes : [])
    if (EXAMPLE_HOST.test(text(table(route).pattern) ?? String(route)))
      problems.push(`[env.${name}] routes names an example host: set your own domain`);
  for (const db of readEnvironment(config, name)?.databases ?? [])
    if (db.name === "") problems.push(`[[env.${name}.d1_databases]] ${db.binding} has no database_name`);
  problems.push(...namespaceClashes(top));
  return problems;
}

/**
 * Rate-limit namespace ids used twice in wrangler.toml. An id is a counter within the account: two
 * bindings (or environments) with one id would share a limit.
 */
function namespaceClashes(top: Table): string[] {
  const scopes: [string, Table][] = [
    ["[[ratelimits]]", top],
    ...Object.entries(table(top.env)).map(([env, value]): [string, Table] => [
      `[[env.${env}.ratelimits]]`,
      table(value),
    ]),
  ];
  const owners = new Map<string, string[]>();
  for (const [where, scope] of scopes)
    for (const limit of Array.isArray(scope.ratelimits) ? scope.ratelimits : []) {
      const id = String(table(limit).namespace_id);
      owners.set(id, [...(owners.get(id) ?? []), `${where} ${text(table(limit).name)}`]);
    }
  return [...owners]
    .filter(([, names]) => names.length > 1)
    .map(
      ([id, names]) =>
        `rate-limit namespace_id ${id} is used by ${names.join(" and ")}: each binding needs its own id, ` +
        "unique within your Cloudflare account",
    );
}

/**
 * wrangler.toml with `id` as the `database_id` of environment `env`'s D1 binding `binding`: that line
 * replaced (or added after `database_name`), every other byte kept. Throws when the entry is not there.
 */
export function withDatabaseId(config: string, env: string, binding: string, id: string): string {
  const lines = config.split("\n");
  const header = `[[env.${env}.d1_databases]]`;
  for (let start = 0; start < lines.length; start++) {
    if (lines[start]!.trim() !== header) continue;
    let end = start + 1;
    while (end < lines.length && !lines[end]!.trim().startsWith("[")) end++;
    const block = lines.slice(start + 1, end);
    if (!block.some((line) => new RegExp(`^\\s*binding\\s*=\\s*"${binding}"`).test(line))) continue;
    const idLine = block.findIndex((line) => /^\s*database_id\s*=/.test(line));
    const nameLine = block.findIndex((line) => /^\s*database_name\s*=/.test(line));
    const line = `database_id = "${id}"`;
    if (idLine >= 0) lines[start + 1 + idLine] = line;
    else lines.splice(start + 2 + (nameLine >= 0 ? nameLine : 0), 0, line);
    const written = lines.join("\n");
    if (readEnvironment(written, env)?.databases.find((db) => db.binding === binding)?.id !== id)
      throw new Error(`could not write the database id into ${header} (binding ${binding}): set it by hand`);
    return written;
  }
  throw new Error(`wrangler.toml has no ${header} with binding = "${binding}"`);
}
