/**
 * Runs `workerd serve` on a config and learns the port of each socket from its control
 * descriptor (no port guessing, no polling). The process is killed when this Node process exits,
 * however it exits.
 */
import { spawn } from "node:child_process";
import type { Readable } from "node:stream";

export interface WorkerdProcess {
  pid: number;
  /** Base URL of each named socket, e.g. http://127.0.0.1:40123. */
  urls: Record<string, string>;
  stop(): Promise<void>;
}

export async function startWorkerd(
  binary: string,
  configPath: string,
  sockets: readonly string[],
  timeoutMs = 20_000,
): Promise<WorkerdProcess> {
  // stdout carries the Workers' console.log lines (one per request for ours): dropped unread.
  const child = spawn(binary, ["serve", configPath, "config", "--control-fd=3"], {
    stdio: ["ignore", "ignore", "pipe", "pipe"],
  });
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  let stderr = "";
  child.stderr!.on("data", (chunk) => (stderr = (stderr + chunk).slice(-4000)));

  const urls: Record<string, string> = {};
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`workerd did not listen within ${timeoutMs} ms:\n${stderr}`)),
        timeoutMs,
      );
      const done = (err?: Error) => {
        clearTimeout(timer);
        if (err) reject(err);
        else resolve();
      };
      child.once("exit", (code, signal) =>
        done(new Error(`workerd exited (${code ?? signal}) before listening:\n${stderr}`)),
      );
      child.once("error", done);
      let buffered = "";
      (child.stdio[3] as Readable).on("data", (chunk) => {
        buffered += chunk;
        for (let nl = buffered.indexOf("\n"); nl !== -1; nl = buffered.indexOf("\n")) {
          const message = JSON.parse(buffered.slice(0, nl)) as { event?: string; socket?: string; port?: number };
          buffered = buffered.slice(nl + 1);
          if (message.event === "listen" && message.socket) urls[message.socket] = `http://127.0.0.1:${message.port}`;
        }
        if (sockets.every((name) => name in urls)) done();
      });
    });
  } catch (err) {
    killOnExit();
    process.off("exit", killOnExit);
    throw err;
  }

  return {
    pid: child.pid!,
    urls,
    async stop() {
      process.off("exit", killOnExit);
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 3_000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    },
  };
}
