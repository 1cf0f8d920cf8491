/**
 * `npm run bench:colos -- --colos N [--upstream URL] [--shield on|off] [--requests M]`
 *
 * N data centers on this machine (separate isolates, separate Cache API, one shared shield
 * namespace) in one bare workerd, against the devnet (started here) or any LCD URL behind a
 * counting proxy. Sends a cold herd for the same keys through every instance at once, then plays
 * a node lagging 50 blocks. Prints a summary, then one JSON object as the last line.
 */
import { parseArgs } from "node:util";
import { simulateColos } from "./lib/colo-sim.ts";

const { values } = parseArgs({
  options: {
    colos: { type: "string", default: "5" },
    upstream: { type: "string" },
    shield: { type: "string", default: "on" },
    requests: { type: "string", default: "100" },
  },
});

function count(name: string, raw: string, max: number): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > max) {
    console.error(`--${name} must be an integer from 1 to ${max}, not "${raw}"`);
    process.exit(2);
  }
  return n;
}

if (values.shield !== "on" && values.shield !== "off") {
  console.error(`--shield must be "on" or "off", not "${values.shield}"`);
  process.exit(2);
}
if (values.upstream !== undefined && !/^https?:\/\/[^\s]+$/.test(values.upstream)) {
  console.error(`--upstream must be an http(s) base URL, not "${values.upstream}"`);
  process.exit(2);
}

const report = await simulateColos({
  colos: count("colos", values.colos, 50),
  requests: count("requests", values.requests, 1000),
  shield: values.shield === "on",
  upstream: values.upstream,
});

console.log(
  `${report.colos} data centers × ${report.requests_per_instance} requests per key, shield ${report.shield}, against ${report.upstream} (counted by ${report.upstream_requests_counted_by}):`,
);
for (const [path, key] of Object.entries(report.herd.keys) as [
  string,
  { upstream_requests: number; statuses: object; heights_by_instance: object[] },
][]) {
  const heights = new Set(key.heights_by_instance.flatMap((h) => Object.keys(h)));
  console.log(
    `  cold herd ${path}: ${key.upstream_requests} upstream request(s); answers ${JSON.stringify(key.statuses)}; heights served: ${[...heights].join(", ")}`,
  );
}
console.log(
  `  lagging node: ${report.lagging_node.lower_after_higher} answer(s) at a lower height after a higher one was served anywhere`,
);
console.log(JSON.stringify(report));
