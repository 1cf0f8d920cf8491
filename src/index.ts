/** The Worker: the Durable Object classes wrangler.toml binds (the platform takes them from here), and the entry. */
export { ChainFollower } from "../durable-objects/onboardings/ChainFollower";
export { LiveFeed } from "../durable-objects/live/LiveFeed";
export { LiveShard } from "../durable-objects/live/LiveShard";
export { IdempotencyKey } from "../durable-objects/onboardings/IdempotencyKey";
export { Onboarding } from "../durable-objects/onboardings/Onboarding";
export { PairingSession } from "../durable-objects/sessions/PairingSession";
export { QueryShield } from "../durable-objects/gateway/QueryShield";
export { UpstreamHealth } from "../durable-objects/gateway/UpstreamHealth";
export { WebhookLane } from "../durable-objects/onboardings/WebhookLane";
export { default } from "./entry";
