// Per-request DataLoaders of this domain (composed by src/core/loaders.ts): raw rows, one statement per batch.
import DataLoader from "dataloader";
import { Prisma } from "../../generated/prisma/client.ts";
import type { Collection, Member, Organization, PermissionGrant, PrismaClient, Space } from "../../generated/prisma/client.ts";
import { KnownLoader, rawRows, spaceCountersSql, type SpaceCounters, type SpaceView } from "../loader-kit.ts";

/** Other domains' loaders that a space's view fills with the rows it read. */
interface PrimedByViews {
  organization: DataLoader<string, Organization | null>;
  collection: DataLoader<string, Collection | null>;
  viewerMembership: DataLoader<string, Member | null>;
  viewerGrants: DataLoader<string, PermissionGrant[]>;
}

/** Spaces and their counters. */
export function spaceLoaders(prisma: PrismaClient, viewerUserId: string | null, loaders: PrimedByViews) {
  // The counters of spaces (change requests by status, open comments on each) in one statement.
  const readCounters = async (spaceIds: readonly string[]): Promise<SpaceCounters[]> => {
    const rows = await prisma.$queryRaw<{ spaceId: string; changeRequests: Record<string, number>; openComments: number }[]>(Prisma.sql`
      SELECT k.id AS "spaceId", ${spaceCountersSql("k")}
      FROM unnest(${[...spaceIds]}::text[]) AS k(id)`);
    const found = new Map(rows.map((row) => [row.spaceId, { changeRequests: row.changeRequests, openComments: Number(row.openComments) }]));
    return spaceIds.map((id) => found.get(id) ?? { changeRequests: {}, openComments: 0 });
  };
  // Both loaders below read through this one; not cached itself, so that their clear() after a
  // write is enough.
  const spaceCounters = new DataLoader<string, SpaceCounters>(readCounters, { cache: false });

  /**
   * Spaces with what reading them needs next (rawRows.spaceViews), in one statement: the rows
   * read fill the loaders the access check and the space's fields use (organization, membership,
   * collections, grants), which then send nothing. A loader already holding a key keeps its value.
   */
  const readViews = async (ids: readonly string[], counters: boolean): Promise<(SpaceView | null)[]> => {
    const views = await rawRows.spaceViews(prisma, [...ids], viewerUserId, { counters });
    for (const { space, organization, membership, chain, grants } of views) {
      if (organization) loaders.organization.prime(organization.id, organization);
      loaders.viewerMembership.prime(space.organizationId, membership);
      const grantsOn = new Map<string, PermissionGrant[]>([[space.id, []]]);
      for (const collection of chain) {
        loaders.collection.prime(collection.id, collection);
        grantsOn.set(collection.id, []);
      }
      for (const grant of grants) grantsOn.get((grant.spaceId ?? grant.collectionId)!)?.push(grant);
      for (const [id, found] of grantsOn) loaders.viewerGrants.prime(id, found);
    }
    const found = new Map(views.map((view) => [view.space.id, view]));
    return ids.map((id) => found.get(id) ?? null);
  };
  const space = new KnownLoader<string, Space | null>((ids) =>
    readViews(ids, false).then((views) => views.map((view) => view?.space ?? null)),
  );

  return {
    /**
     * The counters of a page of spaces at once (a list's items, issue 15): one statement, no
     * promise per space. Read afresh, as the loaders below would after a write's clear().
     */
    spaceCounters: readCounters,
    /** Spaces by id; the statement also reads what checking access to them needs (see readViews). */
    space,
    /**
     * A space read with its counters in the same statement (the `space` query, which selects
     * them): its row goes to `space` unless that holds the space already.
     */
    spaceWithCounters: new DataLoader<string, SpaceView | null>(async (ids) => {
      const views = await readViews(ids, true);
      for (const view of views) if (view) space.prime(view.space.id, view.space);
      return views;
    }),
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
