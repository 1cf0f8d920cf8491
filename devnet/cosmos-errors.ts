/** Error bodies as a Cosmos SDK REST (grpc-gateway) node writes them: `{code, message, details}`. */

/** gRPC status numbers the devnet answers with. */
export const Code = {
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
} as const;

/** A refusal the devnet answers with: HTTP status plus the gRPC body. */
export class DevnetError extends Error {
  readonly status: number;
  readonly code: number;

  constructor(status: number, code: number, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }

  body() {
    return { code: this.code, message: this.message, details: [] as unknown[] };
  }
}

export const badRequest = (message: string) => new DevnetError(400, Code.INVALID_ARGUMENT, message);
export const notFound = (message: string) => new DevnetError(404, Code.NOT_FOUND, message);
