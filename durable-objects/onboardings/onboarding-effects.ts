/**
 * How the Onboarding Durable Object carries out its machine's effects (src/onboardings/machine/index.ts):
 * writes issued without being awaited (the output gate holds every answer until they are durable),
 * and the work some effects start (a read of the chain, a delivery, a write to the index or the
 * chain follower) resolving to the event that reports what it found. Work never rejects: a failure
 * is an event too, or left to the lease its due time holds in the stored state.
 */
import type { Config } from "../../src/config";
import { recordAttempt } from "../../src/dashboard/delivery-log";
import { errorText, log } from "../../src/log";
import { readChain } from "../../src/onboardings/chain/watch";
import { deleteOnboardingRows, writeOnboardingRow } from "../../src/onboardings/index/store";
import type { OnboardingEffect, OnboardingEvent } from "../../src/onboardings/machine";
import { pageView } from "../../src/onboardings/http/views";
import { deliveryTurn } from "../../src/webhooks/lane-delivery";
import type { PushView } from "../push";

/** What the effects act on: the object's storage and bindings, and its subscribers. */
export interface OnboardingWorld {
  ctx: DurableObjectState;
  env: Env;
  config: Config;
  push(view: PushView | null): void;
}

/** Rounds of work one alarm runs at most: an onboarding's events and reads take a handful. */
const WAKE_ROUNDS = 16;

/** The one key the onboarding's state is stored under. */
export const STATE_KEY = "state";

export function performOnboardingEffect(
  world: OnboardingWorld,
  effect: OnboardingEffect,
): Promise<OnboardingEvent | undefined> | undefined {
  const { ctx, env, config } = world;
  switch (effect.type) {
    case "store":
      void ctx.storage.put(STATE_KEY, effect.state);
      return;
    case "schedule":
      void (effect.at === null ? ctx.storage.deleteAlarm() : ctx.storage.setAlarm(effect.at));
      return;
    case "notify":
      return void world.push(pageView(effect.record));
    case "read": {
      // The reading counts as of when it began, so checks keep their interval however long the nodes take.
      const since = Date.now();
      return readChain(config, effect.record, effect.claimed).then((reading) => ({ type: "observed", reading, since }));
    }
    case "deliver": {
      const { onboarding, event, admitted } = effect;
      const lane = env.WEBHOOK_LANES.get(env.WEBHOOK_LANES.idFromName(config.hostWebhook!.url));
      return deliveryTurn(lane, config.hostWebhook!, onboarding, event, admitted).then(
        (turn): OnboardingEvent => {
          // Counted for the dashboard's deliveries per hour, beside the event's own log (not awaited: best effort).
          if (turn.attempt) void recordAttempt(env.ONBOARDING_INDEX, event.id, turn.attempt);
          return { type: "delivered", id: event.id, turn };
        },
        // The lane could not be reached: the event's lease tries it again.
        (err: unknown) => void log("warn", "webhook_lane_unreachable", { onboarding, error: String(err) }),
      );
    }
    case "follow":
      return follower(world)
        .watch(effect.id, effect.addresses)
        .then(
          (answer): OnboardingEvent => ({ type: "followed", following: answer.following }),
          (err: unknown): OnboardingEvent => {
            // A follower that cannot be reached is one this onboarding cannot rely on: it checks for itself.
            log("warn", "chain_follower_unreachable", { onboarding: effect.id, error: String(err) });
            return { type: "followed", following: false };
          },
        );
    case "unfollow":
      return follower(world)
        .unwatch(effect.id)
        .then(
          (): OnboardingEvent => ({ type: "unfollowed", ok: true }),
          (err: unknown): OnboardingEvent => {
            log("warn", "chain_follower_unreachable", { onboarding: effect.id, error: String(err) });
            return { type: "unfollowed", ok: false };
          },
        );
    case "index":
      return written(
        writeOnboardingRow(env.ONBOARDING_INDEX, effect.row),
        effect.row.onboarding.id,
        effect.row.version,
      );
    case "unindex":
      return written(deleteOnboardingRows(env.ONBOARDING_INDEX, effect.id), effect.id, null);
    case "erase":
      world.push(null);
      void ctx.storage.deleteAlarm();
      void ctx.storage.deleteAll();
      return;
  }
}

/**
 * The work an Onboarding object has under way (reads, deliveries, writes), tracked in memory only
 * (its lease is in the stored state): each until the event it found is applied; a fault is logged,
 * never thrown into the alarm (the state's leases retry what it left).
 */
export class WorkUnderWay {
  private readonly running = new Set<Promise<void>>();
  /** The wake-up running, if one is: an alarm meanwhile joins it. */
  private waking: Promise<void> | null = null;

  track(work: readonly Promise<OnboardingEvent | undefined>[], apply: (found: OnboardingEvent) => unknown): void {
    for (const started of work) {
      const tracked: Promise<void> = started
        .then((found) => void (found && apply(found)))
        .catch((err: unknown) => log("error", "onboarding_fault", { error: String(err) }))
        .finally(() => this.running.delete(tracked));
      this.running.add(tracked);
    }
  }

  /** Waits until nothing is under way; true if something was. */
  async idle(): Promise<boolean> {
    if (this.running.size === 0) return false;
    while (this.running.size > 0) await Promise.all(this.running);
    return true;
  }

  /**
   * The alarm: `step` starts what is due; it is taken again after the work it started, until nothing
   * is due or under way, WAKE_ROUNDS times at most (the stored alarm carries on: a rule that kept
   * something due at once could never spin the object).
   */
  wake(step: () => void): Promise<void> {
    this.waking ??= (async () => {
      for (let round = 0; round < WAKE_ROUNDS; round++) {
        step();
        if (!(await this.idle())) return;
      }
    })().finally(() => (this.waking = null));
    return this.waking;
  }
}

/** The `indexed` event for a write of the index (a row at `version`, or the deletion of the rows: null). */
function written(write: Promise<void>, onboarding: string, version: number | null): Promise<OnboardingEvent> {
  return write.then(
    () => ({ type: "indexed", version, ok: true }),
    (err: unknown) => {
      log("warn", "index_write_failed", {
        onboarding,
        version,
        error: errorText(err),
      });
      return { type: "indexed", version, ok: false };
    },
  );
}

/** The network's chain follower (one per chain id). */
function follower({ env, config }: OnboardingWorld) {
  return env.CHAIN_FOLLOWERS.get(env.CHAIN_FOLLOWERS.idFromName(config.chainId));
}
