/**
 * The capnp config of one bare workerd process for the runtime benchmark: the built Worker
 * (`edge`) with its bindings, Durable Objects on local disk and the Cache API backed by an
 * in-memory service; optionally the Worker as built at another commit (`baseline`), bound the
 * same way; a constant-answer Worker (`floor`), the same reading a POST's body first (`floor-post`); and a Worker that checks the cache backend
 * (`cache-check`). Every socket listens on a loopback port the kernel picks.
 */
import { transformSync } from "esbuild";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { WorkerSettings } from "./wrangler-settings.ts";

export const SOCKETS = ["edge", "floor", "floor-post", "cache-check"] as const;
/** The socket of the Worker built at another commit, when there is one. */
export const BASELINE_SOCKET = "baseline";

/** A constant answer the size of a small JSON body: what the runtime costs with no code of ours. */
const FLOOR_MODULE = `export default { fetch() { return new Response('{"ok":true}', { headers: { "content-type": "application/json" } }); } };\n`;
/** The same answer to a POST whose body is read first: what the runtime costs a POST, with no code of ours. */
const FLOOR_POST_MODULE = `export default { async fetch(request) { await request.text(); return new Response('{"ok":true}', { headers: { "content-type": "application/json" } }); } };\n`;

/** Puts an entry through `caches.default`, matches it, deletes it; answers what it saw as JSON. */
const CACHE_CHECK_MODULE = `export default {
  async fetch() {
    const key = new Request("http://cache-check.test/entry?" + crypto.randomUUID());
    await caches.default.put(key, new Response("stored body", { headers: { "cache-control": "max-age=60", "x-kept": "yes" } }));
    const hit = await caches.default.match(key);
    const seen = hit ? { status: hit.status, kept: hit.headers.get("x-kept"), body: await hit.text() } : null;
    const deleted = await caches.default.delete(key);
    const after = await caches.default.match(key);
    return Response.json({ seen, deleted, goneAfterDelete: after === undefined });
  },
};
`;

/** File names, in the config's directory, of the modules beside the built Worker. */
const FLOOR_FILE = "floor.js";
const FLOOR_POST_FILE = "floor-post.js";
const CACHE_CHECK_FILE = "cache-check.js";
const CACHE_SERVICE_FILE = "cache-service.js";

/**
 * Writes the config and the modules beside `edgeModule` (a file already in `dir`, the built
 * Worker; `baselineModule` too, when given), plus a directory for Durable Object storage;
 * returns the config's path.
 */
export function writeWorkerdConfig(
  dir: string,
  edgeModule: string,
  settings: WorkerSettings,
  vars: Record<string, string>,
  baselineModule?: string,
): string {
  writeCacheService(dir);
  writeFileSync(join(dir, FLOOR_FILE), FLOOR_MODULE);
  writeFileSync(join(dir, FLOOR_POST_FILE), FLOOR_POST_MODULE);
  writeFileSync(join(dir, CACHE_CHECK_FILE), CACHE_CHECK_MODULE);
  const storageDir = join(dir, "durable-objects");
  mkdirSync(storageDir, { recursive: true });
  const configPath = join(dir, "config.capnp");
  writeFileSync(configPath, workerdConfig(settings, edgeModule, storageDir, vars, baselineModule));
  return configPath;
}

/** Writes the in-memory Cache API backend (workerd-cache-service.ts, as JavaScript) into `dir`; returns its file name. */
export function writeCacheService(dir: string): string {
  const cacheService = readFileSync(new URL("./workerd-cache-service.ts", import.meta.url), "utf8");
  writeFileSync(join(dir, CACHE_SERVICE_FILE), transformSync(cacheService, { loader: "ts", format: "esm" }).code);
  return CACHE_SERVICE_FILE;
}

/** capnp text literal (UTF-8 text with `\\`, `"` and control characters escaped). */
export function text(value: string): string {
  return `"${value.replace(/[\\"\x00-\x1f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`)}"`;
}

export function list(items: readonly string[]): string {
  return `[${items.join(", ")}]`;
}

/** The [vars] of `settings` with `vars` over them, as capnp bindings. */
export function varBindings(settings: WorkerSettings, vars: Record<string, string>): string[] {
  return Object.entries({ ...settings.vars, ...vars } as Record<string, unknown>).map(([name, value]) =>
    typeof value === "string"
      ? `(name = ${text(name)}, text = ${text(value)})`
      : `(name = ${text(name)}, json = ${text(JSON.stringify(value))})`,
  );
}

/** The Durable Object namespaces of wrangler.toml, as the Worker that hosts them declares them (`keyPrefix` keeps two hosts' objects apart). */
export function namespaceDeclarations(settings: WorkerSettings, keyPrefix = "bench"): string {
  return list(
    settings.durableObjects.map(
      (d) =>
        `(className = ${text(d.className)}, uniqueKey = ${text(`${keyPrefix}-${d.className}`)}, enableSql = ${d.sql})`,
    ),
  );
}

/** A Worker's compatibility settings from wrangler.toml. */
export function compatibility(settings: WorkerSettings): string {
  return `compatibilityDate = ${text(settings.compatibilityDate)}, compatibilityFlags = ${list(settings.compatibilityFlags.map(text))}`;
}

/** One ES module embedded from the config's directory. */
export function moduleOf(file: string): string {
  return `modules = [(name = ${text(file)}, esModule = embed ${text(file)})]`;
}

/** `settings` from wrangler.toml; `vars` override or add to its [vars]. */
function workerdConfig(
  settings: WorkerSettings,
  edgeModule: string,
  storageDir: string,
  vars: Record<string, string>,
  baselineModule?: string,
): string {
  const bindings = [
    ...varBindings(settings, vars),
    ...settings.durableObjects.map((d) => `(name = ${text(d.binding)}, durableObjectNamespace = ${text(d.className)})`),
  ];
  const compat = compatibility(settings);
  const module = moduleOf;
  const names = baselineModule ? [...SOCKETS, BASELINE_SOCKET] : SOCKETS;
  const sockets = names.map(
    (name) => `(name = ${text(name)}, address = "127.0.0.1:0", http = (), service = ${text(name)})`,
  );
  const worker = (file: string, keyPrefix: string) => `(
  ${module(file)},
  ${compat},
  bindings = ${list(bindings)},
  durableObjectNamespaces = ${namespaceDeclarations(settings, keyPrefix)},
  durableObjectStorage = (localDisk = "do-disk"),
  globalOutbound = "loopback",
  cacheApiOutbound = "cache",
)`;

  return `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "edge", worker = .edge),${
      baselineModule
        ? `
    (name = ${text(BASELINE_SOCKET)}, worker = .baseline),`
        : ""
    }
    (name = "floor", worker = (${module(FLOOR_FILE)}, ${compat})),
    (name = "floor-post", worker = (${module(FLOOR_POST_FILE)}, ${compat})),
    (name = "cache-check", worker = (${module(CACHE_CHECK_FILE)}, ${compat}, cacheApiOutbound = "cache")),
    (name = "cache", worker = (${module(CACHE_SERVICE_FILE)}, ${compat})),
    (name = "do-disk", disk = (path = ${text(storageDir)}, writable = true)),
    # Upstream nodes on this machine: the implicit outbound allows public addresses only.
    (name = "loopback", network = (allow = ["local"])),
  ],
  sockets = ${list(sockets)},
);

const edge :Workerd.Worker = ${worker(edgeModule, "bench")};
${
  baselineModule
    ? `
const baseline :Workerd.Worker = ${worker(baselineModule, "baseline")};
`
    : ""
}`;
}
