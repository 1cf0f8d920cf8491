/**
 * The whole service on this machine for the proof runs: the devnet on a free port and
 * `wrangler dev` pointed at it. `upstreamTags` turns one devnet into several upstreams
 * (`<devnet>/~a`, `<devnet>/~b`, …) whose faults can be set one by one.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startDevnet, type Devnet } from "../../devnet/server.ts";
import { startWranglerDev, type LocalWorker } from "./wrangler-dev.ts";

export interface LocalStack {
  worker: LocalWorker;
  devnet: Devnet;
  /** The upstream base URLs the Worker was given. */
  upstreams: string[];
  /** Stops `wrangler dev` and starts it again on the same port and state (a server restart). */
  restartWorker(): Promise<void>;
  /** Sends a control request to the devnet (`/__devnet/...`). */
  control(method: string, path: string, body?: unknown): Promise<Response>;
  stop(): Promise<void>;
}

export async function startLocalStack(options: {
  port: number;
  upstreamTags?: string[];
  vars?: Record<string, string>;
  persistTo?: string;
  /** Another copy of the project to run the Worker from (scripts/tree-copy.ts). */
  cwd?: string;
}): Promise<LocalStack> {
  const devnet = await startDevnet({ port: 0, blockMs: 1000 });
  const upstreams = options.upstreamTags?.map((tag) => `${devnet.url}/~${tag}`) ?? [devnet.url];
  const persistTo = options.persistTo ?? mkdtempSync(join(tmpdir(), "chain-edge-stack-"));
  const start = () =>
    startWranglerDev({
      port: options.port,
      persistTo,
      cwd: options.cwd,
      vars: {
        UPSTREAM_URLS: upstreams.join(","),
        // The devnet's CometBFT face, under each upstream.
        RPC_UPSTREAM_URLS: upstreams.map((url) => `${url}/rpc`).join(","),
        ...options.vars,
      },
    });
  let worker: LocalWorker;
  try {
    worker = await start();
  } catch (err) {
    await devnet.close();
    throw err;
  }
  return {
    get worker() {
      return worker;
    },
    async restartWorker() {
      await worker.stop();
      worker = await start();
    },
    devnet,
    upstreams,
    control: (method, path, body) =>
      fetch(`${devnet.url}/__devnet/${path}`, {
        method,
        headers: body === undefined ? {} : { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    async stop() {
      await worker.stop();
      await devnet.close();
      if (!options.persistTo) rmSync(persistTo, { recursive: true, force: true });
    },
  };
}
