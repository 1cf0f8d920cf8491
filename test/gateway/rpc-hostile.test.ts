/**
 * The most telling cases of the hostile corpus (bench/hostile/corpus.json) against the RPC face in
 * workerd: ids of every JSON type, mixed batches, 10,000-deep nesting and huge numbers. Each is
 * answered 200 with a reply that parses, in JSON-RPC form, and a refusal reaches no node.
 */
import { describe, expect, it } from "vitest";
import { DEVNET, gateway, tag, upstreamRequests, type Gateway } from "./helpers";

function rpcGateway(): Gateway & { rpcTag: string } {
  const rpcTag = tag();
  const gw = gateway([tag()], { RPC_UPSTREAM_URLS: `${DEVNET}/~${rpcTag}/rpc` }, { origin: `https://${tag()}.test` });
  return { ...gw, rpcTag };
}

async function post(gw: Gateway, body: string): Promise<unknown> {
  const response = await gw.fetch("/rpc", { method: "POST", headers: { "content-type": "application/json" }, body });
  expect(response.status).toBe(200);
  return JSON.parse(await response.text());
}

const call = (id: string, method = "health", params = "{}") =>
  `{"jsonrpc":"2.0","id":${id},"method":"${method}","params":${params}}`;

describe("ids of every JSON type", () => {
  const served: [string, unknown][] = [
    ['"abc"', "abc"],
    ["42", 42],
    ["-42", -42],
    ["1.5", 1.5],
    ["123456789012345", 123456789012345],
  ];
  for (const [id, echoed] of served) {
    it(`serves the id ${id} and echoes it`, async () => {
      expect(await post(rpcGateway(), call(id))).toEqual({ jsonrpc: "2.0", id: echoed, result: {} });
    });
  }
  for (const id of ["null", '{"a":1}', "[1]", "true", "1e400", "9".repeat(400)]) {
    it(`refuses the id ${id.slice(0, 12)} with -32600 and no upstream request`, async () => {
      const gw = rpcGateway();
      expect(await post(gw, call(id))).toMatchObject({ id: null, error: { code: -32600 } });
      expect(await upstreamRequests(`~${gw.rpcTag}/`)).toBe(0);
    });
  }
});

describe("batches and nesting", () => {
  it("answers a mixed batch call by call, in order: valid, invalid, refused, not an object", async () => {
    const gw = rpcGateway();
    const batch = `[${call("1")},{"jsonrpc":"2.0","id":2},${call("3", "broadcast_tx_sync", '{"tx":"AA=="}')},5]`;
    const answers = (await post(gw, batch)) as { id: unknown; result?: unknown; error?: { code: number } }[];
    expect(answers.map((a) => [a.id, a.result !== undefined ? "result" : a.error!.code])).toEqual([
      [1, "result"],
      [2, -32600],
      [3, -32601],
      [null, -32600],
    ]);
    expect(await upstreamRequests(`~${gw.rpcTag}/rpc/broadcast`)).toBe(0);
  });

  it("answers duplicate ids in a batch each with its own answer", async () => {
    const answers = (await post(rpcGateway(), `[${call("7")},${call("7")}]`)) as { id: unknown }[];
    expect(answers).toEqual([
      { jsonrpc: "2.0", id: 7, result: {} },
      { jsonrpc: "2.0", id: 7, result: {} },
    ]);
  });

  it("refuses 10,000 unclosed [ with -32700 and 10,000 nested arrays with -32600", async () => {
    const gw = rpcGateway();
    expect(await post(gw, "[".repeat(10_000))).toMatchObject({ error: { code: -32700 } });
    const nested = (await post(gw, `${"[".repeat(10_000)}${"]".repeat(10_000)}`)) as { error: { code: number } }[];
    expect(nested).toMatchObject([{ error: { code: -32600 } }]);
    expect(await upstreamRequests(`~${gw.rpcTag}/`)).toBe(0);
  });

  it("serves a call whose params nest 10,000 deep where the method takes none", async () => {
    const params = `${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}`;
    expect(await post(rpcGateway(), call("1", "health", params))).toMatchObject({ id: 1, result: {} });
  });
});

describe("huge numbers in params", () => {
  for (const [name, params] of [
    ["1e400", '{"height":1e400}'],
    ["30 digits", '{"height":"123456789012345678901234567890"}'],
    ["past int64", '{"height":"9223372036854775808"}'],
    ["a fraction", '{"height":1.5}'],
  ]) {
    it(`refuses a height of ${name} with -32602 and no upstream request`, async () => {
      const gw = rpcGateway();
      expect(await post(gw, call("1", "block", params!))).toMatchObject({ id: 1, error: { code: -32602 } });
      expect(await upstreamRequests(`~${gw.rpcTag}/`)).toBe(0);
    });
  }
});
