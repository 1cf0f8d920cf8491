/**
 * What the onboarding machine needs from this deployment's configuration: how an event shows the onboarding, fresh
 * event ids, its clocks.
 */
import type { Config } from "../../config";
import type { MachineRules } from ".";
import { hostView } from "../http/views";

export function machineRules(config: Config): MachineRules {
  return {
    present: (record) => hostView(record, config),
    mintEventId: () => `msg_${crypto.randomUUID().replaceAll("-", "")}`,
    checkMs: config.onboardingCheckSeconds * 1000,
    ttlMs: config.onboardingTtlSeconds * 1000,
    delivering: config.hostWebhook !== null,
  };
}
