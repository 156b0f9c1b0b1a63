// Input rules shared by every domain; messages name the field as both surfaces call it.
import { badInput, quote, characterCount } from "./errors.ts";
import { isRole, ROLES, type Role } from "./auth/roles.ts";

export function checkLength(field: string, value: string, { min = 0, max }: { min?: number; max: number }): string {
  const length = characterCount(value);
  if (length < min || length > max) {
    const range = min > 0 ? `between ${min} and ${max} characters` : `at most ${max} characters`;
    throw badInput(`${field} must be ${range} (got ${length})`);
  }
  return value;
}

export function checkOneOf<T extends string>(field: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) {
    throw badInput(`${field} must be one of ${allowed.join(", ")} (got ${quote(value)})`);
  }
  return value as T;
}

/** A content `defaultLevel`: a role, or null / "inherit" to inherit from the parent. */
export function checkDefaultLevel(value: string | null): Role | null {
  if (value === null || value === "inherit") return null;
  if (!isRole(value)) throw badInput(`defaultLevel must be one of ${ROLES.join(", ")}, inherit or null (got ${quote(value)})`);
  return value;
}

const URL_MAX = 2048;

/**
 * C0 and C1 control characters and DEL. A stored string that becomes a header value (a redirect's
 * `Location`, a filename, a policy) or a URL must hold none: `new URL` silently drops CR, LF and tab,
 * so a URL that parses can still break the header it is written into (issue 28).
 */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Refuses control characters (400 naming the field and where the first one is). */
export function checkNoControlCharacters(field: string, value: string): string {
  const match = CONTROL.exec(value);
  if (match) {
    const code = match[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0");
    throw badInput(`${field} must not contain control characters (U+${code} at position ${match.index})`);
  }
  return value;
}

export function checkUrl(field: string, value: string): string {
  checkLength(field, value, { max: URL_MAX });
  checkNoControlCharacters(field, value);
  try {
    const url = new URL(value);
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("scheme");
  } catch {
    throw badInput(`${field} must be an absolute http(s) URL`);
  }
  return value;
}
