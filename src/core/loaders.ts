// Per-request DataLoaders over raw rows. Every relation a resolver or a rule follows goes
// through one of these, so a request issues one statement per relation and level, never one
// per row. They are raw: visibility is decided by src/auth/access.ts on top of them.
import DataLoader from "dataloader";
import { Prisma } from "../generated/prisma/client.ts";
import { revisionCache } from "./content/cache.ts";
import type {
  ChangeRequest,
  Collection,
  Member,
  Organization,
  PermissionGrant,
  PrismaClient,
  Revision,
  Space,
  OpenAPISpec,
  Integration,
  IntegrationInstallation,
  Team,
  TranslationSettings,
  TranslationTarget,
  TeamMember,
  User,
} from "../generated/prisma/client.ts";

/**
 * The columns of a model's scalar fields, as its model queries select them (no field is mapped to
 * another column name in this schema).
 */
const columnsOf = (fields: Record<string, string>) =>
  Prisma.raw(
    Object.keys(fields)
      .map((field) => `"${field}"`)
      .join(", "),
  );
const ORGANIZATION_COLUMNS = columnsOf(Prisma.OrganizationScalarFieldEnum);
const COLLECTION_COLUMNS = columnsOf(Prisma.CollectionScalarFieldEnum);
const SPACE_COLUMNS = columnsOf(Prisma.SpaceScalarFieldEnum);
const MEMBER_COLUMNS = columnsOf(Prisma.MemberScalarFieldEnum);

/**
 * The hottest reads of every request (the viewer's memberships, spaces, their collections and
 * organizations) as raw SQL through Prisma: the same statement and the same row objects as
 * `findMany({ where: { id: { in } } })` (test/raw-rows.test.ts compares them on both databases),
 * at well under half of the client CPU, since Prisma 6.19 compiles every model query again
 * (README "Performance").
 */
export const rawRows = {
  organizations: (prisma: PrismaClient, ids: string[]) =>
    prisma.$queryRaw<Organization[]>`SELECT ${ORGANIZATION_COLUMNS} FROM "Organization" WHERE id = ANY(${ids}::text[])`,
  collections: (prisma: PrismaClient, ids: string[]) =>
    prisma.$queryRaw<Collection[]>`SELECT ${COLLECTION_COLUMNS} FROM "Collection" WHERE id = ANY(${ids}::text[])`,
  spaces: (prisma: PrismaClient, ids: string[]) =>
    prisma.$queryRaw<Space[]>`SELECT ${SPACE_COLUMNS} FROM "Space" WHERE id = ANY(${ids}::text[])`,
  membershipsOfUser: (prisma: PrismaClient, userId: string) =>
    prisma.$queryRaw<Member[]>`SELECT ${MEMBER_COLUMNS} FROM "Member" WHERE "userId" = ${userId}`,
};

export function byId<T extends { id: string }>(find: (ids: string[]) => Promise<T[]>) {
  return new DataLoader<string, T | null>(async (ids) => {
    const rows = await find([...ids]);
    const found = new Map(rows.map((row) => [row.id, row]));
    return ids.map((id) => found.get(id) ?? null);
  });
}

export function groupedBy<T>(keysOf: (row: T) => string[], find: (keys: string[]) => Promise<T[]>) {
  return new DataLoader<string, T[]>(async (keys) => {
    const rows = await find([...keys]);
    const groups = new Map<string, T[]>(keys.map((key) => [key, []]));
    for (const row of rows) for (const key of keysOf(row)) groups.get(key)?.push(row);
    return keys.map((key) => groups.get(key) ?? []);
  });
}

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

interface SpaceCounters {
  changeRequests: Record<string, number>;
  openComments: number;
}

export function createLoaders(prisma: PrismaClient, viewerUserId: string | null) {
  let viewerTeamIds: Promise<string[]> | undefined;
  const teamIdsOfViewer = () =>
    (viewerTeamIds ??= viewerUserId
      ? prisma.teamMember
          .findMany({ where: { userId: viewerUserId }, select: { teamId: true } })
          .then((rows) => rows.map((row) => row.teamId))
      : Promise.resolve([]));

  let viewerMemberships: Promise<Map<string, Member>> | undefined;
  const membershipsOfViewer = () =>
    (viewerMemberships ??= viewerUserId
      ? rawRows.membershipsOfUser(prisma, viewerUserId).then((rows) => new Map(rows.map((row) => [row.organizationId, row])))
      : Promise.resolve(new Map()));

  // The counters of a space (change requests by status, open comments on it) in one statement for
  // both loaders above; not cached itself, so that their clear() after a write is enough.
  const spaceCounters = new DataLoader<string, SpaceCounters>(
    async (spaceIds) => {
      const rows = await prisma.$queryRaw<{ spaceId: string; changeRequests: Record<string, number>; openComments: number }[]>(Prisma.sql`
        SELECT k.id AS "spaceId",
          (SELECT coalesce(json_object_agg(c.status, c.n), '{}'::json)
             FROM (SELECT status, count(*)::int AS n FROM "ChangeRequest" WHERE "spaceId" = k.id GROUP BY status) c) AS "changeRequests",
          (SELECT count(*)::int FROM "Comment"
             WHERE "spaceId" = k.id AND "changeRequestId" IS NULL AND "parentId" IS NULL AND status = 'open') AS "openComments"
        FROM unnest(${[...spaceIds]}::text[]) AS k(id)`);
      const found = new Map(
        rows.map((row) => [row.spaceId, { changeRequests: row.changeRequests, openComments: Number(row.openComments) }]),
      );
      return spaceIds.map((id) => found.get(id) ?? { changeRequests: {}, openComments: 0 });
    },
    { cache: false },
  );

  return {
    organization: byId<Organization>((ids) => rawRows.organizations(prisma, ids)),
    collection: byId<Collection>((ids) => rawRows.collections(prisma, ids)),
    space: byId<Space>((ids) => rawRows.spaces(prisma, ids)),
    /** Revisions, immutable: decoded once per process (cache.ts), read again only after eviction. */
    revision: byId<Revision>(async (ids) => {
      const cache = revisionCache(prisma);
      const missing = ids.filter((id) => !cache.has(id));
      if (missing.length) for (const row of await prisma.revision.findMany({ where: { id: { in: missing } } })) cache.set(row.id, row);
      return ids.map((id) => cache.get(id)).filter((row): row is Revision => row !== undefined);
    }),
    /** Blob bytes by SHA-256 (page markdown, file contents). */
    blob: new DataLoader<string, Uint8Array | null>(async (hashes) => {
      const rows = await prisma.blob.findMany({ where: { hash: { in: [...hashes] } } });
      const found = new Map(rows.map((row) => [row.hash, row.data as Uint8Array]));
      return hashes.map((hash) => found.get(hash) ?? null);
    }),
    user: byId<User>((ids) => prisma.user.findMany({ where: { id: { in: ids } } })),
    openAPISpec: byId<OpenAPISpec>((ids) => prisma.openAPISpec.findMany({ where: { id: { in: ids } } })),
    translation: byId<TranslationSettings>((ids) => prisma.translationSettings.findMany({ where: { id: { in: ids } } })),
    /** The targets of each translation (by translation id). */
    translationTargets: groupedBy<TranslationTarget>(
      (row) => [row.translationId],
      (ids) => prisma.translationTarget.findMany({ where: { translationId: { in: ids } } }),
    ),
    integration: byId<Integration>((ids) => prisma.integration.findMany({ where: { id: { in: ids } } })),
    integrationByName: new DataLoader<string, Integration | null>(async (names) => {
      const rows = await prisma.integration.findMany({ where: { name: { in: [...names] } } });
      const found = new Map(rows.map((row) => [row.name, row]));
      return names.map((name) => found.get(name) ?? null);
    }),
    integrationInstallation: byId<IntegrationInstallation>((ids) =>
      prisma.integrationInstallation.findMany({ where: { id: { in: ids } } }),
    ),
    /** Number of spaces each installation is on. */
    installationSpaceCount: new DataLoader<string, number>(async (ids) => {
      const rows = await prisma.integrationSpaceInstallation.groupBy({
        by: ["installationId"],
        where: { installationId: { in: [...ids] } },
        _count: { _all: true },
      });
      const found = new Map(rows.map((row) => [row.installationId, row._count._all]));
      return ids.map((id) => found.get(id) ?? 0);
    }),
    /** The spaces and sites an installation is on (for its tokens' access). */
    installationTargets: new DataLoader<string, { spaceIds: Set<string>; siteIds: Set<string> }>(async (ids) => {
      const [spaces, sites] = await Promise.all([
        prisma.integrationSpaceInstallation.findMany({
          where: { installationId: { in: [...ids] } },
          select: { installationId: true, spaceId: true },
        }),
        prisma.integrationSiteInstallation.findMany({
          where: { installationId: { in: [...ids] } },
          select: { installationId: true, siteId: true },
        }),
      ]);
      return ids.map((id) => ({
        spaceIds: new Set(spaces.filter((row) => row.installationId === id).map((row) => row.spaceId)),
        siteIds: new Set(sites.filter((row) => row.installationId === id).map((row) => row.siteId)),
      }));
    }),
    changeRequest: byId<ChangeRequest>((ids) => prisma.changeRequest.findMany({ where: { id: { in: ids } } })),
    /** A change request by `${spaceId}:${number}`. */
    changeRequestByNumber: new DataLoader<string, ChangeRequest | null>(async (keys) => {
      const pairs = keys.map((key) => ({ spaceId: key.slice(0, key.indexOf(":")), number: Number(key.slice(key.indexOf(":") + 1)) }));
      const rows = await prisma.changeRequest.findMany({ where: { OR: pairs } });
      const found = new Map(rows.map((row) => [`${row.spaceId}:${row.number}`, row]));
      return keys.map((key) => found.get(key) ?? null);
    }),
    /** The change request whose merge made a revision. */
    changeRequestMergedInto: new DataLoader<string, ChangeRequest | null>(async (revisionIds) => {
      const rows = await prisma.changeRequest.findMany({ where: { revisionMergedId: { in: [...revisionIds] } } });
      const found = new Map(rows.map((row) => [row.revisionMergedId!, row]));
      return revisionIds.map((id) => found.get(id) ?? null);
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
    /** The viewer's membership in each organization (null when not a member). */
    viewerMembership: new DataLoader<string, Member | null>(async (organizationIds) => {
      const found = await membershipsOfViewer();
      return organizationIds.map((id) => found.get(id) ?? null);
    }),
    /**
     * Starts loading the viewer's memberships (all of them: one user is in few organizations)
     * now, so that it runs beside the request's first load rather than after it.
     */
    startViewerLoads() {
      membershipsOfViewer().catch(() => {}); // a failure reaches whoever awaits it
    },
    /** The viewer's membership in each team (null when not in it). */
    viewerTeamRole: new DataLoader<string, TeamMember | null>(async (teamIds) => {
      if (!viewerUserId) return teamIds.map(() => null);
      const rows = await prisma.teamMember.findMany({ where: { userId: viewerUserId, teamId: { in: [...teamIds] } } });
      const found = new Map(rows.map((row) => [row.teamId, row]));
      return teamIds.map((id) => found.get(id) ?? null);
    }),
    /** Grants on a space, collection or site that reach the viewer, directly or through a team. */
    viewerGrants: groupedBy<PermissionGrant>(
      (grant) => [grant.spaceId, grant.collectionId, grant.siteId].filter((id): id is string => id !== null),
      async (resourceIds) => {
        if (!viewerUserId) return [];
        const teamIds = await teamIdsOfViewer();
        return prisma.permissionGrant.findMany({
          where: {
            OR: [{ spaceId: { in: resourceIds } }, { collectionId: { in: resourceIds } }, { siteId: { in: resourceIds } }],
            AND: [{ OR: [{ userId: viewerUserId }, { teamId: { in: teamIds } }] }],
          },
        });
      },
    ),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
