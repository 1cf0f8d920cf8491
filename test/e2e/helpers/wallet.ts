/** Runs the wallet simulator (`scripts/wallet.ts`) as `npm run wallet` would, against the e2e servers. */
import { execFile } from "node:child_process";
import { inject } from "vitest";

/** Runs the simulator with `args`; resolves with its output, rejects when it exits non-zero. */
export function runWallet(...args: string[]): Promise<string> {
  const base = ["scripts/wallet.ts", "--server", inject("baseUrl"), "--devnet", inject("devnetUrl")];
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [...base, ...args], { timeout: 90_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`wallet ${args.join(" ")} failed: ${stderr || error.message}`));
      else resolve(stdout);
    });
  });
}

/** The address the simulator reports after confirming a session. */
export function connectedAddress(output: string): string {
  const match = / as ([a-z0-9]+1[02-9ac-hj-np-z]+)\s*$/m.exec(output);
  if (!match) throw new Error(`the simulator did not report an address: ${output}`);
  return match[1]!;
}
