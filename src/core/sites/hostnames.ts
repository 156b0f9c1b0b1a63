// Custom hostnames of sites (issue 28): which names a site may claim, and the DNS proof that makes
// a claimed name route readers. A name is refused when it can never be owned (an IP address, a
// wildcard-DNS service that maps every name to an address, the service's own host); otherwise it is
// pending until a TXT record at `_docs-verification.<hostname>` holds `site-verification=<site id>`,
// which only whoever controls the domain's DNS can write. Only a verified name routes traffic, and a
// verified name cannot be taken by another site (a pending one can: a claim is not a proof).
import type { Site } from "../../generated/prisma/client.ts";
import type { CoreContext } from "../context.ts";
import { conflict, DomainError, notFound, quote } from "../errors.ts";
import { verificationRecord } from "./hostname-rules.ts";
import { requireSite } from "./index.ts";

export interface CustomHostname {
  hostname: string;
  siteId: string;
  verified: boolean;
}

const customHostnameOf = (site: Site): CustomHostname => ({
  hostname: site.hostname!,
  siteId: site.id,
  verified: site.hostnameVerifiedAt !== null,
});

/** The site holding a hostname, when the caller may do `action` on it; 404 otherwise (as for an unknown name). */
async function siteAt(ctx: CoreContext, hostname: string, action: "site.read" | "site.configure"): Promise<Site> {
  const name = hostname.toLowerCase();
  const row = await ctx.prisma.site.findUnique({ where: { hostname: name }, select: { id: true } });
  if (!row) throw notFound("custom hostname", hostname);
  try {
    return await requireSite(ctx, null, row.id, action);
  } catch (error) {
    // Another organization's hostname is not even said to exist.
    if (error instanceof DomainError && error.code === "NOT_FOUND") throw notFound("custom hostname", hostname);
    throw error;
  }
}

export async function getCustomHostname(ctx: CoreContext, hostname: string): Promise<CustomHostname> {
  return customHostnameOf(await siteAt(ctx, hostname, "site.read"));
}

/**
 * Checks the hostname's TXT record now (bounded by the resolver's timeout) and marks it verified
 * when it holds the site's value; 409 naming the record otherwise.
 */
export async function revalidateCustomHostname(ctx: CoreContext, hostname: string): Promise<CustomHostname> {
  const site = await siteAt(ctx, hostname, "site.configure");
  if (site.hostnameVerifiedAt) return customHostnameOf(site);
  const record = verificationRecord(site.id, site.hostname!);
  let found: string[];
  try {
    found = (await ctx.sites.resolveTxt(record.name)).map((chunks) => chunks.join(""));
  } catch {
    found = []; // No such name, no TXT record, or no answer in time: not proven.
  }
  if (!found.includes(record.value)) {
    throw conflict(
      `hostname ${quote(site.hostname)} is not verified: add a TXT record ${record.name} with the value ${quote(record.value)} and try again`,
    );
  }
  const updated = await ctx.prisma.site.updateMany({
    where: { id: site.id, hostname: site.hostname },
    data: { hostnameVerifiedAt: ctx.clock.now() },
  });
  // The hostname changed meanwhile: what was proven is no longer the site's.
  if (updated.count === 0) throw notFound("custom hostname", hostname);
  return { ...customHostnameOf(site), verified: true };
}

/**
 * Removes the hostname from its site; false when it changed meanwhile (204 rather than 205). An
 * unknown hostname is 404, as another organization's is, so that neither says whether it exists.
 */
export async function removeCustomHostname(ctx: CoreContext, hostname: string): Promise<boolean> {
  const site = await siteAt(ctx, hostname, "site.configure");
  const removed = await ctx.prisma.site.updateMany({
    where: { id: site.id, hostname: site.hostname },
    data: { hostname: null, hostnameVerifiedAt: null },
  });
  return removed.count > 0;
}
