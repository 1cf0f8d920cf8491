/**
 * One onboarding: its state, the customer's link with its QR, the `update-node` command, the chain
 * transactions that verified each step, and a timeline of its events, each with its delivery
 * attempts and what comes next; cancel, and resend an event with its same webhook id.
 */
import type { OnboardingEventsLog, OnboardingView } from "../../src/protocol/index.ts";
import { nodePaysPayoutAt } from "../../src/protocol/node-pays.ts";
import { el, show } from "../dom.ts";
import { qrElement } from "../qr.ts";
import { pollWhileVisible } from "../visible-polling.ts";
import { call, post } from "./api.ts";
import { badge, loading, problem, when } from "./view.ts";

type LoggedEvent = OnboardingEventsLog["events"][number];
const ENDED = ["applied", "expired", "cancelled"];

/** Renders onboarding `id` into `root`. */
export async function showDetail(root: HTMLElement, id: string): Promise<void> {
  show(root, el("p", {}, el("a", { href: "#/" }, "← Onboardings")), loading("the onboarding"));
  let onboarding: OnboardingView;
  let log: OnboardingEventsLog;
  try {
    [onboarding, log] = await Promise.all([
      call<OnboardingView>(`/api/onboardings/${encodeURIComponent(id)}`),
      call<OnboardingEventsLog>(`/api/onboardings/${encodeURIComponent(id)}/events`),
    ]);
  } catch (failure) {
    show(
      root,
      el("p", {}, el("a", { href: "#/" }, "← Onboardings")),
      problem(failure, "This onboarding could not be read"),
    );
    return;
  }
  const refresh = () => void showDetail(root, id);
  const notice = el("div", { class: "notice", role: "status" });
  show(
    root,
    el("p", {}, el("a", { href: "#/" }, "← Onboardings")),
    el("h2", {}, onboarding.label || "(no label)", " ", badge(onboarding.status)),
    notice,
    facts(onboarding),
    actions(onboarding, notice, refresh),
    customerLink(onboarding),
    command(onboarding),
    el("h3", {}, "Timeline"),
    timeline(onboarding, log, notice, refresh),
  );
}

function facts(o: OnboardingView): HTMLElement {
  const row = (name: string, value: string | null | undefined) =>
    el("div", {}, el("dt", {}, name), el("dd", {}, value ?? "—"));
  const auth = o.authorization;
  return el(
    "dl",
    { class: "facts" },
    row("id", o.id),
    row("reference", o.reference),
    row("operator", o.operator),
    row("payout", o.payout && `${o.payout} (${o.payout_source})`),
    row("return URL", o.return_url),
    row("created", when(o.created_at)),
    row("last change", when(o.updated_at)),
    row("expires", ENDED.includes(o.status) ? null : when(o.expires_at)),
    row(
      "authorization",
      auth.required === false
        ? "not needed (the payout is the operator)"
        : auth.height
          ? `verified at height ${auth.height}${auth.txhash ? `, transaction ${auth.txhash}` : ""}`
          : null,
    ),
    row("node pays the payout", nodePays(o)),
  );
}

/** From the node's own record only: paying the payout at a height, or what it paid when last read. */
function nodePays(o: OnboardingView): string | null {
  const paying = nodePaysPayoutAt(o);
  if (paying !== null) return `verified at height ${paying}`;
  if (o.node.height === undefined || o.payout === null) return null;
  return `not yet: at height ${o.node.height} the node pays ${o.node.payout_recipient ?? "no payout address"}`;
}

function actions(o: OnboardingView, notice: HTMLElement, refresh: () => void): HTMLElement | null {
  if (ENDED.includes(o.status)) return null;
  const cancel = el("button", { type: "button", class: "danger" }, "Cancel onboarding");
  cancel.addEventListener("click", async () => {
    if (!window.confirm(`Cancel this onboarding? The customer's link stops working.`)) return;
    cancel.disabled = true;
    try {
      await post(`/api/onboardings/${o.id}/cancel`);
      refresh();
    } catch (failure) {
      show(notice, problem(failure, "Not cancelled"));
      cancel.disabled = false;
    }
  });
  return el("div", { class: "actions" }, cancel);
}

function customerLink(o: OnboardingView): HTMLElement {
  return el(
    "section",
    { class: "link" },
    el("h3", {}, "The customer's link"),
    el("p", {}, el("a", { href: o.url, class: "url", rel: "noreferrer" }, o.url)),
    qrElement(o.url, "QR code of the customer's link"),
  );
}

function command(o: OnboardingView): HTMLElement {
  const commands = (o as { commands?: { update_node: string; payout_recipient_line: string } }).commands;
  return el(
    "section",
    { class: "command" },
    el("h3", {}, "update-node"),
    commands
      ? el("pre", {}, el("code", {}, commands.update_node))
      : el("p", { class: "muted" }, "The command appears once the customer's wallet has authorized your operator."),
  );
}

function timeline(o: OnboardingView, log: OnboardingEventsLog, notice: HTMLElement, refresh: () => void) {
  const created = el("li", {}, el("strong", {}, "created"), " ", when(o.created_at));
  if (log.events.length === 0)
    return el(
      "ol",
      { class: "timeline" },
      created,
      el("li", { class: "muted" }, "No event yet: the customer has not connected."),
    );
  return el("ol", { class: "timeline" }, created, ...log.events.map((e) => eventItem(o, e, notice, refresh)));
}

/**
 * Resend, offered where it applies (docs/HOSTS.md): an event delivered or given up. One still owed
 * (its next attempt, held, waiting for the one before) is on its way already.
 */
function resendButton(o: OnboardingView, e: LoggedEvent, notice: HTMLElement, refresh: () => void) {
  if (!e.delivered_at && !e.failed_at) return null;
  const resend = el("button", { type: "button" }, "Resend");
  resend.addEventListener("click", async () => {
    resend.disabled = true;
    try {
      await post(`/api/onboardings/${o.id}/events/${e.id}/resend`);
      show(notice, el("p", {}, `${e.type} (${e.id}) is being sent again with the same webhook id.`));
      refresh();
      watchResent(o.id, e.id, refresh);
    } catch (failure) {
      show(notice, problem(failure, "Not resent"));
      resend.disabled = false;
    }
  });
  return resend;
}

/** Reads the events until the resent one is delivered or given up, then shows it so (while still on this page). */
function watchResent(id: string, eventId: string, refresh: () => void): void {
  const here = () => location.hash === `#/onboardings/${id}`;
  pollWhileVisible(
    async () => {
      if (!here()) return "done";
      const log = await call<OnboardingEventsLog>(`/api/onboardings/${encodeURIComponent(id)}/events`);
      const event = log.events.find((e) => e.id === eventId);
      if (event && !event.delivered_at && !event.failed_at) return "again";
      if (here()) refresh();
      return "done";
    },
    { intervalMs: 1000, limitMs: 120_000, onGaveUp: () => here() && refresh() },
  );
}

function eventItem(o: OnboardingView, e: LoggedEvent, notice: HTMLElement, refresh: () => void): HTMLElement {
  const resend = resendButton(o, e, notice, refresh);
  const attempts = e.attempts.map((a) =>
    el(
      "li",
      { class: "status" in a && a.status < 300 ? "ok" : "failed" },
      `${when(a.at)}: `,
      "status" in a ? `HTTP ${a.status}` : a.error,
      ` in ${a.ms} ms`,
    ),
  );
  return el(
    "li",
    { class: "event", "data-event": e.id },
    el("div", {}, el("strong", {}, e.type), " ", when(e.created_at), " ", el("code", {}, e.id), " ", resend),
    attempts.length
      ? el("ol", { class: "attempts", "aria-label": "Delivery attempts" }, ...attempts)
      : el("p", { class: "muted" }, "No delivery attempt yet."),
    el("p", { class: "next" }, nextStep(e)),
  );
}

/** What comes next for an event, in words. */
function nextStep(e: LoggedEvent): string {
  if (e.delivered_at) return `Delivered ${when(e.delivered_at)}.`;
  if (e.failed_at) return `Given up ${when(e.failed_at)}: resend it, or retry every given-up event from Webhook.`;
  const waiting = e.waiting_for;
  if (waiting && "endpoint_failing_since" in waiting)
    return (
      `Held: the endpoint is failing since ${when(waiting.endpoint_failing_since)} ` +
      `(${waiting.endpoint_last_error ?? "no error text"}).`
    );
  if (waiting && "event" in waiting) return `Waits for ${waiting.event} to be delivered first.`;
  if (e.next_attempt_at) return `Next attempt ${when(e.next_attempt_at)}.`;
  return "Not sent: no webhook is configured.";
}
