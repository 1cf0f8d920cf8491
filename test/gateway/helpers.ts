/**
 * Gateway test harness: the app built for an upstream set on the real devnet (each upstream a
 * mount tag of it, so requests are counted and faulted per test), the app of the deployment's own
 * configuration (whose shields read it too), and the devnet's control API.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { buildEntry } from "../../src/entry";
import { readConfig, type Config } from "../../src/config";
import { accountAddress, randomBytes } from "../helpers/sessions";

export const ORIGIN = "https://edge.test";
/** Base URL of the devnet that vitest's globalSetup started. */
export const DEVNET = (env as unknown as { DEVNET_URL: string }).DEVNET_URL;

/**
 * The mount tags of the deployment's own upstreams (the test configuration's UPSTREAM_URLS): the nodes its shields ask.
 */
export const NODES = readConfig(env).upstreamUrls.map((url) => url.slice(url.lastIndexOf("/~") + 2));

/** A devnet delay no test waits out: an upstream that never answers, against a gateway timeout of a few hundred ms. */
export const NEVER_MS = 30_000;

/** A fresh mount tag: a virtual upstream nobody else in the run uses. */
export function tag(): string {
  return `t${crypto.randomUUID().slice(0, 8)}`;
}

/** A valid account address no other test uses: a cache key of its own. */
export const freshAddress = () => accountAddress("chain");

/** A base64 pagination key no other test uses (no `=`, so the forwarded query is predictable). */
export function freshPageKey(): string {
  let binary = "";
  for (const byte of randomBytes(9)) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "A").replaceAll("/", "B");
}

export interface Gateway {
  /** Sends a request through the full Worker app (every `/api` route) with this upstream set. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** Waits for every background task (`waitUntil`) of the requests so far. */
  settle(): Promise<void>;
  tags: string[];
}

/** Where a gateway runs: its origin (a data center of its own: the cache key carries it) and bindings replaced. */
export interface Placement {
  origin?: string;
  bindings?: Partial<Env>;
}

/**
 * The Worker app with `UPSTREAM_URLS` = one devnet mount per tag, plus any other variable
 * overrides. The shield tier is off unless `vars` turn it on: a shield reads the deployment's
 * configuration, not this one, so a gateway with upstreams of its own asks them itself.
 */
export function gateway(
  tags: string[] = [tag()],
  vars: Record<string, string> = {},
  placement: Placement = {},
): Gateway {
  return harness(
    readConfig({ ...env, UPSTREAM_URLS: tags.map((t) => `${DEVNET}/~${t}`).join(","), CACHE_SHIELD: "off", ...vars }),
    tags,
    placement,
  );
}

/**
 * The Worker app of the deployment's own configuration (upstreams `NODES`, shield tier on), as its shields see it too.
 */
export function deployment(placement: Placement = {}): Gateway {
  return harness(readConfig(env), NODES, placement);
}

function harness(config: Config, tags: string[], { origin = ORIGIN, bindings = {} }: Placement): Gateway {
  const worker = buildEntry(config);
  const contexts: ExecutionContext[] = [];
  return {
    tags,
    async fetch(path, init) {
      const ctx = createExecutionContext();
      contexts.push(ctx);
      return worker(new Request(`${origin}${path}`, init), { ...env, ...bindings }, ctx);
    },
    async settle() {
      await Promise.all(contexts.splice(0).map((ctx) => waitOnExecutionContext(ctx)));
    },
  };
}

/** Requests the devnet saw whose `~tag/path?query` key starts with `prefix`. */
export async function upstreamRequests(prefix: string): Promise<number> {
  const response = await fetch(`${DEVNET}/__devnet/requests?prefix=${encodeURIComponent(prefix)}`);
  return ((await response.json()) as { count: number }).count;
}

/** Requests for exactly `pathAndQuery` that the deployment's own upstreams (`NODES`) saw, together. */
export async function nodeRequests(pathAndQuery: string): Promise<number> {
  const counts = await Promise.all(NODES.map((node) => upstreamRequests(`~${node}${pathAndQuery}`)));
  return counts.reduce((sum, n) => sum + n, 0);
}

/** The headers of the last request the devnet saw at exactly `key`. */
export async function lastUpstreamHeaders(key: string): Promise<Record<string, string>> {
  const response = await fetch(`${DEVNET}/__devnet/requests?prefix=${encodeURIComponent(key)}`);
  return ((await response.json()) as { last_headers: Record<string, Record<string, string>> }).last_headers[key] ?? {};
}

/** Injects a devnet fault (see devnet/faults.ts). */
export async function fault(spec: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${DEVNET}/__devnet/faults`, { method: "POST", body: JSON.stringify(spec) });
  if (response.status !== 201) throw new Error(`fault refused: ${response.status}`);
}

export async function json<T = Record<string, unknown>>(response: Response): Promise<T> {
  return (await response.json()) as T;
}
