/**
 * Shared setup of the runtime tests: every test starts with the gateway's isolate state empty, and
 * every test file's onboarding index has its tables (migrations/, as dev and deploy apply them).
 */
import { applyD1Migrations, type D1Migration } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, beforeEach } from "vitest";
import { resetGatewayState } from "../src/gateway";

beforeAll(() => applyD1Migrations(env.ONBOARDING_INDEX, (env as unknown as { INDEX_MIGRATIONS: D1Migration[] }).INDEX_MIGRATIONS));
beforeEach(() => resetGatewayState());
