/** Shared setup of the runtime tests: every test starts with the gateway's isolate state empty. */
import { beforeEach } from "vitest";
import { resetGatewayState } from "../src/gateway";

beforeEach(() => resetGatewayState());
