/**
 * The overview's chart, drawn by uPlot: onboardings per day by outcome, one bar series per outcome
 * (uPlot's stylesheet is built beside the dashboard as public/dashboard/charts.css).
 */
import uPlot from "uplot";

/** One row of the overview: onboardings created on `day` now in `status`. */
export interface PerDayRow {
  day: string;
  status: string;
  n: number;
}

/** The outcomes charted: the three ends, and every waiting status together. */
const OUTCOMES = ["applied", "expired", "cancelled", "waiting"] as const;
const COLOURS = { applied: "#116329", expired: "#8a4b00", cancelled: "#a40e26", waiting: "#0b5cad" };
const DAY_MS = 86_400_000;

/** uPlot's aligned data: the days from `since` to today (Unix seconds), then one count per outcome per day. */
export function perDaySeries(rows: readonly PerDayRow[], since: string, today = new Date()): uPlot.AlignedData {
  const first = Date.parse(`${since}T00:00:00Z`);
  const days = Math.floor((Date.parse(today.toISOString().slice(0, 10)) - first) / DAY_MS) + 1;
  const xs = Array.from({ length: days }, (_, i) => (first + i * DAY_MS) / 1000);
  const counts = OUTCOMES.map(() => new Array<number>(days).fill(0));
  for (const row of rows) {
    const i = Math.round((Date.parse(`${row.day}T00:00:00Z`) - first) / DAY_MS);
    const outcome = (OUTCOMES as readonly string[]).includes(row.status) ? row.status : "waiting";
    if (i >= 0 && i < days) counts[OUTCOMES.indexOf(outcome as (typeof OUTCOMES)[number])]![i]! += row.n;
  }
  return [xs, ...counts];
}

/** Draws the per-day chart into `box`, as wide as the box, redrawn when the box changes width. */
export function drawPerDay(box: HTMLElement, data: uPlot.AlignedData): void {
  const bars = uPlot.paths.bars!({ size: [0.8, 12] });
  const plot = new uPlot(
    {
      width: box.clientWidth || 320,
      height: 220,
      scales: { x: { time: true } },
      axes: [{}, { label: "onboardings" }],
      series: [
        {},
        ...OUTCOMES.map((name) => ({ label: name, stroke: COLOURS[name], fill: `${COLOURS[name]}99`, paths: bars })),
      ],
    },
    data,
    box,
  );
  new ResizeObserver(() => plot.setSize({ width: box.clientWidth, height: 220 })).observe(box);
}
