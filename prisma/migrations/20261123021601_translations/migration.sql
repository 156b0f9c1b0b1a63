-- CreateTable
CREATE TABLE "TranslationSettings" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "languages" JSONB NOT NULL DEFAULT '[]',
    "sourceSpaceId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "TranslationSettings_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "TranslationTarget" (
    "id" TEXT NOT NULL,
    "translationId" TEXT NOT NULL,
    "language" TEXT NOT NULL,
    "spaceId" TEXT NOT NULL,
    "syncedRevisionId" TEXT,
    "syncedAt" TIMESTAMP(3),
    "untranslated" JSONB NOT NULL DEFAULT '{}',
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "TranslationTarget_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "TranslationSettings_organizationId_createdAt_idx" ON "TranslationSettings"("organizationId", "createdAt");

-- CreateIndex
CREATE INDEX "TranslationTarget_spaceId_idx" ON "TranslationTarget"("spaceId");

-- CreateIndex
CREATE UNIQUE INDEX "TranslationTarget_translationId_language_key" ON "TranslationTarget"("translationId", "language");

-- AddForeignKey
ALTER TABLE "TranslationSettings" ADD CONSTRAINT "TranslationSettings_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "TranslationSettings" ADD CONSTRAINT "TranslationSettings_sourceSpaceId_fkey" FOREIGN KEY ("sourceSpaceId") REFERENCES "Space"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "TranslationTarget" ADD CONSTRAINT "TranslationTarget_translationId_fkey" FOREIGN KEY ("translationId") REFERENCES "TranslationSettings"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "TranslationTarget" ADD CONSTRAINT "TranslationTarget_spaceId_fkey" FOREIGN KEY ("spaceId") REFERENCES "Space"("id") ON DELETE CASCADE ON UPDATE CASCADE;

