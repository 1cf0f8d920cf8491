/** Free loopback ports for the e2e servers. */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { afterEach, expect, it } from "vitest";
import { freeLoopbackPort } from "./ports.ts";

const held: Server[] = [];
afterEach(async () => {
  await Promise.all(held.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

function hold(port: number): Promise<void> {
  const server = createServer();
  held.push(server);
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
}

it("gives a port that can be listened on, and another one while the first is taken", async () => {
  const first = await freeLoopbackPort();
  await hold(first);
  const second = await freeLoopbackPort();
  expect(second).not.toBe(first);
  await hold(second);
});

it("draws below the kernel's ports for outgoing connections, so none takes it before a server starts", async () => {
  const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").split(/\s+/)[0]);
  const ports = await Promise.all(Array.from({ length: 200 }, () => freeLoopbackPort()));
  for (const port of ports) expect(port).toBeLessThan(low);
  // Never the same one twice from one process, even when it was released meanwhile.
  expect(new Set(ports).size).toBe(200);
});
