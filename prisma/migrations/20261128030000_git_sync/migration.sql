-- Git Sync of a space (issue 32): its remote, sealed credentials and latest operation.
CREATE TABLE "GitSync" (
    "spaceId" TEXT NOT NULL,
    "installationId" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "ref" TEXT NOT NULL,
    "credentials" TEXT,
    "treeUrl" TEXT,
    "operation" JSONB,
    "eventTimestamp" TIMESTAMP(3),
    "createdById" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "GitSync_pkey" PRIMARY KEY ("spaceId")
);

CREATE UNIQUE INDEX "GitSync_installationId_key" ON "GitSync"("installationId");

ALTER TABLE "GitSync" ADD CONSTRAINT "GitSync_spaceId_fkey" FOREIGN KEY ("spaceId") REFERENCES "Space"("id") ON DELETE CASCADE ON UPDATE CASCADE;
