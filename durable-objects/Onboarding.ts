/**
 * Onboarding: the single writer of one `ob_` onboarding, running the state machine of
 * src/onboardings/machine.ts: its state, its reads of the chain, its outbox of events for the host
 * and what it owes the index and the chain follower, all in one stored value.
 *
 * Every event is decided with the clock's time and applied in one synchronous step: the state
 * goes into memory, its writes are issued without being awaited, the page is pushed the change,
 * and the answer is returned; the platform's output gate holds every answer and message until the
 * writes are durable. The one alarm is always the stored state's next wake-up (a read of the chain,
 * a delivery, an owed write, the expiry, the end of retention); work under way holds its due time
 * a lease ahead in that state, so an eviction at any point is resumed by the alarm. What reads,
 * deliveries and writes find comes back in as events (./onboarding-effects.ts carries them out).
 */
import { readConfig, type Config } from "../src/config";
import { isRefusal, type Answer } from "../src/http/answer";
import { log } from "../src/log";
import { lookUpClaim } from "../src/onboardings/chain-watch";
import {
  transition,
  waitsForChain,
  type MachineRules,
  type NewOnboarding,
  type OnboardingEvent,
  type PairedPayout,
} from "../src/onboardings/machine";
import { eventsLog, pendingHead, probeResult } from "../src/onboardings/outbox";
import { ONBOARDING_NOT_FOUND } from "../src/onboardings/refusals";
import { relayedPayout } from "../src/onboardings/relayed-payout";
import { machineRules } from "../src/onboardings/rules";
import { upgradeState, type OnboardingState } from "../src/onboardings/state";
import { customerView, hostView, pageView } from "../src/onboardings/views";
import type { OnboardingCustomerView, OnboardingEventsLog, OnboardingView } from "../src/protocol/index";
import type { ProbeResult } from "../src/webhooks/lane";
import { performEach } from "./effects";
import { performOnboardingEffect, STATE_KEY } from "./onboarding-effects";
import { PushObject, type PushView } from "./push";

export class Onboarding extends PushObject {
  private state: OnboardingState | null = null;
  private readonly config: Config;
  private readonly rules: MachineRules;
  /** The wake-up running, if one is: an alarm meanwhile joins it. */
  private waking: Promise<void> | null = null;
  /** Work under way (reads, deliveries, writes): memory only tracks it; its lease is in the stored state. */
  private readonly running = new Set<Promise<void>>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.config = readConfig(env);
    this.rules = machineRules(this.config);
    ctx.blockConcurrencyWhile(async () => {
      const stored = await ctx.storage.get<OnboardingState>(STATE_KEY);
      this.state = stored ? upgradeState(stored) : null;
    });
  }

  /** Stores a new open onboarding; refused when the id is taken. */
  create(onboarding: NewOnboarding): Answer<OnboardingView> {
    return this.shown({ type: "create", onboarding }, (state) => hostView(state.record, this.config));
  }

  /** The onboarding as the host sees it. */
  read(): Answer<OnboardingView> {
    return this.shown({ type: "read" }, (state) => hostView(state.record, this.config));
  }

  /** The events log: every event and every delivery attempt. */
  events(): Answer<OnboardingEventsLog> {
    return this.shown({ type: "read" }, (state) => eventsLog(state, this.rules.delivering));
  }

  /** Cancels it (from any state before applied); repeating is harmless. */
  cancel(): Answer<OnboardingView> {
    return this.shown({ type: "cancel" }, (state) => hostView(state.record, this.config));
  }

  /** The onboarding as its customer's page sees it. */
  customer(): Answer<OnboardingCustomerView> {
    return this.shown({ type: "read" }, (state) => customerView(state.record));
  }

  /**
   * The customer's wallet paired. A relayed pairing session is read from its own Durable Object
   * (the address the wallet confirmed, never the browser's word); the wallet app's bridge answers
   * only the page, so its address is taken as the page reports it and marked `in_app`.
   */
  async pair(paired: PairedPayout): Promise<Answer<OnboardingCustomerView>> {
    const payout = "sessionId" in paired ? await relayedPayout(this.env.PAIRING_SESSIONS, paired.sessionId) : paired;
    if ("reason" in payout) return payout;
    return this.shown({ type: "pair", payout }, (state) => customerView(state.record));
  }

  /**
   * The transaction hash the wallet app returned for the authorization, looked up at once: signed
   * by another address than the payout, it stops the onboarding; not in a block yet, it is looked
   * up again with every read of the chain.
   */
  async claimAuthorization(txhash: string): Promise<Answer<OnboardingCustomerView>> {
    const claimed = this.apply({ type: "claim", txhash });
    if (isRefusal(claimed)) return claimed;
    const tx = await lookUpClaim(this.config, claimed.body.record, txhash);
    return this.shown({ type: "verified", tx }, (state) => customerView(state.record));
  }

  /** The chain follower's word (a block named this onboarding, or its health changed); answers whether it still waits. */
  chainHint(hint: { height: number; following: boolean }): { waiting: boolean } {
    const answer = this.apply({ type: "hint", height: hint.height, following: hint.following });
    return { waiting: !isRefusal(answer) && waitsForChain(answer.body) };
  }

  /** The webhook's lane released this onboarding (its endpoint answers again): its held event goes now. */
  laneOpen(): void {
    this.apply({ type: "released" });
  }

  /** The lane's probe: one attempt at the oldest event now, while every other onboarding waits. */
  async laneProbe(): Promise<ProbeResult> {
    const head = this.state && this.rules.delivering ? pendingHead(this.state) : null;
    if (!head) return { outcome: "nothing", error: null };
    this.apply({ type: "probe" });
    await this.idle();
    return probeResult(this.state, head.id);
  }

  /** Queues the events given up to be sent again; answers how many there were. */
  resend(): number {
    const given = this.state?.events.filter((e) => e.failed_at !== null).length ?? 0;
    this.apply({ type: "resend" });
    return given;
  }

  override alarm(): Promise<void> {
    this.waking ??= this.wake().finally(() => (this.waking = null));
    return this.waking;
  }

  /** Does what is due, waits for it, and decides again until nothing is due or under way. */
  private async wake(): Promise<void> {
    do this.apply({ type: "wake" });
    while (await this.idle());
  }

  /** Waits for the work under way; true if there was some. */
  private async idle(): Promise<boolean> {
    if (this.running.size === 0) return false;
    while (this.running.size > 0) await Promise.all(this.running);
    return true;
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

  /** Decides the event and performs its effects in order, without an await between them; the work they start is tracked. */
  private apply(event: OnboardingEvent): Answer<OnboardingState> {
    const next = transition(this.state, event, Date.now(), this.rules);
    this.state = next.state;
    const world = { ctx: this.ctx, env: this.env, config: this.config, push: (v: PushView | null) => this.push(v) };
    for (const work of performEach(next.effects, (effect) => performOnboardingEffect(world, effect))) {
      const tracked: Promise<void> = work
        .then((found) => void (found && this.apply(found)))
        .catch((err: unknown) => log("error", "onboarding_fault", { error: String(err) }))
        .finally(() => this.running.delete(tracked));
      this.running.add(tracked);
    }
    return next.answer;
  }

  private shown<T>(event: OnboardingEvent, show: (state: OnboardingState) => T): Answer<T> {
    const answer = this.apply(event);
    return isRefusal(answer) ? answer : { status: answer.status, body: show(answer.body) };
  }
}
