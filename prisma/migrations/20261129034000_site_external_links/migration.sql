-- External links of a published site's header (issue 30, src/core/sites/external-links.ts): a
-- title and an http(s) URL shown among the section tabs. Published pages show them, so writes
-- notify site_data (src/db/change-feed.ts lists the table) and they are part of the site's
-- fingerprint (src/core/sites/serve.ts).
-- CreateTable
CREATE TABLE "SiteExternalLink" (
    "id" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "sectionGroupId" TEXT,
    "title" TEXT NOT NULL,
    "localizedTitle" JSONB,
    "description" TEXT,
    "localizedDescription" JSONB,
    "icon" TEXT,
    "url" TEXT NOT NULL,
    "draft" BOOLEAN NOT NULL DEFAULT false,
    "condition" TEXT,
    "sortKey" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "SiteExternalLink_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "SiteExternalLink_siteId_sortKey_idx" ON "SiteExternalLink"("siteId", "sortKey");

-- AddForeignKey
ALTER TABLE "SiteExternalLink" ADD CONSTRAINT "SiteExternalLink_siteId_fkey" FOREIGN KEY ("siteId") REFERENCES "Site"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SiteExternalLink" ADD CONSTRAINT "SiteExternalLink_sectionGroupId_fkey" FOREIGN KEY ("sectionGroupId") REFERENCES "SiteSectionGroup"("id") ON DELETE SET NULL ON UPDATE CASCADE;

CREATE TRIGGER "SiteExternalLink_notify_site_data" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "SiteExternalLink" FOR EACH STATEMENT EXECUTE FUNCTION "notify_site_data"();
