// The `url` every lookup takes: checked once, the same way for every operation, before anything
// is read or fetched (a bad one is a 400 naming the field).
import { badInput, quote } from "../errors.ts";

/** The published `URL` schema's bound (maxLength 2048). */
export const LOOKUP_URL_MAX = 2048;

/** `value` as an absolute http(s) URL without credentials, its fragment dropped; 400 naming `field` otherwise. */
export function checkLookupUrl(value: unknown, field = "url"): URL {
  if (typeof value !== "string" || value.trim() === "") throw badInput(`${field} is required (an absolute http or https URL)`);
  if (value.length > LOOKUP_URL_MAX) throw badInput(`${field} must be at most ${LOOKUP_URL_MAX} characters`);
  // Control characters never belong in a URL, and would reach a Location or a fetch as given.
  if (/[\u0000-\u001f\u007f-\u009f]/.test(value)) throw badInput(`${field} must not contain control characters`);
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw badInput(`${field} must be an absolute http or https URL (got ${quote(value)})`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw badInput(`${field} must be an http or https URL (got ${url.protocol})`);
  if (url.username || url.password) throw badInput(`${field} must not carry credentials`);
  url.hash = "";
  return url;
}

/**
 * The path of `url` below this service's `publicUrl` (starting with `/`), or null when `url` is
 * not one of this service's (another origin, or outside PUBLIC_URL's path).
 */
export function ownPath(publicUrl: string, url: URL): string | null {
  const own = new URL(publicUrl);
  if (url.origin !== own.origin) return null;
  const prefix = own.pathname.replace(/\/+$/, "");
  if (prefix && url.pathname !== prefix && !url.pathname.startsWith(`${prefix}/`)) return null;
  return url.pathname.slice(prefix.length) || "/";
}

/** A path's segments, percent-decoded; null when one does not decode. */
export function segmentsOf(path: string): string[] | null {
  try {
    return path.split("/").filter(Boolean).map(decodeURIComponent);
  } catch {
    return null;
  }
}
