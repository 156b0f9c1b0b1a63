// Publishing auth of visitor-auth sites: the private key that signs visitors' JWTs (HS256), where
// to send a visitor whose token is refused, and where to log out. Regenerating the key makes
// every token signed with the old one invalid at once (the reader checks each request against the
// key stored now). Only `visitor-auth` sites have these settings (400 for any other); managing
// them needs `site.manageAccess`.
import type { Prisma, Site } from "../../generated/prisma/client.ts";
import type { CoreContext } from "../context.ts";
import { badInput, quote } from "../errors.ts";
import { checkUrl } from "../validate.ts";
import { newPrivateKey, requireSite } from "./index.ts";
import { siteLoaders } from "./loaders.ts";

/** `integration` backends need an installed visitor-auth integration, which this service has none of. */
export const AUTH_BACKENDS = ["custom"] as const;

async function requireVisitorAuthSite(ctx: CoreContext, organizationId: string | null | undefined, siteId: string): Promise<Site> {
  const site = await requireSite(ctx, organizationId, siteId, "site.manageAccess");
  if (site.visibility !== "visitor-auth") {
    throw badInput(`visibility: publishing auth is for visitor-auth sites (this site's visibility is ${site.visibility})`);
  }
  return site;
}

export const publishingAuthOf = (site: Site) => ({
  backend: site.authBackend,
  privateKey: site.authPrivateKey,
  fallbackURL: site.authFallbackURL,
  logoutURL: site.authLogoutURL,
});

export async function readPublishingAuth(ctx: CoreContext, organizationId: string | null | undefined, siteId: string) {
  return publishingAuthOf(await requireVisitorAuthSite(ctx, organizationId, siteId));
}

export async function updatePublishingAuth(
  ctx: CoreContext,
  organizationId: string | null | undefined,
  siteId: string,
  patch: { backend?: string | null; fallbackURL?: string | null; logoutURL?: string | null },
) {
  await requireVisitorAuthSite(ctx, organizationId, siteId);
  const data: Prisma.SiteUpdateInput = {};
  if (patch.backend != null) {
    if (!(AUTH_BACKENDS as readonly string[]).includes(patch.backend)) {
      throw badInput(
        `backend must be "custom" (got ${quote(patch.backend)}): integration backends need a visitor-auth integration, which this service does not have`,
      );
    }
    data.authBackend = patch.backend;
  }
  if (patch.fallbackURL !== undefined)
    data.authFallbackURL = patch.fallbackURL === null ? null : checkUrl("fallbackURL", patch.fallbackURL);
  if (patch.logoutURL !== undefined) data.authLogoutURL = patch.logoutURL === null ? null : checkUrl("logoutURL", patch.logoutURL);
  const site = await ctx.prisma.site.update({ where: { id: siteId }, data });
  siteLoaders(ctx).forget(siteId);
  return publishingAuthOf(site);
}

/** A new private key: visitor tokens signed with the old one are refused from now on. */
export async function regeneratePublishingAuth(ctx: CoreContext, organizationId: string | null | undefined, siteId: string) {
  await requireVisitorAuthSite(ctx, organizationId, siteId);
  const site = await ctx.prisma.site.update({ where: { id: siteId }, data: { authPrivateKey: newPrivateKey() } });
  siteLoaders(ctx).forget(siteId);
  return publishingAuthOf(site);
}
