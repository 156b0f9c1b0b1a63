// Per-request DataLoaders over raw rows. Every relation a resolver or a rule follows goes
// through one of these, so a request issues one statement per relation and level, never one
// per row. They are raw: visibility is decided by src/auth/access.ts on top of them.
import DataLoader from "dataloader";
import type {
  Collection,
  Member,
  Organization,
  PermissionGrant,
  PrismaClient,
  Space,
  TeamMember,
  User,
} from "../generated/prisma/client.ts";

function byId<T extends { id: string }>(find: (ids: string[]) => Promise<T[]>) {
  return new DataLoader<string, T | null>(async (ids) => {
    const rows = await find([...ids]);
    const found = new Map(rows.map((row) => [row.id, row]));
    return ids.map((id) => found.get(id) ?? null);
  });
}

function groupedBy<T>(keysOf: (row: T) => string[], find: (keys: string[]) => Promise<T[]>) {
  return new DataLoader<string, T[]>(async (keys) => {
    const rows = await find([...keys]);
    const groups = new Map<string, T[]>(keys.map((key) => [key, []]));
    for (const row of rows) for (const key of keysOf(row)) groups.get(key)?.push(row);
    return keys.map((key) => groups.get(key) ?? []);
  });
}

export function createLoaders(prisma: PrismaClient, viewerUserId: string | null) {
  let viewerTeamIds: Promise<string[]> | undefined;
  const teamIdsOfViewer = () =>
    (viewerTeamIds ??= viewerUserId
      ? prisma.teamMember
          .findMany({ where: { userId: viewerUserId }, select: { teamId: true } })
          .then((rows) => rows.map((row) => row.teamId))
      : Promise.resolve([]));

  return {
    organization: byId<Organization>((ids) => prisma.organization.findMany({ where: { id: { in: ids } } })),
    collection: byId<Collection>((ids) => prisma.collection.findMany({ where: { id: { in: ids } } })),
    space: byId<Space>((ids) => prisma.space.findMany({ where: { id: { in: ids } } })),
    user: byId<User>((ids) => prisma.user.findMany({ where: { id: { in: ids } } })),
    /** The viewer's membership in each organization (null when not a member). */
    viewerMembership: new DataLoader<string, Member | null>(async (organizationIds) => {
      if (!viewerUserId) return organizationIds.map(() => null);
      const rows = await prisma.member.findMany({
        where: { userId: viewerUserId, organizationId: { in: [...organizationIds] } },
      });
      const found = new Map(rows.map((row) => [row.organizationId, row]));
      return organizationIds.map((id) => found.get(id) ?? null);
    }),
    /** The viewer's membership in each team (null when not in it). */
    viewerTeamRole: new DataLoader<string, TeamMember | null>(async (teamIds) => {
      if (!viewerUserId) return teamIds.map(() => null);
      const rows = await prisma.teamMember.findMany({ where: { userId: viewerUserId, teamId: { in: [...teamIds] } } });
      const found = new Map(rows.map((row) => [row.teamId, row]));
      return teamIds.map((id) => found.get(id) ?? null);
    }),
    /** Grants on a space or collection that reach the viewer, directly or through a team. */
    viewerGrants: groupedBy<PermissionGrant>(
      (grant) => [grant.spaceId, grant.collectionId].filter((id): id is string => id !== null),
      async (resourceIds) => {
        if (!viewerUserId) return [];
        const teamIds = await teamIdsOfViewer();
        return prisma.permissionGrant.findMany({
          where: {
            OR: [{ spaceId: { in: resourceIds } }, { collectionId: { in: resourceIds } }],
            AND: [{ OR: [{ userId: viewerUserId }, { teamId: { in: teamIds } }] }],
          },
        });
      },
    ),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
