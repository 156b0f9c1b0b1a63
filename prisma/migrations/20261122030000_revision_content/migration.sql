-- AlterTable
ALTER TABLE "Revision" ADD COLUMN     "createdById" TEXT,
ADD COLUMN     "files" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN     "message" TEXT,
ADD COLUMN     "pages" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN     "variables" JSONB NOT NULL DEFAULT '{}';

-- CreateTable
CREATE TABLE "Blob" (
    "hash" TEXT NOT NULL,
    "data" BYTEA NOT NULL,
    "size" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Blob_pkey" PRIMARY KEY ("hash")
);

