/**
 * IdempotencyKey: one per `Idempotency-Key` a host sends with a create, the single writer of what
 * that key created. The first create claims the key (in memory, and in storage before anything
 * leaves the object) without awaiting anything, so a concurrent repeat finds the claim, waits for
 * that same create and answers its onboarding; the record is deleted 24 hours after it was made.
 */
import { DurableObject } from "cloudflare:workers";
import { isRefusal, type Answer } from "../../src/http/answer";
import { IDEMPOTENCY_CONFLICT, IDEMPOTENCY_WINDOW_MS } from "../../src/onboardings/http/idempotency";
import type { NewOnboarding } from "../../src/onboardings/machine";
import { ONBOARDING_NOT_FOUND } from "../../src/onboardings/refusals";
import type { OnboardingView } from "../../src/protocol/index";

interface KeyRecord {
  bodyHash: string;
  onboarding: NewOnboarding;
  createdAt: number;
}

const RECORD_KEY = "record";

export class IdempotencyKey extends DurableObject<Env> {
  private record: KeyRecord | null = null;
  /** The create the key's first use started, while it runs. */
  private creating: Promise<Answer<OnboardingView>> | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // One-time setup: the record is in memory before the first call is taken.
    ctx.blockConcurrencyWhile(async () => {
      this.record = (await ctx.storage.get<KeyRecord>(RECORD_KEY)) ?? null;
    });
  }

  /** Creates `input` once for this key (201), or answers the onboarding the key already created (200). */
  async createOnce(bodyHash: string, input: NewOnboarding): Promise<Answer<OnboardingView>> {
    const now = Date.now();
    const held = this.record !== null && now - this.record.createdAt < IDEMPOTENCY_WINDOW_MS ? this.record : null;
    if (held && held.bodyHash !== bodyHash) return IDEMPOTENCY_CONFLICT;
    if (!held) {
      this.record = { bodyHash, onboarding: input, createdAt: now };
      void this.ctx.storage.put(RECORD_KEY, this.record);
      void this.ctx.storage.setAlarm(now + IDEMPOTENCY_WINDOW_MS);
      this.creating = this.onboarding(input.id).create(input);
      return this.creating.finally(() => (this.creating = null));
    }
    const again = await (this.creating ?? this.created(held.onboarding));
    return isRefusal(again) ? again : { status: 200, body: again.body };
  }

  override async alarm(): Promise<void> {
    this.record = null;
    await this.ctx.storage.deleteAll();
  }

  /** The onboarding the key created, created now if the object was reset between its claim and the create. */
  private async created(onboarding: NewOnboarding): Promise<Answer<OnboardingView>> {
    const stub = this.onboarding(onboarding.id);
    const read = await stub.read();
    return isRefusal(read) && read.reason === ONBOARDING_NOT_FOUND.reason ? stub.create(onboarding) : read;
  }

  private onboarding(id: string) {
    return this.env.ONBOARDINGS.get(this.env.ONBOARDINGS.idFromName(id));
  }
}
