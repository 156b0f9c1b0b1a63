// Full-text search over the head revision of spaces, on PostgreSQL's own text search (it runs in
// PGlite too). Pages are cut into sections at their headings; each section is a row of
// SearchSection with a GIN index on its text. The index follows the head: `reindexSpace` runs in
// the transaction that moves it and rewrites only the pages whose indexed fields changed.
import { createHash } from "node:crypto";
import { Prisma } from "../../generated/prisma/client.ts";
import type { CoreContext, Transaction } from "../context.ts";
import { badInput, quote, characterCount } from "../errors.ts";
import { checkPageSize, type PageArgs } from "../pagination.ts";
import { readableContentFilter } from "../content-tree/index.ts";
import { getOrganization } from "../organizations/read.ts";
import { readSpace } from "../spaces/read.ts";
import { flatten, slugify, type PageNode } from "../content/tree.ts";

export const QUERY_MAX = 512;
/** Sections read per search before grouping into pages; bounds the work of a broad query. */
const SECTIONS_SCANNED = 2000;

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

/** Brings the index of `spaceId` to `pages` (a head revision's tree). */
export async function reindexSpace(tx: Transaction, spaceId: string, pages: PageNode[]): Promise<void> {
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
  if (!stale.length) return;
  const hashes = [...new Set(stale.flatMap((entry) => (entry.page.body ? [entry.page.body] : [])))];
  const blobs = await tx.blob.findMany({ where: { hash: { in: hashes } } });
  const markdown = new Map(blobs.map((blob) => [blob.hash, Buffer.from(blob.data).toString("utf8")]));
  await tx.searchSection.createMany({
    data: stale.flatMap((entry) =>
      sectionsOf(entry.page.title, markdown.get(entry.page.body ?? "") ?? "").map((section, position) => ({
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
}

function checkQuery(query: string): string {
  if (!query.trim()) throw badInput("query is required");
  if (characterCount(query) > QUERY_MAX) throw badInput(`query must be at most ${QUERY_MAX} characters (got ${characterCount(query)})`);
  return query;
}

interface SectionHit {
  spaceId: string;
  pageId: string;
  pageTitle: string;
  pagePath: string;
  pageDescription: string;
  ancestors: string[];
  anchor: string;
  title: string;
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

async function matchingSections(ctx: Pick<CoreContext, "prisma">, spaceIds: string[], query: string): Promise<SectionHit[]> {
  if (!spaceIds.length) return [];
  const rows = await ctx.prisma.$queryRaw<SectionHit[]>(Prisma.sql`
    WITH q AS (SELECT websearch_to_tsquery('english', ${query}) AS query)
    SELECT s."spaceId", s."pageId", s."pageTitle", s."pagePath", s."pageDescription", s.ancestors,
           s.anchor, s.title,
           ts_rank(to_tsvector('english', s.title || ' ' || s.body), q.query)::float8 AS score,
           ts_headline('english', s.body, q.query, 'MaxWords=35, MinWords=15, StartSel=**, StopSel=**') AS snippet
    FROM "SearchSection" s, q
    WHERE s."spaceId" = ANY(${spaceIds}) AND to_tsvector('english', s.title || ' ' || s.body) @@ q.query
    ORDER BY score DESC, s."spaceId", s."pageId", s.position
    LIMIT ${SECTIONS_SCANNED}`);
  return rows.map((row) => ({ ...row, score: Number(row.score) }));
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
  return pageOfResults(rankPages(await matchingSections(ctx, [spaceId], query)), args);
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
) {
  checkQuery(query);
  const titles = new Map(spaces.map((space) => [space.id, space.title]));
  const results = new Map<string, SpaceResult>();
  for (const page of rankPages(await matchingSections(ctx, [...titles.keys()], query))) {
    let space = results.get(page.spaceId);
    if (!space) results.set(page.spaceId, (space = { id: page.spaceId, title: titles.get(page.spaceId)!, score: page.score, pages: [] }));
    space.pages.push(page);
  }
  return pageOfResults([...results.values()], args);
}
