/**
 * vitest globalSetup: the simulation's settings from the shell (`provide("simulation")`), read
 * here in Node because the suite runs in workerd, which sees no shell environment.
 */
import type { TestProject } from "vitest/node";

export interface SimulationSettings {
  /** SIM_SEED: one seed to replay. */
  seed: string | null;
  /** SIM_SEEDS: how many seeds the sweep draws. */
  seeds: string | null;
  /** SIM_DRAW: fast-check's seed, which draws the sweep's seeds. */
  draw: string | null;
  /** SIM_FIND=1: the heavy recorded seeds too. */
  find: boolean;
  /** SIM_LIVE=1: a replayed seed (SIM_SEED) runs with the live face's crowd and faults. */
  live: boolean;
  /** SIM_LIVE_SEEDS: how many seeds the live sweep draws. */
  liveSeeds: string | null;
}

declare module "vitest" {
  export interface ProvidedContext {
    simulation: SimulationSettings;
  }
}

export default function setup(project: TestProject): void {
  const env = process.env;
  project.provide("simulation", {
    seed: env.SIM_SEED ?? null,
    seeds: env.SIM_SEEDS ?? null,
    draw: env.SIM_DRAW ?? null,
    find: env.SIM_FIND === "1",
    live: env.SIM_LIVE === "1",
    liveSeeds: env.SIM_LIVE_SEEDS ?? null,
  });
}
