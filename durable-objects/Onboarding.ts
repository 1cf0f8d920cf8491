/**
 * Onboarding: the single writer of one `ob_` onboarding, running the state machine of
 * src/onboardings/machine.ts: its state, its reads of the chain and its outbox of events for the
 * host, all in one stored value.
 *
 * Every event is decided with the clock's time and applied in one synchronous step: the state
 * goes into memory, its writes are issued without being awaited, the page is pushed the change,
 * and the answer is returned; the platform's output gate holds every answer and message until the
 * writes are durable. The one alarm wakes the object for whatever is due first (a read of the
 * chain, a delivery attempt, the expiry, the end of retention, a write to the index still owed);
 * one wake-up runs at a time, and what its reads and deliveries find comes back in as events.
 * After every change the object writes its row of the index (src/onboardings/index-sync.ts), which
 * the host API's list and feed read.
 */
import { readConfig, type Config } from "../src/config";
import { isRefusal, type Answer } from "../src/http/answer";
import { log } from "../src/log";
import { lookUpClaim, readChain } from "../src/onboardings/chain-watch";
import { IndexSync } from "../src/onboardings/index-sync";
import {
  transition,
  type MachineRules,
  type NewOnboarding,
  type OnboardingEffect,
  type OnboardingEvent,
  type PairedPayout,
} from "../src/onboardings/machine";
import { eventsLog, pendingHead } from "../src/onboardings/outbox";
import { ONBOARDING_NOT_FOUND } from "../src/onboardings/refusals";
import { relayedPayout } from "../src/onboardings/relayed-payout";
import { machineRules } from "../src/onboardings/rules";
import { upgradeState, type OnboardingRecord, type OnboardingState } from "../src/onboardings/state";
import { customerView, hostView } from "../src/onboardings/views";
import { delivered } from "../src/webhooks/standard-webhook";
import type { ProbeOutcome } from "../src/webhooks/lane";
import { attemptLogged, deliveryTurn } from "../src/webhooks/lane-delivery";
import {
  isOnboardingEnded,
  type OnboardingCustomerView,
  type OnboardingEventsLog,
  type OnboardingView,
} from "../src/protocol/index";
import { PushObject, type PushView } from "./push";
import { performEach } from "./effects";

const STATE_KEY = "state";

export class Onboarding extends PushObject {
  private state: OnboardingState | null = null;
  private readonly config: Config;
  private readonly rules: MachineRules;
  /** The wake-up running, if one is: an alarm meanwhile joins it (it decides again after every step). */
  private waking: Promise<void> | null = null;
  private readonly index: IndexSync;
  /** When the machine wants the alarm, and when it is set (undefined: not known); the index may want it sooner. */
  private wakeAt: number | null = null;
  private alarmAt: number | null | undefined = undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.config = readConfig(env);
    this.rules = machineRules(this.config);
    this.index = new IndexSync(ctx.storage, env.ONBOARDING_INDEX, this.rules.present, () => this.setAlarm());
    ctx.blockConcurrencyWhile(async () => {
      const stored = await ctx.storage.get<OnboardingState>(STATE_KEY);
      this.state = stored ? upgradeState(stored) : null;
      // The alarm set is never later than the machine's own (the index's only ever sooner).
      this.wakeAt = await ctx.storage.getAlarm();
      await this.index.load(this.state);
    });
  }

  /** Stores a new open onboarding; refused when the id is taken. */
  create(onboarding: NewOnboarding): Answer<OnboardingView> {
    return this.hostView(this.apply({ type: "create", onboarding }).answer);
  }

  /** The onboarding as the host sees it. */
  read(): Answer<OnboardingView> {
    return this.hostView(this.apply({ type: "read" }).answer);
  }

  /** The events log: every event and every delivery attempt. */
  events(): Answer<OnboardingEventsLog> {
    return shown(this.apply({ type: "read" }).answer, (state) => eventsLog(state, this.rules.delivering));
  }

  /** Cancels it (from any state before applied); repeating is harmless. */
  cancel(): Answer<OnboardingView> {
    return this.hostView(this.apply({ type: "cancel" }).answer);
  }

  /** The onboarding as its customer's page sees it. */
  customer(): Answer<OnboardingCustomerView> {
    return this.pageAnswer(this.apply({ type: "read" }).answer);
  }

  /**
   * The customer's wallet paired. A relayed pairing session is read from its own Durable Object
   * (the address the wallet confirmed, never the browser's word); the wallet app's bridge answers
   * only the page, so its address is taken as the page reports it and marked `in_app`.
   */
  async pair(paired: PairedPayout): Promise<Answer<OnboardingCustomerView>> {
    const payout = "sessionId" in paired ? await relayedPayout(this.env.PAIRING_SESSIONS, paired.sessionId) : paired;
    if ("reason" in payout) return payout;
    return this.pageAnswer(this.apply({ type: "pair", payout }).answer);
  }

  /**
   * The transaction hash the wallet app returned for the authorization, looked up at once: signed
   * by another address than the payout, it stops the onboarding; not in a block yet, it is looked
   * up again with every read of the chain.
   */
  async claimAuthorization(txhash: string): Promise<Answer<OnboardingCustomerView>> {
    const claimed = this.apply({ type: "claim", txhash }).answer;
    if (isRefusal(claimed)) return claimed;
    const tx = await lookUpClaim(this.config, claimed.body.record, txhash);
    return this.pageAnswer(this.apply({ type: "verified", tx }).answer);
  }

  /**
   * The chain follower's word: a block named this onboarding (its state is read now), or the
   * follower's health changed (while `following`, the onboarding's own checks are a slow safety net).
   */
  chainHint(hint: { height: number; following: boolean }): void {
    this.apply({ type: "hint", height: hint.height, following: hint.following });
  }

  /** The webhook's lane released this onboarding (its endpoint answers again): its held event goes now. */
  laneOpen(): void {
    this.apply({ type: "released" });
  }

  /** The lane's probe: one attempt at the oldest event now, while every other onboarding waits. */
  async laneProbe(): Promise<ProbeOutcome> {
    const head = this.state && this.config.hostWebhook ? pendingHead(this.state) : null;
    if (!head) return "nothing";
    const askedAt = Date.now();
    const attempt = await attemptLogged(this.config.hostWebhook!, this.state!.record.id, head);
    this.apply({ type: "delivered", id: head.id, turn: { askedAt, attempt } });
    return delivered(attempt) ? "delivered" : "failed";
  }

  override alarm(): Promise<void> {
    this.waking ??= this.wake().finally(() => (this.waking = null));
    return this.waking;
  }

  /** Does what is due, then decides again, until nothing is; then writes what the index is owed. */
  private async wake(): Promise<void> {
    // The alarm that woke the object is spent.
    this.alarmAt = undefined;
    for (let work = this.apply({ type: "wake" }).work; work.length > 0; work = this.apply({ type: "wake" }).work)
      await Promise.all(work);
    await this.index.flush();
  }

  override fetch(): Response {
    this.apply({ type: "read" });
    return super.fetch();
  }

  protected override view(): PushView | null {
    return this.state && pageView(this.state.record);
  }

  protected override missing() {
    return ONBOARDING_NOT_FOUND;
  }

  /** Decides the event and performs its effects in order, without an await between them; returns the answer and the work it started. */
  private apply(event: OnboardingEvent): { answer: Answer<OnboardingState>; work: Promise<void>[] } {
    const next = transition(this.state, event, Date.now(), this.rules);
    this.state = next.state;
    return { answer: next.answer, work: performEach(next.effects, (effect) => this.perform(effect)) };
  }

  private perform(effect: OnboardingEffect): Promise<void> | undefined {
    // Writes are not awaited: the output gate holds every answer and message until they are durable.
    switch (effect.type) {
      case "store":
        void this.ctx.storage.put(STATE_KEY, effect.state);
        // Not awaited either: the output gate holds the index's request until the state is durable.
        this.index.changed(effect.state);
        return;
      case "schedule":
        this.wakeAt = effect.at;
        this.setAlarm();
        return;
      case "notify":
        this.push(pageView(effect.record));
        return;
      case "read": {
        // The reading counts as of when it began, so checks keep their interval however long the nodes take.
        const since = Date.now();
        return readChain(this.config, effect.record, effect.claimed).then(
          (reading) => void this.apply({ type: "observed", reading, since }),
        );
      }
      case "deliver": {
        const { id } = effect.event;
        return deliveryTurn(this.lane(), this.config.hostWebhook!, this.state!.record.id, effect.event).then(
          (turn) => void this.apply({ type: "delivered", id, turn }),
        );
      }
      case "follow":
        return this.follower()
          .watch(effect.id, effect.addresses)
          .then(
            (answer) => answer.following,
            (err: unknown) => {
              // A follower that cannot be reached is one this onboarding cannot rely on: it checks for itself.
              log("warn", "chain_follower_unreachable", { onboarding: effect.id, error: String(err) });
              return false;
            },
          )
          .then((following) => void this.apply({ type: "followed", following }));
      case "unfollow":
        return this.follower()
          .unwatch(effect.id)
          .catch((err: unknown) =>
            log("warn", "chain_follower_unreachable", { onboarding: effect.id, error: String(err) }),
          );
      case "erase":
        this.push(null);
        this.wakeAt = null;
        this.alarmAt = undefined;
        void this.ctx.storage.deleteAlarm();
        void this.ctx.storage.deleteAll();
        this.index.erased();
        return;
    }
  }

  /** The network's chain follower (one per chain id). */
  private follower() {
    return this.env.CHAIN_FOLLOWERS.get(this.env.CHAIN_FOLLOWERS.idFromName(this.config.chainId));
  }

  /** Sets the one alarm for whatever is due first: the machine's wake-up or the index's write. */
  private setAlarm(): void {
    const times = [this.wakeAt, this.index.retryAt].filter((t) => t !== null);
    const at = times.length === 0 ? null : Math.min(...times);
    if (at === this.alarmAt) return;
    this.alarmAt = at;
    void (at === null ? this.ctx.storage.deleteAlarm() : this.ctx.storage.setAlarm(at));
  }

  private lane() {
    return this.env.WEBHOOK_LANES.get(this.env.WEBHOOK_LANES.idFromName(this.config.hostWebhook!.url));
  }

  private hostView(answer: Answer<OnboardingState>): Answer<OnboardingView> {
    return shown(answer, (state) => hostView(state.record, this.config));
  }

  private pageAnswer(answer: Answer<OnboardingState>): Answer<OnboardingCustomerView> {
    return shown(answer, (state) => customerView(state.record));
  }
}

/** What the customer's page is pushed: its view, closed once the onboarding has ended. */
function pageView(record: OnboardingRecord): PushView {
  return {
    message: JSON.stringify(customerView(record)),
    final: isOnboardingEnded(record.status) ? record.status : null,
  };
}

/** The answer with the state shown as `show` shows it. */
function shown<T>(answer: Answer<OnboardingState>, show: (state: OnboardingState) => T): Answer<T> {
  return isRefusal(answer) ? answer : { status: answer.status, body: show(answer.body) };
}
