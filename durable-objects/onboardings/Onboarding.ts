/**
 * Onboarding: the single writer of one `ob_` onboarding, running src/onboardings/machine/index.ts. Its record,
 * chain watch, outbox and what it owes the index and the follower are one stored value; each event is
 * applied in one synchronous step, writes not awaited (the output gate holds every answer until they are
 * durable). The one alarm is the stored state's next wake-up; work under way holds its due time a lease
 * ahead in that state, so an eviction at any point is resumed. Effects: onboarding-effects.ts beside it.
 */
import { readConfig, type Config } from "../../src/config";
import { isRefusal, type Answer } from "../../src/http/answer";
import { lookUpClaim } from "../../src/onboardings/chain/watch";
import { transition, waitsForChain } from "../../src/onboardings/machine";
import type { MachineRules, NewOnboarding, OnboardingEvent, PairedPayout } from "../../src/onboardings/machine";
import { eventsLog, pendingHead, probeResult } from "../../src/onboardings/outbox";
import { ONBOARDING_APPLIED, ONBOARDING_NOT_FOUND } from "../../src/onboardings/refusals";
import { relayedPayout } from "../../src/onboardings/http/relayed-payout";
import { machineRules } from "../../src/onboardings/machine/rules";
import { upgradeState, type OnboardingState } from "../../src/onboardings/state";
import { customerView, hostView, pageView } from "../../src/onboardings/http/views";
import type { OnboardingCustomerView, OnboardingEventsLog, OnboardingView } from "../../src/protocol/index";
import type { ProbeResult } from "../../src/webhooks/lane";
import { performEach } from "../effects";
import { performOnboardingEffect, STATE_KEY, WorkUnderWay } from "./onboarding-effects";
import { PushObject, type PushView } from "../push";

export class Onboarding extends PushObject {
  private state: OnboardingState | null = null;
  private readonly config: Config;
  private readonly rules: MachineRules;
  private readonly work = new WorkUnderWay();
  private readonly host = (state: OnboardingState) => hostView(state.record, this.config);
  private readonly page = (state: OnboardingState) => customerView(state.record);

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
    return this.shown({ type: "create", onboarding }, this.host);
  }

  /** The onboarding as the host sees it. */
  read(): Answer<OnboardingView> {
    return this.shown({ type: "read" }, this.host);
  }

  /** The events log: every event and every delivery attempt. */
  events(): Answer<OnboardingEventsLog> {
    return this.shown({ type: "read" }, (state) => eventsLog(state, this.rules.delivering));
  }

  /** Cancels it (from any state before applied); repeating is harmless. */
  cancel(): Answer<OnboardingView> {
    return this.shown({ type: "cancel" }, this.host);
  }

  /** The onboarding as its customer's page sees it. */
  customer(): Answer<OnboardingCustomerView> {
    return this.shown({ type: "read" }, this.page);
  }

  /** The wallet paired: a relayed session is read from its own object (never the browser's word); in_app as said. */
  async pair(paired: PairedPayout): Promise<Answer<OnboardingCustomerView>> {
    if (!this.state) return ONBOARDING_NOT_FOUND;
    const { id } = this.state.record;
    const payout =
      "sessionId" in paired ? await relayedPayout(this.env.PAIRING_SESSIONS, paired.sessionId, id) : paired;
    if ("reason" in payout) return payout;
    return this.shown({ type: "pair", payout }, this.page);
  }

  /**
   * The wallet confirmed a session this onboarding's page carried: its own object says so, no page in between. Answers
   * what it decided: paired (or already paired with this very wallet, applied too), or why not.
   */
  pairedBySession(address: string): Answer<OnboardingCustomerView> {
    const answer = this.shown({ type: "pair", payout: { address, source: "relay" } }, this.page);
    const held = this.state?.record;
    if (isRefusal(answer) && answer.reason === ONBOARDING_APPLIED.reason && held?.payout === address)
      return { status: 200, body: customerView(held) };
    return answer;
  }

  /** The authorization's transaction hash the wallet app returned, looked up now (and with every read until found). */
  async claimAuthorization(txhash: string): Promise<Answer<OnboardingCustomerView>> {
    const claimed = this.apply({ type: "claim", txhash });
    if (isRefusal(claimed)) return claimed;
    const tx = await lookUpClaim(this.config, claimed.body.record, txhash);
    return this.shown({ type: "verified", tx }, this.page);
  }

  /** The chain follower's word (a block named it, or the follower's health changed); answers whether it waits. */
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
    await this.work.idle();
    return probeResult(this.state, head.id);
  }

  /** Queues the events given up to be sent again; answers how many there were. */
  resend(): number {
    const given = this.state?.events.filter((e) => e.failed_at !== null).length ?? 0;
    this.apply({ type: "resend" });
    return given;
  }

  /** Sends event `id` again with its same id (delivered or given up before); answers the events log. */
  resendEvent(id: string): Answer<OnboardingEventsLog> {
    return this.shown({ type: "resend", event: id }, (state) => eventsLog(state, this.rules.delivering));
  }

  override alarm(): Promise<void> {
    return this.work.wake(() => this.apply({ type: "wake" }));
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

  /** Decides the event and performs its effects in order, without an await between them; tracks the work started. */
  private apply(event: OnboardingEvent): Answer<OnboardingState> {
    const next = transition(this.state, event, Date.now(), this.rules);
    this.state = next.state;
    const world = { ctx: this.ctx, env: this.env, config: this.config, push: (v: PushView | null) => this.push(v) };
    const work = performEach(next.effects, (effect) => performOnboardingEffect(world, effect));
    this.work.track(work, (found) => this.apply(found));
    return next.answer;
  }

  private shown<T>(event: OnboardingEvent, show: (state: OnboardingState) => T): Answer<T> {
    const answer = this.apply(event);
    return isRefusal(answer) ? answer : { status: answer.status, body: show(answer.body) };
  }
}
