/** vitest globalSetup: the host's webhook receiver for the runtime suite (`provide("webhookUrl")`). */
import type { TestProject } from "vitest/node";
import { startWebhookReceiver } from "./webhook-receiver.ts";

declare module "vitest" {
  export interface ProvidedContext {
    webhookUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const receiver = await startWebhookReceiver();
  project.provide("webhookUrl", receiver.url);
  return () => receiver.close();
}
