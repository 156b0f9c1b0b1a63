-- Search that forgives (issue 33): trigram similarity for typos, a vocabulary per space for
-- corrections and prefix completions, per-site synonyms, and a weighted text vector so that a
-- page title outranks a heading, which outranks the body.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- AlterTable
ALTER TABLE "Site" ADD COLUMN "searchSynonyms" JSONB NOT NULL DEFAULT '[]';

-- CreateTable
CREATE TABLE "SearchTerm" (
    "spaceId" TEXT NOT NULL,
    "term" TEXT NOT NULL,

    CONSTRAINT "SearchTerm_pkey" PRIMARY KEY ("spaceId","term")
);

-- AddForeignKey
ALTER TABLE "SearchTerm" ADD CONSTRAINT "SearchTerm_spaceId_fkey" FOREIGN KEY ("spaceId") REFERENCES "Space"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Trigram index of the vocabulary (Prisma's schema cannot express it).
CREATE INDEX "SearchTerm_term_trgm_idx" ON "SearchTerm" USING GIN ("term" gin_trgm_ops);

-- The weighted vector replaces the unweighted one (src/core/search repeats this expression).
DROP INDEX IF EXISTS "SearchSection_text_idx";
CREATE INDEX "SearchSection_weighted_idx" ON "SearchSection" USING GIN ((
  setweight(to_tsvector('english', "pageTitle"), 'A') || setweight(to_tsvector('english', "title"), 'B') ||
  setweight(to_tsvector('english', "pageDescription"), 'C') || setweight(to_tsvector('english', "body"), 'D')
));

-- The vocabulary of what is indexed already (the same words src/core/search extracts).
INSERT INTO "SearchTerm" ("spaceId", "term")
SELECT DISTINCT s."spaceId", w.word
FROM "SearchSection" s,
     regexp_split_to_table(lower(s."pageTitle" || ' ' || s."title" || ' ' || s."body"), '[^[:alnum:]]+') AS w(word)
WHERE length(w.word) BETWEEN 2 AND 40
ON CONFLICT DO NOTHING;
