-- Redirects of a published site (issue 30, src/core/sites/redirects.ts): a source path of the
-- site and its destination. Published pages depend on them (a request that finds no page may be
-- redirected), so writes notify site_data (src/db/change-feed.ts lists the table); the
-- site-redirects realtime channel follows them (notify_realtime, row ids only).
-- CreateTable
CREATE TABLE "SiteRedirect" (
    "id" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "draft" BOOLEAN NOT NULL DEFAULT false,
    "captureWildcard" BOOLEAN NOT NULL DEFAULT false,
    "permanent" BOOLEAN NOT NULL DEFAULT false,
    "destination" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "SiteRedirect_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "SiteRedirect_siteId_source_draft_key" ON "SiteRedirect"("siteId", "source", "draft");

-- CreateIndex
CREATE INDEX "SiteRedirect_siteId_createdAt_idx" ON "SiteRedirect"("siteId", "createdAt");

-- AddForeignKey
ALTER TABLE "SiteRedirect" ADD CONSTRAINT "SiteRedirect_siteId_fkey" FOREIGN KEY ("siteId") REFERENCES "Site"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TRIGGER "SiteRedirect_notify_site_data" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "SiteRedirect" FOR EACH STATEMENT EXECUTE FUNCTION "notify_site_data"();
CREATE TRIGGER "SiteRedirect_notify_realtime" AFTER INSERT OR UPDATE OR DELETE ON "SiteRedirect" FOR EACH ROW EXECUTE FUNCTION "notify_realtime"();
