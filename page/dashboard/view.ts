/** Building blocks of the dashboard's views: times, states and messages, always as text. */
import { el } from "../dom.ts";
import type { ApiFailure } from "./api.ts";

/** A time as the support desk reads it (UTC, to the second), or a dash. */
export function when(iso: string | null | undefined): string {
  return iso ? `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC` : "—";
}

/** How long ago, in the largest whole unit. */
export function ago(iso: string, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (seconds < 90) return `${seconds} s ago`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 129_600) return `${Math.round(seconds / 3600)} h ago`;
  return `${Math.round(seconds / 86_400)} d ago`;
}

/** A duration in seconds as words. */
export function duration(seconds: number): string {
  if (seconds < 90) return `${seconds} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  if (seconds < 129_600) return `${(seconds / 3600).toFixed(1)} h`;
  return `${(seconds / 86_400).toFixed(1)} d`;
}

/** A status as a badge with its word (not only a colour). */
export function badge(status: string): HTMLElement {
  return el("span", { class: `badge badge-${status}` }, status);
}

/** An error box that says what happened and what to do. */
export function problem(failure: unknown, what: string): HTMLElement {
  const f = failure as Partial<ApiFailure>;
  const message = typeof f.message === "string" ? f.message : String(failure);
  return el("p", { class: "problem", role: "alert" }, `${what}: ${message}`, f.reason ? ` (${f.reason})` : "");
}

/** The loading state of a region. */
export const loading = (what: string) => el("p", { class: "loading", "aria-busy": "true" }, `Loading ${what}…`);
