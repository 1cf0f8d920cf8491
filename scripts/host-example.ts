/**
 * `npm run host:example -- [options]`: a hosting provider's side of the onboarding webhooks, small
 * enough to read and copy. It listens on 127.0.0.1, verifies every event with the
 * `standardwebhooks` package and the secret in HOST_WEBHOOK_SECRET (from the environment, or from
 * `.dev.vars`, which `npm run host:example` reads: never from the command line, where `ps` shows it), answers 401 to anything
 * that does not verify, handles each webhook-id once, and prints every event in one line. On
 * `onboarding.authorized` it prints the event's `commands.update_node` for the host to run on
 * the node's machine (default), runs it with the shell (`--run`), or, against the local devnet,
 * plays the operator and broadcasts the MsgUpdateNode itself (`--devnet <url>`).
 *
 * Options:
 *   --port <n>       port on 127.0.0.1 (default 8788; 0 picks a free one)
 *   --run            run commands.update_node with the shell instead of printing it
 *   --devnet <url>   play the operator on this devnet (e.g. http://127.0.0.1:1317) instead
 */
import { spawn } from "node:child_process";
import { parseArgs } from "node:util";
import { applyOnDevnet, devnetNamespace } from "./host-example/devnet-operator.ts";
import { startReceiver, type OnboardingEvent } from "./host-example/receiver.ts";

const log = (line: string) => console.log(`${new Date().toISOString().slice(11, 19)} ${line}`);

function fail(message: string): never {
  console.error(`host example: ${message}`);
  process.exit(1);
}

/** One readable line per event: what happened, to which onboarding, and what the chain shows. */
function describe(event: OnboardingEvent, id: string): string {
  const o = event.data;
  const parts = [event.type, o.id, `status ${o.status}`, `operator ${o.operator}`];
  if (o.payout) parts.push(`payout ${o.payout}`);
  if (o.reference) parts.push(`reference ${o.reference}`);
  if (o.node?.payout_recipient)
    parts.push(`node pays ${o.node.payout_recipient}${o.node.height ? ` (height ${o.node.height})` : ""}`);
  if (o.problem) parts.push(`problem ${o.problem.reason}: ${o.problem.message}`);
  return `${parts.join("  ")}  (${id})`;
}

function runShell(command: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, { shell: true, stdio: "inherit" });
    child.once("error", reject);
    child.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`the command exited with ${code}`))));
  });
}

function readArgs() {
  try {
    return parseArgs({
      options: {
        port: { type: "string", default: "8788" },
        run: { type: "boolean", default: false },
        devnet: { type: "string" },
      },
    }).values;
  } catch (error) {
    return fail((error as Error).message);
  }
}

const args = readArgs();
const port = Number(args.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`--port must be a port number, not ${args.port}`);
const secret = process.env.HOST_WEBHOOK_SECRET ?? "";
if (!secret) fail("set HOST_WEBHOOK_SECRET in .dev.vars (the same whsec_… secret the service signs with)");
if (args.run && args.devnet) fail("choose --run or --devnet, not both");
const devnet = args.devnet?.replace(/\/+$/, "");
// Asked once it answers: the receiver may start before `npm run dev` has the devnet up.
let namespace = "";
const devnetWords = async () => (namespace ||= await devnetNamespace(devnet!));
if (devnet)
  await devnetWords().catch((error: Error) => log(`${error.message} (asked again on the first onboarding.authorized)`));

async function handle(event: OnboardingEvent, id: string): Promise<void> {
  log(describe(event, id));
  if (event.type !== "onboarding.authorized") return;
  const command = event.data.commands?.update_node;
  if (devnet) {
    const txhash = await applyOnDevnet(devnet, await devnetWords(), event.data, log);
    log(`devnet: the operator broadcast MsgUpdateNode → payout ${event.data.payout}, tx ${txhash}`);
  } else if (!command) {
    log("the event carries no commands.update_node");
  } else if (args.run) {
    log(`running: ${command}`);
    await runShell(command);
  } else {
    log(`run on the node's machine:\n  ${command}`);
  }
}

let receiver;
try {
  receiver = await startReceiver({ secret, port, handle, log });
} catch (error) {
  const err = error as NodeJS.ErrnoException;
  fail(err.code === "EADDRINUSE" ? `port ${port} is already in use; pass --port` : err.message);
}
const mode = devnet
  ? `playing the operator on ${devnet}`
  : args.run
    ? "running update-node with the shell"
    : "printing update-node";
log(`host example: listening on ${receiver.url} (set HOST_WEBHOOK_URL to it); ${mode}; Ctrl-C stops it`);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => void receiver.close().then(() => process.exit(0)));
}
