/**
 * The devnet's test surface: per-path request counters and injected faults, so tests and fault
 * runs can make one virtual upstream slow, failing, lagging or wrong and count what reached it.
 *
 * A request path may start with a mount tag, `/~<tag>/...`: the devnet strips it before routing,
 * so one devnet can play several upstreams (`http://127.0.0.1:1317/~a`, `.../~b`) that are
 * counted and faulted separately.
 */

/** A fault applied to matching requests. All fields optional; unset ones change nothing. */
export interface Fault {
  id: number;
  /** Only requests under this mount tag ("" = untagged); any tag when absent. */
  tag?: string;
  /** Only requests whose `path?query` starts with this. */
  prefix?: string;
  /** Answer with this status; ≥ 400 with a Cosmos error body unless `body` is set. */
  status?: number;
  /** Wait this long before answering. */
  delay_ms?: number;
  /** Answer with this raw body (text/html unless `content_type`). */
  body?: string;
  content_type?: string;
  /** Report heights this many blocks off (negative = a lagging node). */
  height_offset?: number;
  /** Report exactly this height on a latest-state answer (wins over `height_offset`). */
  fixed_height?: number;
  /** Extra response headers (e.g. `retry-after` with a 429). */
  headers?: Record<string, string>;
  /** Send no height header (a node behind a proxy that strips it). */
  omit_height?: boolean;
  /** Send the height as bare `x-cosmos-block-height` instead of grpc-gateway's form (a renaming proxy). */
  rename_height?: boolean;
  /**
   * On the CometBFT face: answer every call with this JSON-RPC error, as a node whose store or
   * state fails does (-32603 "Internal error", HTTP 500 in the URI style, 200 by POST).
   */
  rpc_error?: { code: number; data: string };
  /** Close the connection without an answer (a network error). */
  drop?: boolean;
  /** Apply to this many requests, then disappear; forever when absent. */
  times?: number;
}

/** Counters and faults of one devnet. */
export class FaultBoard {
  private counts = new Map<string, number>();
  private headers = new Map<string, Record<string, string>>();
  private faults: Fault[] = [];
  private nextId = 1;

  /** Counts one request, keyed `~tag/path?query` (or `/path?query` untagged), keeping its headers. */
  count(key: string, headers: Record<string, string> = {}): void {
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    this.headers.set(key, headers);
  }

  /** Requests whose key starts with `prefix` (all when empty), with the headers of the last one per key. */
  requests(prefix = ""): {
    count: number;
    by_path: Record<string, number>;
    last_headers: Record<string, Record<string, string>>;
  } {
    const by_path: Record<string, number> = {};
    const last_headers: Record<string, Record<string, string>> = {};
    let count = 0;
    for (const [key, n] of this.counts) {
      if (!key.startsWith(prefix)) continue;
      by_path[key] = n;
      last_headers[key] = this.headers.get(key) ?? {};
      count += n;
    }
    return { count, by_path, last_headers };
  }

  add(input: Omit<Fault, "id">): Fault {
    const fault = { ...input, id: this.nextId++ };
    this.faults.push(fault);
    return fault;
  }

  list(): readonly Fault[] {
    return this.faults;
  }

  remove(id?: number): void {
    this.faults = id === undefined ? [] : this.faults.filter((f) => f.id !== id);
  }

  reset(): void {
    this.counts.clear();
    this.headers.clear();
    this.faults = [];
  }

  /** The fault for a request, consuming one use of it. */
  take(tag: string, pathAndQuery: string): Fault | undefined {
    const fault = this.faults.find(
      (f) => (f.tag === undefined || f.tag === tag) && (!f.prefix || pathAndQuery.startsWith(f.prefix)),
    );
    if (fault?.times !== undefined && --fault.times <= 0) this.remove(fault.id);
    return fault;
  }
}
