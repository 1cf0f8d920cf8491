/**
 * Global setup of the e2e suite: the devnet and the Worker under `wrangler dev` (fresh
 * `--persist-to` directory, gateway pointed at the devnet, the host API's key and webhook settings
 * pointing at a loopback receiver), each on a free loopback port so that runs side by side do not
 * meet, all stopped afterwards. The browser is chosen here, once
 * (helpers/chromium.ts); with none the run fails.
 */
import { randomBytes } from "node:crypto";
import type { TestProject } from "vitest/node";
import { startDevnet } from "../../devnet/server.ts";
import { chooseChromium, type ChromiumChoice } from "./helpers/chromium.ts";
import { startWebhookReceiver } from "../node/webhook-receiver.ts";
import { freshSecret } from "./helpers/host-example.ts";
import { freeLoopbackPort } from "./helpers/ports.ts";
import { startWranglerDev } from "./helpers/wrangler-dev.ts";

/** Sessions (and so sign requests) live this long in the e2e server, so expiry tests end soon. */
export const SESSION_TTL_SECONDS = 25;

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    devnetUrl: string;
    chromium: ChromiumChoice;
    sessionTtlSeconds: number;
    /** A bearer key of the host API. */
    hostApiKey: string;
    /** The webhook secret (`whsec_…`) the server signs events with. */
    webhookSecret: string;
    /** `GET …?onboarding=ob_…` lists the events the receiver got for one onboarding, in order. */
    webhooksReceivedUrl: string;
    /**
     * host-loop.test.ts's own server (started in the background), its key and secret, and the port its webhook goes to.
     */
    hostLoop: { url: string; key: string; secret: string; webhookPort: number };
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = performance.now();
  const chromium = await chooseChromium();
  console.log(
    `e2e browser: ${chromium.executablePath} (${chromium.source}, ready in ` +
      `${Math.round(performance.now() - started)} ms)`,
  );

  const devnet = await startDevnet({ port: 0, host: "127.0.0.1" });
  const receiver = await startWebhookReceiver();
  const hostApiKey = randomBytes(24).toString("hex");
  const webhookSecret = `whsec_${randomBytes(32).toString("base64")}`;
  let server: Awaited<ReturnType<typeof startWranglerDev>>;
  try {
    server = await startWranglerDev({
      UPSTREAM_URLS: devnet.url,
      SESSION_TTL_MAX_SECONDS: String(SESSION_TTL_SECONDS),
      // Every test page opens a session; the per-IP create limit is tested in the runtime suite.
      RATE_LIMITS: "off",
      HOST_API_KEYS: hostApiKey,
      HOST_WEBHOOK_URL: receiver.url,
      HOST_WEBHOOK_SECRET: webhookSecret,
      // Onboardings move as soon as the chain does, so the tests wait seconds, not blocks.
      ONBOARDING_CHECK_SECONDS: "1",
    });
  } catch (error) {
    await Promise.all([devnet.close(), receiver.close()]);
    throw error;
  }
  const baseUrl = server.url;

  // The host loop needs a server whose webhook goes to the host example that its test starts. It
  // starts now, in the background, once the suite's server is up, and is ready long before that
  // file runs (host-loop.test.ts waits for it), instead of making the file wait for a start. A run
  // that names its files (npm test's groups, scripts/test-suites.ts) and leaves that one out skips it.
  const hostLoop = {
    url: `http://127.0.0.1:${await freeLoopbackPort()}`,
    key: randomBytes(32).toString("hex"),
    secret: freshSecret(),
    webhookPort: await freeLoopbackPort(),
  };
  const hostLoopServer = runsHostLoop()
    ? startWranglerDev(
        {
          UPSTREAM_URLS: devnet.url,
          HOST_API_KEYS: hostLoop.key,
          HOST_WEBHOOK_SECRET: hostLoop.secret,
          HOST_WEBHOOK_URL: `http://127.0.0.1:${hostLoop.webhookPort}/webhooks`,
          ONBOARDING_CHECK_SECONDS: "1",
        },
        Number(new URL(hostLoop.url).port),
      )
    : Promise.resolve(null);
  hostLoopServer.catch((error: Error) => console.error(`the host loop's server did not start: ${error.message}`));

  const stop = async () => {
    await (await hostLoopServer.catch(() => null))?.stop();
    await server.stop();
    await devnet.close();
    await receiver.close();
  };
  project.provide("baseUrl", baseUrl);
  project.provide("devnetUrl", devnet.url);
  project.provide("chromium", chromium);
  project.provide("sessionTtlSeconds", SESSION_TTL_SECONDS);
  project.provide("hostApiKey", hostApiKey);
  project.provide("webhookSecret", webhookSecret);
  project.provide("webhooksReceivedUrl", receiver.deliveriesUrl);
  project.provide("hostLoop", hostLoop);
  return stop;
}

/** Whether host-loop.test.ts is in this run: every file runs unless the command line names some. */
function runsHostLoop(): boolean {
  const named = process.argv.filter((arg) => arg.endsWith(".test.ts"));
  return named.length === 0 || named.some((file) => file.endsWith("host-loop.test.ts"));
}
