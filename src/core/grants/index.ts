// Permission grants: a role given on one space or collection to one member or one team of its
// organization. Changing them needs `space.grant` / `collection.grant` (admin on the item). The
// effective role reads them through the loaders (src/auth/access.ts), so a change counts from the
// next request on; a team grant reaches whoever is in the team at that moment.
import type { Collection, Space } from "../../generated/prisma/client.ts";
import { authorize } from "../../auth/policy.ts";
import { isRole, ROLES, type Role } from "../../auth/roles.ts";
import type { CoreContext } from "../context.ts";
import { badInput, conflict } from "../errors.ts";
import { newId } from "../ids.ts";
import { memberKey } from "../loaders.ts";
import { readCollection } from "../collections/index.ts";
import { readSpace } from "../spaces/index.ts";

export interface GrantInput {
  /** Exactly one of user and team. */
  user?: string | null;
  team?: string | null;
  /** The role to give; null removes the grant. */
  role: string | null;
}

function checkGrantRole(value: string | null): Role | null {
  if (value !== null && !isRole(value)) throw badInput(`role must be one of ${ROLES.join(", ")} or null to remove the grant (got "${value}")`);
  return value;
}

/** The subject of a grant: a member or a team of the organization, else 400 naming it. */
async function grantee(ctx: CoreContext, organizationId: string, input: GrantInput) {
  const user = input.user ?? null;
  const team = input.team ?? null;
  if ((user === null) === (team === null)) throw badInput("Exactly one of user and team is required");
  if (user !== null) {
    const member = await ctx.loaders.member.load(memberKey(organizationId, user));
    if (!member) throw badInput(`user: "${user}" is not a member of this organization`);
    return { userId: user, teamId: null };
  }
  const row = await ctx.loaders.team.load(team!);
  if (!row || row.organizationId !== organizationId) throw badInput(`team: no team "${team}" in this organization`);
  return { userId: null, teamId: team! };
}

async function setGrant(
  ctx: CoreContext,
  item: { spaceId: string } | { collectionId: string },
  organizationId: string,
  subject: { userId: string | null; teamId: string | null },
  role: Role | null,
) {
  const where = { ...item, userId: subject.userId, teamId: subject.teamId };
  await ctx.prisma.$transaction(async (tx) => {
    await tx.permissionGrant.deleteMany({ where });
    if (role !== null) {
      await tx.permissionGrant.create({ data: { id: newId("PermissionGrant"), organizationId, ...where, role } });
    }
  });
  ctx.loaders.viewerGrants.clear("spaceId" in item ? item.spaceId : item.collectionId);
}

/** Gives `role` on the space to a member or a team (replacing their grant there), or removes it (null). */
export async function setSpaceGrant(ctx: CoreContext, spaceId: string, input: GrantInput): Promise<{ space: Space; role: Role | null }> {
  const role = checkGrantRole(input.role);
  const { space } = await readSpace(ctx, spaceId);
  if (space.deletedAt) throw conflict(`Space "${spaceId}" is deleted: restore it before you change who can access it`);
  await authorize(ctx, "space.grant", { space });
  const subject = await grantee(ctx, space.organizationId, input);
  await setGrant(ctx, { spaceId }, space.organizationId, subject, role);
  return { space, role };
}

/** Gives `role` on the collection (and what is beneath it) to a member or a team, or removes it (null). */
export async function setCollectionGrant(
  ctx: CoreContext,
  collectionId: string,
  input: GrantInput,
): Promise<{ collection: Collection; role: Role | null }> {
  const role = checkGrantRole(input.role);
  const { collection } = await readCollection(ctx, collectionId);
  await authorize(ctx, "collection.grant", { collection });
  const subject = await grantee(ctx, collection.organizationId, input);
  await setGrant(ctx, { collectionId }, collection.organizationId, subject, role);
  return { collection, role };
}
