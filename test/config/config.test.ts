/** The configuration: profiles, overrides, refusals that name the variable, and the files that document it. */
import { env } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { ConfigError, readConfig } from "../../src/config";
import { NETWORK_PROFILES } from "../../src/config/profiles";
import { LOCAL_SESSION_SIGNING_KEY, VARIABLES } from "../../src/config/variables";
import wranglerToml from "../../wrangler.toml?raw";

/** A fresh env object (readConfig memoizes per object) with only the given variables. */
const only = (vars: Record<string, string>) => ({ ...vars });

describe("network profiles", () => {
  it("serves the network's own words from the local and testnet profiles", () => {
    const local = readConfig(only({ NETWORK_PROFILE: "local" }));
    expect(local).toMatchObject({
      profile: "local",
      namespace: "hope",
      bech32Prefix: "hope",
      chainId: "hope-testnet-2",
      walletPath: "hope-wallet",
      walletScheme: "hopewallet",
      nativeDenom: "uhope",
      nodeBinary: "hoped",
    });
    expect(local.upstreamUrls).toEqual(["http://127.0.0.1:1317"]);
    const testnet = readConfig(only({ NETWORK_PROFILE: "testnet" }));
    expect(testnet.chainId).toBe("hope-testnet-2");
    expect(testnet.upstreamUrls).toEqual([NETWORK_PROFILES.testnet.vars.UPSTREAM_URLS]);
  });

  it("leaves /rpc and the live face off in every deployable profile until an environment names RPC nodes", () => {
    for (const profile of Object.keys(NETWORK_PROFILES).filter((name) => name !== "local"))
      expect(
        readConfig(only({ NETWORK_PROFILE: profile, CHAIN_ID: "c-1", UPSTREAM_URLS: "https://lcd.example.net" }))
          .rpcUpstreamUrls,
        profile,
      ).toEqual([]);
    const on = readConfig(only({ NETWORK_PROFILE: "testnet", RPC_UPSTREAM_URLS: "https://rpc.example.net" }));
    expect(on.rpcUpstreamUrls).toEqual(["https://rpc.example.net"]);
  });

  it("lets every variable override its profile's value", () => {
    const config = readConfig(
      only({
        NETWORK_PROFILE: "testnet",
        CHAIN_ID: "hope-testnet-3",
        WALLET_PATH: "pairing",
        UPSTREAM_URLS: "https://lcd.example.net/api/",
      }),
    );
    expect(config).toMatchObject({ chainId: "hope-testnet-3", walletPath: "pairing", namespace: "hope" });
    expect(config.upstreamUrls).toEqual(["https://lcd.example.net/api"]);
  });

  it("runs this suite on the local profile with the neutral words set as variables", () => {
    expect(readConfig(env)).toMatchObject({ profile: "local", namespace: "chain", chainId: "chain-devnet-1" });
  });
});

describe("configuration refusals", () => {
  const refusal = (vars: Record<string, string>) => {
    try {
      readConfig(only(vars));
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as Error).message;
    }
    throw new Error(`accepted ${JSON.stringify(vars)}`);
  };

  it("refuses an environment that names no network", () => {
    expect(refusal({ CHAIN_ID: "x-1", UPSTREAM_URLS: "https://lcd.example.net" })).toMatch(
      /^NETWORK_PROFILE is not set: .*local, testnet, neutral/,
    );
    expect(refusal({ NETWORK_PROFILE: "mainnet" })).toMatch(/NETWORK_PROFILE "mainnet" must name a profile/);
  });

  it("refuses a deployed profile left at the local devnet's upstream", () => {
    expect(refusal({ NETWORK_PROFILE: "testnet", UPSTREAM_URLS: "http://127.0.0.1:1317" })).toMatch(
      /UPSTREAM_URLS names a loopback address/,
    );
    expect(
      refusal({
        NETWORK_PROFILE: "neutral",
        CHAIN_ID: "c-1",
        UPSTREAM_URLS: "https://a.example.net,http://localhost:1317",
      }),
    ).toMatch(/loopback/);
  });

  it("refuses a fork profile without its own chain id or nodes", () => {
    expect(refusal({ NETWORK_PROFILE: "neutral", UPSTREAM_URLS: "https://lcd.example.net" })).toMatch(
      /^CHAIN_ID is not set, and the "neutral" profile has no value for it/,
    );
    expect(refusal({ NETWORK_PROFILE: "neutral", CHAIN_ID: "c-1" })).toMatch(/^UPSTREAM_URLS is not set/);
  });

  it.each([
    [{ SESSION_TTL_MAX_SECONDS: "5" }, /^SESSION_TTL_MAX_SECONDS "5" must be an integer from 10 to 86400/],
    [{ UPSTREAM_TIMEOUT_MS: "fast" }, /^UPSTREAM_TIMEOUT_MS "fast" must be an integer/],
    [{ RATE_LIMITS: "yes" }, /^RATE_LIMITS "yes" must be "on" or "off"/],
    [{ BECH32_PREFIX: "Hope" }, /^BECH32_PREFIX "Hope" must be lowercase/],
    [{ WALLET_PATH: "cosmos" }, /^WALLET_PATH "cosmos" collides/],
    [{ UPSTREAM_URLS: "https://user:pw@lcd.example.net" }, /without credentials/],
    [{ NODE_KEYRING_BACKEND: "vault" }, /NODE_KEYRING_BACKEND "vault" must be a Cosmos keyring backend/],
  ])("names the variable and what it must be: %j", (vars, message) => {
    expect(refusal({ NETWORK_PROFILE: "local", ...vars })).toMatch(message);
  });

  it("never prints a secret's value", () => {
    const message = refusal({ NETWORK_PROFILE: "local", UPSTREAM_AUTH_HEADER: "no-colon-token-s3cr3t" });
    expect(message).toMatch(/^UPSTREAM_AUTH_HEADER \(secret\) must be like/);
    expect(message).not.toContain("s3cr3t");
  });

  it(
    "answers every request of a misconfigured deployment with a 500 that names the variable, with a " + "request id",
    async () => {
      const log = vi.spyOn(console, "error").mockImplementation(() => undefined);
      const broken = { ...env, NETWORK_PROFILE: "local", RATE_LIMITS: "sometimes" };
      for (const path of ["/api/config", "/api/health", "/api/chain/incentives/v1/params", "/api/wallet/sessions"]) {
        const response = await worker.fetch(
          new Request(`https://edge.test${path}`),
          broken as unknown as Env,
          {} as ExecutionContext,
        );
        expect(response.status).toBe(500);
        expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
        const body = await response.json<{ message: string; details: { reason: string }[] }>();
        expect(body.details[0]!.reason).toBe("CONFIGURATION");
        expect(body.message).toMatch(/^RATE_LIMITS "sometimes" must be "on" or "off"/);
      }
      expect(log).toHaveBeenCalled();
      log.mockRestore();
    },
  );
});

describe("documentation of the variables", () => {
  it("wrangler.toml names every variable, with its default where it has one", () => {
    for (const [name, variable] of Object.entries(VARIABLES)) {
      expect(wranglerToml, name).toContain(name);
      if ("default" in variable && variable.default !== "" && !("secret" in variable)) {
        expect(wranglerToml, name).toContain(`# ${name} = "${variable.default}"`);
      }
    }
  });
});

describe("the session-creation limiter", () => {
  // docs/SECURITY.md: 30 per minute per client IP; the 429's Retry-After (src/sessions/rate-limit.ts) says 60 s.
  it("allows 30 creates a minute per client in every environment, the minute Retry-After names", () => {
    const limiters = [...wranglerToml.matchAll(/name = "SESSION_CREATE_LIMITER"\n[^\n]*\n(simple = .*)/g)].map(
      (m) => m[1],
    );
    expect(limiters.length).toBeGreaterThanOrEqual(3);
    for (const limiter of limiters) expect(limiter).toBe("simple = { limit = 30, period = 60 }");
  });
});

describe("the live face's limiter", () => {
  // docs/GATEWAY.md, docs/SECURITY.md: 120 sockets opened a minute per client IP, on its own binding.
  it("allows 120 opens a minute per client in every environment, on a namespace of its own", () => {
    const limiters = [...wranglerToml.matchAll(/name = "LIVE_OPEN_LIMITER"\nnamespace_id = "(\d+)"\n(simple = .*)/g)];
    const environments = [...wranglerToml.matchAll(/name = "SESSION_CREATE_LIMITER"/g)].length;
    expect(limiters.length).toBe(environments);
    for (const [, , limiter] of limiters) expect(limiter).toBe("simple = { limit = 120, period = 60 }");
    const namespaces = [...wranglerToml.matchAll(/namespace_id = "(\d+)"/g)].map((m) => m[1]);
    expect(new Set(namespaces).size).toBe(namespaces.length);
  });

  it("lets one client IP hold 100 sockets unless LIVE_SOCKETS_PER_IP says otherwise", () => {
    expect(readConfig(only({ NETWORK_PROFILE: "local" })).liveSocketsPerIp).toBe(100);
    expect(readConfig(only({ NETWORK_PROFILE: "local", LIVE_SOCKETS_PER_IP: "7" })).liveSocketsPerIp).toBe(7);
  });
});

describe("the host handoff's settings", () => {
  const secret = `whsec_${btoa("0123456789abcdef0123456789abcdef")}`;
  const refusal = (vars: Record<string, string>) => {
    try {
      readConfig(only({ NETWORK_PROFILE: "local", ...vars }));
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as Error).message;
    }
    throw new Error("accepted");
  };

  it("reads keys, a webhook and its secret's bytes", () => {
    const config = readConfig(
      only({
        NETWORK_PROFILE: "testnet",
        HOST_API_KEYS: `${"a".repeat(32)},${"b".repeat(40)}`,
        HOST_WEBHOOK_URL: "https://host.example/hooks",
        HOST_WEBHOOK_SECRET: secret,
      }),
    );
    expect(config.hostApiKeys).toEqual(["a".repeat(32), "b".repeat(40)]);
    expect(config.hostWebhook?.url).toBe("https://host.example/hooks");
    expect(config.hostWebhook?.secret).toHaveLength(32);
    expect(readConfig(only({ NETWORK_PROFILE: "local" }))).toMatchObject({
      hostApiKeys: [],
      hostWebhook: null,
      onboardingCheckSeconds: 6,
      onboardingTtlSeconds: 604_800,
    });
  });

  it("gives the receiver 10 s to answer unless told less, and never more than the contract's 10 s", () => {
    const webhook = (vars: Record<string, string>) =>
      readConfig(
        only({
          NETWORK_PROFILE: "testnet",
          HOST_WEBHOOK_URL: "https://host.example/hooks",
          HOST_WEBHOOK_SECRET: secret,
          ...vars,
        }),
      ).hostWebhook;
    expect(webhook({})?.timeoutMs).toBe(10_000);
    expect(webhook({ HOST_WEBHOOK_TIMEOUT_MS: "1500" })?.timeoutMs).toBe(1500);
    // 10 s is the receiver's promise (docs/HOSTS.md): at most, to the millisecond.
    expect(webhook({ HOST_WEBHOOK_TIMEOUT_MS: "10000" })?.timeoutMs).toBe(10_000);
    expect(
      refusal({
        HOST_WEBHOOK_URL: "https://host.example/hooks",
        HOST_WEBHOOK_SECRET: secret,
        HOST_WEBHOOK_TIMEOUT_MS: "10001",
      }),
    ).toContain("HOST_WEBHOOK_TIMEOUT_MS");
    expect(
      refusal({
        HOST_WEBHOOK_URL: "https://host.example/hooks",
        HOST_WEBHOOK_SECRET: secret,
        HOST_WEBHOOK_TIMEOUT_MS: "12000",
      }),
    ).toContain("HOST_WEBHOOK_TIMEOUT_MS");
  });

  it("refuses a webhook URL without its secret, naming the secret", () => {
    expect(refusal({ HOST_WEBHOOK_URL: "https://host.example/hooks" })).toContain("HOST_WEBHOOK_SECRET is not set");
  });

  it("refuses plain http for the webhook except on loopback in the local profile", () => {
    expect(refusal({ HOST_WEBHOOK_URL: "http://host.example/hooks", HOST_WEBHOOK_SECRET: secret })).toContain(
      "HOST_WEBHOOK_URL must use https",
    );
    expect(
      readConfig(
        only({ NETWORK_PROFILE: "local", HOST_WEBHOOK_URL: "http://127.0.0.1:8788/", HOST_WEBHOOK_SECRET: secret }),
      ).hostWebhook?.url,
    ).toBe("http://127.0.0.1:8788/");
    expect(() =>
      readConfig(
        only({ NETWORK_PROFILE: "testnet", HOST_WEBHOOK_URL: "http://127.0.0.1:8788/", HOST_WEBHOOK_SECRET: secret }),
      ),
    ).toThrow(/HOST_WEBHOOK_URL must use https/);
  });

  it("refuses a secret of the wrong shape or size without printing it, and keys shorter than 32 characters", () => {
    const short = `whsec_${btoa("too short")}`;
    const message = refusal({ HOST_WEBHOOK_URL: "https://host.example/", HOST_WEBHOOK_SECRET: short });
    expect(message).toContain("24 to 64");
    expect(message).not.toContain(short);
    expect(refusal({ HOST_WEBHOOK_URL: "https://host.example/", HOST_WEBHOOK_SECRET: "not-a-secret" })).toContain(
      "HOST_WEBHOOK_SECRET (secret)",
    );
    const keys = refusal({ HOST_API_KEYS: "short-key" });
    expect(keys).toContain("HOST_API_KEYS (secret)");
    expect(keys).not.toContain("short-key");
  });
});

describe("the session signing key", () => {
  it("is the local profile's public key unless one is set, so dev and the tests need no secret", () => {
    expect(readConfig(only({ NETWORK_PROFILE: "local" })).sessionSigningKey).toBe(LOCAL_SESSION_SIGNING_KEY);
    expect(readConfig(only({ NETWORK_PROFILE: "local", SESSION_SIGNING_KEY: "k".repeat(32) })).sessionSigningKey).toBe(
      "k".repeat(32),
    );
  });

  it(
    "is the deployment's own in another profile, or none (no signed sessions); the public key is " + "refused there",
    () => {
      expect(
        readConfig(only({ NETWORK_PROFILE: "testnet", SESSION_SIGNING_KEY: "k".repeat(40) })).sessionSigningKey,
      ).toBe("k".repeat(40));
      expect(readConfig(only({ NETWORK_PROFILE: "testnet" })).sessionSigningKey).toBeNull();
      expect(() =>
        readConfig(only({ NETWORK_PROFILE: "testnet", SESSION_SIGNING_KEY: LOCAL_SESSION_SIGNING_KEY })),
      ).toThrow(
        /^SESSION_SIGNING_KEY \(secret\) is the local profile's public key, which the "testnet" profile refuses/,
      );
      expect(() =>
        readConfig(
          only({
            NETWORK_PROFILE: "neutral",
            CHAIN_ID: "c-1",
            UPSTREAM_URLS: "https://lcd.example.net",
            SESSION_SIGNING_KEY: LOCAL_SESSION_SIGNING_KEY,
          }),
        ),
      ).toThrow("npx wrangler secret put SESSION_SIGNING_KEY --env <environment>");
    },
  );

  it("refuses a key shorter than 32 characters without printing it", () => {
    expect(() => readConfig(only({ NETWORK_PROFILE: "testnet", SESSION_SIGNING_KEY: "short-key" }))).toThrow(
      /^SESSION_SIGNING_KEY \(secret\) must be at least 32 printable characters/,
    );
  });
});
