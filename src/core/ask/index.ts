// Ask: a question answered from the content the caller may read. Retrieval is the search index's
// (src/core/search: stemming, synonyms of a site, typo tolerance), any word of the question
// matching, fused on a site with its vector model's ranking (src/core/ask/retrieval.ts); the answer quotes the best passages with links to their pages (extractive). With a
// model configured (src/core/ask/model.ts), the same passages go to it and its text is the answer,
// citing the same sources. Answers come as a stream of snapshots (each the whole answer so far),
// as the published SearchAIAnswerStream events carry them.
import type { CoreContext } from "../context.ts";
import { readableContentFilter } from "../content-tree/index.ts";
import { badInput, characterCount, quote } from "../errors.ts";
import { getOrganization } from "../organizations/read.ts";
import type { Synonyms } from "../search/index.ts";
import { siteBaseUrl } from "../sites/index.ts";
import { siteScope } from "../sites/search.ts";
import { urlOfSiteSpace } from "../sites/serve.ts";
import { ModelError, modelText } from "./model.ts";
import { retrieveSections } from "./retrieval.ts";

/** Passages an answer quotes, and the characters kept of each. */
export const ASK_PASSAGES = 5;
export const ASK_PASSAGE_CHARACTERS = 600;
/** Longest question (the published maxLength of streamAskInSite's `question`). */
export const ASK_QUESTION_MAX = 512;
/** Recommended questions answered at most. */
export const RECOMMENDED_QUESTIONS = 10;
/** Sections read to make recommended questions from. */
const RECOMMENDATION_SECTIONS = 200;

/** A section of a page that answers the question. */
export interface AskPassage {
  spaceId: string;
  revisionId: string;
  pageId: string;
  /** The section's anchor ("" for the page's text before its first heading). */
  sectionId: string;
  /** The page's title, then the section's heading when it has one. */
  title: string;
  /** Where a reader reads it: the page's URL with the heading's anchor. */
  url: string;
  text: string;
}

/** A page the answer used, with its sections (the published SearchAIAnswerSourcePage). */
export interface AskSource {
  spaceId: string;
  revisionId: string;
  pageId: string;
  sections: string[];
}

/** One snapshot of an answer: the whole answer so far. */
export interface AskAnswer {
  /** Markdown; null before any text (a model's answer starts with its sources). */
  markdown: string | null;
  sources: AskSource[];
  followupQuestions: string[];
}

/** What a question is asked over, once the caller's access is applied. */
export interface AskRun {
  question: string;
  /** What the content is called in the answer: the site's or the organization's title. */
  title: string;
  passages: AskPassage[];
}

/** The question, checked: present, at most ASK_QUESTION_MAX characters. */
function checkQuestion(question: string, field: string): string {
  const trimmed = question.trim();
  if (!trimmed) throw badInput(`${field} is required (a question of at most ${ASK_QUESTION_MAX} characters)`);
  const length = characterCount(question);
  if (length > ASK_QUESTION_MAX) throw badInput(`${field} must be at most ${ASK_QUESTION_MAX} characters (got ${length})`);
  return trimmed;
}

/**
 * The passages of `spaces` that best answer `question`, best first (at most ASK_PASSAGES): lexical,
 * and by vector too on a site (`siteId`) whose model is trained (src/core/ask/retrieval.ts).
 */
async function retrieve(
  ctx: CoreContext,
  spaces: { id: string; revisionId: string }[],
  question: string,
  { synonyms, siteId }: { synonyms: Synonyms; siteId: string | null },
  pageUrl: (spaceId: string, pagePath: string) => string,
): Promise<AskPassage[]> {
  const revisionOf = new Map(spaces.map((space) => [space.id, space.revisionId]));
  const hits = await retrieveSections(ctx, spaces, question, { synonyms, siteId, limit: ASK_PASSAGES * 4 });
  const passages: AskPassage[] = [];
  for (const hit of hits) {
    if (passages.length === ASK_PASSAGES) break;
    const text = [...hit.body.replace(/\s+/g, " ").trim()];
    if (!text.length) continue;
    const page = pageUrl(hit.spaceId, hit.pagePath);
    passages.push({
      spaceId: hit.spaceId,
      revisionId: revisionOf.get(hit.spaceId)!,
      pageId: hit.pageId,
      sectionId: hit.anchor,
      title: hit.anchor && hit.title !== hit.pageTitle ? `${hit.pageTitle} › ${hit.title}` : hit.pageTitle,
      url: hit.anchor ? `${page}#${hit.anchor}` : page,
      text: text.length > ASK_PASSAGE_CHARACTERS ? `${text.slice(0, ASK_PASSAGE_CHARACTERS - 1).join("")}…` : text.join(""),
    });
  }
  return passages;
}

/** A question over the organization's content the caller may read (spaces they cannot read give nothing). */
export async function askInOrganization(ctx: CoreContext, organizationId: string, query: string): Promise<AskRun> {
  const organization = await getOrganization(ctx, organizationId);
  const question = checkQuestion(query, "query");
  const spaces = await readableSpaces(ctx, organizationId);
  const passages = await retrieve(ctx, spaces, question, { synonyms: [], siteId: null }, (spaceId, path) =>
    ctx.urls.app(`/s/${spaceId}/${path}`),
  );
  return { question, title: organization.title, passages };
}

/**
 * A question over a site's published content, as a visitor with `claims` sees it within `scope`
 * (the published SiteSearchScope), with the site's synonyms; links go to the published pages.
 */
export async function askInSite(
  ctx: CoreContext,
  organizationId: string,
  siteId: string,
  input: { question: string; scope?: unknown; claims?: Record<string, unknown> | null },
): Promise<AskRun> {
  const { site, structure, spaces, siteSpaceOf } = await siteScope(ctx, organizationId, siteId, input);
  const question = checkQuestion(input.question, "question");
  const base = siteBaseUrl(ctx, site);
  const passages = await retrieve(
    ctx,
    spaces,
    question,
    { synonyms: site.searchSynonyms as Synonyms, siteId: site.id },
    (spaceId, path) => {
      const siteSpaceUrl = urlOfSiteSpace(base, structure, siteSpaceOf.get(spaceId)!);
      return path ? `${siteSpaceUrl}/${path}` : siteSpaceUrl;
    },
  );
  return { question, title: site.title, passages };
}

async function readableSpaces(ctx: CoreContext, organizationId: string) {
  const readable = await readableContentFilter(ctx, organizationId);
  return ctx.prisma.space.findMany({
    where: { organizationId, deletedAt: null, AND: [readable.spaces] },
    select: { id: true, revisionId: true },
  });
}

/** The pages (and their sections, in order) the passages come from. */
export function sourcesOf(passages: AskPassage[]): AskSource[] {
  const sources = new Map<string, AskSource>();
  for (const passage of passages) {
    const key = `${passage.spaceId}:${passage.pageId}`;
    let source = sources.get(key);
    if (!source) {
      source = { spaceId: passage.spaceId, revisionId: passage.revisionId, pageId: passage.pageId, sections: [] };
      sources.set(key, source);
    }
    if (passage.sectionId && !source.sections.includes(passage.sectionId)) source.sections.push(passage.sectionId);
  }
  return [...sources.values()];
}

/** The extractive answer as Markdown: the passages quoted, each with a link to its page. */
export function extractiveMarkdown(title: string, passages: AskPassage[]): string {
  if (!passages.length) return `No page of ${title} answers this question.\n`;
  const quoted = passages.map((passage, index) => `${index + 1}. [${passage.title}](${passage.url})\n\n   > ${passage.text}`);
  return `The passages of ${title} that best answer it:\n\n${quoted.join("\n\n")}\n`;
}

/**
 * The answer's snapshots. Extractive: one per passage quoted (the answer grows by a quote each
 * time), or one saying nothing answers it.
 */
export async function* extractiveAnswer(run: AskRun): AsyncGenerator<AskAnswer> {
  if (!run.passages.length) {
    yield { markdown: extractiveMarkdown(run.title, []), sources: [], followupQuestions: [] };
    return;
  }
  for (let count = 1; count <= run.passages.length; count++) {
    const shown = run.passages.slice(0, count);
    yield { markdown: extractiveMarkdown(run.title, shown), sources: sourcesOf(shown), followupQuestions: [] };
  }
}

/**
 * The answer's snapshots: generated by the configured model when one is free and something was
 * retrieved (its sources first, then its text as it is written), else extractive. A model that
 * fails or passes its deadline before writing anything gives the extractive answer instead; one
 * cut short keeps what it wrote, with a note. The model is stopped when the asker goes away.
 */
export async function* answerOf(ctx: Pick<CoreContext, "askModel" | "logger">, run: AskRun): AsyncGenerator<AskAnswer> {
  const slot = run.passages.length ? ctx.askModel.take() : null;
  if (!slot) {
    yield* extractiveAnswer(run);
    return;
  }
  const sources = sourcesOf(run.passages);
  const stop = new AbortController();
  const deadline = setTimeout(() => stop.abort(new ModelError(`no answer within ${slot.model.timeoutMs} ms`)), slot.model.timeoutMs);
  let text = "";
  try {
    yield { markdown: null, sources, followupQuestions: [] };
    for await (const written of modelText(slot.model, run, stop.signal)) {
      text = written;
      yield { markdown: text, sources, followupQuestions: [] };
    }
  } catch (error) {
    if (!(error instanceof ModelError)) throw error;
    const reason = stop.signal.aborted ? (stop.signal.reason as Error).message : error.message;
    ctx.logger.warn({ reason }, "Ask's model gave no complete answer");
    if (text) yield { markdown: `${text}\n\n*(The answer was cut short.)*\n`, sources, followupQuestions: [] };
    else yield* extractiveAnswer(run);
  } finally {
    clearTimeout(deadline);
    stop.abort();
    slot.release();
  }
}

// ---------------------------------------------------------------------------------------------
// Recommended questions

interface HeadingRow {
  pageTitle: string;
  title: string;
  anchor: string;
}

/**
 * Questions worth asking of `spaceIds`: `searched` first (what readers search most), then headings
 * that are questions, then one per page ("Tell me about <page>"); distinct, at most RECOMMENDED_QUESTIONS.
 */
async function questionsOf(ctx: Pick<CoreContext, "prisma">, spaceIds: string[], searched: string[]): Promise<string[]> {
  const rows = spaceIds.length
    ? await ctx.prisma.searchSection.findMany({
        where: { spaceId: { in: spaceIds } },
        select: { pageTitle: true, title: true, anchor: true },
        orderBy: [{ spaceId: "asc" }, { pagePath: "asc" }, { position: "asc" }],
        take: RECOMMENDATION_SECTIONS,
      })
    : [];
  const headings = (rows as HeadingRow[]).filter((row) => row.anchor && row.title.trim().endsWith("?")).map((row) => row.title.trim());
  const pages = [...new Set(rows.map((row) => row.pageTitle.trim()).filter(Boolean))].map((title) => `Tell me about ${title}`);
  const seen = new Set<string>();
  const questions: string[] = [];
  for (const question of [...searched, ...headings, ...pages]) {
    const key = question.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    questions.push(question);
    if (questions.length === RECOMMENDED_QUESTIONS) break;
  }
  return questions;
}

/** Recommended questions over the organization's content the caller may read (from its headings). */
export async function recommendedQuestionsInOrganization(ctx: CoreContext, organizationId: string): Promise<string[]> {
  await getOrganization(ctx, organizationId);
  const spaces = await readableSpaces(ctx, organizationId);
  return questionsOf(
    ctx,
    spaces.map((space) => space.id),
    [],
  );
}

/** Searches of a site's readers that found something, most frequent first. */
const SEARCHED_QUERIES = 5;

/**
 * Recommended questions of a site: its readers' most frequent searches that found something, then
 * the headings of its published content (of one site space, or of the site spaces of one space).
 */
export async function recommendedQuestionsInSite(
  ctx: CoreContext,
  organizationId: string,
  siteId: string,
  only: { siteSpaceId?: string | null; spaceId?: string | null } = {},
): Promise<string[]> {
  const { site, structure, spaces } = await siteScope(ctx, organizationId, siteId, { scope: { mode: "all" } });
  let spaceIds = spaces.map((space) => space.id);
  if (only.siteSpaceId != null) {
    const siteSpace = structure.siteSpaces.find((candidate) => candidate.id === only.siteSpaceId);
    if (!siteSpace) throw badInput(`siteSpaceId: no published site space ${quote(only.siteSpaceId)} in this site`);
    spaceIds = spaceIds.filter((id) => id === siteSpace.spaceId);
  }
  if (only.spaceId != null) {
    if (!structure.siteSpaces.some((siteSpace) => siteSpace.spaceId === only.spaceId)) {
      throw badInput(`spaceId: space ${quote(only.spaceId)} is in no published site space of this site`);
    }
    spaceIds = spaceIds.filter((id) => id === only.spaceId);
  }
  const searched = site.published
    ? await ctx.prisma.$queryRaw<{ query: string }[]>`
        SELECT data->>'query' AS query FROM "InsightEvent"
        WHERE "siteId" = ${site.id} AND type = 'search_type_query' AND (data->>'found')::boolean IS TRUE
          AND length(data->>'query') BETWEEN 3 AND ${ASK_QUESTION_MAX}
        GROUP BY data->>'query' ORDER BY count(*) DESC, data->>'query' LIMIT ${SEARCHED_QUERIES}`
    : [];
  return questionsOf(
    ctx,
    spaceIds,
    searched.map((row) => row.query),
  );
}
