/**
 * The two fields that say where the node runs: the operator key's name in its keyring and the
 * optional container. Both feed the printed commands; a bad container name is refused inline.
 */
import { checkContainerName, checkKeyName } from "../../src/protocol/index.ts";
import type { NodeTarget } from "../../src/protocol/index.ts";
import { el } from "../dom.ts";

/** The fields' current values (null while one is invalid) and change notification. */
export interface NodeTargetFields {
  values(): NodeTarget | null;
  onChange(listener: () => void): void;
  elements: HTMLElement;
}

/** Key name and container fields, prefilled from the page's `key` and `container` parameters. */
export function createNodeTargetFields(initial: { keyName: string; container: string }): NodeTargetFields {
  const listeners: (() => void)[] = [];
  const key = el("input", { id: "key-name", name: "key", type: "text", autocomplete: "off", spellcheck: "false", value: initial.keyName, "aria-describedby": "key-name-help key-name-error" });
  const container = el("input", { id: "container", name: "container", type: "text", autocomplete: "off", spellcheck: "false", value: initial.container, "aria-describedby": "container-help container-error" });
  const keyError = el("p", { id: "key-name-error", class: "error", "aria-live": "polite" });
  const containerError = el("p", { id: "container-error", class: "error", "aria-live": "polite" });
  const check = (): NodeTarget | null => {
    const problems = [validate(key, keyError, checkKeyName), validate(container, containerError, (v) => (v === "" ? v : checkContainerName(v)))];
    return problems.every(Boolean) ? { keyName: key.value, container: container.value || undefined } : null;
  };
  for (const input of [key, container]) input.addEventListener("input", () => listeners.forEach((l) => l()));
  const elements = el(
    "div",
    { class: "fields" },
    el("label", { for: "key-name" }, "Operator key name on the node"),
    el("p", { id: "key-name-help", class: "muted" }, "The name of the node's operator key in its keyring (the --from key)."),
    key,
    keyError,
    el("label", { for: "container" }, "Container name (optional)"),
    el("p", { id: "container-help", class: "muted" }, "If the node runs in Docker, its container name; the command then runs through docker exec."),
    container,
    containerError,
  );
  return { values: check, onChange: (l) => listeners.push(l), elements };
}

function validate(input: HTMLInputElement, slot: HTMLElement, check: (value: string) => string): boolean {
  try {
    check(input.value);
    slot.textContent = "";
    input.removeAttribute("aria-invalid");
    return true;
  } catch (error) {
    slot.textContent = error instanceof Error ? error.message : "Not valid";
    input.setAttribute("aria-invalid", "true");
    return false;
  }
}
