/**
 * What the code printed at warn and error during the current test, kept instead of printed, as the
 * Workers SDK's `mockConsoleMethods` keeps it: a test that expects a warning asserts it here, and
 * a test that fails prints what it captured (test/setup.ts), so a fault test's expected lines never
 * fill the output of a passing run.
 */
type Level = "warn" | "error";

const captured: Record<Level, string[]> = { warn: [], error: [] };

/** The log lines (src/log.ts) printed at `level` since the test began, parsed; other text is left out. */
export function logged(level: Level): Record<string, unknown>[] {
  return captured[level].flatMap((line) => {
    if (!line.startsWith("{")) return [];
    try {
      return [JSON.parse(line) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
}

/** Replaces console.warn and console.error with capture (once per isolate); returns what resets and prints it. */
export function captureConsole(): { reset(): void; dump(): string } {
  for (const level of ["warn", "error"] as const) {
    console[level] = (...args: unknown[]) => void captured[level].push(args.map(String).join(" "));
  }
  return {
    reset() {
      captured.warn = [];
      captured.error = [];
    },
    dump() {
      return (["warn", "error"] as const)
        .flatMap((level) => captured[level].map((line) => `console.${level}: ${line}`))
        .join("\n");
    },
  };
}
