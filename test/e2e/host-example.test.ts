/**
 * The host example (`npm run host:example`) over real HTTP: events signed with the
 * `standardwebhooks` package's own Webhook#sign are taken once per webhook-id; a wrong key, a
 * tampered body, a stale timestamp or missing headers answer 401; on `onboarding.authorized` it
 * prints the update-node command, runs it with `--run`, or with `--devnet` broadcasts the
 * MsgUpdateNode as the operator, which moves the devnet's node record.
 */
import { createHmac, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { ChainContext } from "../../src/protocol/index.ts";
import { freshAddress, recordAuthorization, serverContext } from "./helpers/chain.ts";
import { deliver, freshSecret, startHostExample, type HostExample } from "./helpers/host-example.ts";

const devnet = inject("devnetUrl");
let ctx: ChainContext;
beforeAll(async () => {
  ctx = await serverContext();
});

/** An onboarding event as the service sends it (the contract's host view). */
function onboardingEvent(type: string, data: Record<string, unknown> = {}) {
  const operator = freshAddress(ctx);
  const payout = freshAddress(ctx);
  const id = `ob_${randomBytes(16).toString("hex")}`;
  return {
    type,
    timestamp: new Date().toISOString(),
    data: {
      id,
      status: type.replace("onboarding.", ""),
      operator,
      label: "",
      reference: "cust-42",
      url: `http://127.0.0.1:8787/?onboarding=${id}`,
      return_url: null,
      payout,
      payout_source: "relay",
      authorization: { required: true },
      node: {},
      commands: { update_node: `echo update-node ${payout}`, payout_recipient_line: `PAYOUT_RECIPIENT=${payout}` },
      created_at: new Date().toISOString(),
      updated_at: new Date().toISOString(),
      expires_at: new Date(Date.now() + 7 * 86_400_000).toISOString(),
      ...data,
    },
  };
}

async function nodeRecord(operator: string): Promise<{ status: number; payout?: string }> {
  const response = await fetch(`${devnet}/${ctx.namespace}/incentives/v1/node/${operator}`);
  const body = (await response.json()) as { node?: { payout_recipient: string } };
  return { status: response.status, payout: body.node?.payout_recipient };
}

describe("host example: where it listens", () => {
  it("listens on 8788 unless told otherwise, where the guide's .dev.vars posts and its own receiver listens", () => {
    const guide = readFileSync("docs/HOSTS.md", "utf8");
    const example = readFileSync("scripts/host-example.ts", "utf8");
    expect(example).toContain('port: { type: "string", default: "8788" }');
    expect(guide).toContain("HOST_WEBHOOK_URL=http://127.0.0.1:8788/webhooks");
    expect(guide).toContain("const port = Number(process.env.PORT ?? 8788);");
    expect(guide).toContain("`--port`, default 8788");
  });
});

describe("host example: verification", () => {
  const secret = freshSecret();
  let host: HostExample;
  beforeAll(async () => {
    host = await startHostExample(secret);
  });
  afterAll(() => host.stop());

  it("takes an event Webhook#sign signed, prints it in one line, and answers 2xx", async () => {
    const event = onboardingEvent("onboarding.connected");
    const response = await deliver(host.url, secret, event, { id: "msg_connected_1" });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ received: "msg_connected_1", duplicate: false });
    const line = await host.waitFor(new RegExp(`^.*onboarding\\.connected.*${event.data.id}.*$`, "m"));
    expect(line).toContain(`operator ${event.data.operator}`);
    expect(line).toContain(`payout ${event.data.payout}`);
    expect(line).toContain("reference cust-42");
    expect(line).toContain("msg_connected_1");
  });

  it(
    "answers 401 to a signature by another key, a hand-built wrong HMAC, a tampered body, a stale timestamp and " +
      "missing headers",
    async () => {
      const event = onboardingEvent("onboarding.connected");
      const body = JSON.stringify(event);
      const at = new Date();
      const seconds = Math.floor(at.getTime() / 1000);
      // The scheme by hand: v1, + base64 HMAC-SHA256 of "<id>.<timestamp>.<body>" keyed with the decoded secret, here
      // with a wrong key.
      const wrongKey = randomBytes(32);
      const handBuilt = `v1,${createHmac("sha256", wrongKey).update(`msg_bad_1.${seconds}.${body}`).digest("base64")}`;
      const rightByHand = `v1,${createHmac("sha256", Buffer.from(secret.slice("whsec_".length), "base64"))
        .update(`msg_bad_1.${seconds}.${body}`)
        .digest("base64")}`;

      expect((await deliver(host.url, secret, body, { id: "msg_bad_1", at, secret: freshSecret() })).status).toBe(401);
      expect((await deliver(host.url, secret, body, { id: "msg_bad_1", at, signature: handBuilt })).status).toBe(401);
      expect(
        (await deliver(host.url, secret, `${body} `, { id: "msg_bad_1", at, signature: rightByHand })).status,
      ).toBe(401);
      const stale = new Date(Date.now() - 10 * 60_000);
      expect((await deliver(host.url, secret, body, { id: "msg_bad_2", at: stale })).status).toBe(401);
      const bare = await fetch(host.url, { method: "POST", headers: { "content-type": "application/json" }, body });
      expect(bare.status).toBe(401);
      expect(host.output()).not.toContain(event.data.id);

      // The same hand-built scheme with the right key verifies: the library and the spec agree.
      expect((await deliver(host.url, secret, body, { id: "msg_bad_1", at, signature: rightByHand })).status).toBe(200);
      await host.waitFor(new RegExp(event.data.id));
    },
  );

  it("takes a timestamp up to 5 minutes off either way, and refuses one further off (the guide's window)", async () => {
    const offBy = async (ms: number) => {
      const response = await deliver(host.url, secret, onboardingEvent("onboarding.connected"), {
        at: new Date(Date.now() + ms),
      });
      return response.status;
    };
    const minutes = 60_000;
    expect([await offBy(-5 * minutes + 15_000), await offBy(5 * minutes - 15_000)]).toEqual([200, 200]);
    expect([await offBy(-5 * minutes - 15_000), await offBy(5 * minutes + 15_000)]).toEqual([401, 401]);
  });

  it("handles a webhook-id once: a redelivery answers 2xx and is not printed again", async () => {
    const event = onboardingEvent("onboarding.applied");
    const first = await deliver(host.url, secret, event, { id: "msg_twice" });
    const again = await deliver(host.url, secret, event, { id: "msg_twice" });
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(await again.json()).toEqual({ received: "msg_twice", duplicate: true });
    await host.waitFor(/msg_twice again: already handled/);
    expect(host.output().split(event.data.id).length - 1).toBe(1);
  });

  it("answers 405 to anything but POST", async () => {
    expect((await fetch(host.url)).status).toBe(405);
  });
});

describe("host example: onboarding.authorized", () => {
  const secret = freshSecret();
  const hosts: HostExample[] = [];
  afterAll(async () => {
    await Promise.all(hosts.map((h) => h.stop()));
  });
  const start = async (...args: string[]) => {
    const host = await startHostExample(secret, ...args);
    hosts.push(host);
    return host;
  };

  it("prints commands.update_node by default and runs nothing", async () => {
    const dir = mkdtempSync(join(tmpdir(), "host-example-"));
    const marker = join(dir, "ran");
    const host = await start();
    const event = onboardingEvent("onboarding.authorized", {});
    event.data.commands.update_node = `echo ran > ${marker}`;
    expect((await deliver(host.url, secret, event)).status).toBe(200);
    await host.waitFor(new RegExp(`run on the node's machine:\\n  echo ran > ${marker.replaceAll("/", "\\/")}`));
    expect(() => readFileSync(marker)).toThrow();
    rmSync(dir, { recursive: true, force: true });
  });

  it("runs commands.update_node with the shell under --run", async () => {
    const dir = mkdtempSync(join(tmpdir(), "host-example-"));
    const marker = join(dir, "ran");
    const host = await start("--run");
    const event = onboardingEvent("onboarding.authorized", {});
    event.data.commands.update_node = `echo ran > ${marker}`;
    expect((await deliver(host.url, secret, event)).status).toBe(200);
    expect(readFileSync(marker, "utf8")).toBe("ran\n");
    rmSync(dir, { recursive: true, force: true });
  });

  it("with --devnet broadcasts MsgUpdateNode as the operator: the devnet's node record pays the payout", async () => {
    const host = await start("--devnet", devnet);
    const event = onboardingEvent("onboarding.authorized");
    const { operator, payout } = event.data;
    expect(await recordAuthorization(payout, operator)).toBe(201);
    expect((await nodeRecord(operator)).status).toBe(404);

    expect((await deliver(host.url, secret, event)).status).toBe(200);
    expect(await nodeRecord(operator)).toEqual({ status: 200, payout });
    const txhash = await host.waitFor(/MsgUpdateNode → payout \S+, tx ([0-9A-F]{64})/);
    const tx = (await (await fetch(`${devnet}/cosmos/tx/v1beta1/txs/${txhash}`)).json()) as {
      tx_response: { code: number };
    };
    expect(tx.tx_response.code).toBe(0);
    expect(host.output()).toContain(`registered one`);
  });

  it(
    "with --devnet answers 500 while the chain refuses the update, and applies the same event on its " + "redelivery",
    async () => {
      const host = await start("--devnet", devnet);
      const event = onboardingEvent("onboarding.authorized");
      const { operator, payout } = event.data;
      const refused = await deliver(host.url, secret, event, { id: "msg_retry" });
      expect(refused.status).toBe(500);
      expect(host.output()).toContain("not authorized");
      expect((await nodeRecord(operator)).payout).toBe(operator);

      expect(await recordAuthorization(payout, operator)).toBe(201);
      expect((await deliver(host.url, secret, event, { id: "msg_retry" })).status).toBe(200);
      expect((await nodeRecord(operator)).payout).toBe(payout);
    },
  );
});
