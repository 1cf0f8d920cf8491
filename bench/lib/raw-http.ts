/**
 * One HTTP/1.1 request written byte for byte on a TCP socket, so that paths reach the server
 * exactly as written (no client-side normalisation of `..`, `//` or `%2F`). A `chunked` body is
 * sent with `Transfer-Encoding: chunked` in 16 KiB chunks and no Content-Length, as a client that
 * does not say how long its body is.
 */
import { connect } from "node:net";

/** Bytes per chunk of a chunked body. */
const CHUNK = 16 * 1024;

export interface RawResponse {
  status: number;
  headers: string;
  body: string;
}

export function rawRequest(
  base: string,
  request: { method: string; path: string; headers?: Record<string, string>; body?: string; chunked?: boolean },
  timeoutMs = 10_000,
): Promise<RawResponse> {
  const { hostname, port } = new URL(base);
  const body = request.body ?? "";
  const lines = [`${request.method} ${request.path} HTTP/1.1`, `host: ${hostname}:${port}`, "connection: close"];
  for (const [name, value] of Object.entries(request.headers ?? {})) lines.push(`${name}: ${value}`);
  const sized = body || !["GET", "HEAD"].includes(request.method);
  if (request.chunked) lines.push("transfer-encoding: chunked");
  else if (sized) lines.push(`content-length: ${Buffer.byteLength(body)}`);
  const head = `${lines.join("\r\n")}\r\n\r\n`;

  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const finish = () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const match = /^HTTP\/1\.[01] (\d{3})/.exec(text);
      if (!match) return reject(new Error(`no HTTP status in answer: ${JSON.stringify(text.slice(0, 200))}`));
      const split = text.indexOf("\r\n\r\n");
      resolve({
        status: Number(match[1]),
        headers: text.slice(0, split),
        body: split === -1 ? "" : text.slice(split + 4),
      });
    };
    socket.setTimeout(timeoutMs, () => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    });
    socket.on("data", (chunk) => {
      chunks.push(chunk);
      // A 101 keeps the socket open; the status line is all we need.
      if (/^HTTP\/1\.1 101/.test(Buffer.concat(chunks).toString("latin1"))) socket.destroy();
    });
    socket.on("close", finish);
    socket.on("error", (err) => (chunks.length ? finish() : reject(err)));
    socket.write(head);
    if (request.chunked) {
      // The server may answer (413) and close before the last chunk: what is left is not sent.
      const bytes = Buffer.from(body);
      for (let at = 0; at < bytes.length && !socket.destroyed; at += CHUNK) {
        const chunk = bytes.subarray(at, at + CHUNK);
        socket.write(Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")]));
      }
      if (!socket.destroyed) socket.write("0\r\n\r\n");
    } else if (body) socket.write(body);
  });
}
