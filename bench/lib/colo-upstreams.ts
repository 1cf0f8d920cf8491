/**
 * The two LCD nodes the multi-city simulation runs against, and how it counts what reached them:
 * the devnet (two mount tags of one devnet this process starts, counted and faulted by the devnet
 * itself), or any LCD URL behind the counting proxy (two played nodes, counted by the proxy).
 */
import { randomUUID } from "node:crypto";
import { startDevnet } from "../../devnet/server.ts";
import { startCountingProxy } from "./counting-proxy.ts";

export interface ColoUpstreams {
  /** Where the answers come from, for the report. */
  source: string;
  /** Who counted the upstream requests. */
  countedBy: string;
  /** Base URLs of node 1 and node 2, in UPSTREAM_URLS order. */
  nodes: [string, string];
  /** Requests node `i` received for exactly `pathAndQuery`. */
  requests(node: 0 | 1, pathAndQuery: string): Promise<number>;
  /** Node `i` reports heights `blocks` lower from now on. */
  lag(node: 0 | 1, blocks: number): Promise<void>;
  /** Node `i` answers `status` to everything from now on. */
  refuse(node: 0 | 1, status: number): Promise<void>;
  close(): Promise<void>;
}

/** A devnet of this process's own, playing two nodes as two mount tags. */
export async function devnetUpstreams(): Promise<ColoUpstreams> {
  const devnet = await startDevnet({ port: 0 });
  const tags = [`n1${randomUUID().slice(0, 6)}`, `n2${randomUUID().slice(0, 6)}`] as const;
  const addFault = async (spec: Record<string, unknown>) => {
    const response = await fetch(`${devnet.url}/__devnet/faults`, { method: "POST", body: JSON.stringify(spec) });
    if (response.status !== 201)
      throw new Error(`devnet refused the fault ${JSON.stringify(spec)}: ${response.status}`);
  };
  return {
    source: "the devnet",
    countedBy: "the devnet's request counters",
    nodes: [`${devnet.url}/~${tags[0]}`, `${devnet.url}/~${tags[1]}`],
    async requests(node, pathAndQuery) {
      const key = `~${tags[node]}${pathAndQuery}`;
      const seen = (await (
        await fetch(`${devnet.url}/__devnet/requests?prefix=${encodeURIComponent(key)}`)
      ).json()) as { by_path: Record<string, number> };
      return seen.by_path[key] ?? 0;
    },
    lag: (node, blocks) => addFault({ tag: tags[node], height_offset: -blocks }),
    refuse: (node, status) => addFault({ tag: tags[node], status }),
    close: () => devnet.close(),
  };
}

/** `url` behind the counting proxy, playing two nodes. */
export async function proxiedUpstreams(url: string): Promise<ColoUpstreams> {
  const proxy = await startCountingProxy(url);
  const names = ["n1", "n2"] as const;
  return {
    source: url,
    countedBy: "the counting proxy in front of it",
    nodes: [proxy.nodeUrl(names[0]), proxy.nodeUrl(names[1])],
    requests: async (node, pathAndQuery) => proxy.requests(names[node], pathAndQuery),
    lag: async (node, blocks) => proxy.behave(names[node], { lagBlocks: blocks }),
    refuse: async (node, status) => proxy.behave(names[node], { refuseWith: status }),
    close: () => proxy.close(),
  };
}
