/**
 * The Gateway tab: what the gateway knows of its nodes (`GET /api/gateway`), per face and node in configured order:
 * url, height, blocks behind, latency p50/p99, errors in the last minute, and whether it is serving, benched (why,
 * until when) or behind. It looks again every 5 s while the page is visible and the tab is shown.
 */
import type { GatewayView, NodeView } from "../../src/protocol/gateway-view.ts";
import { el, show } from "../dom.ts";
import { pollWhileVisible } from "../visible-polling.ts";
import { call } from "./api.ts";
import { badge, loading, problem } from "./view.ts";

/** Seconds between two looks while the tab is shown. */
const REFRESH_MS = 5_000;
/** A tab left open this long stops looking (reload to look again). */
const WATCH_LIMIT_MS = 30 * 60_000;

const FACES = [
  { key: "rest", title: "REST nodes (UPSTREAM_URLS)" },
  { key: "rpc", title: "RPC nodes (RPC_UPSTREAM_URLS)" },
] as const;

const COLUMNS = ["node", "state", "height", "behind", "p50", "p99", "errors last minute", "why"];

/** A time of day as the dashboard shows times (UTC, to the second). */
const clock = (iso: string) => `${iso.slice(11, 19)} UTC`;
const figure = (value: number | null, unit = "") => (value === null ? "—" : `${value.toLocaleString("en")}${unit}`);

/** Why a node is not serving, and until when: `"429, Retry-After 10 s" until 17:32:05 UTC`. */
function why(node: NodeView): string {
  if (!node.reason) return node.until ? `until ${clock(node.until)}` : "—";
  return node.until ? `"${node.reason}" until ${clock(node.until)}` : node.reason;
}

function nodeRow(node: NodeView): HTMLElement {
  const cells = [
    el("span", { class: "url" }, node.url),
    badge(node.state),
    figure(node.height),
    figure(node.behind),
    figure(node.latency_ms.p50, " ms"),
    figure(node.latency_ms.p99, " ms"),
    String(node.errors_last_minute),
    why(node),
  ];
  return el(
    "tr",
    { class: `node node-${node.state}` },
    ...cells.map((cell, i) => el("td", { "data-label": COLUMNS[i]! }, cell)),
  );
}

function face(title: string, nodes: NodeView[]): HTMLElement {
  if (nodes.length === 0)
    return el("section", { class: "face" }, el("h3", {}, title), el("p", { class: "empty" }, "No nodes configured."));
  return el(
    "section",
    { class: "face" },
    el("h3", {}, title),
    el(
      "table",
      { class: "nodes" },
      el("thead", {}, el("tr", {}, ...COLUMNS.map((column) => el("th", { scope: "col" }, column)))),
      el("tbody", {}, ...nodes.map(nodeRow)),
    ),
  );
}

/** Renders the Gateway tab into `root` and keeps it current while it stays shown. */
export function showGateway(root: HTMLElement): void {
  const view = el("div", { class: "gateway" }, loading("the nodes"));
  const status = el("p", { class: "muted", role: "status" });
  show(root, el("h2", {}, "Gateway"), status, view);
  const look = async (): Promise<"done" | "again"> => {
    // Another tab took the view: this one stops looking.
    if (!view.isConnected) return "done";
    try {
      const answer = await call<GatewayView>("/api/gateway");
      if (!view.isConnected) return "done";
      show(view, ...FACES.map(({ key, title }) => face(title, answer.faces[key])));
      show(
        status,
        `As of ${clock(answer.at)}, highest height served ${figure(answer.served_height)}; `,
        `looks again every ${REFRESH_MS / 1000} s.`,
      );
    } catch (failure) {
      show(view, problem(failure, "The gateway's view could not be read; it is tried again in a few seconds"));
    }
    return "again";
  };
  pollWhileVisible(look, {
    intervalMs: REFRESH_MS,
    limitMs: WATCH_LIMIT_MS,
    onGaveUp: () => show(status, "No longer looking: open the tab again to see the nodes now."),
  });
}
