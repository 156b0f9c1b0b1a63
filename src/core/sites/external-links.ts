// External links of a site's header (the published SiteExternalLink): a title and an absolute
// http(s) URL shown among the section tabs of the published site, after the sections, in the
// order they were added, to visitors for whom the link's condition holds. Draft links are
// stored, not shown. Like sections, they need a site with sections (the published 400 for a
// "simple structure") and the role that edits the site's structure; writes run under the site's
// structure lock. The URL is checked when written and again when rendered (safeLinkUrl), so a
// row written past the checks never reaches the page.
import { generateKeyBetween } from "fractional-indexing";
import { Prisma, type SiteExternalLink } from "../../generated/prisma/client.ts";
import type { CoreContext } from "../context.ts";
import { badInput, notFound, quote } from "../errors.ts";
import { newId } from "../ids.ts";
import { checkLength, checkNoControlCharacters, checkUrl } from "../validate.ts";
import { checkCondition } from "./conditions.ts";
import { editStructure, ICON_MAX, SECTION_DESCRIPTION_MAX, SECTION_TITLE, type Structure } from "./index.ts";
import { sortByKey } from "./loaders.ts";

/** At most this many external links per site (the published API gives no bound). */
export const EXTERNAL_LINKS_PER_SITE_MAX = 50;

/** The published TranslationLanguage values: the keys of a localized title or description. */
const LANGUAGES: readonly string[] = [
  "en",
  "fr",
  "de",
  "es",
  "it",
  "pt",
  "pt-br",
  "ru",
  "ja",
  "zh",
  "zh-tw",
  "yue",
  "ko",
  "ar",
  "hi",
  "nl",
  "pl",
  "tr",
  "sv",
  "no",
  "da",
  "fi",
  "el",
  "cs",
  "hu",
  "ro",
  "th",
  "vi",
  "id",
  "ms",
  "he",
  "uk",
  "sk",
  "bg",
  "hr",
  "lt",
  "lv",
  "et",
  "sl",
];

export interface ExternalLinkInput {
  title?: unknown;
  localizedTitle?: unknown;
  description?: unknown;
  localizedDescription?: unknown;
  icon?: unknown;
  url?: unknown;
  /** A section group of the site; null (update) moves the link to the root. */
  parent?: unknown;
  draft?: unknown;
  condition?: unknown;
}

/** `url` when it is an absolute http(s) URL a page may link to, else null (checked again when rendered). */
export function safeLinkUrl(url: string): string | null {
  if (url.length > 2048 || /[\u0000-\u001f\u007f-\u009f\s]/.test(url)) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.href : null;
  } catch {
    return null;
  }
}

function checkLocalized(field: string, value: unknown, max: number): Prisma.InputJsonValue | null {
  if (value === null) return null;
  if (typeof value !== "object" || Array.isArray(value)) throw badInput(`${field} must be an object of language codes to strings`);
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > LANGUAGES.length) throw badInput(`${field}: at most ${LANGUAGES.length} languages`);
  for (const [language, text] of entries) {
    if (!LANGUAGES.includes(language))
      throw badInput(`${field}: ${quote(language.slice(0, 20))} is not a published language code (fr, pt-br, …)`);
    if (typeof text !== "string") throw badInput(`${field}.${language} must be a string`);
    checkLength(`${field}.${language}`, text, { max });
    checkNoControlCharacters(`${field}.${language}`, text);
  }
  return Object.fromEntries(entries) as Prisma.InputJsonValue;
}

function checkString(field: string, value: unknown, bounds: { min?: number; max: number }): string {
  if (typeof value !== "string") throw badInput(`${field} must be a string`);
  checkLength(field, value, bounds);
  checkNoControlCharacters(field, value);
  return value;
}

function checkGroup(structure: Structure, value: unknown, field: string): string {
  if (typeof value !== "string" || !structure.groups.some((group) => group.id === value))
    throw badInput(`${field}: the site has no section group ${quote(value)}`);
  return value;
}

/** The columns a create or update sets, every field checked (nothing is written before all pass). */
function columnsOf(structure: Structure, input: ExternalLinkInput, creating: boolean) {
  const data: Partial<Prisma.SiteExternalLinkUncheckedCreateInput> = {};
  if (creating || input.title !== undefined) {
    if (input.title == null) throw badInput("title is required (2 to 128 characters)");
    const title = checkString("title", input.title, SECTION_TITLE);
    if (!title.trim()) throw badInput("title must not be blank");
    data.title = title;
  }
  if (creating || input.url !== undefined) {
    if (typeof input.url !== "string") throw badInput("url is required (an absolute http(s) URL)");
    checkUrl("url", input.url);
    const normalized = safeLinkUrl(input.url);
    if (!normalized || normalized.length > 2048) throw badInput("url must be an absolute http(s) URL without spaces or control characters");
    // Stored as the URL parser writes it (quotes and the like percent-encoded), a valid URI.
    data.url = normalized;
  }
  if (input.localizedTitle !== undefined)
    data.localizedTitle = checkLocalized("localizedTitle", input.localizedTitle, SECTION_TITLE.max) ?? Prisma.DbNull;
  if (input.description !== undefined)
    data.description = input.description === null ? null : checkString("description", input.description, { max: SECTION_DESCRIPTION_MAX });
  if (input.localizedDescription !== undefined) {
    data.localizedDescription =
      checkLocalized("localizedDescription", input.localizedDescription, SECTION_DESCRIPTION_MAX) ?? Prisma.DbNull;
  }
  if (input.icon !== undefined) data.icon = input.icon === null ? null : checkString("icon", input.icon, { min: 1, max: ICON_MAX });
  if (input.draft !== undefined) {
    if (typeof input.draft !== "boolean") throw badInput("draft must be a boolean");
    data.draft = input.draft;
  }
  if (input.condition !== undefined) {
    if (input.condition !== null && typeof input.condition !== "string")
      throw badInput("condition must be a string (an expression) or null");
    data.condition = input.condition === null || input.condition === "" ? null : checkCondition("condition", input.condition);
  }
  if (input.parent !== undefined) {
    if (input.parent === null) {
      if (creating) throw badInput("parent must be a section group id (omit it for the site root)");
      data.sectionGroupId = null;
    } else data.sectionGroupId = checkGroup(structure, input.parent, "parent");
  }
  return data;
}

function requireSections(structure: Structure) {
  if (!structure.sections.length)
    throw badInput("structure: the site has a simple structure (no sections): external links live among sections, add a section first");
}

export async function createExternalLink(
  ctx: CoreContext,
  organizationId: string | null | undefined,
  siteId: string,
  input: ExternalLinkInput,
): Promise<SiteExternalLink> {
  return editStructure(ctx, organizationId, siteId, async (tx, structure) => {
    const data = columnsOf(structure, input, true);
    requireSections(structure);
    const existing = sortByKey(await tx.siteExternalLink.findMany({ where: { siteId } }));
    if (existing.length >= EXTERNAL_LINKS_PER_SITE_MAX)
      throw badInput(`structure: a site has at most ${EXTERNAL_LINKS_PER_SITE_MAX} external links (it has ${existing.length})`);
    return tx.siteExternalLink.create({
      data: {
        ...(data as Prisma.SiteExternalLinkUncheckedCreateInput),
        id: newId("SiteExternalLink"),
        siteId,
        sortKey: generateKeyBetween(existing.at(-1)?.sortKey ?? null, null),
        createdAt: ctx.clock.now(),
      },
    });
  });
}

export async function updateExternalLink(
  ctx: CoreContext,
  organizationId: string | null | undefined,
  siteId: string,
  id: string,
  input: ExternalLinkInput,
): Promise<SiteExternalLink> {
  return editStructure(ctx, organizationId, siteId, async (tx, structure) => {
    const link = await tx.siteExternalLink.findFirst({ where: { id, siteId } });
    if (!link) throw notFound("site external link", id);
    const data = columnsOf(structure, input, false);
    return tx.siteExternalLink.update({ where: { id }, data });
  });
}

/** Deletes the link; false when the site has no such link (204). */
export async function deleteExternalLink(ctx: CoreContext, organizationId: string | null | undefined, siteId: string, id: string) {
  return editStructure(ctx, organizationId, siteId, async (tx) => {
    const { count } = await tx.siteExternalLink.deleteMany({ where: { id, siteId } });
    return count > 0;
  });
}

/** The live links of a site in their order (for the site server and the structure). */
export async function externalLinksOf(prisma: Pick<CoreContext["prisma"], "siteExternalLink">, siteId: string, { drafts = false } = {}) {
  return sortByKey(await prisma.siteExternalLink.findMany({ where: { siteId, ...(drafts ? {} : { draft: false }) } }));
}
