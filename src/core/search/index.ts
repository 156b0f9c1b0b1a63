// Full-text search over the head revision of spaces, on PostgreSQL's own text search (it runs in
// PGlite too). Pages are cut into sections at their headings; each section is a row of
// SearchSection with a GIN index on its text. The index follows the head: `reindexSpace` runs in
// the transaction that moves it and rewrites only the pages whose indexed fields changed.
import { createHash } from "node:crypto";
import { Prisma } from "../../generated/prisma/client.ts";
import type { CoreContext } from "../context.ts";
import type { Transaction } from "../../db/transaction.ts";
import { badInput, quote, characterCount } from "../errors.ts";
import { checkPageSize, type PageArgs } from "../pagination.ts";
import { readableContentFilter } from "../content-tree/index.ts";
import { getOrganization } from "../organizations/read.ts";
import { readSpace } from "../spaces/read.ts";
import { flatten, slugify, type PageNode } from "../content/tree.ts";

export const QUERY_MAX = 512;
/** Sections read per search before grouping into pages; bounds the work of a broad query. */
const SECTIONS_SCANNED = 2000;
/**
 * Sections of a search, best first, whose snippet highlights the match (ts_headline, the costly
 * part of a broad search: 258 sections took 160 ms on PGlite); the others show their text's start.
 */
export const SNIPPETS_HIGHLIGHTED = 100;
/** Words of a snippet. */
const SNIPPET_WORDS = 35;

export interface Section {
  anchor: string;
  title: string;
  body: string;
}

/** Markdown → plain text: the words a reader sees, without syntax. */
function plainText(markdown: string): string {
  return markdown
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, " ")
    .replace(/^\s{0,3}(?:>|[-*+]|\d+[.)])\s+/gm, "")
    .replace(/[*_~`|]+/g, "")
    .replace(/[ \t]+/g, " ")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/**
 * A page's sections: the text before the first heading (titled with the page title, anchor "")
 * and one per heading, with the heading's anchor. Headings inside code blocks do not cut.
 */
export function sectionsOf(pageTitle: string, markdown: string): Section[] {
  const sections: { anchor: string; title: string; lines: string[] }[] = [{ anchor: "", title: pageTitle, lines: [] }];
  let fence: string | null = null;
  for (const line of markdown.split("\n")) {
    const fenceMatch = line.match(/^\s{0,3}(`{3,}|~{3,})/);
    if (fenceMatch) fence = fence === null ? fenceMatch[1][0] : fence === fenceMatch[1][0] ? null : fence;
    const heading = fence === null && !fenceMatch ? line.match(/^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$/) : null;
    if (heading) {
      const title = plainText(heading[1]);
      sections.push({ anchor: slugify(title), title, lines: [] });
    } else {
      sections.at(-1)!.lines.push(line);
    }
  }
  return sections
    .map(({ anchor, title, lines }) => ({ anchor, title, body: plainText(lines.join("\n")) }))
    .filter((section, index) => index === 0 || section.body || section.title);
}

interface IndexedPage {
  page: PageNode;
  path: string;
  ancestors: string[];
  signature: string;
}

function indexedPages(pages: PageNode[]): IndexedPage[] {
  const titles = new Map<string, string>();
  const parentOf = new Map<string, string | null>();
  const located = flatten(pages);
  for (const { page, parentId } of located) {
    titles.set(page.id, page.title);
    parentOf.set(page.id, parentId);
  }
  return located
    .filter(({ page }) => page.kind === "document" && !page.noIndex)
    .map(({ page, path }) => {
      const ancestors: string[] = [];
      for (let parent = parentOf.get(page.id) ?? null; parent; parent = parentOf.get(parent) ?? null)
        ancestors.unshift(titles.get(parent)!);
      const signature = createHash("sha256")
        .update(JSON.stringify([page.body ?? "", page.title, path, page.description ?? "", ancestors]))
        .digest("hex");
      return { page, path, ancestors, signature };
    });
}

/** Brings the index of `spaceId` to `pages` (a head revision's tree); true when anything indexed changed. */
export async function reindexSpace(tx: Transaction, spaceId: string, pages: PageNode[]): Promise<boolean> {
  const wanted = indexedPages(pages);
  const existing = await tx.searchSection.findMany({
    where: { spaceId },
    distinct: ["pageId"],
    select: { pageId: true, pageSignature: true },
  });
  const current = new Map(existing.map((row) => [row.pageId, row.pageSignature]));
  const stale = wanted.filter((entry) => current.get(entry.page.id) !== entry.signature);
  const keep = new Set(wanted.filter((entry) => current.get(entry.page.id) === entry.signature).map((entry) => entry.page.id));
  const drop = existing.map((row) => row.pageId).filter((pageId) => !keep.has(pageId));
  if (drop.length) await tx.searchSection.deleteMany({ where: { spaceId, pageId: { in: drop } } });
  if (!stale.length) return drop.length > 0;
  const hashes = [...new Set(stale.flatMap((entry) => (entry.page.body ? [entry.page.body] : [])))];
  const blobs = await tx.blob.findMany({ where: { hash: { in: hashes } } });
  const markdown = new Map(blobs.map((blob) => [blob.hash, Buffer.from(blob.data).toString("utf8")]));
  const sections = stale.map((entry) => ({ entry, sections: sectionsOf(entry.page.title, markdown.get(entry.page.body ?? "") ?? "") }));
  const vocabulary = new Set<string>();
  for (const { sections: list } of sections)
    for (const section of list) for (const word of wordsOf(`${section.title} ${section.body}`)) vocabulary.add(word);
  await tx.searchTerm.createMany({ data: [...vocabulary].map((term) => ({ spaceId, term })), skipDuplicates: true });
  await tx.searchSection.createMany({
    data: sections.flatMap(({ entry, sections: list }) =>
      list.map((section, position) => ({
        id: `${spaceId}:${entry.page.id}:${position}`,
        spaceId,
        pageId: entry.page.id,
        pageSignature: entry.signature,
        pageTitle: entry.page.title,
        pagePath: entry.path,
        pageDescription: entry.page.description ?? "",
        ancestors: entry.ancestors,
        position,
        anchor: section.anchor,
        title: section.title,
        body: section.body,
      })),
    ),
  });
  return true;
}

function checkQuery(query: string): string {
  if (!query.trim()) throw badInput("query is required");
  if (characterCount(query) > QUERY_MAX) throw badInput(`query must be at most ${QUERY_MAX} characters (got ${characterCount(query)})`);
  return query;
}

export interface SectionHit {
  /** The SearchSection's id (spaceId:pageId:position). */
  id: string;
  spaceId: string;
  pageId: string;
  pageTitle: string;
  pagePath: string;
  pageDescription: string;
  ancestors: string[];
  anchor: string;
  title: string;
  /** The section's whole text (plain). */
  body: string;
  score: number;
  snippet: string;
}

export interface SectionResult {
  id: string;
  title: string;
  path: string;
  body: string;
  score: number;
}

export interface PageResult {
  spaceId: string;
  id: string;
  title: string;
  description: string;
  path: string;
  ancestors: string[];
  score: number;
  /** One-based position in the whole ranked result. */
  rank: number;
  sections: SectionResult[];
}

/** Words of a text as the vocabulary holds them: lowercase letters and digits, 2 to 40 long. */
export function wordsOf(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((word) => word.length >= 2 && word.length <= 40);
}

/** Query words considered (a longer query keeps its first ones). */
const QUERY_WORDS_MAX = 16;
/** Nearest vocabulary words a misspelt word is corrected to, and how close they must be. */
const CORRECTIONS = 2;
const CORRECTION_SIMILARITY = 0.45;
/** Completions of the last word (prefix while typing), the shortest first. */
const COMPLETIONS = 4;

/** Synonym groups of a site: lists of words or phrases, checked when set. */
export type Synonyms = string[][];

export const SYNONYM_GROUPS_MAX = 500;
export const SYNONYM_GROUP_SIZE_MAX = 20;
export const SYNONYM_LENGTH_MAX = 64;

/** `synonyms` as stored: each group a list of 2..20 distinct non-empty entries (lowercased). */
export function checkSynonyms(synonyms: unknown): Synonyms {
  if (!Array.isArray(synonyms)) throw badInput("searchSynonyms must be a list of groups (lists of words or phrases)");
  if (synonyms.length > SYNONYM_GROUPS_MAX)
    throw badInput(`searchSynonyms must have at most ${SYNONYM_GROUPS_MAX} groups (got ${synonyms.length})`);
  return synonyms.map((group, index) => {
    if (!Array.isArray(group) || group.some((entry) => typeof entry !== "string")) {
      throw badInput(`searchSynonyms[${index}] must be a list of words or phrases`);
    }
    if (group.some((entry: string) => characterCount(entry) > SYNONYM_LENGTH_MAX)) {
      throw badInput(`searchSynonyms[${index}]: an entry must be at most ${SYNONYM_LENGTH_MAX} characters`);
    }
    const entries =
      group.length > SYNONYM_GROUP_SIZE_MAX ? [] : [...new Set(group.map((entry: string) => wordsOf(entry).join(" ")).filter(Boolean))];
    if (entries.length < 2) {
      throw badInput(`searchSynonyms[${index}] must have 2 to ${SYNONYM_GROUP_SIZE_MAX} distinct entries with letters or digits`);
    }
    return entries;
  });
}

export interface SearchOptions {
  /** The site's synonym groups (site search); none for space and organization search. */
  synonyms?: Synonyms;
  /** Sections read before grouping (default SECTIONS_SCANNED). */
  limit?: number;
  /** Any word may match (Ask: a question's words rarely all appear); default: best coverage first. */
  anyWord?: boolean;
  /** How many of the best sections get a highlighted snippet (default SNIPPETS_HIGHLIGHTED). */
  highlighted?: number;
}

interface WordInfo {
  word: string;
  meaningful: boolean;
  known: boolean;
  corrections: string[];
  completions: string[];
}

/**
 * What each query word may match: itself, its synonyms, its nearest vocabulary words when the
 * space does not contain it (typos), and for the last word its completions (typing). Stop words
 * alone ("how", "the") make no group. One statement for all the words.
 */
async function wordGroups(ctx: Pick<CoreContext, "prisma">, spaceIds: string[], query: string, synonyms: Synonyms) {
  const words = [...new Set(wordsOf(query))].slice(0, QUERY_WORDS_MAX);
  if (!words.length) return [];
  const last = wordsOf(query).at(-1)!;
  const completing = /[\p{L}\p{N}]$/u.test(query) ? last : "";
  const info = await ctx.prisma.$queryRaw<WordInfo[]>(Prisma.sql`
    SELECT w.word,
           numnode(plainto_tsquery('english', w.word)) > 0 AS meaningful,
           EXISTS (SELECT 1 FROM "SearchTerm" t WHERE t."spaceId" = ANY(${spaceIds}) AND t.term = w.word) AS known,
           CASE WHEN length(w.word) < 4 OR EXISTS (SELECT 1 FROM "SearchTerm" t WHERE t."spaceId" = ANY(${spaceIds}) AND t.term = w.word)
             THEN ARRAY[]::text[] ELSE ARRAY(
             SELECT c.term FROM (
               SELECT DISTINCT t.term, similarity(t.term, w.word) AS sim FROM "SearchTerm" t
               WHERE t."spaceId" = ANY(${spaceIds}) AND t.term % w.word
             ) c WHERE c.sim >= ${CORRECTION_SIMILARITY} ORDER BY c.sim DESC, c.term LIMIT ${CORRECTIONS}) END AS corrections,
           CASE WHEN w.word <> ${completing} OR length(w.word) < 2 THEN ARRAY[]::text[] ELSE ARRAY(
             SELECT c.term FROM (
               SELECT DISTINCT t.term FROM "SearchTerm" t
               WHERE t."spaceId" = ANY(${spaceIds}) AND t.term > w.word AND t.term LIKE w.word || '%'
             ) c ORDER BY length(c.term), c.term LIMIT ${COMPLETIONS}) END AS completions
    FROM unnest(${words}::text[]) AS w(word)`);
  const byWord = new Map(info.map((row) => [row.word, row]));
  const groups: string[][] = [];
  for (const word of words) {
    const row = byWord.get(word)!;
    const alternatives = new Set<string>([word]);
    for (const group of synonyms) if (group.includes(word)) for (const entry of group) alternatives.add(entry);
    if (!row.known) for (const correction of row.corrections) alternatives.add(correction);
    for (const completion of row.completions) alternatives.add(completion);
    // A stop word alone makes no group; its synonyms or completions may (e.g. "a" → "api").
    if (!row.meaningful && alternatives.size === 1) continue;
    if (!row.meaningful) alternatives.delete(word);
    groups.push([...alternatives]);
  }
  return groups;
}

/** tsquery of one group: any of its alternatives (a phrase for a multi-word one). */
const groupQuery = (alternatives: string[]) =>
  Prisma.sql`(${Prisma.join(
    alternatives.map((entry) => Prisma.sql`phraseto_tsquery('english', ${entry})`),
    " || ",
  )})`;

/**
 * Sections of `spaceIds` matching `query`, best first. The score: the share of the query's word
 * groups a section's page matches in this section (all words beat some), plus the weighted rank
 * (page title > heading > description > body), plus a small bonus when the page title is close
 * to the whole query (trigram word similarity).
 */
export async function searchSections(
  ctx: Pick<CoreContext, "prisma">,
  spaceIds: string[],
  query: string,
  options: SearchOptions = {},
): Promise<SectionHit[]> {
  if (!spaceIds.length) return [];
  const groups = await wordGroups(ctx, spaceIds, query, options.synonyms ?? []);
  if (!groups.length) return [];
  const highlighted = options.highlighted ?? SNIPPETS_HIGHLIGHTED;
  const any = Prisma.join(groups.map(groupQuery), " || ");
  // Each group's tsquery is built once (in q), not once per matching section.
  const covered = Prisma.join(
    groups.map((_, index) => Prisma.sql`(CASE WHEN w.vec @@ q.groups[${index + 1}] THEN 1 ELSE 0 END)`),
    " + ",
  );
  const rows = await ctx.prisma.$queryRaw<(Omit<SectionHit, "snippet"> & { position: number; snippet: string | null })[]>(Prisma.sql`
    WITH q AS (SELECT (${any}) AS query, ARRAY[${Prisma.join(groups.map(groupQuery))}]::tsquery[] AS groups),
    w AS (
      -- The query written out, not read from q: the planner then finds the sections through the
      -- text index instead of reading every section of the spaces and testing each.
      SELECT s.*, s.weighted AS vec FROM "SearchSection" s
      WHERE s."spaceId" = ANY(${spaceIds}) AND s.weighted @@ (${any})
    ),
    scored AS (
      SELECT w.*, (${covered})::float8 / ${groups.length} AS coverage,
             ts_rank('{0.1, 0.3, 0.6, 1.0}', w.vec, q.query, 32)::float8 AS rank,
             word_similarity(${query}, w."pageTitle")::float8 AS closeness
      FROM w, q
    )
    , ranked AS (
      SELECT s.id, s."spaceId", s."pageId", s."pageTitle", s."pagePath", s."pageDescription", s.ancestors, s.anchor, s.title, s.body,
             s.position, (s.coverage * 2 + s.rank + CASE WHEN s.closeness >= 0.5 THEN s.closeness * 0.5 ELSE 0 END)::float8 AS score
      FROM scored s
      ${options.anyWord ? Prisma.empty : Prisma.sql`WHERE s.coverage >= (SELECT max(coverage) FROM scored) - 0.0001 OR s.coverage >= 0.999`}
      ORDER BY score DESC, s."spaceId", s."pageId", s.position
      LIMIT ${options.limit ?? SECTIONS_SCANNED}
    )
    SELECT r.*, CASE WHEN row_number() OVER (ORDER BY r.score DESC, r."spaceId", r."pageId", r.position) <= ${highlighted}
             THEN ts_headline('english', r.body, q.query, ${`MaxWords=${SNIPPET_WORDS}, MinWords=15, StartSel=**, StopSel=**`}) END AS snippet
    FROM ranked r, q
    ORDER BY r.score DESC, r."spaceId", r."pageId", r.position`);
  return rows.map(({ position: _, ...row }) => ({
    ...row,
    score: Number(row.score),
    snippet: row.snippet ?? row.body.split(/\s+/).slice(0, SNIPPET_WORDS).join(" "),
  }));
}

/** Groups section hits into pages, best page first, sections in rank order. */
function rankPages(hits: SectionHit[]): PageResult[] {
  const pages = new Map<string, PageResult>();
  for (const hit of hits) {
    const key = `${hit.spaceId}:${hit.pageId}`;
    let page = pages.get(key);
    if (!page) {
      page = {
        spaceId: hit.spaceId,
        id: hit.pageId,
        title: hit.pageTitle,
        description: hit.pageDescription,
        path: hit.pagePath,
        ancestors: hit.ancestors,
        score: hit.score,
        rank: pages.size + 1,
        sections: [],
      };
      pages.set(key, page);
    }
    page.sections.push({
      id: hit.anchor,
      title: hit.title,
      path: hit.anchor ? `${hit.pagePath}#${hit.anchor}` : hit.pagePath,
      body: hit.snippet,
      score: hit.score,
    });
  }
  return [...pages.values()];
}

/** A page of a ranked list; the cursor is the offset (ranks shift when content changes anyway). */
function pageOfResults<T>(results: T[], args: PageArgs) {
  const take = checkPageSize(args.first);
  let offset = 0;
  if (args.after) {
    offset = Number(Buffer.from(args.after, "base64url").toString());
    if (!Number.isInteger(offset) || offset < 0) throw badInput(`page cursor ${quote(args.after)} is not valid for this list`);
  }
  const items = results.slice(offset, offset + take);
  return {
    items,
    totalCount: results.length,
    hasNextPage: offset + take < results.length,
    hasPreviousPage: offset > 0,
    cursorOf: (item: T) => Buffer.from(String(offset + items.indexOf(item) + 1)).toString("base64url"),
  };
}

/** Pages of the head revision of a space matching `query`, best first. */
export async function searchSpace(ctx: CoreContext, spaceId: string, query: string, args: PageArgs) {
  checkQuery(query);
  await readSpace(ctx, spaceId);
  return pageOfResults(rankPages(await searchSections(ctx, [spaceId], query)), args);
}

export interface SpaceResult {
  id: string;
  title: string;
  score: number;
  pages: PageResult[];
}

/** Spaces of the organization the caller can read, with their matching pages, best first. */
export async function searchOrganization(ctx: CoreContext, organizationId: string, query: string, args: PageArgs) {
  checkQuery(query);
  await getOrganization(ctx, organizationId);
  const readable = await readableContentFilter(ctx, organizationId);
  const spaces = await ctx.prisma.space.findMany({
    where: { organizationId, deletedAt: null, AND: [readable.spaces] },
    select: { id: true, title: true },
  });
  return searchSpaces(ctx, spaces, query, args);
}

/** `spaces` (the caller checked it may search them), with their pages matching `query`, best first. */
export async function searchSpaces(
  ctx: Pick<CoreContext, "prisma">,
  spaces: { id: string; title: string }[],
  query: string,
  args: PageArgs,
  options: SearchOptions = {},
) {
  checkQuery(query);
  const titles = new Map(spaces.map((space) => [space.id, space.title]));
  const results = new Map<string, SpaceResult>();
  for (const page of rankPages(await searchSections(ctx, [...titles.keys()], query, options))) {
    let space = results.get(page.spaceId);
    if (!space) results.set(page.spaceId, (space = { id: page.spaceId, title: titles.get(page.spaceId)!, score: page.score, pages: [] }));
    space.pages.push(page);
  }
  return pageOfResults([...results.values()], args);
}
