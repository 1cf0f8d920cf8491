/**
 * The printed node commands in a real POSIX shell: each runs exactly one invocation of the node
 * binary (through docker exec when a container is named) with exactly the intended arguments,
 * whatever the editable key name and home hold; a hostile container or keyring backend never
 * reaches a command. Stand-ins for the binary and docker on PATH record their argv; a hostile
 * value that escaped its word would run a second command.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { toBech32 } from "@cosmjs/encoding";
import { buildUpdateNodeCommand, MessageError } from "../../src/protocol/index.ts";
import { buildSweep } from "../../src/protocol/index.ts";
import type { ChainContext, NodeTarget } from "../../src/protocol/index.ts";

const dir = mkdtempSync(join(tmpdir(), "shell-safety-"));
const ctx: ChainContext = {
  namespace: "acme",
  bech32Prefix: "acme",
  chainId: "acme-1",
  nativeDenom: "uacme",
  nodeBinary: "acmed",
  walletScheme: "acmewallet",
  walletPath: "wallet",
};
const payout = toBech32("acme", new Uint8Array(20).fill(1));
const operator = toBech32("acme", new Uint8Array(20).fill(2));
const log = join(dir, "argv.jsonl");
const marker = join(dir, "pwned");

// Stand-ins for the node binary and docker: each appends its argv as one JSON line.
for (const name of ["acmed", "docker"]) {
  const file = join(dir, name);
  writeFileSync(
    file,
    `#!${process.execPath}\nrequire("node:fs").appendFileSync(${JSON.stringify(log)}, ` +
      `JSON.stringify(process.argv.slice(1).map((a, i) => i === 0 ? require("node:path").basename(a) : a)) + "\\n");\n`,
  );
  chmodSync(file, 0o755);
}

function run(command: string): string[][] {
  rmSync(log, { force: true });
  execFileSync("/bin/sh", ["-c", command], { env: { PATH: `${dir}:/usr/bin:/bin`, HOME: dir }, cwd: dir });
  return readFileSync(log, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as string[]);
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

  const target: NodeTarget = { keyName: "operator", home: "/home/acme/.acme", keyringBackend: "test", container: "" };
  const flags = (home: string) => [
    "--home",
    home,
    "--keyring-backend",
    "test",
    "--chain-id",
    "acme-1",
    "--sign-mode",
    "pq-direct",
    "-y",
  ];

  it.each(hostile)("update-node with key name %j is one invocation with that exact --from", (keyName) => {
    const calls = run(buildUpdateNodeCommand(ctx, { operator, payoutRecipient: payout, ...target, keyName }));
    expect(calls).toEqual([
      [
        "acmed",
        "tx",
        "incentives",
        "update-node",
        "",
        "--payout-recipient",
        payout,
        "--from",
        keyName,
        ...flags(target.home),
      ],
    ]);
    expect(existsSync(marker)).toBe(false);
  });

  it.each(hostile.map((value) => `/${value}`))(
    "update-node with home %j is one invocation with that exact --home",
    (home) => {
      const calls = run(buildUpdateNodeCommand(ctx, { operator, payoutRecipient: payout, ...target, home }));
      expect(calls).toEqual([
        [
          "acmed",
          "tx",
          "incentives",
          "update-node",
          "",
          "--payout-recipient",
          payout,
          "--from",
          "operator",
          ...flags(home),
        ],
      ]);
      expect(existsSync(marker)).toBe(false);
    },
  );

  it("the docker exec wrap passes the node command through unchanged", () => {
    const home = `/h; touch ${marker}`;
    const calls = run(
      buildUpdateNodeCommand(ctx, {
        operator,
        payoutRecipient: payout,
        ...target,
        keyName: `k; touch ${marker}`,
        home,
        container: "node-1",
      }),
    );
    expect(calls).toEqual([
      [
        "docker",
        "exec",
        "node-1",
        "acmed",
        "tx",
        "incentives",
        "update-node",
        "",
        "--payout-recipient",
        payout,
        "--from",
        `k; touch ${marker}`,
        ...flags(home),
      ],
    ]);
    expect(existsSync(marker)).toBe(false);
  });

  it("the sweep is one bank send of balance minus the reserve, with no --fees", () => {
    const home = `/$(touch ${marker})`;
    const sweep = buildSweep(ctx, {
      operator,
      payoutRecipient: payout,
      balance: "1000",
      reserve: "100",
      ...target,
      keyName: `$(touch ${marker})`,
      home,
      container: "node-1",
    });
    expect(run(sweep.command)).toEqual([
      [
        "docker",
        "exec",
        "node-1",
        "acmed",
        "tx",
        "bank",
        "send",
        `$(touch ${marker})`,
        payout,
        "900uacme",
        ...flags(home),
      ],
    ]);
    expect(existsSync(marker)).toBe(false);
  });

  it.each([
    ["container", `node-1; touch ${marker}`],
    ["container", `$(touch ${marker})`],
    ["keyringBackend", `test; touch ${marker}`],
    ["keyringBackend", `$(touch ${marker})`],
  ])("a hostile %s (%j) is refused, so no command carries it", (field, value) => {
    expect(() => buildUpdateNodeCommand(ctx, { operator, payoutRecipient: payout, ...target, [field]: value })).toThrow(
      MessageError,
    );
    expect(() =>
      buildSweep(ctx, { operator, payoutRecipient: payout, balance: "10", reserve: "1", ...target, [field]: value }),
    ).toThrow(MessageError);
  });
});
