/**
 * The onboardings: the host API's list (the D1 index), newest first, filtered by status, searched
 * with one box by any of their ids (`q`: label, reference, operator, payout, `ob_` id) in one
 * request, paged by cursor, each row marked when it waits too long.
 */
import type { OnboardingView } from "../../src/protocol/index.ts";
import { el, show } from "../dom.ts";
import { call } from "./api.ts";
import { ago, badge, loading, problem } from "./view.ts";
import { waitsTooLong } from "./waiting.ts";

const STATUSES = ["open", "connected", "authorized", "applied", "expired", "cancelled"];
const PAGE_SIZE = 25;

type ListPage = { data: OnboardingView[]; has_more: boolean };

/** The list's first page, unfiltered: asked beside the session check, so the first screen waits one round trip. */
export const firstPage = (): Promise<ListPage> => call<ListPage>(`/api/onboardings?limit=${PAGE_SIZE}`);

interface ListState {
  status: string;
  term: string;
  /** The `starting_after` of each page shown so far (the first page's is null). */
  cursors: (string | null)[];
}

/** Renders the list into `root`; `first`, when given, is its first page already asked for. */
export function showList(root: HTMLElement, first?: Promise<ListPage>): void {
  const state: ListState = { status: "", term: "", cursors: [null] };
  const status = el(
    "select",
    { name: "status", "aria-label": "Status" },
    el("option", { value: "" }, "every status"),
    ...STATUSES.map((s) => el("option", { value: s }, s)),
  );
  const term = el("input", {
    name: "term",
    type: "search",
    placeholder: "Paste a reference, label, ob_ id, operator or payout address",
    "aria-label": "Search",
  });
  const form = el(
    "form",
    { class: "filters", role: "search" },
    status,
    term,
    el("button", { type: "submit" }, "Search"),
  );
  const results = el("div", { class: "results" });
  show(root, el("h2", {}, "Onboardings"), form, results);

  // Only the latest search's answer is shown: an earlier one that arrives after it is dropped.
  let latest = 0;
  const load = async () => {
    const mine = ++latest;
    show(results, loading("onboardings"));
    const query = new URLSearchParams({ limit: String(PAGE_SIZE) });
    if (state.status) query.set("status", state.status);
    if (state.term) query.set("q", state.term);
    const cursor = state.cursors.at(-1);
    if (cursor) query.set("starting_after", cursor);
    const asked = first;
    first = undefined;
    try {
      const page = await (asked ?? call<ListPage>(`/api/onboardings?${query}`));
      if (mine === latest) show(results, ...rendered(page, state, load));
    } catch (failure) {
      if (mine === latest) show(results, problem(failure, "The list could not be read"));
    }
  };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    Object.assign(state, { status: status.value, term: term.value.trim(), cursors: [null] });
    void load();
  });
  status.addEventListener("change", () => form.requestSubmit());
  void load();
}

function rendered(page: { data: OnboardingView[]; has_more: boolean }, state: ListState, load: () => Promise<void>) {
  if (page.data.length === 0) {
    const filtered = state.status !== "" || state.term !== "";
    return [
      el(
        "div",
        { class: "empty" },
        el("p", {}, filtered ? "No onboarding matches." : "No onboardings yet."),
        filtered
          ? el("p", {}, "Clear the search or pick another status.")
          : el(
              "p",
              {},
              el("a", { href: "#/new" }, "Create the first one"),
              " here, or from your servers with ",
              el("code", {}, "POST /api/onboardings"),
              ".",
            ),
      ),
    ];
  }
  const now = Date.now();
  const offset = (state.cursors.length - 1) * PAGE_SIZE;
  const rows = page.data.map((o, i) =>
    el(
      "li",
      { class: "row", "data-id": o.id },
      el(
        "a",
        { href: `#/onboardings/${o.id}` },
        el("span", { class: "n" }, `${offset + i + 1}.`),
        badge(o.status),
        waitsTooLong(o, now) && el("span", { class: "late", title: "Waiting longer than expected" }, "waiting long"),
        el("span", { class: "label" }, o.label || "(no label)"),
        el("span", { class: "ref" }, o.reference ?? ""),
        el("span", { class: "when" }, `created ${ago(o.created_at, now)}, last change ${ago(o.updated_at, now)}`),
      ),
    ),
  );
  const previous = el("button", { type: "button", disabled: state.cursors.length === 1 }, "Previous");
  const next = el("button", { type: "button", disabled: !page.has_more }, "Next");
  previous.addEventListener("click", () => {
    state.cursors.pop();
    void load();
  });
  next.addEventListener("click", () => {
    state.cursors.push(page.data.at(-1)!.id);
    void load();
  });
  return [
    el("ol", { class: "onboardings" }, ...rows),
    el("nav", { class: "pager", "aria-label": "Pages" }, previous, next),
  ];
}
