/** What a PairingSession answers: the row with its HTTP status, or a refusal in the one error shape. */
import type { ErrorSpec } from "../errors";
import type { SessionRow } from "../protocol/index.ts";

export type SessionOutcome = { ok: true; status: 200 | 201; row: SessionRow } | { ok: false; error: ErrorSpec };
