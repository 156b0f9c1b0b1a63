-- CreateTable
CREATE TABLE "InsightEvent" (
    "id" BIGSERIAL NOT NULL,
    "siteId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "timestamp" TIMESTAMP(3) NOT NULL,
    "visitorId" TEXT NOT NULL,
    "sessionId" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "urlPath" TEXT NOT NULL,
    "displayContext" TEXT NOT NULL DEFAULT 'site',
    "siteSectionId" TEXT,
    "siteSpaceId" TEXT,
    "siteShareKey" TEXT,
    "spaceId" TEXT,
    "pageId" TEXT,
    "revisionId" TEXT,
    "visitorBrowser" TEXT NOT NULL DEFAULT 'unknown',
    "visitorDevice" TEXT NOT NULL DEFAULT 'unknown',
    "visitorOS" TEXT NOT NULL DEFAULT 'unknown',
    "visitorBot" TEXT,
    "visitorLanguage" TEXT,
    "visitorAuthenticated" BOOLEAN,
    "visitorClaims" JSONB,
    "referrer" TEXT,
    "referrerDomain" TEXT,
    "utmSource" TEXT,
    "utmMedium" TEXT,
    "utmCampaign" TEXT,
    "utmTerm" TEXT,
    "utmContent" TEXT,
    "data" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "InsightEvent_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "InsightEvent_siteId_timestamp_idx" ON "InsightEvent"("siteId", "timestamp");

-- AddForeignKey
ALTER TABLE "InsightEvent" ADD CONSTRAINT "InsightEvent_siteId_fkey" FOREIGN KEY ("siteId") REFERENCES "Site"("id") ON DELETE CASCADE ON UPDATE CASCADE;


