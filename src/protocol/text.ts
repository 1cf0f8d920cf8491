/** What "free text" may hold wherever the service, the page or the simulator takes it: no control characters. */
import * as z from "zod/mini";

/**
 * The control characters (Unicode category Cc: C0, DEL and C1). None belongs in a label, a
 * reference, a path or a key name, and several can rewrite what a terminal or a log shows.
 */
export const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;

/** The same rule for zod's `z.regex` checks: the whole string holds no control character. */
const NO_CONTROL_CHARS = /^[^\u0000-\u001f\u007f-\u009f]*$/;

/** Free text of at most `max` characters, as every schema takes a label, a reference or a name. */
export const freeText = (max: number) =>
  z.string().check(z.maxLength(max), z.regex(NO_CONTROL_CHARS, "must not contain control characters"));
