/**
 * docs/HOSTS.md runs as written. Each code block the guide marks runnable (an HTML comment before
 * it, `<!-- runnable: <name> -->`) is taken from the guide and run with bash, in order, against a
 * dev server with host settings and the devnet (the host loop's server the global setup starts):
 * `.dev.vars` made as section 1 says, curl's header file, an onboarding created, read, listed and
 * cancelled, the guide's receiver saved as `receiver.mjs` and started as the guide says, which
 * then gets the service's signed events of a customer connected and authorized as section 12 does
 * it without a browser. And no command in the guide puts a key or a secret on a command line.
 *
 * As a newcomer runs them: the README's own copy of `.dev.vars.example` first, then section 1 and
 * section 2's blocks in one shell, with nothing set but what the guide says (no `OPERATOR` given);
 * the guide's traps (a second `HOST_API_KEYS` line, a value whose local source it never names, two
 * receivers on one port, no local way to `applied`, a reused `Idempotency-Key`) fail a test here.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { serverContext } from "./helpers/chain.ts";
import { untilServing } from "./helpers/wrangler-dev.ts";

const GUIDE = readFileSync("docs/HOSTS.md", "utf8");
const README = readFileSync("README.md", "utf8");
const GATEWAY_GUIDE = readFileSync("docs/GATEWAY.md", "utf8");
/** The README's copy step, as its reader runs it. */
const README_COPY = /`(cp \.dev\.vars\.example \.dev\.vars)`/.exec(README)?.[1];
const { url: base, key, secret, webhookPort } = inject("hostLoop");
const devnet = inject("devnetUrl");
const ctx = await serverContext();

/** The guide's runnable blocks by name, in the guide's order. */
const blocks = new Map(
  [...GUIDE.matchAll(/<!-- runnable: ([^>]+?) -->\n```\w+\n([\s\S]*?)\n```/g)].map((m) => [m[1]!, m[2]!]),
);
const block = (name: string) => {
  const code = blocks.get(name);
  if (code === undefined) throw new Error(`docs/HOSTS.md has no block marked <!-- runnable: ${name} -->`);
  return code;
};

// Inside the repository, as the guide's reader is: `npm run` and the receiver's `import` resolve from here.
mkdirSync("test-results", { recursive: true });
const folder = mkdtempSync(resolve("test-results/host-guide-"));
const PATH = `${resolve("node_modules/.bin")}:${process.env.PATH}`;

/**
 * Runs `code` with bash in the reader's folder, with the guide's variables; its stdout, or a throw with everything it
 * said.
 */
function run(code: string, vars: Record<string, string> = {}, cwd = folder): string {
  const done = spawnSync("bash", ["-euo", "pipefail", "-c", code], {
    cwd,
    env: { ...process.env, PATH, BASE: base, DEVNET: devnet, ...vars },
    encoding: "utf8",
    timeout: 90_000,
  });
  if (done.status !== 0) throw new Error(`exit ${done.status}:\n${code}\n${done.stdout}\n${done.stderr}`);
  return done.stdout;
}

/** The JSON documents curl printed one after the other (no newline between them). */
function jsonDocuments(text: string): unknown[] {
  const documents: unknown[] = [];
  let depth = 0;
  let start = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{") depth++ === 0 && (start = i);
    else if (c === "}" && --depth === 0) documents.push(JSON.parse(text.slice(start, i + 1)));
  }
  return documents;
}

let receiver: ChildProcess | undefined;
let received = "";
async function receiverSays(pattern: RegExp): Promise<void> {
  for (;;) {
    if (pattern.test(received)) return;
    if (receiver?.exitCode !== null) throw new Error(`the guide's receiver exited:\n${received}`);
    await new Promise((r) => receiver!.stdout!.once("data", r));
  }
}

beforeAll(async () => {
  await untilServing(base);
  // A fresh clone's folder: the README's copy step, then section 1 as written.
  writeFileSync(join(folder, ".dev.vars.example"), readFileSync(".dev.vars.example"));
  if (README_COPY === undefined) throw new Error("the README names no `cp .dev.vars.example .dev.vars` step");
  run(README_COPY);
  run(block("dev-vars"));
  // The server the suite started has its own settings: each value section 1 made stands for it, in place. A line
  // left empty stays empty, as the reader's file would keep it.
  const made = readFileSync(join(folder, ".dev.vars"), "utf8")
    .replace(/^HOST_API_KEYS=.+$/gm, `HOST_API_KEYS=${key}`)
    .replace(/^HOST_WEBHOOK_SECRET=.+$/gm, `HOST_WEBHOOK_SECRET=${secret}`)
    .replace(/^HOST_WEBHOOK_URL=.+$/gm, `HOST_WEBHOOK_URL=http://127.0.0.1:${webhookPort}/webhooks`);
  writeFileSync(join(folder, ".dev.vars"), made);
});
afterAll(() => {
  receiver?.kill("SIGTERM");
  rmSync(folder, { recursive: true, force: true });
});

describe("docs/HOSTS.md, run as written", () => {
  it("section 1 makes .dev.vars: a key of 32 random bytes in hex, a whsec_ secret of 32, the local webhook URL", () => {
    const own = mkdtempSync(resolve("test-results/host-guide-vars-"));
    try {
      run(block("dev-vars"), {}, own);
      const vars = readFileSync(join(own, ".dev.vars"), "utf8");
      expect(vars).toMatch(/^HOST_API_KEYS=[0-9a-f]{64}\nHOST_WEBHOOK_SECRET=whsec_\S+\nHOST_WEBHOOK_URL=\S+\n$/);
      const made = /HOST_WEBHOOK_SECRET=whsec_(\S+)/.exec(vars)![1]!;
      expect(Buffer.from(made, "base64")).toHaveLength(32);
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });

  it("section 1 after the README's copy, and run twice: one line each, the example's other lines kept", () => {
    const own = mkdtempSync(resolve("test-results/host-guide-copy-"));
    try {
      writeFileSync(join(own, ".dev.vars.example"), readFileSync(".dev.vars.example"));
      run(README_COPY!, {}, own);
      run(block("dev-vars"), {}, own);
      const first = readFileSync(join(own, ".dev.vars"), "utf8");
      run(block("dev-vars"), {}, own);
      const vars = readFileSync(join(own, ".dev.vars"), "utf8");
      for (const text of [first, vars]) {
        expect(text.match(/^HOST_API_KEYS=.*$/gm)).toEqual([expect.stringMatching(/^HOST_API_KEYS=[0-9a-f]{64}$/)]);
        expect(text.match(/^HOST_WEBHOOK_SECRET=.*$/gm)).toHaveLength(1);
        expect(text.match(/^HOST_WEBHOOK_URL=.*$/gm)).toHaveLength(1);
        expect(text).toMatch(/^SESSION_SIGNING_KEY=$/m);
      }
      expect(statSync(join(own, ".dev.vars")).mode & 0o077).toBe(0);
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });

  it("section 2 says when .dev.vars holds no key, and writes no header file", () => {
    const own = mkdtempSync(resolve("test-results/host-guide-nokey-"));
    try {
      writeFileSync(join(own, ".dev.vars"), "HOST_API_KEYS=\n");
      const done = spawnSync("bash", ["-c", block("auth-header")], { cwd: own, encoding: "utf8" });
      expect(done.stderr).toMatch(/no key in \.dev\.vars: run section 1/);
      expect(() => statSync(join(own, ".host-auth"))).toThrow();
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });

  it("section 2's header file carries the key from .dev.vars, readable by its owner only", () => {
    run(block("auth-header"));
    expect(readFileSync(join(folder, ".host-auth"), "utf8")).toBe(`Authorization: Bearer ${key}\n`);
    expect(statSync(join(folder, ".host-auth")).mode & 0o077).toBe(0);
  });

  it(
    "section 4's receiver, saved and started as the guide says, gets the events " +
      "of section 12's customer; sections 2, 7, 8 and 11 create, read, list and cancel",
    async () => {
      writeFileSync(join(folder, "receiver.mjs"), block("file receiver.mjs"));
      receiver = spawn("bash", ["-c", block("background receiver")], {
        cwd: folder,
        env: { ...process.env, PATH, PORT: String(webhookPort) },
        stdio: ["ignore", "pipe", "pipe"],
      });
      receiver.stdout!.on("data", (chunk: Buffer) => (received += chunk.toString()));
      receiver.stderr!.on("data", (chunk: Buffer) => (received += chunk.toString()));
      await receiverSays(/listening on http:\/\/127\.0\.0\.1:\d+\/webhooks/);

      // Sections 2's blocks in one shell, as the reader runs them: OPERATOR comes from the guide, not from here.
      const created = JSON.parse(run([block("auth-header"), block("local-values"), block("create")].join("\n"))) as {
        id: string;
        status: string;
      };
      expect(created).toMatchObject({ status: "open", reference: "order-1042" });
      const [one, events] = jsonDocuments(run(block("read"), { ID: created.id }));
      expect(one).toMatchObject({ id: created.id });
      expect(events).toEqual({ events: [] });
      const [authorized, byReference] = jsonDocuments(run(block("list")));
      expect(authorized).toMatchObject({ data: expect.any(Array) });
      // The index trails the onboarding by about a second.
      await expect
        .poll(async () => (jsonDocuments(run(block("list")))[1] as { data: { id: string }[] }).data.map((o) => o.id))
        .toContain(created.id);
      expect(byReference).toMatchObject({ data: expect.any(Array) });

      const loop = JSON.parse(run(block("loop-create"))) as {
        id: string;
        operator: string;
        url: string;
        reference: string;
      };
      expect(loop).toMatchObject({ status: "open", reference: expect.stringMatching(/^local-\d+-\d+$/) });
      // Run again, it makes a new onboarding: a fresh Idempotency-Key each time.
      const again = JSON.parse(run(block("loop-create"))) as { id: string; status: string };
      expect(again.status).toBe("open");
      expect(again.id).not.toBe(loop.id);
      expect(loop.url).toBe(`${base}/?onboarding=${loop.id}`);
      run(block("loop-customer"), { ID: loop.id, OPERATOR: loop.operator });
      await receiverSays(new RegExp(`onboarding\\.connected ${loop.id} status connected reference ${loop.reference}`));
      await receiverSays(
        new RegExp(`onboarding\\.authorized ${loop.id} status authorized reference ${loop.reference}`),
      );
      await receiverSays(
        new RegExp(`run on the node: docker exec \\S+ \\S+ tx incentives update-node "" --payout-recipient`),
      );
      // Section 4's local way to applied: the devnet plays the operator key.
      run(block("apply-locally"), { ID: loop.id });
      await receiverSays(new RegExp(`onboarding\\.applied ${loop.id} status applied reference ${loop.reference}`));
      // Its page has nothing left to pair, and says so; so does the simulator, given what the page carries.
      const page = await (await fetch(`${base}/?onboarding=${loop.id}`)).text();
      expect(page).toMatch(/data-status="applied">This onboarding is applied/);
      expect(() => run(block("loop-customer"), { ID: loop.id, OPERATOR: loop.operator })).toThrow(
        /wallet: the link is empty/,
      );

      const cancelled = JSON.parse(run(block("cancel"), { ID: created.id })) as { status: string };
      expect(cancelled.status).toBe("cancelled");
      await receiverSays(new RegExp(`onboarding\\.cancelled ${created.id} status cancelled reference order-1042`));
    },
  );

  it("one receiver port, or the guide says to stop the first; every variable a block needs has a local source", () => {
    const receiverPort = /process\.env\.PORT \?\? (\d+)/.exec(block("file receiver.mjs"))![1];
    const webhookPort = /HOST_WEBHOOK_URL=http:\/\/127\.0\.0\.1:(\d+)/.exec(block("dev-vars"))![1];
    expect(receiverPort).toBe(webhookPort);
    const loop = GUIDE.slice(GUIDE.indexOf("## 12."));
    // The host example listens on that same port by default (scripts/host-example.ts): section 12 must stop the first.
    expect(loop).toMatch(/stop\s+that\s+receiver\s+first/i);
    const sectionTwo = GUIDE.slice(GUIDE.indexOf("## 2."), GUIDE.indexOf("## 3."));
    for (const name of ["BASE", "OPERATOR", "ID"]) expect(sectionTwo, name).toMatch(new RegExp(`\`${name}\`[^.]*`));
    expect(block("local-values")).toMatch(/^OPERATOR=\$\(curl/m);
    expect(block("loop-create")).not.toMatch(/Idempotency-Key: [\w-]+'/);
  });

  it("GATEWAY.md's examples use the served namespace; its CosmJS note names the parser's file and cosmjs-types", () => {
    const paths = [...GATEWAY_GUIDE.matchAll(/\/api\/([a-z0-9-]+)\/(incentives|trustscore|campaign)\//g)];
    expect(paths.length).toBeGreaterThan(0);
    for (const [path, namespace] of paths) expect(namespace, path).toBe(ctx.namespace);
    const note = /accountParser[\s\S]*?`([\w/.-]+\.ts)`[\s\S]*?\n\n/.exec(
      GATEWAY_GUIDE.slice(GATEWAY_GUIDE.indexOf("ML-DSA")),
    )!;
    expect(readFileSync(note[1]!, "utf8")).toMatch(/export function accountParser/);
    expect(note[0]).toContain("cosmjs-types");
  });

  it("puts no key or secret on a command line: curl reads the header file, the servers read .dev.vars", () => {
    const shell = [...GUIDE.matchAll(/```sh\n([\s\S]*?)\n```/g)].map((m) => m[1]!).join("\n");
    expect(shell).not.toMatch(/Bearer \$|Bearer <|--var HOST_|--secret|HOST_WEBHOOK_SECRET=\S+ npm|whsec_…/);
    for (const line of shell.split("\n").filter((l) => /^curl .*\/api\/(onboardings|events|webhook)/.test(l)))
      expect(line).toContain("-H @.host-auth");
  });
});
