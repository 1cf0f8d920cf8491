import { ApiError, GrpcCode } from "../errors";

/** A handler that refuses any method on a path that exists, naming the allowed ones in `Allow`. */
export function methodNotAllowed(allow: string) {
  return (c: { req: { method: string } }): never => {
    throw new ApiError(
      {
        status: 405,
        code: GrpcCode.UNIMPLEMENTED,
        reason: "METHOD_NOT_ALLOWED",
        message: `${c.req.method} is not allowed here; use ${allow}`,
      },
      { allow },
    );
  };
}
