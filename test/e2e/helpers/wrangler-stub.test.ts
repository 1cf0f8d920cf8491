/** The deploy's stand-in wrangler reads a secret from stdin however late the deploy writes it. */
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { stubAccount } from "./wrangler-stub.ts";

it("takes a secret written to its stdin 300 ms after it started (a loaded machine's deploy)", async () => {
  const folder = mkdtempSync(join(tmpdir(), "chain-edge-stub-"));
  const account = stubAccount(folder);
  // The project's wrangler.toml, as the deploy runs it from the project's folder.
  const child = spawn(join(account.bin, "wrangler"), ["secret", "put", "SESSION_SIGNING_KEY", "--env", "testnet"], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk));
  setTimeout(() => child.stdin.end("late-value\n"), 300);
  const code = await new Promise((resolve) => child.once("close", resolve));
  expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
  expect(account.read().workers["chain-edge-testnet"]!.secrets).toEqual({ SESSION_SIGNING_KEY: "late-value" });
});
