/**
 * The one error shape of everything this server refuses or fails at: the gRPC status body that
 * Cosmos LCD nodes answer with, so existing LCD clients show our errors as they show theirs.
 *
 *   {"code": 3, "message": "…", "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo",
 *    "reason": "INVALID_ADDRESS", "domain": "edge", "metadata": {…}}]}
 */
import type { ContentfulStatusCode } from "hono/utils/http-status";

/** gRPC status code numbers (google.rpc.Code). */
export const GrpcCode = {
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;
export type GrpcCode = (typeof GrpcCode)[keyof typeof GrpcCode];

/** A refusal as a value: HTTP status, gRPC code, a machine-readable reason and a sentence for people. */
export interface ErrorSpec {
  status: ContentfulStatusCode;
  code: GrpcCode;
  /** UPPER_SNAKE reason a client can branch on, e.g. `SESSION_EXPIRED`. */
  reason: string;
  message: string;
  metadata?: Record<string, string>;
}

/** Thrown anywhere in a request; `app.onError` turns it into the one error response. */
export class ApiError extends Error implements ErrorSpec {
  readonly status: ContentfulStatusCode;
  readonly code: GrpcCode;
  readonly reason: string;
  readonly metadata?: Record<string, string>;
  readonly headers?: Record<string, string>;

  constructor(spec: ErrorSpec, headers?: Record<string, string>) {
    super(spec.message);
    this.name = "ApiError";
    this.status = spec.status;
    this.code = spec.code;
    this.reason = spec.reason;
    this.metadata = spec.metadata;
    this.headers = headers;
  }
}

/**
 * The JSON body of every error response (google.rpc.Status with one ErrorInfo detail); its zod
 * schema, for the OpenAPI document and the tests, is in error-body-schema.ts, out of the Worker.
 */
export interface ErrorBody {
  code: number;
  message: string;
  details: {
    "@type": "type.googleapis.com/google.rpc.ErrorInfo";
    reason: string;
    domain: string;
    metadata: Record<string, string>;
  }[];
}

/** The JSON body of an error response. */
function errorBody(spec: ErrorSpec): ErrorBody {
  return {
    code: spec.code,
    message: spec.message,
    details: [
      {
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        reason: spec.reason,
        domain: "edge",
        metadata: spec.metadata ?? {},
      },
    ],
  };
}

/** The response for a refusal; the only place an error response is made. */
export function errorResponse(spec: ErrorSpec, headers?: HeadersInit): Response {
  const response = Response.json(errorBody(spec), { status: spec.status, headers });
  response.headers.set("cache-control", "no-store");
  return response;
}

/** gRPC code and reason of an HTTP status that a library's `HTTPException` carries. */
const HTTP_STATUS_SPECS: Readonly<Record<number, readonly [GrpcCode, string]>> = {
  400: [GrpcCode.INVALID_ARGUMENT, "BAD_REQUEST"],
  401: [GrpcCode.UNAUTHENTICATED, "UNAUTHENTICATED"],
  403: [GrpcCode.PERMISSION_DENIED, "PERMISSION_DENIED"],
  404: [GrpcCode.NOT_FOUND, "NOT_FOUND"],
  405: [GrpcCode.UNIMPLEMENTED, "METHOD_NOT_ALLOWED"],
  408: [GrpcCode.DEADLINE_EXCEEDED, "REQUEST_TIMEOUT"],
  409: [GrpcCode.ABORTED, "CONFLICT"],
  413: [GrpcCode.INVALID_ARGUMENT, "BODY_TOO_LARGE"],
  415: [GrpcCode.INVALID_ARGUMENT, "UNSUPPORTED_MEDIA_TYPE"],
  429: [GrpcCode.RESOURCE_EXHAUSTED, "RATE_LIMITED"],
  503: [GrpcCode.UNAVAILABLE, "UNAVAILABLE"],
};

/**
 * The refusal for an HTTP status and message thrown as something other than an ApiError (Hono's
 * `HTTPException`, from its middleware): the same status, in the one shape.
 */
export function httpStatusSpec(status: number, message: string): ErrorSpec {
  if (status < 400 || status > 599)
    return {
      status: 500,
      code: GrpcCode.INTERNAL,
      reason: "INTERNAL",
      message: `Internal error (HTTP ${status} thrown)`,
    };
  const [code, reason] = HTTP_STATUS_SPECS[status] ?? [
    status < 500 ? GrpcCode.INVALID_ARGUMENT : GrpcCode.INTERNAL,
    `HTTP_${status}`,
  ];
  return { status: status as ContentfulStatusCode, code, reason, message: message || `HTTP ${status}` };
}

/** Shorthands for the refusals that recur; each returns the error to throw. */
export const invalidArgument = (reason: string, message: string, metadata?: Record<string, string>) =>
  new ApiError({ status: 400, code: GrpcCode.INVALID_ARGUMENT, reason, message, metadata });

/**
 * A query parameter a route does not take (400 UNKNOWN_QUERY_PARAMETER), as the gateway and the
 * host API both refuse it: `what` says what the route takes (`this route`, `this query`).
 */
export const unknownQueryParameter = (
  name: string,
  what: string,
  takes: readonly string[],
  metadata: Record<string, string>,
) =>
  invalidArgument(
    "UNKNOWN_QUERY_PARAMETER",
    `Unknown query parameter ${JSON.stringify(name)}; ${what} takes ` +
      (takes.length ? takes.join(", ") : "no query parameters"),
    metadata,
  );

/** A query parameter given twice (400 DUPLICATE_QUERY_PARAMETER); `parameter` is the metadata's spelling of it. */
export const duplicateQueryParameter = (name: string, parameter = name) =>
  invalidArgument("DUPLICATE_QUERY_PARAMETER", `Query parameter ${JSON.stringify(name)} is given more than once`, {
    parameter,
  });

export const notFound = (reason: string, message: string, metadata?: Record<string, string>) =>
  new ApiError({ status: 404, code: GrpcCode.NOT_FOUND, reason, message, metadata });

export const permissionDenied = (reason: string, message: string, metadata?: Record<string, string>) =>
  new ApiError({ status: 403, code: GrpcCode.PERMISSION_DENIED, reason, message, metadata });

/** An upstream that could not be reached or answered wrongly (502, gRPC UNAVAILABLE). */
export const badGateway = (reason: string, message: string, metadata?: Record<string, string>) =>
  new ApiError({ status: 502, code: GrpcCode.UNAVAILABLE, reason, message, metadata });

/** An upstream that did not answer in time (504, gRPC DEADLINE_EXCEEDED). */
export const gatewayTimeout = (reason: string, message: string, metadata?: Record<string, string>) =>
  new ApiError({ status: 504, code: GrpcCode.DEADLINE_EXCEEDED, reason, message, metadata });
