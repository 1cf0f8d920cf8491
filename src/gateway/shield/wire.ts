/**
 * The shield's reply on the wire: the outcome at once when the shield has one, else a byte
 * stream that carries it as JSON when the upstream round ends (a fault aborts the stream).
 */
import { within } from "../deadline";
import type { ShieldCore } from "./core";
import type { ShieldAsk, ShieldOutcome, ShieldReply } from "./protocol";

/** The shield's side: answers `ask` from `core`. */
export function replyTo(core: ShieldCore, ask: ShieldAsk): ShieldReply {
  const now = core.outcomeNow(ask);
  if (now) return { now };
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  core
    .outcome(ask)
    .then(
      (outcome) => writer.write(new TextEncoder().encode(JSON.stringify(outcome))).then(() => writer.close()),
      (fault: unknown) => writer.abort(fault),
    )
    .catch(() => undefined); // the Worker stopped reading: nobody is left to tell
  return { later: readable };
}

/** The Worker's side: the outcome a reply carries, read within `ms`; rejects on a fault or when time runs out. */
export async function outcomeOf(reply: ShieldReply, ms: number): Promise<ShieldOutcome> {
  if ("now" in reply) return reply.now;
  const reader = reply.later.getReader();
  const text = await within(
    readText(reader),
    ms,
    `the shield took the miss but gave no answer within ${ms} ms`,
    () => void reader.cancel().catch(() => undefined),
  );
  return JSON.parse(text) as ShieldOutcome;
}

async function readText(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    text += decoder.decode(value, { stream: true });
  }
}
