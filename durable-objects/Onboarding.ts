/**
 * Onboarding: the single writer of one `ob_` onboarding, running the state machine of
 * src/onboardings/machine.ts: its state, its reads of the chain and its outbox of events for
 * the host, all in one stored value.
 *
 * Writes follow the platform's output gate: the state is decided synchronously, put without
 * awaiting, and every answer or WebSocket message sent after it is held until the write is
 * durable (a failed write resets the object, so nothing is ever seen that storage could lose).
 * The one alarm wakes the object for whatever is due first: a read of the chain, a delivery
 * attempt, the expiry, the end of retention.
 */
import { DurableObject } from "cloudflare:workers";
import { readConfig, type Config } from "../src/config";
import { errorResponse, type ErrorSpec } from "../src/errors";
import { chainReadingFor, verifyClaimedTx } from "../src/onboardings/chain-watch";
import { cancel, claimAuthorization, create, expire, isRefusal, observe, pair, type Answer, type MachineRules, type NewOnboarding, type Step } from "../src/onboardings/machine";
import { eventsLog, nextWakeAt, pendingHead, recordAttempt, retentionOver } from "../src/onboardings/outbox";
import { ONBOARDING_NOT_FOUND, SESSION_NOT_CONNECTED } from "../src/onboardings/refusals";
import type { OnboardingState } from "../src/onboardings/state";
import { customerView, hostView } from "../src/onboardings/views";
import { deliver, delivered } from "../src/onboardings/webhook";
import { isOnboardingEnded, type OnboardingCustomerView, type OnboardingView } from "../src/protocol/index";

const STATE_KEY = "state";
/** Deliveries made in one wake-up at most; the rest wait for the next alarm. */
const DELIVERIES_PER_WAKE = 20;

/** An answer across RPC: the value with its HTTP status, or the refusal value itself. */
export type OnboardingOutcome<T> = { status: 200 | 201; body: T } | ErrorSpec;

/** What the customer's page says its wallet paired: a relayed pairing session, or the wallet app's bridge. */
export type PairedPayout = { sessionId: string } | { address: string; source: "in_app" };

export class Onboarding extends DurableObject<Env> {
  private state: OnboardingState | null = null;
  private readonly config: Config;
  private readonly rules: MachineRules;
  /** When the alarm was last set for: a wake-up counts everything due by then as due. */
  private wakeAt = 0;
  /** While a wake-up runs: the time it acts at (when the alarm was set for, or later). */
  private actingAt = 0;
  private running: Promise<unknown> = Promise.resolve();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.config = readConfig(env);
    this.rules = {
      present: (record) => hostView(record, this.config),
      mintEventId: () => `msg_${crypto.randomUUID().replaceAll("-", "")}`,
      checkMs: this.config.onboardingCheckSeconds * 1000,
    };
    ctx.blockConcurrencyWhile(async () => {
      this.state = (await ctx.storage.get<OnboardingState>(STATE_KEY)) ?? null;
      this.wakeAt = (await ctx.storage.getAlarm()) ?? 0;
    });
    ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair("ping", "pong"));
  }

  /** Stores a new open onboarding; refused when the id is taken. */
  async create(input: NewOnboarding): Promise<OnboardingOutcome<OnboardingView>> {
    return this.hostAnswer(this.apply(create(this.state, input, Date.now(), this.config.onboardingTtlSeconds * 1000)));
  }

  /** The onboarding as the host sees it. */
  async read(): Promise<OnboardingOutcome<OnboardingView>> {
    this.expireIfDue();
    return this.hostAnswer({ state: this.state, answer: this.state ? { status: 200 } : ONBOARDING_NOT_FOUND });
  }

  /** The events log: every event and every delivery attempt. */
  async events(): Promise<OnboardingOutcome<ReturnType<typeof eventsLog>>> {
    this.expireIfDue();
    return this.state ? { status: 200, body: eventsLog(this.state) } : ONBOARDING_NOT_FOUND;
  }

  /** Cancels it (from any state before applied); repeating is harmless. */
  async cancel(): Promise<OnboardingOutcome<OnboardingView>> {
    this.expireIfDue();
    return this.hostAnswer(this.apply(cancel(this.state, Date.now(), this.rules)));
  }

  /** The onboarding as its customer's page sees it. */
  async customer(): Promise<OnboardingOutcome<OnboardingCustomerView>> {
    this.expireIfDue();
    return this.customerAnswer({ state: this.state, answer: this.state ? { status: 200 } : ONBOARDING_NOT_FOUND });
  }

  /**
   * The customer's wallet paired. A relayed pairing session is read from its own Durable Object
   * (the address the wallet confirmed, never the browser's word); the wallet app's bridge answers
   * only the page, so its address is taken as the page reports it and marked `in_app`.
   */
  async pair(paired: PairedPayout): Promise<OnboardingOutcome<OnboardingCustomerView>> {
    this.expireIfDue();
    let payout: { address: string; source: "relay" | "in_app" };
    if ("sessionId" in paired) {
      const session = await this.env.PAIRING_SESSIONS.get(this.env.PAIRING_SESSIONS.idFromName(paired.sessionId)).read();
      if (!("row" in session)) return session;
      if (session.row.status !== "connected" || session.row.address === null) return SESSION_NOT_CONNECTED;
      payout = { address: session.row.address, source: "relay" };
    } else {
      payout = paired;
    }
    const step = this.apply(pair(this.state, payout, Date.now(), this.rules));
    if (!isRefusal(step.answer)) this.wakeNow();
    return this.customerAnswer(step);
  }

  /**
   * The transaction hash the wallet app returned for the authorization. Looked up at once: signed
   * by another address than the payout, it stops the onboarding; not in a block yet, it is
   * looked up again with every read of the chain.
   */
  async claimAuthorization(txhash: string): Promise<OnboardingOutcome<OnboardingCustomerView>> {
    this.expireIfDue();
    const step = this.apply(claimAuthorization(this.state, txhash, Date.now()));
    if (isRefusal(step.answer)) return this.customerAnswer(step);
    const refusal = await this.verifyClaim();
    if (refusal) return refusal;
    this.wakeNow();
    return this.customerAnswer({ state: this.state, answer: { status: 200 } });
  }

  override async alarm(): Promise<void> {
    // One wake-up at a time: a second (a retried alarm, a test running it early) follows the first.
    const run = this.running.then(() => this.wake());
    this.running = run.catch(() => undefined);
    await run;
  }

  private async wake(): Promise<void> {
    if (!this.state) return;
    if (retentionOver(this.state, Date.now())) {
      for (const socket of this.ctx.getWebSockets()) closeQuietly(socket, 1000, "deleted");
      this.state = null;
      await this.ctx.storage.deleteAll();
      return;
    }
    // A wake-up acts at the time its alarm was set for: the same as now in production, where
    // alarms fire on time or late; a test that runs an alarm early moves through time with it.
    this.actingAt = Math.max(Date.now(), this.wakeAt);
    // The platform cleared the alarm that woke us; the end of this wake-up sets the next one.
    this.wakeAt = 0;
    try {
      this.commit(expire(this.state, this.now(), this.rules));
      const check = this.state.watch.next_check_at;
      if (check !== null && check <= this.now()) await this.readChain();
      await this.deliverDue();
    } finally {
      this.actingAt = 0;
      this.scheduleWake();
    }
  }

  /** The time a decision is made at: now, or the time the running wake-up acts at. */
  private now(): number {
    return Math.max(Date.now(), this.actingAt);
  }

  /** The customer's page subscribes: the view now and on every change; closed once it has ended. */
  override async fetch(): Promise<Response> {
    this.expireIfDue();
    if (!this.state) return errorResponse(ONBOARDING_NOT_FOUND);
    const { 0: client, 1: server } = new WebSocketPair();
    this.ctx.acceptWebSocket(server);
    server.send(JSON.stringify(customerView(this.state.record)));
    if (isOnboardingEnded(this.state.record.status)) server.close(1000, this.state.record.status);
    return new Response(null, { status: 101, webSocket: client });
  }

  /** Any message asks for the view again. */
  override async webSocketMessage(socket: WebSocket): Promise<void> {
    if (this.state) socket.send(JSON.stringify(customerView(this.state.record)));
    else closeQuietly(socket, 1000, "deleted");
  }

  override async webSocketClose(socket: WebSocket, code: number): Promise<void> {
    closeQuietly(socket, code === 1005 || code === 1006 ? 1000 : code, "closed");
  }

  /** Reads what the chain says of the steps still awaited and applies it. */
  private async readChain(): Promise<void> {
    // The reading counts as of when it began, so checks keep their interval however long the nodes take.
    const startedAt = this.now();
    await this.verifyClaim();
    if (!this.state || isOnboardingEnded(this.state.record.status)) return;
    const reading = await chainReadingFor(this.config, this.state.record);
    if (this.state) this.commit(observe(this.state, reading, startedAt, this.rules));
  }

  /** Looks up a claimed authorization transaction; the refusal when its signer stopped the onboarding. */
  private async verifyClaim(): Promise<ErrorSpec | null> {
    const txhash = this.state?.watch.claimed_txhash;
    if (!this.state || !txhash) return null;
    const verdict = await verifyClaimedTx(this.config, this.state.record, txhash);
    if (!this.state) return null;
    if (verdict.reading) this.commit(observe(this.state, verdict.reading, this.now(), this.rules));
    if (verdict.drop) this.commit({ ...this.state, watch: { ...this.state.watch, claimed_txhash: null } });
    return verdict.refusal;
  }

  /** Delivers due events in order until one fails or none is due. */
  private async deliverDue(): Promise<void> {
    const webhook = this.config.hostWebhook;
    if (!webhook) return;
    for (let n = 0; n < DELIVERIES_PER_WAKE && this.state; n++) {
      const head = pendingHead(this.state);
      if (!head || head.next_attempt_at === null || head.next_attempt_at > this.now()) return;
      const attempt = await deliver(webhook, head);
      if (!this.state) return;
      this.commit(recordAttempt(this.state, head.id, attempt, this.now()));
      if (!delivered(attempt)) {
        console.warn(JSON.stringify({ level: "warn", event: "webhook_attempt_failed", onboarding: this.state.record.id, webhook_id: head.id, attempt: head.attempts.length + 1, ...("error" in attempt ? { error: attempt.error } : { status: attempt.status }) }));
        return;
      }
    }
  }

  private expireIfDue(): void {
    if (this.state) this.commit(expire(this.state, this.now(), this.rules));
  }

  private apply(step: Step): Step {
    this.commit(step.state);
    return step;
  }

  /** Makes `next` the state: written (held by the output gate), the alarm set, subscribers told. */
  private commit(next: OnboardingState | null): void {
    if (next === this.state || next === null) return;
    const before = this.state;
    this.state = next;
    void this.ctx.storage.put(STATE_KEY, next);
    this.scheduleWake();
    if (before === null || before.record !== next.record) this.broadcast(next);
  }

  private wakeNow(): void {
    if (!this.state) return;
    this.state = { ...this.state, watch: { ...this.state.watch, next_check_at: Date.now() } };
    void this.ctx.storage.put(STATE_KEY, this.state);
    this.scheduleWake();
  }

  private scheduleWake(): void {
    const at = this.state ? nextWakeAt(this.state, this.config.hostWebhook !== null) : null;
    if (at === null) {
      if (this.wakeAt !== 0) void this.ctx.storage.deleteAlarm();
      this.wakeAt = 0;
    } else if (at !== this.wakeAt) {
      this.wakeAt = at;
      void this.ctx.storage.setAlarm(at);
    }
  }

  private broadcast(state: OnboardingState): void {
    const message = JSON.stringify(customerView(state.record));
    const ended = isOnboardingEnded(state.record.status);
    for (const socket of this.ctx.getWebSockets()) {
      try {
        socket.send(message);
      } catch {
        // A socket that is already closing needs nothing more.
      }
      if (ended) closeQuietly(socket, 1000, state.record.status);
    }
  }

  private hostAnswer(step: Step): OnboardingOutcome<OnboardingView> {
    return this.answerWith(step.answer, (state) => hostView(state.record, this.config));
  }

  private customerAnswer(step: Step): OnboardingOutcome<OnboardingCustomerView> {
    return this.answerWith(step.answer, (state) => customerView(state.record));
  }

  private answerWith<T>(answer: Answer, show: (state: OnboardingState) => T): OnboardingOutcome<T> {
    if (isRefusal(answer)) return answer;
    if (!this.state) return ONBOARDING_NOT_FOUND;
    return { status: answer.status, body: show(this.state) };
  }
}

function closeQuietly(socket: WebSocket, code: number, reason: string): void {
  try {
    socket.close(code, reason);
  } catch {
    // Already closed.
  }
}
