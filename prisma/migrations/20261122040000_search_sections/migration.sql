-- CreateTable
CREATE TABLE "SearchSection" (
    "id" TEXT NOT NULL,
    "spaceId" TEXT NOT NULL,
    "pageId" TEXT NOT NULL,
    "pageSignature" TEXT NOT NULL,
    "pageTitle" TEXT NOT NULL,
    "pagePath" TEXT NOT NULL,
    "pageDescription" TEXT NOT NULL,
    "ancestors" TEXT[],
    "position" INTEGER NOT NULL,
    "anchor" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "body" TEXT NOT NULL,

    CONSTRAINT "SearchSection_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "SearchSection_spaceId_pageId_idx" ON "SearchSection"("spaceId", "pageId");

-- AddForeignKey
ALTER TABLE "SearchSection" ADD CONSTRAINT "SearchSection_spaceId_fkey" FOREIGN KEY ("spaceId") REFERENCES "Space"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Full-text search over section title and body (Prisma's schema cannot express it).
CREATE INDEX "SearchSection_text_idx" ON "SearchSection" USING GIN (to_tsvector('english', "title" || ' ' || "body"));
