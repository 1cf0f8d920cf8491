/**
 * Deep links of the wallet app: `<scheme>://connect?p=…` and `<scheme>://sign?p=…`, where `p` is
 * the URL-encoded base64 of the UTF-8 JSON payload. Pages show them as a QR code and an
 * "Open wallet" link; nothing opens them automatically.
 */
import type { ConnectPayload } from "./connect-payload.ts";

/** What a wallet link asks for. */
type DeepLinkAction = "connect" | "sign";

/** `<scheme>://connect?p=…` for a connect payload. */
export function connectDeepLink(scheme: string, payload: ConnectPayload): string {
  return deepLink(scheme, "connect", payload);
}

/**
 * `<scheme>://sign?p=…` for a sign request (`buildSignRequest`). Typed by the fields that make a
 * payload a sign request rather than by importing it, so the two modules do not import each other.
 */
export function signDeepLink(
  scheme: string,
  request: { readonly id: string; readonly preview: object; readonly transaction: object },
): string {
  return deepLink(scheme, "sign", request);
}

/**
 * The standard base64 of a payload's UTF-8 JSON: what a link carries in `p` (before URL-encoding),
 * what the wallet app's in-app bridge takes, and a sign QR's raw content.
 */
export function encodeWalletPayload(payload: object): string {
  return toBase64(new TextEncoder().encode(JSON.stringify(payload)));
}

/** The JSON inside `encodeWalletPayload`'s base64 (a scanned sign QR); throws an Error that says what is wrong. */
export function decodeWalletPayload(encoded: string): unknown {
  let json: string;
  try {
    json = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(fromBase64(encoded.trim()));
  } catch {
    throw new Error("The payload is not base64 of UTF-8 text");
  }
  try {
    return JSON.parse(json);
  } catch {
    throw new Error("The payload is not JSON");
  }
}

function deepLink(scheme: string, action: DeepLinkAction, payload: object): string {
  return `${scheme}://${action}?p=${encodeURIComponent(encodeWalletPayload(payload))}`;
}

/**
 * Reads a wallet link back: its scheme, action and JSON payload. Throws an Error that says what is
 * wrong for anything else (another action, no `p`, bad base64 or JSON). The payload is not
 * validated here; check it with the schema of its action.
 */
export function parseDeepLink(link: string): { scheme: string; action: DeepLinkAction; payload: unknown } {
  const match = /^([a-z][a-z0-9+.-]*):\/\/(connect|sign)\?p=([A-Za-z0-9%._~-]+)$/.exec(link.trim());
  if (!match) throw new Error("Not a wallet link: expected <scheme>://connect?p=… or <scheme>://sign?p=…");
  let encoded: string;
  try {
    encoded = decodeURIComponent(match[3]!);
  } catch {
    throw new Error("The link's p parameter is not URL-encoded");
  }
  return { scheme: match[1]!, action: match[2] as DeepLinkAction, payload: decodeWalletPayload(encoded) };
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Standard base64, padded or not (as `atob` reads it); base64url's two symbols are read too. */
function fromBase64(text: string): Uint8Array {
  const standard = text.replaceAll("-", "+").replaceAll("_", "/");
  const body = standard.replace(/=+$/, "");
  if (!/^[A-Za-z0-9+/]*$/.test(body) || body.length % 4 === 1 || (body !== standard && standard.length % 4 !== 0))
    throw new Error("not base64");
  return Uint8Array.from(atob(body + "=".repeat((4 - (body.length % 4)) % 4)), (c) => c.charCodeAt(0));
}
