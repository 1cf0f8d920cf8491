/**
 * N data centers on this machine: one bare workerd process running the built Worker as N edge
 * services (separate isolates, separate Cache API backends) that share one shield namespace,
 * against two LCD nodes (the devnet's, or any URL's behind the counting proxy).
 */
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { buildWorker, type WorkerBundle } from "../../scripts/build-worker.ts";
import { devnetUpstreams, proxiedUpstreams, type ColoUpstreams } from "./colo-upstreams.ts";
import { wranglerWorkerd } from "./workerd-binary.ts";
import { colosConfig, edgeSocket } from "./workerd-colos-config.ts";
import { writeCacheService } from "./workerd-config.ts";
import { startWorkerd } from "./workerd-process.ts";
import { readWorkerSettings } from "./wrangler-settings.ts";

export interface ColoStackOptions {
  colos: number;
  /** Variables for every edge (over wrangler.toml's [vars]), e.g. CACHE_SHIELD. */
  vars?: Record<string, string>;
  /** Variables of edge `i` over those. */
  edgeVars?: (i: number) => Record<string, string>;
  /** An LCD base URL to run against instead of the devnet. */
  upstream?: string;
  /** A bundle built already (it is left in place); else one is built and removed. */
  bundle?: WorkerBundle;
}

export interface ColoStack {
  /** Base URL of each edge, one per data center. */
  edges: string[];
  upstreams: ColoUpstreams;
  /** The workerd process (CPU is read from /proc). */
  pid: number;
  /** The Worker's public settings (`GET /api/config`). */
  words: { namespace: string; bech32_prefix: string };
  stop(): Promise<void>;
}

export async function startColoStack(options: ColoStackOptions): Promise<ColoStack> {
  const settings = readWorkerSettings();
  const bundle = options.bundle ?? buildWorker();
  const owned = !options.bundle;
  const dir = join(bundle.dir, `colos-${process.pid}-${Date.now()}`);
  mkdirSync(join(dir, "durable-objects"), { recursive: true });
  const upstreams = options.upstream ? await proxiedUpstreams(options.upstream) : await devnetUpstreams();
  const stopAll: (() => Promise<void>)[] = [
    () => upstreams.close(),
    async () => rmSync(owned ? bundle.dir : dir, { recursive: true, force: true }),
  ];
  const stop = async () => {
    for (const step of stopAll.splice(0).reverse()) await step();
  };
  try {
    // The config embeds its modules from its own directory; one bundle serves several stacks.
    copyFileSync(bundle.mainPath, join(dir, basename(bundle.mainPath)));
    const files = {
      workerModule: basename(bundle.mainPath),
      cacheServiceModule: writeCacheService(dir),
      storageDir: join(dir, "durable-objects"),
    };
    // No rate-limit binding exists in bare workerd.
    const vars = { UPSTREAM_URLS: upstreams.nodes.join(","), RATE_LIMITS: "off", ...options.vars };
    const configPath = join(dir, "config.capnp");
    writeFileSync(configPath, colosConfig(settings, files, options.colos, vars, options.edgeVars));
    const sockets = Array.from({ length: options.colos }, (_, i) => edgeSocket(i));
    const workerd = await startWorkerd(wranglerWorkerd().path, configPath, sockets);
    stopAll.push(() => workerd.stop());
    const edges = sockets.map((name) => workerd.urls[name]!);
    const words = (await (await fetch(`${edges[0]}/api/config`)).json()) as ColoStack["words"];
    return { edges, upstreams, pid: workerd.pid, words, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
