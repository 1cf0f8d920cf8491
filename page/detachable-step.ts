/** A step that a running flow can be cut off from (page/onboarding/page.ts: the server's word replaces it). */
import { el, type Step } from "./dom.ts";

/** `target` as a flow sees it: once detached, what the flow shows goes nowhere. */
export function detachable(target: Step): { step: Step; detach(): void } {
  let attached = true;
  const nowhere = el("div", {});
  return {
    step: {
      section: target.section,
      get body() {
        return attached ? target.body : nowhere;
      },
      setState: (state, line) => attached && target.setState(state, line),
    },
    detach: () => void (attached = false),
  };
}
