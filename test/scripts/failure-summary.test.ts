/** The end of npm test's log says why a suite failed (scripts/failure-summary.ts). */
import { expect, it } from "vitest";
import { whyItFailed } from "../../scripts/failure-summary";

const passed = Array.from({ length: 300 }, (_, i) => ` \x1b[32m✓\x1b[39m test ${i}`).join("\n");

it("starts at vitest's summary of the failures, without colours, and keeps at most the lines asked", () => {
  const summary = "\x1b[31m⎯⎯⎯ Failed Tests 1 ⎯⎯⎯\x1b[39m\n FAIL a.test.ts > x\nAssertionError: 1 is not 0\n";
  expect(whyItFailed(`${passed}\n${summary}\n Test Files 1 failed`)).toBe(
    "⎯⎯⎯ Failed Tests 1 ⎯⎯⎯\n FAIL a.test.ts > x\nAssertionError: 1 is not 0\n\n Test Files 1 failed",
  );
  expect(whyItFailed(`⎯⎯ Unhandled Error ⎯⎯\n${passed}`, 2)).toBe(
    "⎯⎯ Unhandled Error ⎯⎯\n \x1b[32m✓\x1b[39m test 0".replace(/\x1b\[[0-9;]*m/g, ""),
  );
});

it("without a summary, gives the last lines: a process that ended before vitest could say why", () => {
  expect(whyItFailed(`${passed}\nError: wrangler dev did not come up`, 2)).toBe(
    " ✓ test 299\nError: wrangler dev did not come up",
  );
});
