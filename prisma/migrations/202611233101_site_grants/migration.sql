-- Grants on sites (issue 10): a role on one site for one member or one team, as on spaces and
-- collections. Unique per (site, user, team) with NULLs equal, over site grants only, as
-- 20261123000900_grant_uniqueness does for the other kinds of item.
ALTER TABLE "PermissionGrant" ADD COLUMN "siteId" TEXT;

CREATE UNIQUE INDEX "PermissionGrant_siteId_userId_teamId_key" ON "PermissionGrant"("siteId", "userId", "teamId") NULLS NOT DISTINCT WHERE "siteId" IS NOT NULL;

ALTER TABLE "PermissionGrant" ADD CONSTRAINT "PermissionGrant_siteId_fkey" FOREIGN KEY ("siteId") REFERENCES "Site"("id") ON DELETE CASCADE ON UPDATE CASCADE;
