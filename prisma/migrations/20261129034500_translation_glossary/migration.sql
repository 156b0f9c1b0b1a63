-- The translation glossary of an organization (issue 30, src/core/translations/glossary.ts): each
-- entry is a term in several languages; translation runs apply it to the pages they copy, and
-- remember which source body an untranslated copy was made from when the glossary changed it.
-- CreateTable
CREATE TABLE "GlossaryEntry" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "translations" JSONB NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "GlossaryEntry_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "GlossaryEntry_organizationId_createdAt_idx" ON "GlossaryEntry"("organizationId", "createdAt");

-- AddForeignKey
ALTER TABLE "GlossaryEntry" ADD CONSTRAINT "GlossaryEntry_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AlterTable
ALTER TABLE "TranslationTarget" ADD COLUMN "untranslatedSource" JSONB NOT NULL DEFAULT '{}';
