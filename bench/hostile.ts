/**
 * The attack corpus (bench/hostile/corpus.json) against the local service: each case states the
 * statuses it may get; the run prints a table and fails on any 5xx, any surprise, and any
 * refusal that reached an upstream node. `npm run prove:hostile`.
 */
import { toBech32 } from "@cosmjs/encoding";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createSession } from "./lib/pairing-flow.ts";
import { startLocalStack, type LocalStack } from "./lib/local-stack.ts";
import { rawRequest } from "./lib/raw-http.ts";

interface Case {
  name: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** Send the body chunked, without a Content-Length. */
  chunked?: boolean;
  expect: number[];
  upstream?: number;
  bodyIncludes?: string;
}

const corpus = JSON.parse(readFileSync(new URL("./hostile/corpus.json", import.meta.url), "utf8")) as { cases: Case[] };

/** Runs the corpus against a running stack; returns the number of failed cases. */
export async function runHostileCorpus(stack: LocalStack): Promise<number> {
  const base = stack.worker.url;
  const settings = (await (await fetch(`${base}/api/config`)).json()) as Record<string, string>;
  const prefix = settings.bech32_prefix!;
  const data = randomBytes(20);
  const address = toBech32(prefix, data);
  const { sessionId } = await createSession(base, settings, "corpus");

  const variants: Record<string, string> = {
    "": address,
    mixedcase: address.slice(0, -6) + address.slice(-6).toUpperCase(),
    uppercase: address.toUpperCase(),
    // Cyrillic 'с' (U+0441) for Latin 'c' or, failing that, for the first data character.
    homoglyph: address.includes("c", prefix.length + 1)
      ? address.slice(0, prefix.length + 1) + address.slice(prefix.length + 1).replace("c", "\u0441")
      : address.slice(0, prefix.length + 1) + "\u0441" + address.slice(prefix.length + 2),
    cosmos: toBech32(prefix === "cosmos" ? "osmo" : "cosmos", data),
    badchecksum: address.slice(0, -1) + (address.endsWith("q") ? "p" : "q"),
  };
  const expand = (text: string) =>
    text
      .replace(/\{\{repeat:(.+?):(\d+)\}\}/g, (_, unit: string, count: string) => unit.repeat(Number(count)))
      .replace(/\{\{addr(?::(\w+))?\}\}/g, (_, variant?: string) => variants[variant ?? ""]!)
      .replaceAll("{{ns}}", settings.namespace!)
      .replaceAll("{{wallet}}", settings.wallet_path!)
      .replaceAll("{{chain_id}}", settings.chain_id!)
      .replaceAll("{{session}}", sessionId)
      .replaceAll("{{origin}}", base)
      .replaceAll("{{pubkey}}", randomBytes(1952).toString("base64"));
  const asciiPath = (path: string) => path.replace(/[^\x00-\x7f]/g, (c) => encodeURIComponent(c));
  const upstreamCount = async () =>
    ((await (await stack.control("GET", "requests")).json()) as { count: number }).count;

  const rows: string[][] = [];
  let failures = 0;
  for (const testCase of corpus.cases) {
    const before = await upstreamCount();
    let status: number;
    let body = "";
    try {
      const headers = Object.fromEntries(Object.entries(testCase.headers ?? {}).map(([k, v]) => [k, expand(v)]));
      const answer = await rawRequest(base, {
        method: testCase.method,
        path: asciiPath(expand(testCase.path)),
        headers,
        body: testCase.body && expand(testCase.body),
        chunked: testCase.chunked,
      });
      status = answer.status;
      body = answer.body;
    } catch (err) {
      status = 0;
      body = String(err);
    }
    const reached = (await upstreamCount()) - before;
    const problems: string[] = [];
    if (status >= 500 || status === 0) problems.push("server error or no answer");
    if (!testCase.expect.includes(status)) problems.push(`expected ${testCase.expect.join("/")}`);
    if (testCase.upstream === 0 && reached > 0) problems.push(`reached upstream ${reached}×`);
    if (testCase.bodyIncludes && !body.includes(testCase.bodyIncludes))
      problems.push(`body lacks ${testCase.bodyIncludes}`);
    if (problems.length) failures++;
    rows.push([
      testCase.name,
      testCase.expect.join("/"),
      String(status),
      String(reached),
      problems.length ? `FAIL: ${problems.join("; ")}` : "ok",
    ]);
  }

  const widths = [0, 1, 2, 3, 4].map((i) => Math.max(...rows.map((r) => r[i]!.length), 8));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  console.log(line(["case", "expected", "got", "upstream", "result"]));
  console.log(line(widths.map((w) => "-".repeat(w))));
  for (const row of rows) console.log(line(row));
  console.log(`\n${corpus.cases.length - failures} passed, ${failures} failed`);
  return failures;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const stack = await startLocalStack({ port: Number(process.env.PROVE_PORT ?? 8791) });
  try {
    process.exitCode = (await runHostileCorpus(stack)) > 0 ? 1 : 0;
  } finally {
    await stack.stop();
  }
}
