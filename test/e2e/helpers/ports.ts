/** Free loopback ports, so two e2e runs on one machine never meet on a fixed port. */
import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/**
 * The lowest port the kernel gives outgoing connections (Linux's ip_local_port_range), or null where that is not
 * known. A port below it is never taken by a connection's local end between the pick and the server's start.
 */
function ephemeralFloor(): number | null {
  try {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > FLOOR + 1000 ? low : null;
  } catch {
    return null;
  }
}

/** Below the ports that services conventionally take. */
const FLOOR = 10_000;
const handedOut = new Set<number>();

/** Whether a listener can take `port` on `host` now; 0 asks the kernel for one. The port taken, or null. */
function probe(port: number, host: string): Promise<number | null> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(null));
    server.listen(port, host, () => {
      const address = server.address();
      const got = typeof address === "object" && address ? address.port : null;
      server.close(() => resolve(got));
    });
  });
}

/**
 * A port free on `host` at the time of the call, and not one this process handed out before: drawn below the
 * kernel's ephemeral range where that is known (a full npm test run saw a port picked by the kernel taken before
 * wrangler dev could bind it), else the kernel's pick for a listener that closes at once.
 */
export async function freeLoopbackPort(host = "127.0.0.1"): Promise<number> {
  const ceiling = ephemeralFloor();
  for (let tries = 0; ceiling !== null && tries < 50; tries++) {
    const port = FLOOR + Math.floor(Math.random() * (ceiling - FLOOR));
    if (handedOut.has(port)) continue;
    // Taken before the probe, so two calls at once never both get it; a port found in use stays out too.
    handedOut.add(port);
    if ((await probe(port, host)) !== null) return port;
  }
  const port = await probe(0, host);
  if (port === null) throw new Error(`no free port on ${host}`);
  handedOut.add(port);
  return port;
}
