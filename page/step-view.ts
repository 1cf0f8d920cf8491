/**
 * How the steps keep the next action first: a finished step folds to one line (what was done and
 * its key value) that opens on a tap, and a step that becomes active, or the outcome at the end,
 * comes into view, smoothly unless the customer asked for reduced motion, and never while the
 * customer is reading elsewhere (they scrolled, swiped or pressed a key in the last few seconds).
 */

/** How long after the customer's own scrolling the page leaves the view where they put it. */
const READING_MS = 4000;

let lastReading = Number.NEGATIVE_INFINITY;
const reading = () => (lastReading = performance.now());
// The customer's own hand on the view: a wheel, a swipe, a key (arrows, space, page keys, typing in a field).
for (const type of ["wheel", "touchmove", "keydown"]) addEventListener(type, reading, { passive: true, capture: true });

/** How long a revealed step is kept at the top while its content arrives (a network answer, a QR). */
const FOLLOW_MS = 5000;

let following: (() => void) | null = null;

/**
 * Brings `target` to the top of the view, unless the customer scrolled in the last READING_MS;
 * true when it did. A step is revealed as it becomes active, often before its content is there,
 * when the page may be too short to put it at the top: it is kept there as it grows, for
 * FOLLOW_MS, until the customer scrolls or another target is revealed.
 */
export function reveal(target: Element): boolean {
  if (performance.now() - lastReading < READING_MS) return false;
  following?.();
  const started = performance.now();
  const behavior = matchMedia("(prefers-reduced-motion: reduce)").matches ? "auto" : "smooth";
  const scroll = () => target.scrollIntoView({ block: "start", behavior });
  scroll();
  const observer = new ResizeObserver(() => (lastReading > started ? stop() : scroll()));
  const timer = setTimeout(() => stop(), FOLLOW_MS);
  const stop = () => {
    observer.disconnect();
    clearTimeout(timer);
    following = null;
  };
  following = stop;
  observer.observe(target);
  return true;
}

/**
 * Shows the journey's outcome where the page starts (`#page-status`, under the heading) and brings
 * it into view: at the end, what happened comes first.
 */
export function showOutcome(...parts: (Node | null)[]): void {
  const status = document.getElementById("page-status")!;
  const outcome = document.createElement("div");
  outcome.className = "outcome";
  outcome.dataset.testid = "journey-outcome";
  outcome.append(...parts.filter((part): part is Node => part !== null));
  status.replaceChildren(outcome);
  reveal(outcome);
}

/** An address cut to its start and end, for a one-line summary (the step itself shows it whole). */
export function shortAddress(address: string): string {
  return address.length > 14 ? `${address.slice(0, 7)}…${address.slice(-4)}` : address;
}

/** True once any step of the page is finished: an active step after that is the journey moving on. */
function journeyMoved(): boolean {
  return document.querySelector('#steps section[data-state="done"], #steps section[data-state="skipped"]') !== null;
}

/**
 * Shows `section` in `state`: folded to `line` when finished with one, open otherwise; brought into
 * view when it becomes the active step after another one finished.
 */
export function presentStep(section: HTMLElement, state: string, line: string | undefined): void {
  const before = section.dataset.state;
  section.dataset.state = state;
  if ((state === "done" || state === "skipped") && line) fold(section, line);
  else unfold(section);
  if (state === "active" && before !== "active" && journeyMoved()) reveal(section);
}

function fold(section: HTMLElement, line: string): void {
  let toggle = section.querySelector<HTMLButtonElement>("button.step-line");
  if (!toggle) {
    toggle = document.createElement("button");
    toggle.type = "button";
    toggle.className = "step-line";
    const body = section.querySelector<HTMLElement>(".body")!;
    body.id ||= `${section.id}-body`;
    toggle.setAttribute("aria-controls", body.id);
    const text = document.createElement("span");
    const more = document.createElement("span");
    more.className = "more";
    toggle.append(text, more);
    toggle.addEventListener("click", () => setOpen(section, toggle!, section.dataset.open === undefined));
    section.querySelector("h2")!.after(toggle);
  }
  toggle.firstElementChild!.textContent = `✓ ${line}`;
  section.dataset.folded = "";
  setOpen(section, toggle, false);
}

function setOpen(section: HTMLElement, toggle: HTMLButtonElement, open: boolean): void {
  if (open) section.dataset.open = "";
  else delete section.dataset.open;
  toggle.setAttribute("aria-expanded", String(open));
  toggle.lastElementChild!.textContent = open ? "Hide" : "Show";
}

function unfold(section: HTMLElement): void {
  delete section.dataset.folded;
  delete section.dataset.open;
}
