/** Small DOM helpers: elements built from values (never from HTML strings), and step states. */
import { presentStep } from "./step-view.ts";

type Child = Node | string | null | undefined | false;

/** `document.createElement` with attributes and children; text is always text, never HTML. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | boolean | undefined> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    node.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

/** Replaces the children of `parent`. */
export function show(parent: Element, ...children: Child[]): void {
  parent.replaceChildren(...children.filter((c): c is Node | string => Boolean(c)));
}

/** Where a step stands; shown next to its heading as a word, not only a colour. */
type StepState = "waiting" | "active" | "done" | "skipped" | "failed" | "optional";

const STATE_WORDS: Record<StepState, string> = {
  waiting: "Not yet",
  active: "In progress",
  done: "Done",
  skipped: "Skipped",
  failed: "Needs attention",
  optional: "Optional",
};

/** One step's section: its state badge and its body. */
export interface Step {
  section: HTMLElement;
  body: HTMLElement;
  /** With a `line` (what was done and its key value), a finished step folds to it; the customer can open it. */
  setState(state: StepState, line?: string): void;
}

/** The step whose section has id `id` (present in index.html). */
export function step(id: string): Step {
  const section = document.getElementById(id);
  const badge = section?.querySelector<HTMLElement>(".state");
  const body = section?.querySelector<HTMLElement>(".body");
  if (!section || !badge || !body) throw new Error(`index.html lacks the step #${id}`);
  return {
    section,
    body,
    setState(state, line) {
      badge.textContent = STATE_WORDS[state];
      presentStep(section, state, line);
    },
  };
}

/** Announces `text` in the page's polite live region. */
export function announce(text: string): void {
  const region = document.getElementById("announcer");
  if (region) region.textContent = text;
}

/**
 * Shows a failure as a plain sentence with a retry button, moves focus to the button, and
 * resolves when it is pressed.
 */
export function failure(parent: Element, sentence: string, retryLabel = "Try again"): Promise<void> {
  return new Promise((resolve) => {
    const button = el("button", { type: "button", class: "primary" }, retryLabel);
    button.addEventListener("click", () => resolve(), { once: true });
    show(parent, el("p", { class: "error", role: "alert" }, sentence), button);
    button.focus();
  });
}

/** A code block with a copy button; the button says whether copying worked. */
export function copyable(label: string, text: string, id: string): HTMLElement {
  const code = el("code", { id }, text);
  const button = el("button", { type: "button", class: "copy", "aria-describedby": id }, `Copy ${label}`);
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(code.textContent ?? "");
      button.textContent = "Copied";
      announce(`${label} copied to the clipboard.`);
    } catch {
      const range = document.createRange();
      range.selectNodeContents(code);
      getSelection()?.removeAllRanges();
      getSelection()?.addRange(range);
      button.textContent = "Selected: copy it now";
      announce(`Copying is blocked here; the ${label} is selected, copy it with your device's copy command.`);
    }
    setTimeout(() => (button.textContent = `Copy ${label}`), 2500);
  });
  return el("div", { class: "copyable" }, el("pre", {}, code), button);
}

/** A `<dl>` entry pair showing an address in full, breakable on narrow screens. */
export function addressItem(term: string, address: string, testId: string): HTMLElement[] {
  return [el("dt", {}, term), el("dd", { class: "address", "data-testid": testId }, address)];
}
