/** The session row of the wallet-pairing wire contract, and what a session answer carries. */
import type { ErrorSpec } from "../errors";

export type SessionStatus = "pending" | "connected" | "cancelled" | "expired";

export interface SessionOrigin {
  name: string;
  /** A bare origin, e.g. `https://app.example`. */
  url: string;
}

export interface SessionRow {
  session_id: string;
  status: SessionStatus;
  chain_id: string;
  origin: SessionOrigin;
  created_at: string;
  expires_at: string;
  address: string | null;
  pubkey_base64: string | null;
  account_label: string | null;
  connected_at: string | null;
}

/** What the wallet proves by its confirm: the address it holds and that address's key. */
export interface WalletProof {
  session_id: string;
  address: string;
  pubkey_base64: string;
  account_label: string | null;
}

/** A Durable Object's answer: the row with its HTTP status, or a refusal in the one error shape. */
export type SessionOutcome = { ok: true; status: 200 | 201; row: SessionRow } | { ok: false; error: ErrorSpec };

/** True once nothing can change the session's status again. */
export function isSettled(status: SessionStatus): boolean {
  return status !== "pending";
}
