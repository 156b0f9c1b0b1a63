// Per-request DataLoaders of this domain (composed by src/core/loaders.ts): raw rows, one statement per batch.
import DataLoader from "dataloader";
import { Prisma } from "../../generated/prisma/client.ts";
import type { PrismaClient, Team } from "../../generated/prisma/client.ts";
import { byId } from "../loader-kit.ts";

/** Teams. */
export function teamLoaders(prisma: PrismaClient) {
  return {
    team: byId<Team>((ids) => prisma.team.findMany({ where: { id: { in: ids } } })),
    /** How many members each team has. */
    teamMemberCount: new DataLoader<string, number>(async (teamIds) => {
      const rows = await prisma.teamMember.groupBy({ by: ["teamId"], where: { teamId: { in: [...teamIds] } }, _count: { _all: true } });
      const found = new Map(rows.map((row) => [row.teamId, row._count._all]));
      return teamIds.map((id) => found.get(id) ?? 0);
    }),
    /** How many spaces (not deleted) each team reaches through its grants, on the space or a collection above it. */
    teamSpaceCount: new DataLoader<string, number>(async (teamIds) => {
      const rows = await prisma.$queryRaw<{ teamId: string; count: number }[]>(Prisma.sql`
        WITH RECURSIVE grants AS (
          SELECT g."teamId", g."spaceId", g."collectionId" FROM "PermissionGrant" g WHERE g."teamId" = ANY(${[...teamIds]}::text[])
        ),
        collections("teamId", id) AS (
          SELECT "teamId", "collectionId" FROM grants WHERE "collectionId" IS NOT NULL
          UNION
          SELECT c2."teamId", c.id FROM "Collection" c JOIN collections c2 ON c."parentId" = c2.id
        ),
        reached("teamId", "spaceId") AS (
          SELECT "teamId", "spaceId" FROM grants WHERE "spaceId" IS NOT NULL
          UNION
          SELECT c."teamId", s.id FROM collections c JOIN "Space" s ON s."parentId" = c.id
        )
        SELECT r."teamId" AS "teamId", count(*)::int AS count
        FROM reached r JOIN "Space" s ON s.id = r."spaceId" AND s."deletedAt" IS NULL
        GROUP BY r."teamId"`);
      const found = new Map(rows.map((row) => [row.teamId, Number(row.count)]));
      return teamIds.map((id) => found.get(id) ?? 0);
    }),
  };
}
