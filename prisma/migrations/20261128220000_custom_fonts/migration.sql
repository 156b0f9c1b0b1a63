-- Custom fonts of an organization (issue 31, src/core/fonts): a family and its faces, which a
-- site's customization may name (`styling.font` as a custom font definition). Published pages
-- depend on them, so writes notify site_data (src/db/change-feed.ts lists the table); the
-- organization-fonts realtime channel follows them (notify_realtime, row ids only).
-- CreateTable
CREATE TABLE "CustomFont" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "fontFamily" TEXT NOT NULL,
    "faces" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "CustomFont_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "CustomFont_organizationId_createdAt_idx" ON "CustomFont"("organizationId", "createdAt");

-- AddForeignKey
ALTER TABLE "CustomFont" ADD CONSTRAINT "CustomFont_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TRIGGER "CustomFont_notify_site_data" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "CustomFont" FOR EACH STATEMENT EXECUTE FUNCTION "notify_site_data"();
CREATE TRIGGER "CustomFont_notify_realtime" AFTER INSERT OR UPDATE OR DELETE ON "CustomFont" FOR EACH ROW EXECUTE FUNCTION "notify_realtime"();
