/**
 * Who asks, as the wallet shows it: the `origin.name` of every session the onboarding page creates,
 * whether the Worker signs it into the page's first answer or the page asks for one later.
 */
export const PAGE_ORIGIN_NAME = "Hosted node onboarding";
