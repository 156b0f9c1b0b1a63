-- A grant names a user or a team, never both, so one of "userId"/"teamId" is always NULL; NULLs
-- are distinct by default, so the two unique indexes below enforced nothing. Duplicates (the
-- newest kept) are removed, then each index counts NULLs as equal over the grants of its own kind
-- of item (a collection grant's NULL "spaceId" must not collide with another collection grant).
-- Same names and columns as prisma/schema.prisma's @@unique: Prisma does not model the options.
DELETE FROM "PermissionGrant" a USING "PermissionGrant" b
WHERE a."spaceId" IS NOT DISTINCT FROM b."spaceId"
  AND a."collectionId" IS NOT DISTINCT FROM b."collectionId"
  AND a."userId" IS NOT DISTINCT FROM b."userId"
  AND a."teamId" IS NOT DISTINCT FROM b."teamId"
  AND (a."createdAt", a."id") < (b."createdAt", b."id");

DROP INDEX "PermissionGrant_spaceId_userId_teamId_key";
CREATE UNIQUE INDEX "PermissionGrant_spaceId_userId_teamId_key" ON "PermissionGrant"("spaceId", "userId", "teamId") NULLS NOT DISTINCT WHERE "spaceId" IS NOT NULL;

DROP INDEX "PermissionGrant_collectionId_userId_teamId_key";
CREATE UNIQUE INDEX "PermissionGrant_collectionId_userId_teamId_key" ON "PermissionGrant"("collectionId", "userId", "teamId") NULLS NOT DISTINCT WHERE "collectionId" IS NOT NULL;
