-- AlterTable
ALTER TABLE "ApiToken" ADD COLUMN     "installationId" TEXT;

-- CreateTable
CREATE TABLE "Integration" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 1,
    "title" TEXT NOT NULL,
    "visibility" TEXT NOT NULL DEFAULT 'public',
    "target" TEXT NOT NULL DEFAULT 'all',
    "scopes" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "categories" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "manifest" JSONB NOT NULL DEFAULT '{}',
    "hasBlocks" BOOLEAN NOT NULL DEFAULT false,
    "hasContentSources" BOOLEAN NOT NULL DEFAULT false,
    "blockDomains" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "iconHash" TEXT,
    "previewHashes" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "scriptHash" TEXT,
    "secrets" JSONB NOT NULL DEFAULT '{}',
    "signingSecret" TEXT NOT NULL,
    "devTunnelUrl" TEXT,
    "devAll" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Integration_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "IntegrationInstallation" (
    "id" TEXT NOT NULL,
    "integrationId" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'active',
    "spaceSelection" TEXT NOT NULL DEFAULT 'selected',
    "siteSelection" TEXT NOT NULL DEFAULT 'selected',
    "configuration" JSONB NOT NULL DEFAULT '{}',
    "externalIds" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "createdAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "IntegrationInstallation_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "IntegrationSpaceInstallation" (
    "installationId" TEXT NOT NULL,
    "spaceId" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'active',
    "configuration" JSONB NOT NULL DEFAULT '{}',
    "externalIds" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "createdAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "IntegrationSpaceInstallation_pkey" PRIMARY KEY ("installationId","spaceId")
);

-- CreateTable
CREATE TABLE "IntegrationSiteInstallation" (
    "installationId" TEXT NOT NULL,
    "siteId" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'active',
    "configuration" JSONB NOT NULL DEFAULT '{}',
    "externalIds" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "createdAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "IntegrationSiteInstallation_pkey" PRIMARY KEY ("installationId","siteId")
);

-- CreateTable
CREATE TABLE "IntegrationEvent" (
    "id" TEXT NOT NULL,
    "integrationId" TEXT NOT NULL,
    "installationId" TEXT,
    "payload" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "logs" JSONB NOT NULL DEFAULT '[]',
    "seq" SERIAL NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "IntegrationEvent_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Integration_name_key" ON "Integration"("name");

-- CreateIndex
CREATE INDEX "Integration_organizationId_idx" ON "Integration"("organizationId");

-- CreateIndex
CREATE INDEX "IntegrationInstallation_organizationId_idx" ON "IntegrationInstallation"("organizationId");

-- CreateIndex
CREATE UNIQUE INDEX "IntegrationInstallation_integrationId_organizationId_key" ON "IntegrationInstallation"("integrationId", "organizationId");

-- CreateIndex
CREATE INDEX "IntegrationSpaceInstallation_spaceId_idx" ON "IntegrationSpaceInstallation"("spaceId");

-- CreateIndex
CREATE INDEX "IntegrationSiteInstallation_siteId_idx" ON "IntegrationSiteInstallation"("siteId");

-- CreateIndex
CREATE INDEX "IntegrationEvent_integrationId_seq_idx" ON "IntegrationEvent"("integrationId", "seq");

-- AddForeignKey
ALTER TABLE "Integration" ADD CONSTRAINT "Integration_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "IntegrationInstallation" ADD CONSTRAINT "IntegrationInstallation_integrationId_fkey" FOREIGN KEY ("integrationId") REFERENCES "Integration"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "IntegrationInstallation" ADD CONSTRAINT "IntegrationInstallation_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "IntegrationSpaceInstallation" ADD CONSTRAINT "IntegrationSpaceInstallation_installationId_fkey" FOREIGN KEY ("installationId") REFERENCES "IntegrationInstallation"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "IntegrationSiteInstallation" ADD CONSTRAINT "IntegrationSiteInstallation_installationId_fkey" FOREIGN KEY ("installationId") REFERENCES "IntegrationInstallation"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "IntegrationEvent" ADD CONSTRAINT "IntegrationEvent_integrationId_fkey" FOREIGN KEY ("integrationId") REFERENCES "Integration"("id") ON DELETE CASCADE ON UPDATE CASCADE;

