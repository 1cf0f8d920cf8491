/** The host API's refusal when it has no keys: its door's, and the dashboard cookie's, which stands for a key. */
import { ApiError, GrpcCode } from "../../errors";

/** The 503 of a deployment without HOST_API_KEYS: the host API and the dashboard, which stands for a key, are off. */
export const hostApiNotConfigured = () =>
  new ApiError({
    status: 503,
    code: GrpcCode.FAILED_PRECONDITION,
    reason: "HOST_API_NOT_CONFIGURED",
    message:
      "The host API is not configured on this deployment: set HOST_API_KEYS " +
      "(npx wrangler secret put HOST_API_KEYS --env <environment>)",
    metadata: { variable: "HOST_API_KEYS" },
  });
