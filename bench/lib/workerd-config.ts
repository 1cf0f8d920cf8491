/**
 * The capnp config of one bare workerd process for the runtime benchmark: the built Worker
 * (`edge`) with its bindings, Durable Objects on local disk and the Cache API backed by an
 * in-memory service; a constant-answer Worker (`floor`); and a Worker that checks the cache
 * backend (`cache-check`). Every socket listens on a loopback port the kernel picks.
 */
import type { WorkerSettings } from "./wrangler-settings.ts";

export const SOCKETS = ["edge", "floor", "cache-check"] as const;
export type SocketName = (typeof SOCKETS)[number];

/** A constant answer the size of a small JSON body: what the runtime costs with no code of ours. */
export const FLOOR_MODULE = `export default { fetch() { return new Response('{"ok":true}', { headers: { "content-type": "application/json" } }); } };\n`;

/** Puts an entry through `caches.default`, matches it, deletes it; answers what it saw as JSON. */
export const CACHE_CHECK_MODULE = `export default {
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

export interface WorkerdFiles {
  /** File names (in the config's directory) of the modules. */
  edgeModule: string;
  floorModule: string;
  cacheCheckModule: string;
  cacheServiceModule: string;
  /** Directory for Durable Object SQLite files. */
  storageDir: string;
}

/** capnp text literal (UTF-8 text with `\\`, `"` and control characters escaped). */
function text(value: string): string {
  return `"${value.replace(/[\\"\x00-\x1f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`)}"`;
}

function list(items: readonly string[]): string {
  return `[${items.join(", ")}]`;
}

/** `settings` from wrangler.toml; `vars` override or add to its [vars]. */
export function workerdConfig(settings: WorkerSettings, files: WorkerdFiles, vars: Record<string, string>): string {
  const allVars: Record<string, unknown> = { ...settings.vars, ...vars };
  const bindings = [
    ...Object.entries(allVars).map(([name, value]) =>
      typeof value === "string" ? `(name = ${text(name)}, text = ${text(value)})` : `(name = ${text(name)}, json = ${text(JSON.stringify(value))})`,
    ),
    ...settings.durableObjects.map((d) => `(name = ${text(d.binding)}, durableObjectNamespace = ${text(d.className)})`),
  ];
  const namespaces = settings.durableObjects.map((d) => `(className = ${text(d.className)}, uniqueKey = ${text(`bench-${d.className}`)}, enableSql = ${d.sql})`);
  const compat = `compatibilityDate = ${text(settings.compatibilityDate)}, compatibilityFlags = ${list(settings.compatibilityFlags.map(text))}`;
  const module = (file: string) => `modules = [(name = ${text(file)}, esModule = embed ${text(file)})]`;
  const sockets = SOCKETS.map((name) => `(name = ${text(name)}, address = "127.0.0.1:0", http = (), service = ${text(name)})`);

  return `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "edge", worker = .edge),
    (name = "floor", worker = (${module(files.floorModule)}, ${compat})),
    (name = "cache-check", worker = (${module(files.cacheCheckModule)}, ${compat}, cacheApiOutbound = "cache")),
    (name = "cache", worker = (${module(files.cacheServiceModule)}, ${compat})),
    (name = "do-disk", disk = (path = ${text(files.storageDir)}, writable = true)),
    # Upstream nodes on this machine: the implicit outbound allows public addresses only.
    (name = "loopback", network = (allow = ["local"])),
  ],
  sockets = ${list(sockets)},
);

const edge :Workerd.Worker = (
  ${module(files.edgeModule)},
  ${compat},
  bindings = ${list(bindings)},
  durableObjectNamespaces = ${list(namespaces)},
  durableObjectStorage = (localDisk = "do-disk"),
  globalOutbound = "loopback",
  cacheApiOutbound = "cache",
);
`;
}
