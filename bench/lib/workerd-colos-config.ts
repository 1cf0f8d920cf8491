/**
 * The capnp config of one bare workerd process playing N data centers: N edge services, each the
 * built Worker in an isolate of its own with a Cache API backend of its own (`cache-<i>`), all
 * binding the Durable Object namespaces of one `shield` service (the same Worker, hosting the
 * objects on local disk), as every city binds the one namespace worldwide. Sockets `edge-<i>`
 * listen on loopback ports the kernel picks.
 */
import { compatibility, list, moduleOf, namespaceDeclarations, text, varBindings } from "./workerd-config.ts";
import type { WorkerSettings } from "./wrangler-settings.ts";

export interface ColoFiles {
  /** File names (in the config's directory) of the built Worker and the in-memory cache service. */
  workerModule: string;
  cacheServiceModule: string;
  /** Directory for Durable Object SQLite files. */
  storageDir: string;
}

export const edgeSocket = (i: number) => `edge-${i}`;

/** `vars` override wrangler.toml's [vars] everywhere; `edgeVars(i)` then those of edge `i`. */
export function colosConfig(
  settings: WorkerSettings,
  files: ColoFiles,
  colos: number,
  vars: Record<string, string>,
  edgeVars: (i: number) => Record<string, string> = () => ({}),
): string {
  const compat = compatibility(settings);
  const objects = settings.durableObjects.map(
    (d) =>
      `(name = ${text(d.binding)}, durableObjectNamespace = (className = ${text(d.className)}, serviceName = "shield"))`,
  );
  const bindingsWith = (more: Record<string, string>) =>
    list([...varBindings(settings, { ...vars, ...more }), ...objects]);
  const bindings = bindingsWith({});
  const edges = Array.from({ length: colos }, (_, i) => i);
  const services = [
    ...edges.map(
      (i) =>
        `(name = ${text(edgeSocket(i))}, worker = (${moduleOf(files.workerModule)}, ${compat}, bindings = ${bindingsWith(edgeVars(i))}, globalOutbound = "loopback", cacheApiOutbound = ${text(`cache-${i}`)}))`,
    ),
    ...edges.map((i) => `(name = ${text(`cache-${i}`)}, worker = (${moduleOf(files.cacheServiceModule)}, ${compat}))`),
    `(name = "shield", worker = (${moduleOf(files.workerModule)}, ${compat}, bindings = ${bindings}, durableObjectNamespaces = ${namespaceDeclarations(settings)}, durableObjectStorage = (localDisk = "do-disk"), globalOutbound = "loopback", cacheApiOutbound = "cache-shield"))`,
    `(name = "cache-shield", worker = (${moduleOf(files.cacheServiceModule)}, ${compat}))`,
    `(name = "do-disk", disk = (path = ${text(files.storageDir)}, writable = true))`,
    // Upstream nodes on this machine: the implicit outbound allows public addresses only.
    `(name = "loopback", network = (allow = ["local"]))`,
  ];
  const sockets = edges.map(
    (i) => `(name = ${text(edgeSocket(i))}, address = "127.0.0.1:0", http = (), service = ${text(edgeSocket(i))})`,
  );
  return `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = ${list(services)},
  sockets = ${list(sockets)},
);
`;
}
