/** `GET /api/gateway`'s answer (docs/GATEWAY.md, "The operator's view"): the Worker writes it, the page reads it. */

/** One node as the gateway sees it. */
export interface NodeView {
  url: string;
  height: number | null;
  behind: number | null;
  latency_ms: { p50: number | null; p99: number | null };
  errors_last_minute: number;
  state: "serving" | "benched" | "behind";
  reason: string | null;
  until: string | null;
}

/** Every node of both faces, in configured order, with the highest latest-state height this isolate served. */
export interface GatewayView {
  at: string;
  served_height: number;
  faces: { rest: NodeView[]; rpc: NodeView[] };
}
