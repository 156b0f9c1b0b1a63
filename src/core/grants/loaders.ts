// Per-request DataLoaders of this domain (composed by src/core/loaders.ts): raw rows, one statement per batch.
import DataLoader from "dataloader";
import type { Member, PermissionGrant, PrismaClient, TeamMember } from "../../generated/prisma/client.ts";
import { groupedBy, rawRows } from "../loaders.ts";

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
