/** The e2e servers' `wrangler dev`: a port someone else holds is never taken for the server's own. */
import { createServer } from "node:http";
import { expect, it } from "vitest";
import { freeLoopbackPort } from "./ports.ts";
import { startWranglerDev } from "./wrangler-dev.ts";

it("refuses a port another server answers /api/config on, rather than handing out that server", async () => {
  const port = await freeLoopbackPort();
  const other = createServer((_, res) => res.end("{}"));
  await new Promise<void>((resolve) => other.listen(port, "127.0.0.1", resolve));
  try {
    await expect(startWranglerDev({ UPSTREAM_URLS: "http://127.0.0.1:9" }, port)).rejects.toThrow(`port ${port} or`);
  } finally {
    await new Promise((resolve) => other.close(resolve));
  }
});
