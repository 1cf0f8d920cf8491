/** How npm test splits the browser files into processes (scripts/browser-groups.ts). */
import { describe, expect, it } from "vitest";
import { browserGroups } from "../../scripts/browser-groups";

const groups = [["slow.test.ts"], ["waits.test.ts", "tools.test.ts"]];

describe("the browser files' groups", () => {
  it("runs every file exactly once: the named in their groups, any other (a new file) in a last group", () => {
    const files = ["tools.test.ts", "new.test.ts", "slow.test.ts", "helpers/ports.test.ts", "waits.test.ts"];
    const split = browserGroups(files, groups);
    expect(split).toEqual([
      ["slow.test.ts"],
      ["waits.test.ts", "tools.test.ts"],
      ["helpers/ports.test.ts", "new.test.ts"],
    ]);
    expect(split.flat().sort()).toEqual([...files].sort());
  });

  it("refuses a group that names a file that does not exist, so a renamed file is not silently dropped", () => {
    expect(() => browserGroups(["slow.test.ts", "waits.test.ts"], groups)).toThrow(
      "test/e2e/tools.test.ts is named but does not exist",
    );
  });

  it("starts no empty process when every file is named", () => {
    expect(browserGroups(["slow.test.ts", "waits.test.ts", "tools.test.ts"], groups)).toHaveLength(2);
  });
});
