// A section's terms as the search index holds them: PostgreSQL's text of a tsvector
// (`'invoic':3,7A 'it''s':2`, lexemes in order, quotes and backslashes doubled), read as text and
// taken apart here, in the training's thread, rather than by the database row by row.
import type { TermCounts } from "./lsa.ts";

const LEXEME = /'((?:[^'\\]|''|\\.)*)'(?::([0-9A-D,]+))?/g;

/** Each lexeme of `vector` and how often it occurs (its positions; 1 when it has none). */
export function termCountsOf(vector: string): TermCounts {
  const terms: string[] = [];
  const counts: number[] = [];
  for (const match of vector.matchAll(LEXEME)) {
    terms.push(match[1]!.replace(/''|\\(.)/g, (_, escaped: string | undefined) => escaped ?? "'"));
    counts.push(match[2] ? match[2].split(",").length : 1);
  }
  return { terms, counts };
}
