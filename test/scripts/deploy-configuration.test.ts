/** What `npm run deploy` reads from wrangler.toml and the one line it writes (scripts/deploy/configuration.ts). */
import { describe, expect, it } from "vitest";
import {
  environmentNames,
  environmentProblems,
  PLACEHOLDER_DATABASE_ID,
  readEnvironment,
  withDatabaseId,
} from "../../scripts/deploy/configuration";
import wranglerToml from "../../wrangler.toml?raw";

const ID = "6f1c2a9e-4b7d-4e21-9a0f-3c5d8e7b1a42";

describe("wrangler.toml's environments, as the deploy reads them", () => {
  it("are testnet, deployable as it is (every binding of the top level, a profile, unique ids), and fork", () => {
    expect(environmentNames(wranglerToml)).toEqual(["testnet", "fork"]);
    expect(environmentProblems(wranglerToml, "testnet")).toEqual([]);
  });

  it("refuses the fork's example nodes, and a route on an example domain, until they are the deployer's own", () => {
    expect(environmentProblems(wranglerToml, "fork")).toEqual([
      "[env.fork.vars] UPSTREAM_URLS names an example host (https://lcd-1.example.net,https://lcd-2.example.net): " +
        "set your own",
    ]);
    const own = wranglerToml.replace(
      'UPSTREAM_URLS = "https://lcd-1.example.net,https://lcd-2.example.net"',
      'UPSTREAM_URLS = "https://lcd-1.fork-network.io,https://lcd-2.fork-network.io"',
    );
    expect(environmentProblems(own, "fork")).toEqual([]);
    const routed = wranglerToml.replace(
      '# routes = [{ pattern = "edge-testnet.example.net", custom_domain = true }]',
      'routes = [{ pattern = "edge-testnet.example.net", custom_domain = true }]',
    );
    expect(environmentProblems(routed, "testnet")).toEqual([
      "[env.testnet] routes names an example host: set your own domain",
    ]);
  });

  it("name each Worker, its database by the placeholder, and no RPC nodes (the live face off)", () => {
    expect(readEnvironment(wranglerToml, "testnet")).toMatchObject({
      workerName: "chain-edge-testnet",
      profile: "testnet",
      databases: [{ binding: "ONBOARDING_INDEX", name: "chain-edge-onboardings-testnet", id: null, migrations: true }],
      rpcUpstreams: false,
      access: false,
      routes: false,
      workersDev: true,
    });
    expect(readEnvironment(wranglerToml, "fork")?.rpcUpstreams).toBe(false);
    expect(readEnvironment(wranglerToml, "local")).toBeUndefined();
  });

  it("finds an environment that lacks a binding of the top level (environments inherit none)", () => {
    const lacking = wranglerToml.replace('[env.testnet.version_metadata]\nbinding = "CF_VERSION_METADATA"\n', "");
    expect(environmentProblems(lacking, "testnet")).toEqual([
      "[env.testnet] lacks the version_metadata binding CF_VERSION_METADATA that the top level has " +
        "(environments do not inherit it)",
    ]);
    const noLimiter = wranglerToml.replace(
      /\[\[env\.testnet\.ratelimits\]\]\nname = "DASHBOARD_SIGN_IN_LIMITER"\n[^[]*/,
      "",
    );
    expect(environmentProblems(noLimiter, "testnet")).toEqual([
      "[env.testnet] lacks the ratelimits binding DASHBOARD_SIGN_IN_LIMITER that the top level has " +
        "(environments do not inherit it)",
    ]);
  });

  it("refuses the local profile in an environment, and an environment without a profile", () => {
    const local = wranglerToml.replace(
      '[env.testnet.vars]\nNETWORK_PROFILE = "testnet"',
      '[env.testnet.vars]\nNETWORK_PROFILE = "local"',
    );
    expect(environmentProblems(local, "testnet")).toEqual([
      "[env.testnet.vars] names the local profile, which is never deployed (its session signing key is public)",
    ]);
    const none = wranglerToml.replace('[env.testnet.vars]\nNETWORK_PROFILE = "testnet"', "[env.testnet.vars]");
    expect(environmentProblems(none, "testnet")).toEqual([
      "[env.testnet.vars] names no NETWORK_PROFILE: the Worker would refuse to serve",
    ]);
  });

  it("refuses a rate-limit namespace id used twice: it must be unique within the account", () => {
    const twice = wranglerToml.replace('namespace_id = "7303"', 'namespace_id = "7302"');
    expect(environmentProblems(twice, "testnet")).toEqual([
      "rate-limit namespace_id 7302 is used by [[env.testnet.ratelimits]] SESSION_CREATE_LIMITER and " +
        "[[env.fork.ratelimits]] SESSION_CREATE_LIMITER: each binding needs its own id, unique within your " +
        "Cloudflare account",
    ]);
  });
});

describe("writing a database id", () => {
  it("changes that environment's database_id line only, every comment kept", () => {
    const written = withDatabaseId(wranglerToml, "testnet", "ONBOARDING_INDEX", ID);
    expect(readEnvironment(written, "testnet")?.databases[0]?.id).toBe(ID);
    expect(readEnvironment(written, "fork")?.databases[0]?.id).toBeNull();
    expect(written.replace(ID, PLACEHOLDER_DATABASE_ID)).toBe(wranglerToml);
    expect(written.split(ID)).toHaveLength(2);
  });

  it("adds the line when the entry has none, and refuses an entry that is not there", () => {
    const without = wranglerToml.replace(
      `database_name = "chain-edge-onboardings-fork"\ndatabase_id = "${PLACEHOLDER_DATABASE_ID}"\n`,
      'database_name = "chain-edge-onboardings-fork"\n',
    );
    expect(readEnvironment(without, "fork")?.databases[0]?.id).toBeNull();
    const written = withDatabaseId(without, "fork", "ONBOARDING_INDEX", ID);
    expect(readEnvironment(written, "fork")?.databases[0]?.id).toBe(ID);
    expect(() => withDatabaseId(wranglerToml, "fork", "OTHER_INDEX", ID)).toThrow(
      'wrangler.toml has no [[env.fork.d1_databases]] with binding = "OTHER_INDEX"',
    );
  });
});
