/**
 * The one loopback rule, and its users: plain http for sessions, plain http for where the local profile sends events
 * and customers, local-only upstreams in configuration.
 */
import { describe, expect, it } from "vitest";
import { ConfigError, readConfig } from "../../src/config";
import { isHttpsOrLocalLoopback, isHttpsOrLoopback, isLoopbackHost } from "../../src/http/loopback";
import { WALLET, createPayload, errorReason, mintSessionId, postJson } from "../helpers/sessions";

const hostOf = (url: string) => new URL(url).hostname;

describe("isLoopbackHost", () => {
  it("accepts localhost, all of 127.0.0.0/8 and [::1], as URLs spell them", () => {
    for (const url of [
      "http://localhost:8787",
      "http://127.0.0.1",
      "http://127.0.0.2:1317",
      "http://127.255.255.254",
      "http://127.1",
      "http://[::1]:8787",
      "http://[0:0:0:0:0:0:0:1]",
    ]) {
      expect(isLoopbackHost(hostOf(url)), url).toBe(true);
    }
  });

  it("refuses every other host, look-alikes included", () => {
    for (const url of [
      "http://edge.test",
      "http://128.0.0.1",
      "http://126.255.255.255",
      "http://0.0.0.0",
      "http://10.0.0.1",
      "http://127.0.0.1.evil.test",
      "http://localhost.evil.test",
      "http://evil-localhost",
      "http://[::2]",
      "http://[::ffff:7f00:1]",
    ]) {
      expect(isLoopbackHost(hostOf(url)), url).toBe(false);
    }
    for (const raw of ["127.0.0.256", "127.0.0", "127.0.0.1 ", "::1", "LOCALHOST"])
      expect(isLoopbackHost(raw), raw).toBe(false);
  });
});

describe(
  "plain http: on a loopback host for this server's own pages, and only in the local profile for where it " + "sends",
  () => {
    it("isHttpsOrLoopback: https anywhere, http on loopback in any profile", () => {
      for (const url of ["https://edge.example", "http://127.0.0.2:8787", "http://[::1]"])
        expect(isHttpsOrLoopback(new URL(url)), url).toBe(true);
      for (const url of ["http://edge.example", "http://127.0.0.1.evil.test", "ws://127.0.0.1", "ftp://edge.example"])
        expect(isHttpsOrLoopback(new URL(url)), url).toBe(false);
    });

    it("isHttpsOrLocalLoopback: http on loopback only when the profile is local", () => {
      for (const local of [true, false])
        expect(isHttpsOrLocalLoopback(new URL("https://host.example/hooks"), local)).toBe(true);
      expect(isHttpsOrLocalLoopback(new URL("http://127.0.0.2:8788/"), true)).toBe(true);
      expect(isHttpsOrLocalLoopback(new URL("http://localhost:8788/"), false)).toBe(false);
      expect(isHttpsOrLocalLoopback(new URL("http://host.example/"), true)).toBe(false);
      expect(isHttpsOrLocalLoopback(new URL("http://127.0.0.1.evil.test/"), true)).toBe(false);
    });
  },
);

describe("sessions allow plain http on a loopback host only", () => {
  const createOver = (base: string) => {
    const sessionId = mintSessionId();
    return postJson(
      `${base}${WALLET}`,
      createPayload(sessionId, {
        origin: { name: "x", url: base },
        relay_url: `${base}${WALLET}/${sessionId}/confirm`,
      }),
    );
  };

  it.each(["http://localhost:8787", "http://127.0.0.2:8787", "http://[::1]:8787"])("creates over %s", async (base) => {
    expect((await createOver(base)).status).toBe(201);
  });

  it.each(["http://127.0.0.1.evil.test", "http://128.0.0.1:8787"])(
    "refuses %s (403 INSECURE_TRANSPORT)",
    async (base) => {
      const response = await createOver(base);
      expect(response.status).toBe(403);
      expect(await errorReason(response)).toBe("INSECURE_TRANSPORT");
    },
  );
});

describe("only the local profile may name a loopback upstream", () => {
  it.each(["http://127.0.0.2:1317", "http://[::1]:1317", "http://localhost:1317"])(
    "refuses %s on the testnet profile, takes it on local",
    (url) => {
      expect(() => readConfig({ NETWORK_PROFILE: "testnet", UPSTREAM_URLS: url })).toThrow(ConfigError);
      expect(readConfig({ NETWORK_PROFILE: "local", UPSTREAM_URLS: url }).upstreamUrls).toEqual([url]);
    },
  );

  it("takes a look-alike host on a deployed profile", () => {
    expect(
      readConfig({ NETWORK_PROFILE: "testnet", UPSTREAM_URLS: "https://127.0.0.1.nip.example" }).upstreamUrls,
    ).toEqual(["https://127.0.0.1.nip.example"]);
  });
});
