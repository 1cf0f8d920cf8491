/**
 * The generated parts of the documentation, from the code that defines them: the HTTP reference
 * (docs/API.md) from the OpenAPI document, which comes from the route table and the handlers'
 * schemas, and the configuration table (README.md) and wrangler.toml's commented variables from
 * src/config. Bundled and run by
 * scripts/docs.ts, so the Worker's own modules need no Node-specific form.
 */
import { readConfig } from "../../src/config/index.ts";
import { NETWORK_PROFILES } from "../../src/config/profiles.ts";
import { VARIABLE_DOCS } from "../../src/config/variable-docs.ts";
import { VARIABLES, type VariableName } from "../../src/config/variables.ts";
import { routeNote } from "../../src/gateway/route-notes.ts";
import { ERROR_ANSWER_TTL, GATEWAY_ROUTES, grpcMethod } from "../../src/gateway/route-table.ts";
import { openApiDocument } from "../../src/openapi/document.ts";
import { templateConfig } from "../../src/openapi/template.ts";

type Json = Record<string, any>;

const cell = (text: unknown) =>
  String(text ?? "")
    .replaceAll("|", "\\|")
    .replaceAll("\n", " ");

/** The README's configuration table: each variable, its default or each profile's value, and what it does. */
export function configurationTable(): string {
  const profiles = Object.keys(NETWORK_PROFILES) as (keyof typeof NETWORK_PROFILES)[];
  const rows = Object.entries(VARIABLES).map(([name, variable]) => {
    const values = profiles.map((p) => (NETWORK_PROFILES[p].vars as Partial<Record<string, string>>)[name]);
    const fallback =
      "default" in variable
        ? variable.default === ""
          ? "unset"
          : `\`${variable.default}\``
        : name === "NETWORK_PROFILE"
          ? "required"
          : "from the profile";
    const value = values.some((v) => v !== undefined)
      ? profiles
          .map((p, i) => {
            // A profile without a value takes the variable's default when it has one (RPC nodes: unset, /rpc off).
            const missing = "default" in variable ? fallback : "(set it)";
            return `${p}: ${values[i] === undefined ? missing : `\`${values[i]}\``}`;
          })
          .join("<br>")
      : fallback;
    return `| \`${name}\` | ${value} | ${cell(VARIABLE_DOCS[name as VariableName])} |`;
  });
  return ["| variable | value | what it does |", "|---|---|---|", ...rows].join("\n");
}

/** A secret's sentence without its leading "Secret: ". */
const secretDoc = (name: string) => VARIABLE_DOCS[name as VariableName].replace(/^Secret: /, "");

/** `text` ending as a sentence does. */
const sentence = (text: string) => (/[.…]$/.test(text) ? text : `${text}.`);

/** `text` as `# `-comment lines of at most `width` characters, broken between words. */
function commentLines(text: string, width = 100): string[] {
  const lines: string[] = [];
  let line = "#";
  for (const word of text.split(/\s+/)) {
    if (line !== "#" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = "#";
    }
    line += ` ${word}`;
  }
  return [...lines, line];
}

/**
 * wrangler.toml's commented [vars]: every variable with its doc, commented out with the local
 * profile's value (the profile this file's [vars] names) or its default, then the secrets.
 */
export function wranglerVarsBlock(): string {
  const local = NETWORK_PROFILES.local.vars as Partial<Record<string, string>>;
  const entries = Object.entries(VARIABLES).filter(([name]) => name !== "NETWORK_PROFILE");
  const setting = ([name, variable]: (typeof entries)[number]) => {
    const value = "default" in variable ? variable.default : local[name];
    // An enum's schema knows its values (zod's own `_zod.values`).
    const values = (variable.schema as { _zod?: { values?: Set<unknown> } })._zod?.values;
    const doc = `${sentence(VARIABLE_DOCS[name as VariableName])}${values ? ` One of: ${[...values].join(", ")}.` : ""}`;
    return [...commentLines(doc), `# ${name} = ${JSON.stringify(value ?? "")}`];
  };
  const isSecret = ([, variable]: (typeof entries)[number]) => "secret" in variable;
  return [
    "# Profile values, overridable here or per environment (the local profile's value shown):",
    ...entries.filter(([, v]) => !("default" in v)).flatMap(setting),
    "#",
    "# Service settings (default shown):",
    ...entries.filter((e) => "default" in e[1] && !isSecret(e)).flatMap(setting),
    "#",
    "# Secrets (never in this file): set per environment with `wrangler secret put NAME --env <env>`.",
    ...entries.filter(isSecret).flatMap(([name]) => commentLines(`${name}: ${sentence(secretDoc(name))}`)),
  ].join("\n");
}

/**
 * .dev.vars.example: the secrets by name, empty, to copy to .dev.vars for `npm run dev`. `npm run
 * types` reads this file instead of a developer's own .dev.vars, so worker-configuration.d.ts
 * declares every secret whatever a .dev.vars holds, and wrangler never finds the types stale.
 */
export function devVarsExample(): string {
  const secrets = Object.entries(VARIABLES).filter(([, variable]) => "secret" in variable);
  return [
    "# The secrets `npm run dev` reads from .dev.vars: copy this file to .dev.vars (git ignores it) and",
    "# fill in the ones you use; empty means unset. Generated by `npm run docs` from src/config/variables.ts.",
    ...secrets.flatMap(([name]) => ["#", ...commentLines(`${name}: ${sentence(secretDoc(name))}`), `${name}=`]),
    "",
  ].join("\n");
}

/** docs/API.md: every endpoint of the Worker, for the network's words (local and testnet profiles). */
export function apiReference(): string {
  const config = readConfig({ NETWORK_PROFILE: "testnet" });
  const doc = openApiDocument(config) as Json;
  const lines = [
    "# HTTP reference",
    "",
    "<!-- Generated by `npm run docs` from src/openapi/document.ts (the route table and the handlers' schemas); do not edit. -->",
    "",
    `Every path of the Worker, as served with the network's words (profiles \`local\` and \`testnet\`); a deployment`,
    "with other words (`CHAIN_NAMESPACE`, `WALLET_PATH`, …) serves the same paths with its own. The machine-readable",
    "form is `GET /api/openapi.json`, rendered at `/reference/`. Every error has one shape:",
    "",
    "```json",
    '{"code": 3, "message": "…", "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "INVALID_ADDRESS", "domain": "edge", "metadata": {}}]}',
    "```",
  ];
  for (const tag of doc.tags as { name: string; description: string }[]) {
    lines.push("", `## ${tag.name[0]!.toUpperCase()}${tag.name.slice(1)}`, "", tag.description + ".", "");
    lines.push("| method | path | what | answers |", "|---|---|---|---|");
    for (const [path, operations] of Object.entries(doc.paths as Record<string, Json>)) {
      for (const [method, op] of Object.entries(operations)) {
        if (!(op.tags as string[]).includes(tag.name)) continue;
        const answers = Object.keys(op.responses ?? {}).join(", ");
        lines.push(
          `| ${method.toUpperCase()} | \`${path}\` | ${cell(op.summary)}${op.description ? `: ${cell(op.description)}` : ""} | ${answers} |`,
        );
      }
    }
  }
  return `${lines.join("\n")}\n`;
}

/** The OpenAPI document with a placeholder for each setting it names, which the Worker fills in (src/openapi/template.ts). */
export function openApiTemplate(): string {
  return JSON.stringify(openApiDocument(templateConfig(readConfig({ NETWORK_PROFILE: "local" }))));
}

const seconds = (n: number) => (n % 86_400 === 0 ? `${n / 86_400} day${n === 86_400 ? "" : "s"}` : `${n} s`);

/** docs/GATEWAY.md's route table: every row of src/gateway/route-table.ts with its gRPC method (the RPC face's `abci_query` path), TTL and why. */
export function gatewayRoutesTable(): string {
  const rows = GATEWAY_ROUTES.map((route) => {
    const path = route.path.replace("{ns}", "<ns>").replace(/:(\w+)/g, "{$1}");
    const takes = [
      ...(route.query?.some((q) => q.startsWith("pagination.")) ? ["pagination"] : []),
      ...(route.query?.filter((q) => !q.startsWith("pagination.")) ?? []),
    ];
    const query = takes.length ? ` (${takes.join(", ")})` : "";
    const ttl = `${seconds(route.ttl)} (4xx: ${seconds(Math.min(route.errorTtl ?? ERROR_ANSWER_TTL, route.ttl))})`;
    const grpc = grpcMethod(route).replace("{ns}", "<ns>");
    const { summary, why } = routeNote(route);
    return `| \`${path}\`${query} | ${cell(summary)} | \`${grpc}\` | ${ttl} | ${cell(why)} |`;
  });
  return [
    "| path under `/api` | what | gRPC method (`abci_query` path on `/rpc`) | fresh for | why |",
    "|---|---|---|---|---|",
    ...rows,
  ].join("\n");
}
