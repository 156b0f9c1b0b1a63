// Reading an organization: who may see one. Apart from the rules of its fields (index.ts) so that
// the other domains' rules, which all start here, import no organization writes.
import type { Organization } from "../../generated/prisma/client.ts";
import { authorize, type Action } from "../auth/policy.ts";
import type { CoreContext } from "../context.ts";
import { notFound } from "../errors.ts";

/** The organization if the caller is a member of it; 404 otherwise (existence is not leaked). */
export async function getOrganization(ctx: CoreContext, id: string): Promise<Organization> {
  // One after the other: the organization's statement reads the viewer's membership too (loaders.ts).
  const organization = await ctx.loaders.organization.load(id);
  const membership = organization && (await ctx.access.membership(id));
  if (!organization || !membership) throw notFound("organization", id);
  return organization;
}

/**
 * `getOrganization` from what the request already holds, without a promise: the organization, null
 * when getOrganization would answer 404, undefined when something is still to load.
 */
export function visibleOrganizationNow(ctx: CoreContext, id: string): Organization | null | undefined {
  const organization = ctx.loaders.organization.peek(id);
  if (!organization) return organization;
  const membership = ctx.access.membershipNow(id);
  if (membership === undefined) return undefined;
  return membership ? organization : null;
}

/** Loads for `node(id:)` and references: the organization, or null when the caller is not a member. */
export async function loadVisibleOrganizations(ctx: CoreContext, ids: readonly string[]) {
  return Promise.all(ids.map((id) => getOrganization(ctx, id).catch(() => null)));
}

/** The organization (404 unless the caller is a member), if the caller may do `action` in it (else 403). */
export async function requireOrganization(ctx: CoreContext, organizationId: string, action: Action) {
  const organization = await getOrganization(ctx, organizationId);
  await authorize(ctx, action, { organizationId });
  return organization;
}
