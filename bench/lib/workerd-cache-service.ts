/**
 * An in-memory Cache API backend for bare workerd, which has none of its own. Runs inside workerd
 * as the Worker named by `cacheApiOutbound`; workerd turns each `caches` call into one request:
 *   PUT <key url>    body = the response serialised as HTTP/1.1 → 204 stored, 413 refused
 *   GET <key url>    (cache-control: only-if-cached) → the stored response with `cf-cache-status: HIT`, or MISS
 *   PURGE <key url>  → 200 deleted, 404 absent
 * `cf-cache-namespace` names a `caches.open(name)` cache; absent for `caches.default`.
 */

interface Stored {
  status: number;
  headers: [string, string][];
  body: Uint8Array<ArrayBuffer>;
  expiresAt: number;
}

const entries = new Map<string, Stored>();
const CRLF2 = [13, 10, 13, 10];

export default {
  async fetch(request: Request): Promise<Response> {
    const key = `${request.headers.get("cf-cache-namespace") ?? ""} ${request.url}`;
    if (request.method === "PUT") {
      const stored = parseResponse(new Uint8Array(await request.arrayBuffer()), Date.now());
      if (!stored) return new Response(null, { status: 413 });
      entries.set(key, stored);
      return new Response(null, { status: 204 });
    }
    if (request.method === "GET") {
      const stored = entries.get(key);
      if (!stored || stored.expiresAt <= Date.now()) {
        entries.delete(key);
        return new Response(null, { status: 504, headers: { "cf-cache-status": "MISS" } });
      }
      return new Response(stored.body, {
        status: stored.status,
        headers: [...stored.headers, ["cf-cache-status", "HIT"]],
      });
    }
    if (request.method === "PURGE") return new Response(null, { status: entries.delete(key) ? 200 : 404 });
    return new Response(null, { status: 405 });
  },
};

/** The status, headers, body and expiry of a serialised response; null when it must not be stored. */
function parseResponse(bytes: Uint8Array<ArrayBuffer>, now: number): Stored | null {
  const split = indexOf(bytes, CRLF2);
  if (split === -1) return null;
  const [statusLine, ...lines] = new TextDecoder().decode(bytes.subarray(0, split)).split("\r\n");
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? "")?.[1]);
  if (!status) return null;
  const headers = lines.map((line): [string, string] => {
    const colon = line.indexOf(":");
    return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
  });
  const header = (name: string) => headers.find(([n]) => n === name)?.[1] ?? null;
  const seconds = maxAgeSeconds(header("cache-control"));
  if (seconds === null) return null;
  const raw = bytes.subarray(split + CRLF2.length);
  const chunked = /\bchunked\b/i.test(header("transfer-encoding") ?? "");
  return {
    status,
    // Framing headers describe the serialised form, not the answer workerd will rebuild.
    headers: headers.filter(([n]) => n !== "transfer-encoding" && n !== "content-length"),
    body: chunked ? dechunk(raw) : raw,
    expiresAt: now + seconds * 1000,
  };
}

/** Seconds the shared cache may keep the response, or null for private/no-store/no lifetime. */
function maxAgeSeconds(cacheControl: string | null): number | null {
  if (!cacheControl || /\b(no-store|private)\b/i.test(cacheControl)) return null;
  const age = /\bs-maxage=(\d+)/i.exec(cacheControl) ?? /\bmax-age=(\d+)/i.exec(cacheControl);
  return age ? Number(age[1]) : null;
}

function dechunk(raw: Uint8Array): Uint8Array<ArrayBuffer> {
  const parts: Uint8Array[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = indexOf(raw, [13, 10], at);
    if (lineEnd === -1) break;
    const size = parseInt(new TextDecoder().decode(raw.subarray(at, lineEnd)), 16);
    if (!size) break;
    parts.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  const body = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    body.set(part, offset);
    offset += part.length;
  }
  return body;
}

function indexOf(haystack: Uint8Array, needle: readonly number[], from = 0): number {
  outer: for (let i = from; i <= haystack.length - needle.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}
