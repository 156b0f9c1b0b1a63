-- Git Sync installations (issue 32): a space or a site connected to a configured repository.
CREATE TABLE "GitSyncInstallation" (
    "id" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "targetKey" TEXT NOT NULL,
    "spaceId" TEXT,
    "siteId" TEXT,
    "parentId" TEXT,
    "repositoryId" INTEGER,
    "branch" TEXT,
    "customInstanceUrl" TEXT,
    "accessToken" TEXT,
    "setup" JSONB NOT NULL DEFAULT '{}',
    "createdById" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "GitSyncInstallation_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "GitSyncInstallation_targetKey_key" ON "GitSyncInstallation"("targetKey");
CREATE INDEX "GitSyncInstallation_siteId_idx" ON "GitSyncInstallation"("siteId");
CREATE INDEX "GitSyncInstallation_parentId_idx" ON "GitSyncInstallation"("parentId");

ALTER TABLE "GitSyncInstallation" ADD CONSTRAINT "GitSyncInstallation_spaceId_fkey" FOREIGN KEY ("spaceId") REFERENCES "Space"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "GitSyncInstallation" ADD CONSTRAINT "GitSyncInstallation_siteId_fkey" FOREIGN KEY ("siteId") REFERENCES "Site"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "GitSyncInstallation" ADD CONSTRAINT "GitSyncInstallation_parentId_fkey" FOREIGN KEY ("parentId") REFERENCES "GitSyncInstallation"("id") ON DELETE CASCADE ON UPDATE CASCADE;
