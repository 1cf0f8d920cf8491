/**
 * IdempotencyKey: one per `Idempotency-Key` a host sends with a create, the single writer of what
 * that key created. Concurrent creates with one key are serialised, so exactly one onboarding is
 * created and every repeat answers it; the record is deleted 24 hours after it was made.
 */
import { DurableObject } from "cloudflare:workers";
import { IDEMPOTENCY_CONFLICT, IDEMPOTENCY_WINDOW_MS } from "../src/onboardings/idempotency";
import type { NewOnboarding } from "../src/onboardings/machine";
import type { OnboardingView } from "../src/protocol/index";
import type { OnboardingOutcome } from "./Onboarding";

interface KeyRecord {
  bodyHash: string;
  onboardingId: string;
  createdAt: number;
}

const RECORD_KEY = "record";

export class IdempotencyKey extends DurableObject<Env> {
  /** Creates `input` once for this key, or answers the onboarding the key already created (200). */
  async createOnce(bodyHash: string, input: NewOnboarding): Promise<OnboardingOutcome<OnboardingView>> {
    let outcome!: OnboardingOutcome<OnboardingView>;
    // Held closed across the create: a concurrent repeat waits, then finds the record.
    await this.ctx.blockConcurrencyWhile(async () => {
      const now = Date.now();
      const held = await this.ctx.storage.get<KeyRecord>(RECORD_KEY);
      if (held && now - held.createdAt < IDEMPOTENCY_WINDOW_MS) {
        if (held.bodyHash !== bodyHash) {
          outcome = IDEMPOTENCY_CONFLICT;
          return;
        }
        const again = await this.onboarding(held.onboardingId).read();
        outcome = "body" in again ? { status: 200, body: again.body } : again;
        return;
      }
      outcome = await this.onboarding(input.id).create(input);
      if (!("body" in outcome)) return;
      await this.ctx.storage.put(RECORD_KEY, { bodyHash, onboardingId: input.id, createdAt: now } satisfies KeyRecord);
      await this.ctx.storage.setAlarm(now + IDEMPOTENCY_WINDOW_MS);
    });
    return outcome;
  }

  override async alarm(): Promise<void> {
    await this.ctx.storage.deleteAll();
  }

  private onboarding(id: string) {
    return this.env.ONBOARDINGS.get(this.env.ONBOARDINGS.idFromName(id));
  }
}
