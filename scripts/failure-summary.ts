/**
 * Why a vitest run failed, for the end of `npm test`'s log (scripts/test-suites.ts): its own summary
 * ("Failed Tests", "Unhandled Error", "Failed Suites") onwards, colours taken out, at most `lines`
 * lines; without one, the last `lines` lines (a process that ended before vitest could say why).
 */
export function whyItFailed(output: string, lines = 120): string {
  const plain = output.replace(/\x1b\[[0-9;]*m/g, "");
  const from = plain.search(/⎯+ (Failed Tests|Unhandled Errors?|Failed Suites) /);
  const kept = (from < 0 ? plain : plain.slice(from)).trimEnd().split("\n");
  return (from < 0 ? kept.slice(-lines) : kept.slice(0, lines)).join("\n");
}
