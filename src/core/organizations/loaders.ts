import type DataLoader from "dataloader";
import type { Member, Organization, PrismaClient } from "../../generated/prisma/client.ts";
import { byId, rawRows } from "../loader-kit.ts";

/**
 * The organizations. Each is read with the viewer's membership there, which fills the
 * viewerMembership loader (a loader already holding it keeps its value): reading an organization
 * and checking that the viewer is a member of it is one statement.
 */
export function organizationLoaders(
  prisma: PrismaClient,
  viewerUserId: string | null,
  loaders: { viewerMembership: DataLoader<string, Member | null> },
) {
  return {
    organization: byId<Organization>(async (ids) => {
      const rows = await rawRows.organizations(prisma, ids, viewerUserId);
      for (const { organization, membership } of rows) loaders.viewerMembership.prime(organization.id, membership);
      return rows.map((row) => row.organization);
    }),
  };
}
