/**
 * The RPC face's refusals in JSON-RPC 2.0's own error shape, which CometBFT clients read
 * (`{code, message, data}`, `data` saying why in words): the protocol fixes it, so the REST
 * face's error shape (src/errors.ts) does not apply here. Codes: -32700 malformed JSON, -32600
 * invalid request, -32601 method not found or refused, -32602 invalid params, -32603 upstream failure.
 */
export class RpcError extends Error {
  constructor(
    readonly code: -32700 | -32600 | -32601 | -32602 | -32603,
    readonly data: string,
  ) {
    super(MESSAGES[code]);
  }

  /** The error member of a reply (`"error":{…}`), as an answer's body is kept. */
  member(): string {
    return `"error":${JSON.stringify({ code: this.code, message: this.message, data: this.data })}`;
  }
}

/** JSON-RPC 2.0's words for each code. */
const MESSAGES = {
  [-32700]: "Parse error",
  [-32600]: "Invalid Request",
  [-32601]: "Method not found",
  [-32602]: "Invalid params",
  [-32603]: "Internal error",
};

/** A whole JSON-RPC reply: `member` (`"result":…` or `"error":…`) with the caller's id (JSON text). */
export function reply(idJson: string, member: string): string {
  return `{"jsonrpc":"2.0","id":${idJson},${member}}`;
}
