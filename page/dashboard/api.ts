/**
 * The dashboard's calls: the host API and the dashboard's session endpoints on this origin, with
 * the session cookie (the browser sends it; the page never sees it). An error answer comes in the
 * one error shape; a 401 means the session is over, and the page shows the sign-in.
 */

/** A refusal of the server, with its reason and the sentence that says what to do. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
    readonly metadata: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** Called on any 401: the session is over (signed out, expired, revoked). */
let onSignedOut: (failure: ApiFailure) => void = () => {};
export function whenSignedOut(handler: (failure: ApiFailure) => void): void {
  onSignedOut = handler;
}

/** The body of an answer; throws ApiFailure for anything but a 2xx. */
export async function call<T>(path: string, init: RequestInit = {}): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, { credentials: "same-origin", cache: "no-store", ...init });
  } catch {
    throw new ApiFailure(0, "UNREACHABLE", "The server did not answer: check your connection, then try again");
  }
  if (response.status === 204) return undefined as T;
  const body = (await response.json().catch(() => null)) as unknown;
  if (response.ok) return body as T;
  const detail = (body as { message?: string; details?: { reason?: string; metadata?: Record<string, string> }[] })
    ?.details?.[0];
  const failure = new ApiFailure(
    response.status,
    detail?.reason ?? `HTTP_${response.status}`,
    (body as { message?: string } | null)?.message ?? `The server answered ${response.status}`,
    detail?.metadata,
  );
  if (response.status === 401) onSignedOut(failure);
  throw failure;
}

/** A state change: POST with a JSON body (or none); the browser adds this origin's `Origin`. */
export function post<T>(path: string, body?: unknown): Promise<T> {
  return call<T>(path, {
    method: "POST",
    ...(body === undefined ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
  });
}
