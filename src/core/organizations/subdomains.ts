// Subdomains (the published getSubdomain): an organization's `hostname` is its subdomain, the
// name GitBook serves it under ("my-company" in my-company.gitbook.io). Reading one tells which
// organization holds it, so only that organization's members may: for anyone else a subdomain
// that is held answers exactly like a free one (404), and neither says whether it is taken.
import type { CoreContext } from "../context.ts";
import { badInput, notFound, quote } from "../errors.ts";
import { getOrganization } from "./read.ts";

/** The published pattern of a subdomain (3 to 32 characters). */
export const SUBDOMAIN_PATTERN = /^[a-z0-9][a-z0-9-]{1,30}[a-z0-9]$/;

export interface Subdomain {
  subdomain: string;
  organizationId: string;
  /** Whether the organization serves it now: always, as nothing here keeps a name after it changes. */
  isActive: boolean;
}

export async function getSubdomain(ctx: CoreContext, subdomain: string): Promise<Subdomain> {
  if (!SUBDOMAIN_PATTERN.test(subdomain))
    throw badInput(`subdomain must be 3 to 32 lowercase letters, digits and inner hyphens (got ${quote(subdomain.slice(0, 64))})`);
  const holder = await ctx.prisma.organization.findUnique({ where: { hostname: subdomain }, select: { id: true } });
  if (!holder) throw notFound("subdomain", subdomain);
  // A member of the holder sees it; anyone else gets the same 404 as for a free name.
  await getOrganization(ctx, holder.id).catch(() => {
    throw notFound("subdomain", subdomain);
  });
  return { subdomain, organizationId: holder.id, isActive: true };
}
