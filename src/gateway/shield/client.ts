/** The Worker's side of the shield tier: a data-center miss asked of the key's shield, within bounded waits. */
import type { QueryShield } from "../../../durable-objects/gateway/QueryShield";
import type { Config } from "../../config";
import { within } from "../deadline";
import { placement, shieldName, type ShieldAsk, type ShieldOutcome, type ShieldReply } from "./protocol";
import { outcomeOf } from "./wire";

export type ShieldNamespace = DurableObjectNamespace<QueryShield>;

/**
 * The outcome from the shield of `ask.query`. Rejects on any fault of the shield tier: not
 * reachable, an exception, no reply within CACHE_SHIELD_WAIT_MS, or a reply but no answer within
 * the upstream budget after it.
 */
export async function askShield(namespace: ShieldNamespace, config: Config, ask: ShieldAsk): Promise<ShieldOutcome> {
  // The stub's type spreads the reply union over promises; it is one promise of a ShieldReply.
  const call = namespace
    .getByName(shieldName(config.chainId, ask.query), placement(config))
    .ask(ask) as Promise<ShieldReply>;
  const reply = await within(
    call,
    config.cacheShieldWaitMs,
    `the shield did not take the miss within ${config.cacheShieldWaitMs} ms`,
    () => {
      // A reply that comes after all is not read: let the shield stop writing it.
      call.then((late) => ("later" in late ? late.later.cancel() : undefined)).catch(() => undefined);
    },
  );
  return outcomeOf(reply, config.upstreamBudgetMs + config.cacheShieldWaitMs);
}
