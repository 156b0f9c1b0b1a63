-- Ads settings of a site (issue 30, src/core/sites/ads.ts): the review state an ad partner
-- sets and the site's admins ask for. Stored only: published pages never load anything from an
-- ad network, so these columns do not change what a page shows.
ALTER TABLE "Site" ADD COLUMN "adsStatus" TEXT NOT NULL DEFAULT 'pending';
ALTER TABLE "Site" ADD COLUMN "adsTopic" TEXT;
ALTER TABLE "Site" ADD COLUMN "adsZoneId" TEXT;
ALTER TABLE "Site" ADD COLUMN "adsReportingId" TEXT;
ALTER TABLE "Site" ADD COLUMN "adsReason" TEXT;
