/**
 * The page's parameters: `?operator=<address>&label=<label>` (a provider links its customer
 * here), optionally `key` and `container` for the printed commands (absent: the server's
 * defaults; `container=` empty: no container). Without a valid operator the page shows a form
 * that submits the same parameters.
 */
import { accountAddressProblem } from "../src/protocol/index.ts";
import type { ChainContext } from "../src/protocol/index.ts";
import { el, show } from "./dom.ts";

/** What the page works on; null where the link says nothing. */
export interface OnboardingParams {
  operator: string;
  label: string;
  keyName: string | null;
  container: string | null;
}

/** Reads the parameters; `problem` says why the operator is unusable (null when it is fine). */
export function readParams(ctx: ChainContext, search: string): { params: OnboardingParams; problem: string | null } {
  const query = new URLSearchParams(search);
  const operator = (query.get("operator") ?? "").trim();
  const params = {
    operator,
    label: (query.get("label") ?? "").trim().slice(0, 64),
    keyName: query.get("key")?.trim() || null,
    container: query.get("container")?.trim() ?? null,
  };
  if (operator === "") return { params, problem: "" };
  const problem = accountAddressProblem(operator, ctx.bech32Prefix);
  return { params, problem: problem ? `The operator address ${problem}.` : null };
}

/** Shows the form that asks for the operator address and a label. */
export function showStartForm(
  form: HTMLFormElement,
  ctx: ChainContext,
  params: OnboardingParams,
  problem: string,
): void {
  const operator = el("input", {
    id: "operator",
    name: "operator",
    type: "text",
    required: true,
    autocomplete: "off",
    spellcheck: "false",
    placeholder: `${ctx.bech32Prefix}1…`,
    value: params.operator,
    "aria-describedby": "operator-help operator-error",
    "aria-invalid": problem ? "true" : undefined,
  });
  const label = el("input", {
    id: "label",
    name: "label",
    type: "text",
    maxlength: "64",
    autocomplete: "off",
    value: params.label,
    "aria-describedby": "label-help",
  });
  show(
    form,
    el("h2", {}, "Which node are you onboarding?"),
    el("label", { for: "operator" }, "Node operator address"),
    el(
      "p",
      { id: "operator-help", class: "muted" },
      `Your hosting provider gives you this address; it starts with ${ctx.bech32Prefix}1.`,
    ),
    operator,
    el("p", { id: "operator-error", class: "error", role: problem ? "alert" : undefined }, problem),
    el("label", { for: "label" }, "Label (optional)"),
    el("p", { id: "label-help", class: "muted" }, "A name for this node, stored with the authorization."),
    label,
    params.keyName !== null ? el("input", { type: "hidden", name: "key", value: params.keyName }) : null,
    params.container !== null ? el("input", { type: "hidden", name: "container", value: params.container }) : null,
    el("button", { type: "submit", class: "primary" }, "Continue"),
  );
  form.hidden = false;
  operator.focus();
}
