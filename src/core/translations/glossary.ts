// The translation glossary of an organization (the published `translations-glossary`
// operations): each entry is one term in several languages (language code -> term). Members
// with a role read it; those who manage translations change it, in batches of inserts, updates
// and deletes applied together or not at all. Translation runs use it: where a page they copy
// into a target says an entry's term in another language, the copy says the target language's
// term (`applyGlossary`).
import type { GlossaryEntry } from "../../generated/prisma/client.ts";
import type { CoreContext } from "../context.ts";
import { badInput, notFound, quote } from "../errors.ts";
import { newId } from "../ids.ts";
import { unsafeTextReason } from "../input.ts";
import { requireOrganization } from "../organizations/index.ts";
import { type PageArgs, paginate, pageInMemory } from "../pagination.ts";

/** A language code: a BCP 47-like tag (`fr`, `pt-br`, `zh-tw`), compared lowercase. */
export const LANGUAGE_CODE = /^[a-z]{2,3}(?:-[a-z0-9]{2,8})*$/;

/** Entries of one organization. */
export const GLOSSARY_ENTRIES_MAX = 1000;
/** Operations of one `PUT`. */
export const GLOSSARY_OPERATIONS_MAX = 100;
/** Languages of one entry. */
export const GLOSSARY_LANGUAGES_MAX = 50;
/** A term, in characters (the published maximum). */
export const GLOSSARY_TERM_MAX = 255;

export type GlossaryTranslations = Record<string, string>;
export const translationsOf = (entry: GlossaryEntry) => entry.translations as GlossaryTranslations;

/** The published GlossaryTranslations: language code -> a term of 1 to 255 characters on one line. */
export function checkGlossaryTranslations(field: string, value: unknown): GlossaryTranslations {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw badInput(`${field} must be an object of language codes to terms, such as { "en": "workspace", "fr": "espace de travail" }`);
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) throw badInput(`${field} must give the term in at least one language`);
  if (entries.length > GLOSSARY_LANGUAGES_MAX)
    throw badInput(`${field}: at most ${GLOSSARY_LANGUAGES_MAX} languages (got ${entries.length})`);
  const result: GlossaryTranslations = {};
  for (const [rawLanguage, term] of entries) {
    const language = rawLanguage.toLowerCase();
    if (!LANGUAGE_CODE.test(language))
      throw badInput(`${field}: ${quote(rawLanguage.slice(0, 100))} is not a language code such as "fr" or "pt-br"`);
    if (language in result) throw badInput(`${field}: the language ${quote(language)} is given twice`);
    const at = `${field}.${language}`;
    if (typeof term !== "string") throw badInput(`${at} must be a string`);
    const length = [...term].length;
    if (length < 1 || length > GLOSSARY_TERM_MAX) throw badInput(`${at} must be 1 to ${GLOSSARY_TERM_MAX} characters (got ${length})`);
    if (/[\n\r]/.test(term)) throw badInput(`${at} must be on one line`);
    const unsafe = unsafeTextReason(term);
    if (unsafe) throw badInput(`${at} ${unsafe}`);
    result[language] = term;
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// Reading

export async function readGlossaryEntry(ctx: CoreContext, organizationId: string, id: string): Promise<GlossaryEntry> {
  await requireOrganization(ctx, organizationId, "translation.read");
  const entry = await ctx.prisma.glossaryEntry.findFirst({ where: { id, organizationId } });
  if (!entry) throw notFound("glossary entry", id);
  return entry;
}

/**
 * The entries, oldest first; with `orderBy` (a language code), by their term in that language
 * (compared as the database's default collation would not know the language: by Unicode code
 * point, case-insensitive first), those without one last. The glossary is bounded (1,000), so
 * the ordered list is sorted in memory.
 */
export async function listGlossaryEntries(ctx: CoreContext, organizationId: string, orderBy: string | null | undefined, page: PageArgs) {
  await requireOrganization(ctx, organizationId, "translation.read");
  if (orderBy == null) {
    return paginate<GlossaryEntry, { organizationId: string }>(page, {
      sortField: "createdAt",
      sortKind: "date",
      where: { organizationId },
      rows: ctx.prisma.glossaryEntry,
    });
  }
  const language = orderBy.toLowerCase();
  if (!LANGUAGE_CODE.test(language))
    throw badInput(`orderBy must be a language code such as "fr" or "pt-br" (got ${quote(orderBy.slice(0, 100))})`);
  const rows = await ctx.prisma.glossaryEntry.findMany({
    where: { organizationId },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: GLOSSARY_ENTRIES_MAX,
  });
  const key = (entry: GlossaryEntry) => translationsOf(entry)[language];
  const sorted = rows
    .map((entry, index) => ({ entry, index, term: key(entry) }))
    .sort((a, b) => {
      if (a.term === undefined || b.term === undefined) return a.term === b.term ? a.index - b.index : a.term === undefined ? 1 : -1;
      const folded = a.term.toLowerCase().localeCompare(b.term.toLowerCase(), "en");
      return folded !== 0 ? folded : a.term < b.term ? -1 : a.term > b.term ? 1 : a.index - b.index;
    })
    .map((item) => item.entry);
  return pageInMemory(sorted, page, (entry) => entry.id);
}

/** Every entry of the organization (bounded), for a translation run. */
export const glossaryOf = (ctx: CoreContext, organizationId: string) =>
  ctx.prisma.glossaryEntry.findMany({
    where: { organizationId },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    take: GLOSSARY_ENTRIES_MAX,
  });

// ---------------------------------------------------------------------------------------------
// Writing

export type GlossaryOperation =
  | { type: "insert"; translations: unknown }
  | { type: "update"; id: unknown; translations: unknown }
  | { type: "delete"; id: unknown };

type CheckedOperation =
  | { type: "insert"; translations: GlossaryTranslations }
  | { type: "update"; id: string; translations: GlossaryTranslations }
  | { type: "delete"; id: string };

function checkOperations(operations: unknown): CheckedOperation[] {
  if (!Array.isArray(operations)) throw badInput("operations must be a list of { type: insert | update | delete, … }");
  if (operations.length > GLOSSARY_OPERATIONS_MAX)
    throw badInput(`operations: at most ${GLOSSARY_OPERATIONS_MAX} in one request (got ${operations.length})`);
  const ids = new Set<string>();
  return operations.map((operation: unknown, index) => {
    const field = `operations[${index}]`;
    if (typeof operation !== "object" || operation === null || Array.isArray(operation)) throw badInput(`${field} must be an object`);
    const { type, id, translations } = operation as Record<string, unknown>;
    const checkId = () => {
      if (typeof id !== "string" || id === "" || id.length > 200) throw badInput(`${field}.id must be the id of a glossary entry`);
      if (ids.has(id)) throw badInput(`${field}.id: the entry ${quote(id)} is named by two operations`);
      ids.add(id);
      return id;
    };
    if (type === "insert") return { type, translations: checkGlossaryTranslations(`${field}.translations`, translations) };
    if (type === "update") return { type, id: checkId(), translations: checkGlossaryTranslations(`${field}.translations`, translations) };
    if (type === "delete") return { type, id: checkId() };
    throw badInput(`${field}.type must be one of insert, update, delete (got ${quote(type)})`);
  });
}

/** Serializes the writes of one organization's glossary (the count bound). */
const lockGlossary = (tx: { $queryRaw: CoreContext["prisma"]["$queryRaw"] }, organizationId: string) =>
  tx.$queryRaw`SELECT pg_advisory_xact_lock(hashtext(${`glossary:${organizationId}`}))::text`;

/**
 * Applies the operations in order, all or none: an update or delete naming an entry the
 * organization does not have is a 404 and changes nothing; the organization keeps at most 1,000
 * entries. An update replaces the entry's translations.
 */
export async function updateGlossary(ctx: CoreContext, organizationId: string, operations: unknown): Promise<void> {
  await requireOrganization(ctx, organizationId, "translation.manage");
  const checked = checkOperations(operations);
  const now = ctx.clock.now();
  await ctx.prisma.$transaction(async (tx) => {
    await lockGlossary(tx, organizationId);
    const named = checked.flatMap((operation) => (operation.type === "insert" ? [] : [operation.id]));
    const found = new Set(
      (await tx.glossaryEntry.findMany({ where: { organizationId, id: { in: named } }, select: { id: true } })).map((row) => row.id),
    );
    const missing = named.find((id) => !found.has(id));
    if (missing !== undefined) throw notFound("glossary entry", missing);
    const count = await tx.glossaryEntry.count({ where: { organizationId } });
    const after = count + checked.filter((op) => op.type === "insert").length - checked.filter((op) => op.type === "delete").length;
    if (after > GLOSSARY_ENTRIES_MAX)
      throw badInput(`operations: an organization's glossary holds at most ${GLOSSARY_ENTRIES_MAX} entries (this would make ${after})`);
    const inserts = checked.flatMap((op) => (op.type === "insert" ? [op] : []));
    if (inserts.length > 0)
      await tx.glossaryEntry.createMany({
        data: inserts.map((op, index) => ({
          id: newId("GlossaryEntry"),
          organizationId,
          translations: op.translations,
          // One instant per entry, in the order given, so that the list keeps that order.
          createdAt: new Date(now.getTime() + index),
          updatedAt: now,
        })),
      });
    for (const op of checked) {
      if (op.type === "update")
        await tx.glossaryEntry.update({ where: { id: op.id }, data: { translations: op.translations, updatedAt: now } });
    }
    const deletes = checked.flatMap((op) => (op.type === "delete" ? [op.id] : []));
    if (deletes.length > 0) await tx.glossaryEntry.deleteMany({ where: { organizationId, id: { in: deletes } } });
  });
}

// ---------------------------------------------------------------------------------------------
// Use in translation runs

const WORD = /[\p{L}\p{N}_]/u;
/** Parts of Markdown left as they are: code (fenced and inline), link targets, HTML tags, autolinks. */
const PROTECTED = /```[\s\S]*?(?:```|$)|~~~[\s\S]*?(?:~~~|$)|`[^`\n]*`|\]\([^)\n]*\)|<[^>\n]*>|https?:\/\/[^\s)]+/g;

/**
 * A function that rewrites Markdown for `language`: wherever the text says an entry's term in
 * another language, as whole words (a letter, digit or `_` on neither side) and with the same
 * case, it says the entry's term in `language` instead; the longest term wins where several
 * start at the same place. Code, link targets, HTML tags and URLs are left as they are. Null
 * when no entry gives a term in `language`. Linear in the text: each position looks terms up
 * in a map, for at most as many words as the longest term has.
 */
export function glossaryFor(entries: readonly GlossaryTranslations[], language: string): ((markdown: string) => string) | null {
  const replacements = new Map<string, string>();
  let longest = 0;
  for (const translations of entries) {
    const target = translations[language];
    if (target === undefined) continue;
    for (const [other, term] of Object.entries(translations)) {
      if (other === language || term === target || replacements.has(term)) continue;
      if (!WORD.test([...term][0]!) || !WORD.test([...term].at(-1)!)) continue;
      replacements.set(term, target);
      longest = Math.max(longest, term.split(/[^\p{L}\p{N}_]+/u).length);
    }
  }
  if (replacements.size === 0) return null;
  const rewrite = (text: string) => {
    // Words and what is between them; a term spans at most `longest` words.
    const tokens = text.match(/[\p{L}\p{N}_]+|[^\p{L}\p{N}_]+/gu) ?? [];
    let out = "";
    for (let i = 0; i < tokens.length; ) {
      if (!WORD.test(tokens[i]![0]!)) {
        out += tokens[i++];
        continue;
      }
      let matched = 0;
      let candidate = "";
      let replacement: string | undefined;
      for (let j = i, words = 0; j < tokens.length && words < longest; j++) {
        candidate += tokens[j];
        if (!WORD.test(tokens[j]![0]!)) continue;
        words++;
        const found = replacements.get(candidate);
        if (found !== undefined) {
          matched = j - i + 1;
          replacement = found;
        }
      }
      if (replacement !== undefined) {
        out += replacement;
        i += matched;
      } else out += tokens[i++];
    }
    return out;
  };
  return (markdown) => {
    let out = "";
    let last = 0;
    for (const match of markdown.matchAll(PROTECTED)) {
      out += rewrite(markdown.slice(last, match.index)) + match[0];
      last = match.index + match[0].length;
    }
    return out + rewrite(markdown.slice(last));
  };
}
