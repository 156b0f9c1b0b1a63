// Per-request DataLoaders of this domain (composed by src/core/loaders.ts): raw rows, one statement per batch.
import DataLoader from "dataloader";
import { Prisma } from "../../generated/prisma/client.ts";
import type { PrismaClient, Space } from "../../generated/prisma/client.ts";
import { byId, rawRows } from "../loaders.ts";

export interface SpaceCounters {
  changeRequests: Record<string, number>;
  openComments: number;
}

/** Spaces and their counters. */
export function spaceLoaders(prisma: PrismaClient) {
  // The counters of spaces (change requests by status, open comments on each) in one statement.
  const readCounters = async (spaceIds: readonly string[]): Promise<SpaceCounters[]> => {
    const rows = await prisma.$queryRaw<{ spaceId: string; changeRequests: Record<string, number>; openComments: number }[]>(Prisma.sql`
      SELECT k.id AS "spaceId",
        (SELECT coalesce(json_object_agg(c.status, c.n), '{}'::json)
           FROM (SELECT status, count(*)::int AS n FROM "ChangeRequest" WHERE "spaceId" = k.id GROUP BY status) c) AS "changeRequests",
        (SELECT count(*)::int FROM "Comment"
           WHERE "spaceId" = k.id AND "changeRequestId" IS NULL AND "parentId" IS NULL AND status = 'open') AS "openComments"
      FROM unnest(${[...spaceIds]}::text[]) AS k(id)`);
    const found = new Map(rows.map((row) => [row.spaceId, { changeRequests: row.changeRequests, openComments: Number(row.openComments) }]));
    return spaceIds.map((id) => found.get(id) ?? { changeRequests: {}, openComments: 0 });
  };
  // Both loaders below read through this one; not cached itself, so that their clear() after a
  // write is enough.
  const spaceCounters = new DataLoader<string, SpaceCounters>(readCounters, { cache: false });

  return {
    /**
     * The counters of a page of spaces at once (a list's items, issue 15): one statement, no
     * promise per space. Read afresh, as the loaders below would after a write's clear().
     */
    spaceCounters: readCounters,
    space: byId<Space>((ids) => rawRows.spaces(prisma, ids)),
    /** Change requests of each space, counted by status (one statement with openCommentCount's spaces). */
    changeRequestCounts: new DataLoader<string, Record<string, number>>((spaceIds) =>
      spaceCounters.loadMany(spaceIds).then((rows) => rows.map((row) => (row instanceof Error ? row : row.changeRequests))),
    ),
    /**
     * Open comments (not replies) by base: `space:<id>` counts the comments on the space itself,
     * `cr:<id>` those on a change request.
     */
    openCommentCount: new DataLoader<string, number>(async (keys) => {
      const spaceIds = keys.filter((key) => key.startsWith("space:")).map((key) => key.slice(6));
      const changeRequestIds = keys.filter((key) => key.startsWith("cr:")).map((key) => key.slice(3));
      const [bySpace, byChangeRequest] = await Promise.all([
        spaceCounters.loadMany(spaceIds),
        changeRequestIds.length
          ? prisma.comment.groupBy({
              by: ["changeRequestId"],
              where: { parentId: null, status: "open", changeRequestId: { in: changeRequestIds } },
              _count: { _all: true },
            })
          : [],
      ]);
      const counts = new Map<string, number>([
        ...spaceIds.map((id, index) => [`space:${id}`, (bySpace[index] as SpaceCounters).openComments] as const),
        ...byChangeRequest.map((row) => [`cr:${row.changeRequestId}`, row._count._all] as const),
      ]);
      return keys.map((key) => counts.get(key) ?? 0);
    }),
  };
}
