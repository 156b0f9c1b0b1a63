-- The weighted text vector of a section, stored with it (computed once, when the section is
-- written) rather than for every section a search reads: page title A, heading B, description C,
-- body D. The GIN index is on the column.
DROP INDEX IF EXISTS "SearchSection_weighted_idx";
ALTER TABLE "SearchSection" ADD COLUMN "weighted" tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('english', "pageTitle"), 'A') || setweight(to_tsvector('english', "title"), 'B') ||
  setweight(to_tsvector('english', "pageDescription"), 'C') || setweight(to_tsvector('english', "body"), 'D')
) STORED;
CREATE INDEX "SearchSection_weighted_idx" ON "SearchSection" USING GIN ("weighted");
