/** A new onboarding from the page: operator, label, reference, return URL → the customer's link and its QR. */
import type { OnboardingView } from "../../src/protocol/index.ts";
import { el, show } from "../dom.ts";
import { qrElement } from "../qr.ts";
import { post } from "./api.ts";
import { problem } from "./view.ts";

const field = (name: string, label: string, attrs: Record<string, string | boolean> = {}) =>
  el("label", {}, label, el("input", { name, ...attrs }));

/** Renders the create form into `root`. */
export function showCreate(root: HTMLElement): void {
  const form = el(
    "form",
    { class: "create" },
    field("operator", "Operator address", { required: true, placeholder: "hope1…", autocomplete: "off" }),
    field("label", "Label (shown to the customer)", { maxlength: "64" }),
    field("reference", "Your reference (never shown to the customer)", { maxlength: "128" }),
    field("return_url", "Return URL", { type: "url", placeholder: "https://…" }),
    el("button", { type: "submit" }, "Create onboarding"),
  );
  const outcome = el("div", { class: "outcome", role: "status" });
  show(root, el("h2", {}, "New onboarding"), form, outcome);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const values = Object.fromEntries(
      [...new FormData(form)].map(([k, v]) => [k, String(v).trim()]).filter(([, v]) => v !== ""),
    );
    const button = form.querySelector("button")!;
    button.disabled = true;
    show(outcome, el("p", { class: "loading" }, "Creating…"));
    try {
      const created = await post<OnboardingView>("/api/onboardings", values);
      form.reset();
      show(
        outcome,
        el("p", {}, "Created. Send this link to your customer:"),
        el("p", {}, el("a", { href: created.url, class: "url", rel: "noreferrer" }, created.url)),
        qrElement(created.url, "QR code of the customer's link"),
        el("p", {}, el("a", { href: `#/onboardings/${created.id}` }, "Open the onboarding")),
      );
    } catch (failure) {
      show(outcome, problem(failure, "Not created"));
    } finally {
      button.disabled = false;
    }
  });
}
