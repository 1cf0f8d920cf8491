/**
 * The incentives module's refusals of MsgAuthorizeOperator and MsgUpdateNode. The names
 * ErrSelfAuthorization and ErrAuthorizationExists are the chain's; ErrNodeNotFound and
 * ErrOperatorNotAuthorized are assumed names for refusals the docs imply. Codespace, ABCI codes
 * and wording of all four are not public and are assumed here. A failed transaction reports them as `codespace`, `code` and a
 * raw_log in the SDK's wrapped form, "<detail>: <description>".
 */
import { Code, DevnetError } from "./cosmos-errors.ts";

/** One registered module error (errorsmod.Register) and how a query-style caller sees it. */
interface RegisteredError {
  name: string;
  codespace: string;
  code: number;
  description: string;
  /** HTTP status and gRPC code the devnet's control route answers with. */
  http: number;
  grpc: number;
}

/** Assumed: codes 10 and 11 in codespace `incentives`. */
export const ErrSelfAuthorization: RegisteredError = {
  name: "ErrSelfAuthorization",
  codespace: "incentives",
  code: 10,
  description: "self authorization is not allowed",
  http: 400,
  grpc: Code.INVALID_ARGUMENT,
};

export const ErrAuthorizationExists: RegisteredError = {
  name: "ErrAuthorizationExists",
  codespace: "incentives",
  code: 11,
  description: "authorization already exists",
  http: 409,
  grpc: Code.ALREADY_EXISTS,
};

/** Assumed: code 12, MsgUpdateNode for an operator with no node record. */
export const ErrNodeNotFound: RegisteredError = {
  name: "ErrNodeNotFound",
  codespace: "incentives",
  code: 12,
  description: "node not found",
  http: 404,
  grpc: Code.NOT_FOUND,
};

/** Assumed: code 13, MsgUpdateNode naming a payout recipient that has not authorized the operator. */
export const ErrOperatorNotAuthorized: RegisteredError = {
  name: "ErrOperatorNotAuthorized",
  codespace: "incentives",
  code: 13,
  description: "operator is not authorized by the payout recipient",
  http: 403,
  grpc: Code.PERMISSION_DENIED,
};

/** A message the module refused, as DeliverTx would report it. */
export class ModuleError extends Error {
  readonly registered: RegisteredError;

  constructor(registered: RegisteredError, detail: string) {
    super(`${detail}: ${registered.description}`);
    this.registered = registered;
  }

  /** The same refusal as a `{code, message, details}` answer of the devnet's control route. */
  toDevnetError(): DevnetError {
    return new DevnetError(this.registered.http, this.registered.grpc, this.message);
  }
}
