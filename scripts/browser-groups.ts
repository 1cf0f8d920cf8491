/**
 * How `npm test` splits the browser test files into processes that run side by side
 * (scripts/test-suites.ts): the groups below, of about equal wall time (seconds measured on a quiet
 * two-core machine), and every file they do not name in a last group, so a new file is never left out.
 */

/**
 * The long flows with the follower's (150 s), the onboarding that waits out its 60 s life with the
 * host's tools (150 s), the host's dashboard with its Access server (70 s) and `npm run deploy` against a stub
 * wrangler (13 s, measured on a busy machine); the rest (150 s) is the last group.
 */
export const BROWSER_GROUPS: readonly (readonly string[])[] = [
  ["onboarding.test.ts", "chain-follower.test.ts", "live-upstream.test.ts"],
  [
    "onboarding-expiry.test.ts",
    "host-example.test.ts",
    "host-guide.test.ts",
    "host-loop.test.ts",
    "shell-safety.test.ts",
  ],
  ["dashboard.test.ts", "dashboard-access.test.ts", "journey.test.ts", "deploy.test.ts"],
  ["live.test.ts", "live-faults.test.ts", "live-hostile.test.ts"],
];

/** `files` (paths below test/e2e) in `groups`, and the ones no group names in a last group; a named file missing throws. */
export function browserGroups(
  files: readonly string[],
  groups: readonly (readonly string[])[] = BROWSER_GROUPS,
): string[][] {
  const named = new Set(groups.flat());
  for (const file of named) if (!files.includes(file)) throw new Error(`test/e2e/${file} is named but does not exist`);
  const rest = files.filter((file) => !named.has(file)).sort();
  return [...groups.map((group) => [...group]), rest].filter((group) => group.length > 0);
}
