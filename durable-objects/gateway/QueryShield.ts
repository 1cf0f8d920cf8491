/**
 * QueryShield: the shield of one gateway key, worldwide (`idFromName(chain id + path)`). Every
 * data center's miss for the key comes here, so the upstreams see one request per key per TTL
 * whatever the number of cities. The logic is src/gateway/shield/core.ts; this class wires it to
 * its configuration (read once, here), storage, the alarm and the shared upstream health.
 */
import { DurableObject } from "cloudflare:workers";
import { readConfig } from "../../src/config";
import { ShieldCore } from "../../src/gateway/shield/core";
import { shieldHealth } from "../../src/gateway/shield/health-link";
import type { ShieldAsk, ShieldReply } from "../../src/gateway/shield/protocol";
import { ShieldStore } from "../../src/gateway/shield/store";
import { replyTo } from "../../src/gateway/shield/wire";

export class QueryShield extends DurableObject<Env> {
  private readonly store: ShieldStore;
  private core!: ShieldCore;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.store = new ShieldStore(ctx.storage);
    const config = readConfig(this.env);
    ctx.blockConcurrencyWhile(async () => {
      const held = await this.store.load();
      const background = (work: Promise<unknown>) => ctx.waitUntil(work);
      this.core = new ShieldCore(
        held,
        {
          upstream: (ask) => shieldHealth.ask(env.UPSTREAM_HEALTH, config, ask.query, background),
          save: (entry, keepSeconds) => this.store.save(entry, keepSeconds),
          background,
          now: () => Date.now(),
        },
        config,
      );
    });
  }

  /** Takes a data center's miss: the outcome at once when there is one, else a stream that brings it. */
  ask(ask: ShieldAsk): ShieldReply {
    return replyTo(this.core, ask);
  }

  override async alarm(): Promise<void> {
    if (await this.store.expire(Date.now())) this.core.forget();
  }
}
