// What a custom font is made of, and how it reaches a published page: its family name and its
// faces (a weight and the URL of a file each), checked when written (index.ts) and checked and
// escaped again when they become CSS and a page's Content-Security-Policy (sites/serve.ts). No
// module of sites or organizations is imported here: site customization and pages use it too.
import type { CustomFont } from "../../generated/prisma/client.ts";
import type { CoreContext } from "../context.ts";
import { badInput, quote } from "../errors.ts";
import { checkLength, checkNoControlCharacters } from "../validate.ts";

/** Bounds of the published schemas (FontFamily 1 to 50, FontWeight 1 to 1000, StorageFileKey 1 to 512) and our own. */
export const FONT_FAMILY_MAX = 50;
export const FONT_WEIGHT_MIN = 1;
export const FONT_WEIGHT_MAX = 1000;
export const FONT_URL_MAX = 512;
export const FONT_FACES_MAX = 20;
export const FONTS_PER_ORGANIZATION_MAX = 50;
/** The published API: "at least one font face with weight 400 (regular) must be provided". */
export const REGULAR_WEIGHT = 400;

/** Letters and digits of any script, spaces inside, `-`, `_` and `.`: nothing CSS or HTML reads specially. */
const FAMILY = /^[\p{L}\p{N}](?:[\p{L}\p{N} ._-]*[\p{L}\p{N}._-])?$/u;
/** A host name (labels of letters, digits and `-`), an IPv4 address, or an IPv6 one in brackets; an optional port. */
const HOST = /^(?:(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]*[a-z0-9])?|\[[0-9a-f:.]+\])(?::[0-9]{1,5})?$/;
/** Characters a font URL may not hold as given: quotes, parentheses, backslash, angle brackets, backtick, braces, spaces. */
const URL_REFUSED = /["'()\\<>`{}\s]/;

/** One face as stored: its weight and the http(s) URL of its file. */
export interface StoredFace {
  weight: number;
  url: string;
}

/** A face as the published `FontFace` has it. */
export interface FontFaceView {
  weight: number;
  sources: { url: string; format?: "woff2" | "woff" }[];
}

export function checkFontFamily(value: unknown): string {
  if (typeof value !== "string") throw badInput("fontFamily must be a string");
  checkLength("fontFamily", value, { min: 1, max: FONT_FAMILY_MAX });
  if (!FAMILY.test(value)) {
    throw badInput(`fontFamily may hold letters, digits, spaces (not at either end), "-", "_" and "." only (got ${quote(value)})`);
  }
  return value;
}

export function checkFontWeight(field: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < FONT_WEIGHT_MIN || value > FONT_WEIGHT_MAX) {
    throw badInput(`${field} must be a whole number from ${FONT_WEIGHT_MIN} to ${FONT_WEIGHT_MAX} (got ${quote(value)})`);
  }
  return value;
}

/**
 * A font file's URL as written: absolute http(s), at most 512 characters, without credentials,
 * control characters, spaces, quotes, parentheses, backslashes or angle brackets, on a plain host
 * name or address. Stored as the parser writes it back.
 */
export function checkFontUrl(field: string, value: unknown): string {
  if (typeof value !== "string") throw badInput(`${field} must be the URL of the font file (a string)`);
  checkLength(field, value, { min: 1, max: FONT_URL_MAX });
  checkNoControlCharacters(field, value);
  const refused = URL_REFUSED.exec(value);
  if (refused) throw badInput(`${field} must not contain ${quote(refused[0])} (at position ${refused.index})`);
  const safe = safeFontUrl(value);
  if (!safe)
    throw badInput(`${field} must be an absolute http or https URL on a host name, without user or password (got ${quote(value)})`);
  if (safe.href.length > FONT_URL_MAX) throw badInput(`${field} must be at most ${FONT_URL_MAX} characters once encoded`);
  return safe.href;
}

/** The URL and its origin when it is one a page may name (http(s), no credentials, plain host), else null. */
export function safeFontUrl(value: string): { href: string; origin: string } | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  if (url.username || url.password || !HOST.test(url.host)) return null;
  return { href: url.href, origin: `${url.protocol}//${url.host}` };
}

export const facesOf = (font: Pick<CustomFont, "faces">) => font.faces as unknown as StoredFace[];

/** The file format a URL's name says (`.woff2`, `.woff`), if any. */
export function formatOf(url: string): "woff2" | "woff" | undefined {
  const path = new URL(url).pathname.toLowerCase();
  return path.endsWith(".woff2") ? "woff2" : path.endsWith(".woff") ? "woff" : undefined;
}

/** The faces as the published `FontFace` (one source each). */
export function fontFacesOf(font: Pick<CustomFont, "faces">): FontFaceView[] {
  return facesOf(font).map((face) => {
    const format = formatOf(face.url);
    return {
      weight: face.weight,
      sources: [{ url: face.url, ...(format ? { format } : {}) }],
    };
  });
}

// ---------------------------------------------------------------------------------------------
// Site customization: `styling.font`, `styling.headingFont` and `styling.monospaceFont` may be a
// font definition (the published CustomizationFontDefinitionInput); one with `custom: true`
// names a custom font of the organization by its `id`.

export const FONT_SETTINGS = ["font", "headingFont", "monospaceFont"] as const;
export type FontSetting = (typeof FONT_SETTINGS)[number];

/**
 * Refuses (400 naming the setting) a customization whose font settings name a custom font the
 * organization does not have. No role check: the caller configures a site of the organization.
 */
export async function checkFontReferences(
  ctx: CoreContext,
  organizationId: string,
  settings: Record<string, unknown>,
  where = "customization",
) {
  const styling = settings.styling;
  if (typeof styling !== "object" || styling === null) return;
  for (const setting of FONT_SETTINGS) {
    const id = customFontReference((styling as Record<string, unknown>)[setting]);
    if (id === null) continue;
    const font = await ctx.loaders.customFont.load(id);
    if (!font || font.organizationId !== organizationId) {
      throw badInput(`${where}: styling.${setting} names the custom font ${quote(id)}, which this organization does not have`);
    }
  }
}

/** The custom font id a font setting names, if it names one. */
export function customFontReference(value: unknown): string | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const { custom, id } = value as Record<string, unknown>;
  return custom === true && typeof id === "string" ? id : null;
}

// ---------------------------------------------------------------------------------------------
// CSS

/**
 * A CSS string (double-quoted) holding `value`: every character but ASCII letters, digits and
 * ` ._/:?&=%+~,@!$*#-` is written as a hex escape, so no quote, backslash, newline, `<` or `;`
 * of a stored value can end the string, the rule or the style element.
 */
export function cssString(value: string): string {
  let out = '"';
  for (const char of value) {
    out += /^[A-Za-z0-9 ._/:?&=%+~,@!$*#-]$/.test(char) ? char : `\\${char.codePointAt(0)!.toString(16)} `;
  }
  return `${out}"`;
}

/**
 * The @font-face rules of a font and the origins of its files (for `font-src`). A face whose URL
 * is not one a page may name (it was checked when written; this checks again) is left out.
 */
export function fontFaceRules(font: Pick<CustomFont, "fontFamily" | "faces">): {
  css: string;
  origins: string[];
} {
  const family = cssString(font.fontFamily);
  const origins = new Set<string>();
  let css = "";
  for (const face of facesOf(font)) {
    const safe = typeof face.url === "string" ? safeFontUrl(face.url) : null;
    const weight = Number(face.weight);
    if (!safe || !Number.isInteger(weight) || weight < FONT_WEIGHT_MIN || weight > FONT_WEIGHT_MAX) continue;
    origins.add(safe.origin);
    const format = formatOf(safe.href);
    css += `@font-face{font-family:${family};font-style:normal;font-display:swap;font-weight:${weight};src:url(${cssString(safe.href)})${format ? ` format("${format}")` : ""}}`;
  }
  return { css, origins: [...origins] };
}
