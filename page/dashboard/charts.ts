/**
 * The overview's charts, drawn by uPlot (its stylesheet is built beside the dashboard as
 * public/dashboard/charts.css): onboardings per day by outcome over 30 days, and delivery
 * attempts per hour over 48 hours, delivered and failed; one bar series per outcome.
 */
import uPlot from "uplot";

/** One row of the overview: onboardings created on `day` now in `status`. */
export interface PerDayRow {
  day: string;
  status: string;
  n: number;
}

/** One row of the overview: attempts in `hour` (`YYYY-MM-DDTHH`, UTC) that ended as `outcome`. */
export interface PerHourRow {
  hour: string;
  outcome: "delivered" | "failed";
  n: number;
}

/** The outcomes charted: the three ends, and every waiting status together. */
const OUTCOMES = ["applied", "expired", "cancelled", "waiting"] as const;
const DELIVERIES = ["delivered", "failed"] as const;
const COLOURS: Record<string, string> = {
  applied: "#116329",
  expired: "#8a4b00",
  cancelled: "#a40e26",
  waiting: "#0b5cad",
  delivered: "#116329",
  failed: "#a40e26",
};
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** Counts per slot and series: slots of `stepMs` from `first` to `last`, `slotOf` and `seriesOf` placing each row. */
function aligned<R extends { n: number }>(
  rows: readonly R[],
  names: readonly string[],
  first: number,
  last: number,
  stepMs: number,
  at: (row: R) => number,
  seriesOf: (row: R) => string,
): uPlot.AlignedData {
  const slots = Math.floor((last - first) / stepMs) + 1;
  const xs = Array.from({ length: slots }, (_, i) => (first + i * stepMs) / 1000);
  const counts = names.map(() => new Array<number>(slots).fill(0));
  for (const row of rows) {
    const i = Math.round((at(row) - first) / stepMs);
    const series = counts[names.indexOf(seriesOf(row))];
    if (series && i >= 0 && i < slots) series[i]! += row.n;
  }
  return [xs, ...counts];
}

/** uPlot's data for onboardings per day: the days from `since` to `now`'s, one count per outcome per day. */
export function perDaySeries(rows: readonly PerDayRow[], since: string, now = Date.now()): uPlot.AlignedData {
  const waiting = (status: string) => ((OUTCOMES as readonly string[]).includes(status) ? status : "waiting");
  const day = (iso: string) => Date.parse(`${iso.slice(0, 10)}T00:00:00Z`);
  return aligned(
    rows,
    OUTCOMES,
    day(since),
    day(new Date(now).toISOString()),
    DAY_MS,
    (r) => day(r.day),
    (r) => waiting(r.status),
  );
}

/** uPlot's data for deliveries per hour: the hours from `since` to `now`'s, delivered and failed. */
export function perHourSeries(rows: readonly PerHourRow[], since: string, now = Date.now()): uPlot.AlignedData {
  const hour = (iso: string) => Date.parse(`${iso.slice(0, 13)}:00:00Z`);
  return aligned(
    rows,
    DELIVERIES,
    hour(since),
    hour(new Date(now).toISOString()),
    HOUR_MS,
    (r) => hour(r.hour),
    (r) => r.outcome,
  );
}

/** Draws bars of `data` (series named `names`) into `box`, as wide as the box, redrawn when its width changes. */
function drawBars(box: HTMLElement, data: uPlot.AlignedData, names: readonly string[], yLabel: string): void {
  const bars = uPlot.paths.bars!({ size: [0.8, 12] });
  const plot = new uPlot(
    {
      width: box.clientWidth || 320,
      height: 220,
      scales: { x: { time: true } },
      axes: [{}, { label: yLabel }],
      series: [
        {},
        ...names.map((name) => ({
          label: name,
          stroke: COLOURS[name],
          fill: `${COLOURS[name]}99`,
          paths: bars,
          points: { show: false },
        })),
      ],
    },
    data,
    box,
  );
  new ResizeObserver(() => plot.setSize({ width: box.clientWidth, height: 220 })).observe(box);
}

/** The per-day chart of onboardings by outcome. */
export const drawPerDay = (box: HTMLElement, data: uPlot.AlignedData) => drawBars(box, data, OUTCOMES, "onboardings");

/** The per-hour chart of delivery attempts. */
export const drawPerHour = (box: HTMLElement, data: uPlot.AlignedData) => drawBars(box, data, DELIVERIES, "attempts");
