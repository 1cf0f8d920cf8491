/**
 * The fields that say where and how the node signs: the operator key's name, the node's home,
 * its keyring backend and its container (empty: no container). Each feeds the printed commands;
 * a value the commands cannot carry safely is refused inline, next to its field.
 */
import {
  checkContainerName,
  checkHome,
  checkKeyName,
  checkKeyringBackend,
  KEYRING_BACKENDS,
} from "../../src/protocol/index.ts";
import type { NodeTarget } from "../../src/protocol/index.ts";
import { el } from "../dom.ts";
import type { NodeDefaults } from "../settings.ts";

/** The fields' current values (null while one is invalid) and change notification. */
export interface NodeTargetFields {
  values(): NodeTarget | null;
  onChange(listener: () => void): void;
  elements: HTMLElement;
}

interface Field {
  input: HTMLInputElement | HTMLSelectElement;
  error: HTMLElement;
  check(value: string): unknown;
  parts: HTMLElement[];
}

function textField(
  id: string,
  name: string,
  label: string,
  help: string,
  value: string,
  check: (value: string) => unknown,
): Field {
  const input = el("input", {
    id,
    name,
    type: "text",
    autocomplete: "off",
    spellcheck: "false",
    value,
    "aria-describedby": `${id}-help ${id}-error`,
  });
  return fieldParts(id, label, help, input, check);
}

function fieldParts(
  id: string,
  label: string,
  help: string,
  input: HTMLInputElement | HTMLSelectElement,
  check: (value: string) => unknown,
): Field {
  const error = el("p", { id: `${id}-error`, class: "error", "aria-live": "polite" });
  return {
    input,
    error,
    check,
    parts: [el("label", { for: id }, label), el("p", { id: `${id}-help`, class: "muted" }, help), input, error],
  };
}

/** The four fields, prefilled with the server's defaults (the link's `key` and `container` win). */
export function createNodeTargetFields(initial: NodeDefaults): NodeTargetFields {
  const listeners: (() => void)[] = [];
  const key = textField(
    "key-name",
    "key",
    "Operator key name on the node",
    "The name of the node's operator key in its keyring (the --from key).",
    initial.keyName,
    checkKeyName,
  );
  const home = textField(
    "node-home",
    "home",
    "Node home directory",
    "The node's --home: where its configuration and keyring live.",
    initial.home,
    checkHome,
  );
  const backend = el("select", {
    id: "keyring-backend",
    name: "keyring",
    "aria-describedby": "keyring-backend-help keyring-backend-error",
  });
  for (const name of KEYRING_BACKENDS)
    backend.append(el("option", { value: name, selected: name === initial.keyringBackend }, name));
  const keyring = fieldParts(
    "keyring-backend",
    "Keyring backend",
    "The node's --keyring-backend.",
    backend,
    checkKeyringBackend,
  );
  const container = textField(
    "container",
    "container",
    "Container name",
    "The node's Docker container; the commands run through docker exec. Leave it empty when the node runs without " +
      "Docker.",
    initial.container,
    (v) => (v === "" ? v : checkContainerName(v)),
  );
  const fields = [key, home, keyring, container];
  const check = (): NodeTarget | null =>
    fields.map(validate).every(Boolean)
      ? {
          keyName: key.input.value,
          home: home.input.value,
          keyringBackend: backend.value,
          container: container.input.value,
        }
      : null;
  for (const field of fields)
    field.input.addEventListener(field.input instanceof HTMLSelectElement ? "change" : "input", () =>
      listeners.forEach((l) => l()),
    );
  const elements = el("div", { class: "fields" }, ...fields.flatMap((f) => f.parts));
  check();
  return { values: check, onChange: (l) => listeners.push(l), elements };
}

function validate(field: Field): boolean {
  try {
    field.check(field.input.value);
    field.error.textContent = "";
    field.input.removeAttribute("aria-invalid");
    return true;
  } catch (error) {
    field.error.textContent = error instanceof Error ? error.message : "Not valid";
    field.input.setAttribute("aria-invalid", "true");
    return false;
  }
}
