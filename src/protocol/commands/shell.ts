/**
 * Shell safety for the commands the page prints: every word is either checked against a safe
 * pattern or single-quoted, so no value can end a word or start a second command.
 */
import { MessageError } from "../messages/errors.ts";
import { CONTROL_CHARS } from "../text.ts";

/** Characters that a POSIX shell never treats specially inside an unquoted word. */
const PLAIN_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** The keyring backends of a Cosmos SDK node (`--keyring-backend`). */
export const KEYRING_BACKENDS = ["os", "file", "kwallet", "pass", "test", "memory"] as const;
export type KeyringBackend = (typeof KEYRING_BACKENDS)[number];

/**
 * One shell word for `value`: unchanged when it holds only plain characters, otherwise
 * single-quoted with each `'` written as `'\''`. The empty string is `""`.
 */
export function shellWord(value: string): string {
  if (value === "") return '""';
  if (PLAIN_WORD.test(value)) return value;
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** A keyring key name: 1–64 printable characters, no control characters (quoted when printed). */
export function checkKeyName(value: string): string {
  if (typeof value !== "string" || value.length === 0 || value.length > 64 || CONTROL_CHARS.test(value)) {
    throw new MessageError(
      "INVALID_KEY_NAME",
      "The key name must be 1 to 64 characters without control characters",
      "keyName",
    );
  }
  return value;
}

/** The node's home: an absolute path without control characters (quoted when printed, so `~` is not allowed). */
export function checkHome(value: string): string {
  if (typeof value !== "string" || !value.startsWith("/") || value.length > 1024 || CONTROL_CHARS.test(value)) {
    throw new MessageError(
      "INVALID_HOME",
      "The home directory must be an absolute path (starting with /) without control characters",
      "home",
    );
  }
  return value;
}

/** One of the SDK's keyring backends; anything else is refused, never quoted through. */
export function checkKeyringBackend(value: string): KeyringBackend {
  if (!(KEYRING_BACKENDS as readonly string[]).includes(value)) {
    throw new MessageError(
      "INVALID_KEYRING_BACKEND",
      `The keyring backend must be one of ${KEYRING_BACKENDS.join(", ")}`,
      "keyringBackend",
    );
  }
  return value as KeyringBackend;
}

/** Docker's container-name rule: `[a-zA-Z0-9][a-zA-Z0-9_.-]*`, at most 128 characters. */
export function checkContainerName(value: string): string {
  if (typeof value !== "string" || !/^[a-zA-Z0-9][a-zA-Z0-9_.-]{0,127}$/.test(value)) {
    throw new MessageError(
      "INVALID_CONTAINER_NAME",
      "The container name may use letters, digits, '_', '.' and '-', starting with a letter or digit",
      "container",
    );
  }
  return value;
}

/** Joins words into one command line, each made safe with `shellWord`. */
export function commandLine(words: readonly string[]): string {
  return words.map(shellWord).join(" ");
}
