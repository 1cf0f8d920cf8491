/**
 * The printed node commands in a real POSIX shell: each runs exactly one invocation of the node
 * binary with exactly the intended arguments, whatever the key name holds. A stand-in binary on
 * PATH records its argv; a hostile value that escaped its word would run a second command.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { toBech32 } from "@cosmjs/encoding";
import { buildUpdateNodeCommand } from "../../src/protocol/index.ts";
import { buildSweep } from "../../src/protocol/index.ts";
import type { ChainContext } from "../../src/protocol/index.ts";

const dir = mkdtempSync(join(tmpdir(), "shell-safety-"));
const ctx: ChainContext = { namespace: "acme", bech32Prefix: "acme", chainId: "acme-1", nativeDenom: "uacme", nodeBinary: "acmed", walletScheme: "acmewallet", walletPath: "wallet" };
const payout = toBech32("acme", new Uint8Array(20).fill(1));
const operator = toBech32("acme", new Uint8Array(20).fill(2));
const log = join(dir, "argv.jsonl");
const marker = join(dir, "pwned");

// Stand-ins for the node binary and docker: each appends its argv as one JSON line.
for (const name of ["acmed", "docker"]) {
  const file = join(dir, name);
  writeFileSync(file, `#!${process.execPath}\nrequire("node:fs").appendFileSync(${JSON.stringify(log)}, JSON.stringify(process.argv.slice(1).map((a, i) => i === 0 ? require("node:path").basename(a) : a)) + "\\n");\n`);
  chmodSync(file, 0o755);
}

function run(command: string): string[][] {
  rmSync(log, { force: true });
  execFileSync("/bin/sh", ["-c", command], { env: { PATH: `${dir}:/usr/bin:/bin`, HOME: dir }, cwd: dir });
  return readFileSync(log, "utf8").trim().split("\n").map((line) => JSON.parse(line) as string[]);
}

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("printed commands in /bin/sh", () => {
  const hostile = [
    "operator",
    `x; touch ${marker}`,
    `$(touch ${marker})`,
    `\`touch ${marker}\``,
    `it's; touch ${marker}; echo '`,
    `a" && touch ${marker} && "`,
    `key | tee ${marker}`,
    `key > ${marker}`,
    "*",
    "~root",
    "-y --home /tmp",
  ];

  it.each(hostile)("update-node with key name %j is one invocation with that exact --from", (keyName) => {
    const calls = run(buildUpdateNodeCommand(ctx, { operator, payoutRecipient: payout, keyName }));
    expect(calls).toEqual([["acmed", "tx", "incentives", "update-node", "", "--payout-recipient", payout, "--from", keyName, "--chain-id", "acme-1", "--sign-mode", "pq-direct", "-y"]]);
    expect(existsSync(marker)).toBe(false);
  });

  it("the docker exec wrap passes the node command through unchanged", () => {
    const calls = run(buildUpdateNodeCommand(ctx, { operator, payoutRecipient: payout, keyName: `k; touch ${marker}`, container: "node-1" }));
    expect(calls).toEqual([["docker", "exec", "node-1", "acmed", "tx", "incentives", "update-node", "", "--payout-recipient", payout, "--from", `k; touch ${marker}`, "--chain-id", "acme-1", "--sign-mode", "pq-direct", "-y"]]);
    expect(existsSync(marker)).toBe(false);
  });

  it("the sweep is one bank send that pays the reserve as its fee", () => {
    const sweep = buildSweep(ctx, { operator, payoutRecipient: payout, balance: "1000", feeReserve: "100", keyName: `$(touch ${marker})` });
    expect(run(sweep.command)).toEqual([["acmed", "tx", "bank", "send", `$(touch ${marker})`, payout, "900uacme", "--fees", "100uacme", "--chain-id", "acme-1", "--sign-mode", "pq-direct", "-y"]]);
    expect(existsSync(marker)).toBe(false);
  });
});
