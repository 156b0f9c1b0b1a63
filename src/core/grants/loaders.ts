// Per-request DataLoaders of this domain (composed by src/core/loaders.ts): raw rows, one statement per batch.
import DataLoader from "dataloader";
import type { Member, PermissionGrant, PrismaClient, TeamMember } from "../../generated/prisma/client.ts";
import { groupedBy, KnownLoader, rawRows } from "../loader-kit.ts";

/** The viewer's own access: memberships, team roles and the grants that reach them. */
export function viewerLoaders(prisma: PrismaClient, viewerUserId: string | null) {
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

  return {
    /**
     * The viewer's membership in each organization (null when not a member): all of the viewer's
     * memberships in one statement (one user is in few organizations), when first needed. A
     * space's view (spaces/loaders.ts) fills in the one of its organization, so a space read sends
     * no statement of its own for it; loaded at the start of every request instead, it was a
     * statement (and a stage: it ended before the first load began) even where nothing needed it.
     */
    viewerMembership: new KnownLoader<string, Member | null>(async (organizationIds) => {
      const found = await membershipsOfViewer();
      return organizationIds.map((id) => found.get(id) ?? null);
    }),
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
