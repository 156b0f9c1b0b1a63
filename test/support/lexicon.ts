// Synthetic documentation of any size, generated (no fixtures): pages of sections whose words come
// from a seeded lexicon of made-up words, grouped in topics, so that an LSA model of them has
// directions to find (each section draws mostly from its topic's words, a few from any topic).

export interface LexiconOptions {
  pages: number;
  /** Sections per page: the page's opening paragraph and a heading for each of the others. */
  sectionsPerPage: number;
  /** Distinct words of the lexicon. */
  words: number;
  topics: number;
  wordsPerSection: number;
  seed?: number;
}

export const DEFAULT_LEXICON: Omit<LexiconOptions, "pages"> = { sectionsPerPage: 5, words: 30_000, topics: 200, wordsPerSection: 60 };

const CONSONANTS = "bdfgklmnprstvz";
const VOWELS = "aeiou";

/** The pages (title, markdown), the same for the same options. */
export function lexiconPages(options: LexiconOptions): { title: string; markdown: string }[] {
  const random = seeded(options.seed ?? 1);
  const pick = (n: number) => Math.floor(random() * n);
  // Distinct made-up words of 3 to 5 syllables (no English word stems into another).
  const lexicon = new Set<string>();
  while (lexicon.size < options.words) {
    let word = "";
    for (let syllables = 3 + pick(3); syllables > 0; syllables--)
      word += CONSONANTS[pick(CONSONANTS.length)]! + VOWELS[pick(VOWELS.length)]!;
    lexicon.add(word);
  }
  const words = [...lexicon];
  // Each topic's words: a slice of the lexicon (topics overlap at their edges).
  const topicSize = Math.ceil(words.length / options.topics);
  const wordOf = (topic: number) => words[(topic * topicSize + pick(topicSize * 2)) % words.length]!;
  const paragraph = (topic: number) =>
    Array.from({ length: options.wordsPerSection }, () => (random() < 0.8 ? wordOf(topic) : wordOf(pick(options.topics)))).join(" ");
  return Array.from({ length: options.pages }, (_, page) => {
    const topic = pick(options.topics);
    const sections = [paragraph(topic)];
    for (let section = 1; section < options.sectionsPerPage; section++)
      sections.push(`## ${wordOf(topic)} ${section}\n\n${paragraph(random() < 0.7 ? topic : pick(options.topics))}`);
    return { title: `Page ${page} ${wordOf(topic)}`, markdown: sections.join("\n\n") };
  });
}

/** A small seeded generator of numbers in [0, 1) (mulberry32). */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
