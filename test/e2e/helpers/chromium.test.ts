/** The browser choice (CHROMIUM_PATH, the npm build, a system browser, else a failure) and the one-time unpack. */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  chooseChromium,
  DROPPED_NPM_BUILD_ARGS,
  SYSTEM_CHROMIUM_ARGS,
  unpackOnce,
  type ChromiumHost,
} from "./chromium.ts";

function host(overrides: Partial<ChromiumHost> & { files?: string[] } = {}): ChromiumHost & { unpacked: number } {
  const files = new Set(overrides.files ?? []);
  const fake = {
    env: {},
    platform: "linux",
    arch: "x64",
    exists: (path: string) => files.has(path),
    unpacked: 0,
    npmBuild: async () => {
      fake.unpacked += 1;
      return "/tmp/npm-build/chromium";
    },
    ...overrides,
  };
  return fake;
}

describe("chooseChromium", () => {
  it("takes CHROMIUM_PATH first, with the system flags, and unpacks nothing", async () => {
    const machine = host({
      env: { CHROMIUM_PATH: "/opt/chrome/chrome" },
      files: ["/opt/chrome/chrome", "/usr/bin/chromium"],
    });
    expect(await chooseChromium(machine)).toEqual({
      source: "CHROMIUM_PATH",
      executablePath: "/opt/chrome/chrome",
      args: SYSTEM_CHROMIUM_ARGS,
    });
    expect(machine.unpacked).toBe(0);
  });

  it("refuses a CHROMIUM_PATH that does not exist instead of looking elsewhere", async () => {
    const machine = host({ env: { CHROMIUM_PATH: "/nowhere/chrome" }, files: ["/usr/bin/chromium"] });
    await expect(chooseChromium(machine)).rejects.toThrow("CHROMIUM_PATH is /nowhere/chrome, which does not exist");
  });

  it(
    "uses the npm build on linux x64 even with a system browser present, without the flags that " + "weaken it",
    async () => {
      const machine = host({ files: ["/usr/bin/chromium"] });
      const choice = await chooseChromium(machine);
      expect(choice.source).toBe("@sparticuz/chromium");
      expect(choice.executablePath).toBe("/tmp/npm-build/chromium");
      expect(choice.args).toContain("--no-sandbox");
      expect(choice.args.filter((arg) => DROPPED_NPM_BUILD_ARGS.includes(arg))).toEqual([]);
      expect(machine.unpacked).toBe(1);
    },
  );

  it("falls back to a system browser where the npm package has no build", async () => {
    for (const [platform, arch] of [
      ["linux", "arm64"],
      ["darwin", "x64"],
    ]) {
      const machine = host({ platform, arch, files: ["/usr/bin/google-chrome", "/usr/bin/chromium-browser"] });
      expect(await chooseChromium(machine)).toEqual({
        source: "system",
        executablePath: "/usr/bin/chromium-browser",
        args: SYSTEM_CHROMIUM_ARGS,
      });
      expect(machine.unpacked).toBe(0);
    }
  });

  it("fails, naming all three ways to provide a browser, when there is none", async () => {
    const error = await chooseChromium(host({ platform: "darwin", arch: "arm64" })).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    const message = (error as Error).message;
    expect(message).toContain("CHROMIUM_PATH");
    expect(message).toContain("@sparticuz/chromium");
    expect(message).toContain("darwin arm64");
    expect(message).toContain("/usr/bin/chromium");
  });
});

describe("unpackOnce", () => {
  const roots: string[] = [];
  afterEach(() => {
    for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
  });
  function freshFolder(): { root: string; folder: string } {
    const root = mkdtempSync(join(tmpdir(), "unpack-once-test-"));
    roots.push(root);
    return { root, folder: join(root, "build-1.0.0") };
  }
  // Like the package: reads tmpdir() on the call, writes the binary after an await.
  function fakeUnpack(calls: string[]) {
    return async () => {
      const binary = join(tmpdir(), "chromium");
      calls.push(binary);
      await new Promise((resolve) => setImmediate(resolve));
      writeFileSync(binary, `binary ${calls.length}`);
      return binary;
    };
  }

  it("unpacks into the folder and restores TMPDIR before the unpack has finished", async () => {
    const { folder } = freshFolder();
    const calls: string[] = [];
    const before = process.env.TMPDIR;
    const unpacking = unpackOnce(folder, "chromium", fakeUnpack(calls));
    expect(process.env.TMPDIR).toBe(before);
    expect(await unpacking).toBe(join(folder, "chromium"));
    expect(readFileSync(join(folder, "chromium"), "utf8")).toBe("binary 1");
    expect(calls[0]).not.toBe(join(folder, "chromium"));
  });

  it("uses an unpacked folder as it is", async () => {
    const { folder } = freshFolder();
    const calls: string[] = [];
    await unpackOnce(folder, "chromium", fakeUnpack(calls));
    expect(await unpackOnce(folder, "chromium", fakeUnpack(calls))).toBe(join(folder, "chromium"));
    expect(calls).toHaveLength(1);
  });

  it("lets two unpacks at once end with one complete folder and no staging left", async () => {
    const { root, folder } = freshFolder();
    const calls: string[] = [];
    const paths = await Promise.all([
      unpackOnce(folder, "chromium", fakeUnpack(calls)),
      unpackOnce(folder, "chromium", fakeUnpack(calls)),
    ]);
    expect(paths).toEqual([join(folder, "chromium"), join(folder, "chromium")]);
    expect(new Set(calls).size).toBe(2);
    expect(readdirSync(root)).toEqual(["build-1.0.0"]);
  });

  it("refuses an unpack that wrote its binary outside the staging folder", async () => {
    const { root, folder } = freshFolder();
    const elsewhere = join(root, "elsewhere");
    const late = async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return elsewhere;
    };
    await expect(unpackOnce(folder, "chromium", late)).rejects.toThrow(`the unpacked binary is at ${elsewhere}`);
    expect(readdirSync(root)).toEqual([]);
  });

  it("leaves nothing behind when the unpack fails, so the next run unpacks again", async () => {
    const { root, folder } = freshFolder();
    const failing = async () => {
      writeFileSync(join(tmpdir(), "chromium"), "half");
      throw new Error("disk full");
    };
    await expect(unpackOnce(folder, "chromium", failing)).rejects.toThrow("disk full");
    expect(readdirSync(root)).toEqual([]);
    expect(existsSync(folder)).toBe(false);
  });
});
