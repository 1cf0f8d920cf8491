/**
 * Scripted fault runs against the local service with two controllable upstreams (one devnet
 * playing `~a` and `~b`): dead, slow past the budget, answering 500/429, answering garbage,
 * flapping, one of several dead, then recovery; and pairing across a server restart.
 * Every request must end within the time budget (no hung request). `npm run prove:faults`.
 */
import { toBech32 } from "@cosmjs/encoding";
import { randomBytes } from "node:crypto";
import { createSession } from "./lib/pairing-flow.ts";
import { startLocalStack, type LocalStack } from "./lib/local-stack.ts";

const TIMEOUT_MS = 400;
const BUDGET_MS = 1200;
/** The longest any request may take: the budget plus the dev server's own overhead. */
const NO_HANG_MS = BUDGET_MS + 1500;

interface Outcome {
  scenario: string;
  expected: string;
  observed: string;
  ok: boolean;
}

interface Answer {
  status: number;
  cache: string | null;
  ms: number;
}

/** Runs every scenario against a fresh stack; returns the number of failed ones. */
export async function runFaults(port: number): Promise<number> {
  const stack = await startLocalStack({
    port,
    upstreamTags: ["a", "b"],
    vars: {
      UPSTREAM_TIMEOUT_MS: String(TIMEOUT_MS),
      UPSTREAM_BUDGET_MS: String(BUDGET_MS),
      UPSTREAM_COOLDOWN_MS: "1000",
      RATE_LIMITS: "off",
    },
  });
  const outcomes: Outcome[] = [];
  try {
    const settings = (await (await fetch(`${stack.worker.url}/api/config`)).json()) as Record<string, string>;
    const prefix = settings.bech32_prefix!;
    const balances = () => `/api/cosmos/bank/v1beta1/balances/${toBech32(prefix, randomBytes(20))}`;
    const get = async (path: string): Promise<Answer> => {
      const started = performance.now();
      const response = await fetch(`${stack.worker.url}${path}`);
      await response.arrayBuffer();
      return { status: response.status, cache: response.headers.get("x-cache"), ms: performance.now() - started };
    };
    const fault = (body: Record<string, unknown>) => stack.control("POST", "faults", body);
    const clear = () => stack.control("POST", "reset");
    const check = (scenario: string, expected: string, answers: Answer[], ok: (a: Answer) => boolean) => {
      const slowest = Math.max(...answers.map((a) => a.ms));
      const statuses = [...new Set(answers.map((a) => `${a.status}${a.cache ? ` ${a.cache}` : ""}`))].join(", ");
      outcomes.push({
        scenario,
        expected,
        observed: `${statuses}; slowest ${slowest.toFixed(0)} ms`,
        ok: answers.every(ok) && slowest < NO_HANG_MS,
      });
    };
    const many = (n: number, path: () => string) => Promise.all(Array.from({ length: n }, () => get(path())));

    // 1. One of several upstreams dead: everything still answers, from the other one.
    await fault({ tag: "a", drop: true });
    check(
      "one of two upstreams dead (connection dropped)",
      "200 from the other",
      await many(20, balances),
      (a) => a.status === 200,
    );
    await clear();

    // 2. An upstream answering 500, then 429: fail over.
    await fault({ tag: "a", status: 500 });
    check("one upstream answering 500", "200 by failover", await many(10, balances), (a) => a.status === 200);
    await clear();
    await fault({ tag: "a", status: 429 });
    check("one upstream answering 429", "200 by failover", await many(10, balances), (a) => a.status === 200);
    await clear();

    // 3. Garbage: a 2xx that is not JSON is never served or cached.
    await fault({ tag: "a", status: 200, body: "<html>maintenance</html>" });
    check(
      "one upstream answering HTML with 200",
      "200 JSON by failover",
      await many(10, balances),
      (a) => a.status === 200,
    );
    await fault({ tag: "b", status: 200, body: "<html>maintenance</html>" });
    const garbage = balances();
    check("every upstream answering HTML", "502, fast", [await get(garbage)], (a) => a.status === 502);
    await clear();
    check(
      "the same key once the upstreams recover",
      "200 MISS (the garbage was not cached)",
      [await get(garbage)],
      (a) => a.status === 200 && a.cache === "MISS",
    );

    // 4. Flapping: each upstream fails every other request.
    const flapping = [];
    for (let round = 0; round < 10; round++) {
      await fault({ tag: round % 2 ? "a" : "b", drop: true, times: 1 });
      flapping.push(await get(balances()));
    }
    check("upstreams flapping between healthy and not", "200 every time", flapping, (a) => a.status === 200);
    await clear();

    // 5. Everything down: stale answers where cached, fast clear errors otherwise.
    const warmed = balances();
    await get(warmed);
    await fault({ drop: true });
    await new Promise((resolve) => setTimeout(resolve, 6_000)); // past the 5 s TTL of balances
    check(
      "every upstream down, cached key",
      "200 stale",
      [await get(warmed)],
      (a) => a.status === 200 && /STALE/.test(a.cache ?? ""),
    );
    check("every upstream down, uncached key", "502, fast", [await get(balances())], (a) => a.status === 502);
    await clear();

    // 6. Slow past the budget: 504 within the budget, never a hung request.
    await fault({ delay_ms: 3_000 });
    check(
      "every upstream slower than the budget",
      "504 within the budget",
      await many(5, balances),
      (a) => a.status === 504 && a.ms < BUDGET_MS + 1000,
    );
    await clear();

    // 7. Recovery as soon as the upstreams answer again (skipped ones are still tried last).
    await fault({ drop: true });
    await many(5, balances);
    await clear();
    check("recovery right after an outage", "200 at once", await many(5, balances), (a) => a.status === 200);

    // 8. Pairing survives a restart of the server in the middle of a session.
    outcomes.push(await pairingAcrossRestart(stack, settings));
  } finally {
    await stack.stop();
  }

  const widths = [56, 40, 48];
  const row = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 4)).join(" | ")} |`;
  console.log(row(["scenario", "expected", "observed", "ok"]));
  console.log(row([...widths.map((w) => "-".repeat(w)), "--"]));
  for (const o of outcomes) console.log(row([o.scenario, o.expected, o.observed, o.ok ? "ok" : "FAIL"]));
  const failed = outcomes.filter((o) => !o.ok).length;
  console.log(`\n${outcomes.length - failed} passed, ${failed} failed`);
  return failed;
}

/** Create, subscribe, restart the server, confirm: the waiting client reconnects and gets the row. */
async function pairingAcrossRestart(stack: LocalStack, settings: Record<string, string>): Promise<Outcome> {
  const base = stack.worker.url;
  const { sessionId, sessions } = await createSession(base, settings, "faults");
  const address = toBech32(settings.bech32_prefix!, randomBytes(20));
  const first = new WebSocket(`${sessions.replace("http", "ws")}/${sessionId}`);
  await new Promise((resolve) => first.addEventListener("message", resolve, { once: true }));
  const dropped = new Promise((resolve) => first.addEventListener("close", resolve, { once: true }));

  await stack.restartWorker();
  await dropped;
  // The waiting client reconnects, as the page's session client does.
  const second = new WebSocket(`${sessions.replace("http", "ws")}/${sessionId}`);
  const rows: { status: string; address: string | null }[] = [];
  const connected = new Promise<void>((resolve) =>
    second.addEventListener("message", (event) => {
      rows.push(JSON.parse(String(event.data)));
      if (rows.at(-1)!.status === "connected") resolve();
    }),
  );
  await new Promise((resolve) => second.addEventListener("open", resolve, { once: true }));
  const confirm = await fetch(`${sessions}/${sessionId}/confirm`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ session_id: sessionId, address, pubkey_base64: randomBytes(1952).toString("base64") }),
  });
  const pushed = await Promise.race([
    connected.then(() => true),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 5_000)),
  ]);
  second.close();
  const ok = confirm.status === 200 && pushed && rows[0]?.status === "pending" && rows.at(-1)?.address === address;
  return {
    scenario: "pairing across a server restart",
    expected: "pending row after restart, then connected",
    observed: `confirm ${confirm.status}; rows pushed: ${rows.map((r) => r.status).join(" → ")}`,
    ok,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.exitCode = (await runFaults(Number(process.env.PROVE_PORT ?? 8792))) > 0 ? 1 : 0;
}
