// Ask's retrieval: the sections that best answer a question, among the spaces the asker may read.
// Lexical (the search index: stemming, synonyms, typos; any word of the question) and, on a site
// with a trained model, by vector (src/core/ask/vectors.ts), the two rankings fused by reciprocal
// rank. A vector hit is read again from the search index within the same spaces: a section the
// asker may not read, or one gone since the model was trained, is never returned.
import type { Services } from "../context.ts";
import { searchSections, type SectionHit, type Synonyms } from "../search/index.ts";
import { nearestSections } from "./vectors.ts";

/** A retrieved section. */
export type RetrievedSection = Pick<SectionHit, "id" | "spaceId" | "pageId" | "pageTitle" | "pagePath" | "anchor" | "title" | "body">;

/** The reciprocal rank fusion constant (the usual 60: the top ranks of each list weigh, none dominates). */
const FUSION_K = 60;

/**
 * The sections of `spaces` that best answer `question`, best first, at most `limit`. With
 * `siteId`, the site's vector model ranks too (once trained); without, lexical only.
 */
export async function retrieveSections(
  ctx: Pick<Services, "prisma" | "jobs" | "clock" | "askVectors">,
  spaces: { id: string; revisionId: string }[],
  question: string,
  options: { synonyms: Synonyms; siteId: string | null; limit: number },
): Promise<RetrievedSection[]> {
  const spaceIds = spaces.map((space) => space.id);
  // Any of the question's words may match: a question rarely holds all of a passage's words.
  const lexical = await searchSections(ctx, spaceIds, question, {
    synonyms: options.synonyms,
    anyWord: true,
    limit: options.limit,
    highlighted: 0,
  });
  const nearest = options.siteId ? await nearestSections(ctx, options.siteId, spaces, question, options.limit) : [];
  if (!nearest.length) return lexical;
  const rows = await ctx.prisma.searchSection.findMany({
    where: { id: { in: nearest }, spaceId: { in: spaceIds } },
    select: { id: true, spaceId: true, pageId: true, pageTitle: true, pagePath: true, anchor: true, title: true, body: true },
  });
  const byId = new Map<string, RetrievedSection>(rows.map((row) => [row.id, row]));
  const fused = new Map<string, { section: RetrievedSection; score: number; order: number }>();
  const add = (section: RetrievedSection, rank: number, order: number) => {
    const entry = fused.get(section.id);
    if (entry) entry.score += 1 / (FUSION_K + rank);
    else fused.set(section.id, { section, score: 1 / (FUSION_K + rank), order });
  };
  lexical.forEach((hit, rank) => add(hit, rank, rank));
  // At an equal score the lexical hit comes first.
  nearest.forEach((id, rank) => {
    const section = byId.get(id);
    if (section) add(section, rank, lexical.length + rank);
  });
  return [...fused.values()]
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, options.limit)
    .map(({ section }) => section);
}
