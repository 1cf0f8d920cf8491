/**
 * Webhook health and the overview: the endpoint (delivering, or failing since when, its last
 * error, what it holds), the events given up, "Retry now", and the charts of onboardings per day
 * over 30 days by outcome and the median time to `applied`, with the figures also as a table.
 */
import { el, show } from "../dom.ts";
import { call, post } from "./api.ts";
import { drawPerDay, drawPerHour, perDaySeries, perHourSeries, type PerDayRow, type PerHourRow } from "./charts.ts";
import { duration, loading, problem, when } from "./view.ts";

interface Health {
  host_handoff: {
    webhook: string;
    webhook_endpoint: { failing_since: string | null; last_error: string | null; waiting: number } | null;
  };
}
interface Overview {
  since: string;
  per_day: PerDayRow[];
  median_seconds_to_applied: number | null;
  applied_count: number;
  given_up_events: number;
  since_hour: string;
  per_hour: PerHourRow[];
}

/** Renders the webhook's health and the overview into `root`. */
export async function showOverview(root: HTMLElement, webhookConfigured: boolean): Promise<void> {
  show(root, el("h2", {}, "Webhook and overview"), loading("the figures"));
  let health: Health;
  let figures: Overview;
  try {
    [health, figures] = await Promise.all([call<Health>("/api/health"), call<Overview>("/api/overview")]);
  } catch (failure) {
    show(
      root,
      el("h2", {}, "Webhook and overview"),
      problem(failure, "The figures could not be read; reload to try again"),
    );
    return;
  }
  const chart = el("div", { class: "chart", role: "img", "aria-label": "Onboardings per day by outcome" });
  const hourly = el("div", {
    class: "chart",
    role: "img",
    "aria-label": "Delivery attempts per hour, delivered and failed",
  });
  show(
    root,
    el("h2", {}, "Webhook and overview"),
    webhook(health, figures, webhookConfigured, () => void showOverview(root, webhookConfigured)),
    el("h3", {}, "Onboardings per day, last 30 days"),
    el(
      "p",
      { class: "median" },
      "Median time from created to applied: ",
      el(
        "strong",
        {},
        figures.median_seconds_to_applied === null ? "none applied yet" : duration(figures.median_seconds_to_applied),
      ),
      ` (${figures.applied_count} applied)`,
    ),
    chart,
    table(
      "per-day",
      ["day", "status", "onboardings"],
      figures.per_day.map((r) => [r.day, r.status, String(r.n)]),
    ),
    el("h3", {}, "Delivery attempts per hour, last 48 hours"),
    hourly,
    table(
      "per-hour",
      ["hour (UTC)", "outcome", "attempts"],
      figures.per_hour.map((r) => [r.hour, r.outcome, String(r.n)]),
    ),
  );
  drawPerDay(chart, perDaySeries(figures.per_day, figures.since));
  drawPerHour(hourly, perHourSeries(figures.per_hour, figures.since_hour));
}

function webhook(health: Health, figures: Overview, configured: boolean, refresh: () => void): HTMLElement {
  if (!configured)
    return el(
      "section",
      { class: "webhook" },
      el(
        "p",
        {},
        "No webhook is configured: events are kept in each onboarding's log. " +
          "Set HOST_WEBHOOK_URL and HOST_WEBHOOK_SECRET to have them sent.",
      ),
    );
  const endpoint = health.host_handoff.webhook_endpoint;
  const failing = endpoint?.failing_since ?? null;
  const state = el(
    "p",
    { class: failing ? "state failing" : "state delivering" },
    endpoint === null ? "unknown (its lane did not answer)" : failing ? `failing since ${when(failing)}` : "delivering",
  );
  const notice = el("div", { role: "status" });
  const retry = el("button", { type: "button" }, "Retry now");
  retry.addEventListener("click", async () => {
    retry.disabled = true;
    try {
      const answer = await post<{ failing: boolean; resent: number }>("/api/webhook/retry");
      show(
        notice,
        el(
          "p",
          {},
          answer.failing ? "The endpoint is being tried now." : "The endpoint is not failing.",
          ` ${answer.resent} given-up event(s) queued again.`,
        ),
      );
      setTimeout(refresh, 1500);
    } catch (failure) {
      show(notice, problem(failure, "Not retried"));
      retry.disabled = false;
    }
  });
  return el(
    "section",
    { class: "webhook" },
    el(
      "dl",
      { class: "facts" },
      el("div", {}, el("dt", {}, "endpoint"), el("dd", {}, health.host_handoff.webhook)),
      el("div", {}, el("dt", {}, "state"), el("dd", {}, state)),
      el("div", {}, el("dt", {}, "last error"), el("dd", { class: "last-error" }, endpoint?.last_error ?? "—")),
      el("div", {}, el("dt", {}, "onboardings held"), el("dd", { class: "held" }, String(endpoint?.waiting ?? "—"))),
      el("div", {}, el("dt", {}, "events given up"), el("dd", { class: "given-up" }, String(figures.given_up_events))),
    ),
    el("p", {}, retry, " tries the endpoint now and sends every given-up event again, each with its same webhook id."),
    notice,
  );
}

/** A chart's figures as a table, folded away: what the chart draws, readable and searchable. */
function table(name: string, heads: string[], rows: string[][]): HTMLElement {
  return el(
    "details",
    {},
    el("summary", {}, "The figures as a table"),
    el(
      "table",
      { class: name },
      el("thead", {}, el("tr", {}, ...heads.map((head) => el("th", {}, head)))),
      el("tbody", {}, ...rows.map((cells) => el("tr", {}, ...cells.map((cell) => el("td", {}, cell))))),
    ),
  );
}
