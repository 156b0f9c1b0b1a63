// Per-request DataLoaders of this domain (composed by src/core/loaders.ts): raw rows, one statement per batch.
import DataLoader from "dataloader";
import { Prisma } from "../../generated/prisma/client.ts";
import type { Member, PrismaClient, User } from "../../generated/prisma/client.ts";
import { byId } from "../loader-kit.ts";

/** Key of a member in the loaders below: organization id and user id (ids never contain ":"). */
export const memberKey = (organizationId: string, userId: string) => `${organizationId}:${userId}`;

const splitMemberKeys = (keys: readonly string[]) => {
  const pairs = keys.map((key) => key.split(":"));
  return { organizationIds: pairs.map((pair) => pair[0]), userIds: pairs.map((pair) => pair[1]) };
};

/**
 * The spaces (not deleted) each member reaches through a grant, to them or to one of their teams,
 * on the space or on a collection above it. One statement for any number of members.
 */
export async function grantedSpaceRows(prisma: PrismaClient, keys: readonly string[]) {
  if (keys.length === 0) return [];
  const { organizationIds, userIds } = splitMemberKeys(keys);
  return prisma.$queryRaw<{ organizationId: string; userId: string; spaceId: string }[]>(Prisma.sql`
    WITH RECURSIVE keys(org, usr) AS (
      SELECT * FROM unnest(${organizationIds}::text[], ${userIds}::text[])
    ),
    grants AS (
      SELECT k.org, k.usr, g."spaceId", g."collectionId"
      FROM keys k JOIN "PermissionGrant" g ON g."organizationId" = k.org
      WHERE g."userId" = k.usr
         OR g."teamId" IN (SELECT tm."teamId" FROM "TeamMember" tm WHERE tm."userId" = k.usr)
    ),
    collections(org, usr, id) AS (
      SELECT org, usr, "collectionId" FROM grants WHERE "collectionId" IS NOT NULL
      UNION
      SELECT c2.org, c2.usr, c.id FROM "Collection" c JOIN collections c2 ON c."parentId" = c2.id
    )
    SELECT DISTINCT k.org AS "organizationId", k.usr AS "userId", s.id AS "spaceId"
    FROM keys k JOIN "Space" s ON s."organizationId" = k.org AND s."deletedAt" IS NULL
    WHERE s.id IN (SELECT g."spaceId" FROM grants g WHERE g.org = k.org AND g.usr = k.usr)
       OR s."parentId" IN (SELECT c.id FROM collections c WHERE c.org = k.org AND c.usr = k.usr)`);
}

/** Users and their memberships. */
export function memberLoaders(prisma: PrismaClient, viewerUserId: string | null) {
  return {
    user: byId<User>((ids) => prisma.user.findMany({ where: { id: { in: ids } } })),
    /** Members by `memberKey(organizationId, userId)` (null when not a member). */
    member: new DataLoader<string, Member | null>(async (keys) => {
      const { organizationIds, userIds } = splitMemberKeys(keys);
      const rows = await prisma.member.findMany({
        where: { OR: organizationIds.map((organizationId, index) => ({ organizationId, userId: userIds[index] })) },
      });
      const found = new Map(rows.map((row) => [memberKey(row.organizationId, row.userId), row]));
      return keys.map((key) => found.get(key) ?? null);
    }),
    /** How many teams of the organization each member (`memberKey`) is in. */
    memberTeamCount: new DataLoader<string, number>(async (keys) => {
      const { organizationIds, userIds } = splitMemberKeys(keys);
      const rows = await prisma.$queryRaw<{ key: string; count: number }[]>(Prisma.sql`
        SELECT k.org || ':' || k.usr AS key, count(*)::int AS count
        FROM unnest(${organizationIds}::text[], ${userIds}::text[]) AS k(org, usr)
        JOIN "Team" t ON t."organizationId" = k.org
        JOIN "TeamMember" tm ON tm."teamId" = t.id AND tm."userId" = k.usr
        GROUP BY k.org, k.usr`);
      const found = new Map(rows.map((row) => [row.key, Number(row.count)]));
      return keys.map((key) => found.get(key) ?? 0);
    }),
    /** How many spaces each member (`memberKey`) reaches through grants (see grantedSpaceRows). */
    memberSpaceCount: new DataLoader<string, number>(async (keys) => {
      const counts = new Map<string, number>();
      for (const row of await grantedSpaceRows(prisma, keys)) {
        const key = memberKey(row.organizationId, row.userId);
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
      return keys.map((key) => counts.get(key) ?? 0);
    }),
    /** Whether each user is a member (even disabled) of an organization the viewer is an enabled member of. */
    coMember: new DataLoader<string, boolean>(async (userIds) => {
      if (!viewerUserId) return userIds.map(() => false);
      const rows = await prisma.member.findMany({
        where: {
          userId: { in: [...userIds] },
          organization: { members: { some: { userId: viewerUserId, disabled: false } } },
        },
        select: { userId: true },
      });
      const found = new Set(rows.map((row) => row.userId));
      return userIds.map((id) => found.has(id));
    }),
  };
}
