/** A CometBFT method's refusal and its integer params, shared by the devnet's RPC methods. */

/** A call's params, as JSON-RPC sends them or as read from a URI-style query. */
export type Params = Record<string, unknown>;

/** A method's refusal: CometBFT wraps a Go error as -32603 with the error's text as `data`. */
export class RpcFailure extends Error {
  readonly code: number;
  readonly data: string;
  readonly text: string;
  constructor(code: number, data: string) {
    super(data);
    this.code = code;
    this.data = data;
    this.text = code === -32601 ? "Method not found" : code === -32602 ? "Invalid params" : "Internal error";
  }
}

/** An integer param (a JSON number or a decimal string, as CometBFT takes both), or null when absent. */
export function int(params: Params, name: string): number | null {
  const value = params[name];
  if (value === undefined || value === null) return null;
  if (typeof value === "number" || (typeof value === "string" && /^-?\d+$/.test(value))) return Number(value);
  throw new RpcFailure(-32602, `error converting json params to arguments: invalid ${name}`);
}
