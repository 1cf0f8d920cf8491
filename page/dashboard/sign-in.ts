/** The sign-in: a host API key sent in a form body (never a URL), or a pointer to Cloudflare Access. */
import { el, show } from "../dom.ts";
import { call } from "./api.ts";
import { problem } from "./view.ts";

/** Renders the sign-in into `root`; calls `done` once a session is open. */
export function showSignIn(root: HTMLElement, via: "key" | "access", reason: string, done: () => void): void {
  if (via === "access") {
    show(
      root,
      el("h2", {}, "Sign in"),
      el(
        "p",
        { class: "problem", role: "alert" },
        "This dashboard is entered through Cloudflare Access. Reload the page to sign in with your team's identity.",
      ),
    );
    return;
  }
  const key = el("input", {
    name: "key",
    type: "password",
    required: true,
    autocomplete: "off",
    "aria-label": "Host API key",
  });
  const form = el(
    "form",
    { class: "sign-in", method: "post", action: "/dashboard/sign-in" },
    el("label", {}, "Host API key", key),
    el("button", { type: "submit" }, "Sign in"),
  );
  const message = el("div", { role: "status" });
  // "Ended" only for a session that was there (the server tells SESSION_INVALID from no session, SIGN_IN_REQUIRED).
  if (reason === "SESSION_INVALID") show(message, el("p", { class: "muted" }, "Your session ended. Sign in again."));
  show(
    root,
    el("h2", {}, "Sign in with a host key"),
    el("p", {}, "Use one of this deployment's host API keys (HOST_API_KEYS)."),
    form,
    message,
  );
  key.focus();
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await call("/dashboard/sign-in", { method: "POST", body: new URLSearchParams({ key: key.value }) });
      key.value = "";
      done();
    } catch (failure) {
      key.value = "";
      show(message, problem(failure, "Not signed in"));
    }
  });
}
