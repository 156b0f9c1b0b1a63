-- AlterTable
ALTER TABLE "Organization" ADD COLUMN     "mergeRules" JSONB NOT NULL DEFAULT '{"type": "none"}';

-- AlterTable
ALTER TABLE "Space" ADD COLUMN     "mergeRules" JSONB NOT NULL DEFAULT '{"type": "inherit"}';

-- CreateTable
CREATE TABLE "ChangeRequestReview" (
    "id" TEXT NOT NULL,
    "changeRequestId" TEXT NOT NULL,
    "reviewerId" TEXT NOT NULL,
    "requestedById" TEXT,
    "status" TEXT NOT NULL,
    "revisionId" TEXT NOT NULL,
    "commentId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ChangeRequestReview_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ChangeRequestReviewer" (
    "changeRequestId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "requestedById" TEXT NOT NULL,
    "revisionId" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ChangeRequestReviewer_pkey" PRIMARY KEY ("changeRequestId","userId")
);

-- CreateIndex
CREATE INDEX "ChangeRequestReview_changeRequestId_createdAt_idx" ON "ChangeRequestReview"("changeRequestId", "createdAt");

-- AddForeignKey
ALTER TABLE "ChangeRequestReview" ADD CONSTRAINT "ChangeRequestReview_changeRequestId_fkey" FOREIGN KEY ("changeRequestId") REFERENCES "ChangeRequest"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ChangeRequestReviewer" ADD CONSTRAINT "ChangeRequestReviewer_changeRequestId_fkey" FOREIGN KEY ("changeRequestId") REFERENCES "ChangeRequest"("id") ON DELETE CASCADE ON UPDATE CASCADE;

