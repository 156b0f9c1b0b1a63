-- Fractional ordering keys compare byte by byte; under a locale collation (en_US…) PostgreSQL
-- would order them differently from how they were generated. Prisma's schema cannot express a
-- column collation, so it lives here only.
ALTER TABLE "Collection" ALTER COLUMN "sortKey" TYPE TEXT COLLATE "C";
ALTER TABLE "Space" ALTER COLUMN "sortKey" TYPE TEXT COLLATE "C";
