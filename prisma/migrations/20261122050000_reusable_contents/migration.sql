-- AlterTable
ALTER TABLE "Revision" ADD COLUMN     "reusableContents" JSONB NOT NULL DEFAULT '[]';

