/**
 * The host settings of the runtime suite: two API keys (a rotation in progress) and a Standard
 * Webhooks secret; the webhook URL is the receiver that the global setup starts.
 */
export const HOST_KEYS = ["test-host-key-current-0123456789abcdef", "test-host-key-previous-0123456789abcdef"] as const;
/** `whsec_` + base64 of 32 fixed bytes. */
export const HOST_WEBHOOK_SECRET = `whsec_${btoa("chain-edge runtime suite secret!")}`;

export const HOST_TEST_VARS: Readonly<Record<string, string>> = {
  HOST_API_KEYS: HOST_KEYS.join(","),
  HOST_WEBHOOK_SECRET,
};
