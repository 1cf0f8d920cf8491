/** CPU time a process has used so far (user + system, all its threads), read from Linux's /proc. */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

const TICKS_PER_SECOND = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());

/** Microseconds of CPU `pid` has used. Resolution is one clock tick (10 ms at the usual 100 Hz). */
export function processCpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // The command name may hold spaces and parentheses; fields are counted after its closing one.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return ((utime + stime) / TICKS_PER_SECOND) * 1e6;
}
