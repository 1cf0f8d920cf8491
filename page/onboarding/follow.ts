/**
 * Follows an onboarding as the server moves it: the view pushed over the WebSocket of its page
 * path (on connect and on every change; the server closes once the onboarding has ended), and,
 * when the socket closes early or fails, polling of the same path while the page is visible.
 */
import { pollWhileVisible, type Polling } from "../visible-polling.ts";
import { fetchOnboardingView, onboardingPagePath } from "./api.ts";
import { isOnboardingEnded } from "../../src/protocol/index.ts";
import { readCustomerView, type CustomerView } from "./view.ts";

const POLL_MS = 3000;
const POLL_LIMIT_MS = 30 * 60_000;

/** What a follower tells its page. */
export interface FollowHandlers {
  view(view: CustomerView): void;
  /** The fallback polling stopped after its time limit, before the onboarding ended. */
  gaveUp(): void;
}

/** Follows onboarding `id`; `stop()` closes the socket and any polling. */
export function followOnboarding(id: string, on: FollowHandlers): { stop(): void } {
  let ended = false;
  let polling: Polling | null = null;
  let socket: WebSocket | null = null;
  const take = (view: CustomerView) => {
    if (ended) return;
    if (isOnboardingEnded(view.status)) ended = true;
    on.view(view);
  };
  const poll = () => {
    if (ended || polling) return;
    polling = pollWhileVisible(
      async () => {
        take(await fetchOnboardingView(id));
        return ended ? "done" : "again";
      },
      { intervalMs: POLL_MS, limitMs: POLL_LIMIT_MS, onGaveUp: on.gaveUp },
    );
  };
  try {
    socket = new WebSocket(`${location.origin.replace(/^http/, "ws")}${onboardingPagePath(id)}`);
    socket.addEventListener("message", (event) => {
      let data: unknown = null;
      try {
        data = JSON.parse(String(event.data));
      } catch {
        // Not a view: keep waiting.
      }
      const view = readCustomerView(data);
      if (view) take(view);
    });
    socket.addEventListener("close", poll);
    socket.addEventListener("error", poll);
  } catch {
    poll();
  }
  return {
    stop() {
      ended = true;
      polling?.stop();
      socket?.removeEventListener("close", poll);
      socket?.removeEventListener("error", poll);
      socket?.close();
    },
  };
}
