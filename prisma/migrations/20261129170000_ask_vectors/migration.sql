-- Ask's vector model of a site (issue 33, src/core/ask/vectors.ts): one row per site with the
-- model and its sections' vectors packed as float32 bytes, terms and section ids one a line
-- (PostgreSQL here has no pgvector; scoring runs in JS over a site's vectors, docs/decisions.md).
-- CreateTable
CREATE TABLE "AskVectorModel" (
    "siteId" TEXT NOT NULL,
    "revisions" JSONB NOT NULL,
    "trainedAt" TIMESTAMP(3) NOT NULL,
    "dimensions" INTEGER NOT NULL,
    "reason" TEXT,
    "terms" TEXT NOT NULL,
    "idf" BYTEA NOT NULL,
    "projection" BYTEA NOT NULL,
    "sectionIds" TEXT NOT NULL,
    "vectors" BYTEA NOT NULL,
    "sectionsTotal" INTEGER NOT NULL,
    "trainingMs" INTEGER NOT NULL,

    CONSTRAINT "AskVectorModel_pkey" PRIMARY KEY ("siteId")
);

-- AddForeignKey
ALTER TABLE "AskVectorModel" ADD CONSTRAINT "AskVectorModel_siteId_fkey" FOREIGN KEY ("siteId") REFERENCES "Site"("id") ON DELETE CASCADE ON UPDATE CASCADE;
