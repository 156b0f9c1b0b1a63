-- Signed storage upload URLs (issue 30, src/core/storage): what each URL announced, and the blob
-- its upload stored.
-- CreateTable
CREATE TABLE "StorageUpload" (
    "key" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "contentType" TEXT NOT NULL,
    "declaredSize" INTEGER NOT NULL,
    "createdById" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "blobHash" TEXT,
    "size" INTEGER,
    "uploadedAt" TIMESTAMP(3),

    CONSTRAINT "StorageUpload_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "StorageUpload_organizationId_createdAt_idx" ON "StorageUpload"("organizationId", "createdAt");

-- AddForeignKey
ALTER TABLE "StorageUpload" ADD CONSTRAINT "StorageUpload_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;
