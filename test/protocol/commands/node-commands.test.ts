import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { readConfig } from "../../../src/config";
import { buildPayoutRecipientLine, buildUpdateNodeCommand, DEFAULT_KEY_NAME } from "../../../src/protocol/index";
import { shellWord } from "../../../src/protocol/index";
import { buildSweep, DEFAULT_SWEEP_RESERVE } from "../../../src/protocol/index";
import { OTHER, address, refusal, workerContext } from "../messages/helpers";

const ctx = workerContext();
const config = readConfig(env);
const payout = address(ctx.bech32Prefix, 1);
const operator = address(ctx.bech32Prefix, 2);
/** The node defaults the server's configuration gives the page. */
const node = {
  keyName: DEFAULT_KEY_NAME,
  home: config.nodeHome,
  keyringBackend: config.nodeKeyringBackend,
  container: config.nodeContainer,
};
const flags =
  `--home ${config.nodeHome} --keyring-backend ${config.nodeKeyringBackend} --chain-id ${ctx.chainId} ` +
  `--sign-mode pq-direct -y`;

describe("update-node command", () => {
  it(
    'is the hosting guide\'s command: docker exec, update-node "", payout, key, home, keyring, chain, ' +
      "pq-direct, -y",
    () => {
      expect(buildUpdateNodeCommand(ctx, { operator, payoutRecipient: payout, ...node })).toBe(
        `docker exec ${config.nodeContainer} ${ctx.nodeBinary} tx incentives update-node "" --payout-recipient ` +
          `${payout} --from operator ${flags}`,
      );
    },
  );

  it("runs the binary directly when no container is named", () => {
    expect(buildUpdateNodeCommand(ctx, { operator, payoutRecipient: payout, ...node, container: "" })).toBe(
      `${ctx.nodeBinary} tx incentives update-node "" --payout-recipient ${payout} --from operator ${flags}`,
    );
  });

  it("uses the context's binary and chain id, and the target's home and keyring", () => {
    const p = address("acme", 1);
    const o = address("acme", 2);
    expect(
      buildUpdateNodeCommand(OTHER, {
        operator: o,
        payoutRecipient: p,
        keyName: "k",
        home: "/srv/acme",
        keyringBackend: "file",
        container: "acme-1",
      }),
    ).toBe(
      `docker exec acme-1 acmed tx incentives update-node "" --payout-recipient ${p} --from k --home /srv/acme ` +
        `--keyring-backend file --chain-id acme-main-7 --sign-mode pq-direct -y`,
    );
  });

  it.each([
    ["node; rm -rf /", "'node; rm -rf /'"],
    ["$(reboot)", "'$(reboot)'"],
    ["`id`", "'`id`'"],
    ["it's", "'it'\\''s'"],
    ["a b", "'a b'"],
    ["x && y | z > /etc/passwd", "'x && y | z > /etc/passwd'"],
    ["-", "-"],
  ])("quotes the hostile key name %j as one word", (keyName, word) => {
    const command = buildUpdateNodeCommand(ctx, { operator, payoutRecipient: payout, ...node, keyName });
    expect(command).toContain(` --from ${word} --home `);
  });

  it.each([
    ["/home/my node/.x", "'/home/my node/.x'"],
    ["/x;reboot", "'/x;reboot'"],
    ["/$(id)", "'/$(id)'"],
  ])("quotes the hostile home %j as one word", (home, word) => {
    expect(buildUpdateNodeCommand(ctx, { operator, payoutRecipient: payout, ...node, home })).toContain(
      ` --home ${word} --keyring-backend `,
    );
  });

  it.each([["a\nb"], ["a\rb"], [""], ["x".repeat(65)], ["nul\u0000"]])("refuses the key name %j", (keyName) => {
    const error = refusal(() => buildUpdateNodeCommand(ctx, { operator, payoutRecipient: payout, ...node, keyName }));
    expect([error.reason, error.field]).toEqual(["INVALID_KEY_NAME", "keyName"]);
  });

  it.each([["node;id"], ["$(id)"], ["-it"], ["a b"], ["node\n1"], ["`x`"], ["/x"]])(
    "refuses the container name %j",
    (container) => {
      const error = refusal(() =>
        buildUpdateNodeCommand(ctx, { operator, payoutRecipient: payout, ...node, container }),
      );
      expect([error.reason, error.field]).toEqual(["INVALID_CONTAINER_NAME", "container"]);
    },
  );

  it.each([[""], ["relative/path"], ["~/.node"], ["/a\nb"], [`/${"x".repeat(1024)}`]])(
    "refuses the home %j",
    (home) => {
      const error = refusal(() => buildUpdateNodeCommand(ctx, { operator, payoutRecipient: payout, ...node, home }));
      expect([error.reason, error.field]).toEqual(["INVALID_HOME", "home"]);
    },
  );

  it.each([["TEST"], ["test; id"], [""], ["keychain"]])("refuses the keyring backend %j", (keyringBackend) => {
    const error = refusal(() =>
      buildUpdateNodeCommand(ctx, { operator, payoutRecipient: payout, ...node, keyringBackend }),
    );
    expect([error.reason, error.field]).toEqual(["INVALID_KEYRING_BACKEND", "keyringBackend"]);
  });

  it("refuses a bad payout address", () => {
    expect(
      refusal(() => buildUpdateNodeCommand(ctx, { operator, payoutRecipient: "x; rm -rf /", ...node })).field,
    ).toBe("payoutRecipient");
  });
});

describe("PAYOUT_RECIPIENT line", () => {
  it("is the variable for a new node's container", () => {
    expect(buildPayoutRecipientLine(ctx, { operator, payoutRecipient: payout })).toBe(`PAYOUT_RECIPIENT=${payout}`);
  });

  it("refuses anything but an address of the network", () => {
    expect(
      refusal(() => buildPayoutRecipientLine(ctx, { operator, payoutRecipient: `${payout}\nrm -rf /` })).field,
    ).toBe("payoutRecipient");
  });
});

describe("sweep", () => {
  it("sends balance minus the reserve from the operator key, with the guide's flags and no --fees", () => {
    const sweep = buildSweep(ctx, { operator, payoutRecipient: payout, balance: "1000000", reserve: "100", ...node });
    expect(sweep.amount).toBe("999900");
    expect(sweep.message).toEqual({
      typeUrl: "/cosmos.bank.v1beta1.MsgSend",
      value: { fromAddress: operator, toAddress: payout, amount: [{ denom: ctx.nativeDenom, amount: "999900" }] },
    });
    expect(sweep.command).toBe(
      `docker exec ${config.nodeContainer} ${ctx.nodeBinary} tx bank send operator ${payout} ` +
        `999900${ctx.nativeDenom} ${flags}`,
    );
  });

  it("keeps the guide's reserve of about 100 of the smallest unit by default", () => {
    expect(DEFAULT_SWEEP_RESERVE).toBe("100");
  });

  it("handles amounts beyond 2^53 exactly", () => {
    expect(
      buildSweep(ctx, { operator, payoutRecipient: payout, balance: "90071992547409930", reserve: "1", ...node })
        .amount,
    ).toBe("90071992547409929");
  });

  it("refuses when nothing would be left after the reserve", () => {
    expect(
      refusal(() => buildSweep(ctx, { operator, payoutRecipient: payout, balance: "5000", reserve: "5000", ...node }))
        .reason,
    ).toBe("NOTHING_TO_SWEEP");
  });

  it("refuses bad balances and reserves, naming the field", () => {
    const badBalance = refusal(() =>
      buildSweep(ctx, { operator, payoutRecipient: payout, balance: "1.5", reserve: "1", ...node }),
    );
    expect([badBalance.reason, badBalance.field]).toEqual(["INVALID_BALANCE", "balance"]);
    const badReserve = refusal(() =>
      buildSweep(ctx, { operator, payoutRecipient: payout, balance: "10", reserve: "-1", ...node }),
    );
    expect([badReserve.reason, badReserve.field]).toEqual(["INVALID_RESERVE", "reserve"]);
  });

  it("refuses sweeping to the operator itself", () => {
    expect(
      refusal(() => buildSweep(ctx, { operator, payoutRecipient: operator, balance: "10", reserve: "1", ...node }))
        .reason,
    ).toBe("SEND_TO_SELF");
  });

  it("refuses a bad home or keyring backend as the update-node command does", () => {
    expect(
      refusal(() =>
        buildSweep(ctx, { operator, payoutRecipient: payout, balance: "10", reserve: "1", ...node, home: "x" }),
      ).reason,
    ).toBe("INVALID_HOME");
    expect(
      refusal(() =>
        buildSweep(ctx, {
          operator,
          payoutRecipient: payout,
          balance: "10",
          reserve: "1",
          ...node,
          keyringBackend: "x",
        }),
      ).reason,
    ).toBe("INVALID_KEYRING_BACKEND");
  });
});

describe("the page's command defaults", () => {
  it(
    "come from the configuration through /api/config: home, keyring backend, container and the key name " + "operator",
    async () => {
      const settings = await (await exports.default.fetch(new Request("https://edge.test/api/config"))).json<
        Record<string, unknown>
      >();
      expect(settings).toMatchObject({
        node_binary: config.nodeBinary,
        node_home: config.nodeHome,
        node_keyring_backend: config.nodeKeyringBackend,
        node_container: config.nodeContainer,
        node_key_name: "operator",
        wallet_bridge: config.walletBridge,
      });
    },
  );
});

describe("shellWord", () => {
  it('leaves plain words alone and writes the empty word as ""', () => {
    expect(shellWord(payout)).toBe(payout);
    expect(shellWord("")).toBe('""');
  });
});
