/** Free loopback ports, so two e2e runs on one machine never meet on a fixed port. */
import { createServer } from "node:net";

/** A port free on `host` at the time of the call: the kernel picks it for a listener that closes at once. */
export function freeLoopbackPort(host = "127.0.0.1"): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, host, () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close(() => (port ? resolve(port) : reject(new Error(`no port from ${JSON.stringify(address)}`))));
    });
  });
}
