// Per-request DataLoaders of sites and their structure: a request reads each site's site spaces,
// sections and section groups in one statement per kind, whatever number of sites it lists.
import DataLoader from "dataloader";
import type {
  PrismaClient,
  Site,
  SiteExternalLink,
  SiteSection,
  SiteSectionGroup,
  SiteShareLink,
  SiteSpace,
} from "../../generated/prisma/client.ts";
import type { CoreContext } from "../context.ts";
import { byId, groupedBy } from "../loader-kit.ts";
import { ScopeSlot } from "../request-scope.ts";

const bySortKey = <T extends { sortKey: string; id: string }>(a: T, b: T) =>
  a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

export const sortByKey = <T extends { sortKey: string; id: string }>(rows: T[]) => [...rows].sort(bySortKey);

function createSiteLoaders(prisma: PrismaClient) {
  const site = byId<Site>((ids) => prisma.site.findMany({ where: { id: { in: ids } } }));
  const siteSpaces = groupedBy<SiteSpace>(
    (row) => [row.siteId],
    (siteIds) => prisma.siteSpace.findMany({ where: { siteId: { in: siteIds } } }),
  );
  const sections = groupedBy<SiteSection>(
    (row) => [row.siteId],
    (siteIds) => prisma.siteSection.findMany({ where: { siteId: { in: siteIds } } }),
  );
  const sectionGroups = groupedBy<SiteSectionGroup>(
    (row) => [row.siteId],
    (siteIds) => prisma.siteSectionGroup.findMany({ where: { siteId: { in: siteIds } } }),
  );
  const shareLinks = groupedBy<SiteShareLink>(
    (row) => [row.siteId],
    (siteIds) => prisma.siteShareLink.findMany({ where: { siteId: { in: siteIds } } }),
  );
  /** Each site's live (not draft) external links, for its structure and its groups. */
  const liveExternalLinks = groupedBy<SiteExternalLink>(
    (row) => [row.siteId],
    (siteIds) => prisma.siteExternalLink.findMany({ where: { siteId: { in: siteIds }, draft: false } }),
  );
  /** The sites showing each space (any number of times), oldest first. */
  const sitesOfSpace = new DataLoader<string, Site[]>(async (spaceIds) => {
    const rows = await prisma.siteSpace.findMany({ where: { spaceId: { in: [...spaceIds] } }, select: { spaceId: true, site: true } });
    const groups = new Map<string, Map<string, Site>>(spaceIds.map((id) => [id, new Map()]));
    for (const row of rows) groups.get(row.spaceId)!.set(row.site.id, row.site);
    return spaceIds.map((id) =>
      [...groups.get(id)!.values()].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1)),
    );
  });
  /** How many sites each organization has. */
  const organizationSiteCount = new DataLoader<string, number>(async (organizationIds) => {
    const rows = await prisma.site.groupBy({
      by: ["organizationId"],
      where: { organizationId: { in: [...organizationIds] } },
      _count: { _all: true },
    });
    const found = new Map(rows.map((row) => [row.organizationId, row._count._all]));
    return organizationIds.map((id) => found.get(id) ?? 0);
  });
  /**
   * For guests: how many of the organization's sites are granted to each member (keyed
   * `organizationId:userId`), directly or through a team they are in; one statement for all.
   */
  const grantedSiteCount = new DataLoader<string, number>(async (keys) => {
    const pairs = keys.map((key) => key.split(":") as [string, string]);
    const userIds = [...new Set(pairs.map(([, userId]) => userId))];
    const grants = await prisma.permissionGrant.findMany({
      where: {
        siteId: { not: null },
        organizationId: { in: [...new Set(pairs.map(([organizationId]) => organizationId))] },
        OR: [{ userId: { in: userIds } }, { team: { members: { some: { userId: { in: userIds } } } } }],
      },
      select: { organizationId: true, siteId: true, userId: true, team: { select: { members: { select: { userId: true } } } } },
    });
    const sites = new Map<string, Set<string>>();
    for (const grant of grants) {
      const holders = grant.userId ? [grant.userId] : (grant.team?.members.map((member) => member.userId) ?? []);
      for (const userId of holders) {
        const key = `${grant.organizationId}:${userId}`;
        if (!sites.has(key)) sites.set(key, new Set());
        sites.get(key)!.add(grant.siteId!);
      }
    }
    return keys.map((key) => sites.get(key)?.size ?? 0);
  });
  /** Structure rows by their own id, to find the site they belong to (node(id:)). */
  const siteSpace = byId<SiteSpace>((ids) => prisma.siteSpace.findMany({ where: { id: { in: ids } } }));
  const section = byId<SiteSection>((ids) => prisma.siteSection.findMany({ where: { id: { in: ids } } }));
  const sectionGroup = byId<SiteSectionGroup>((ids) => prisma.siteSectionGroup.findMany({ where: { id: { in: ids } } }));

  /** Drops what the loaders hold of a site that just changed. */
  function forget(siteId: string): void {
    organizationSiteCount.clearAll();
    grantedSiteCount.clearAll();
    for (const loader of [site, siteSpaces, sections, sectionGroups, shareLinks, liveExternalLinks]) loader.clear(siteId);
    siteSpace.clearAll();
    section.clearAll();
    sectionGroup.clearAll();
  }

  return {
    site,
    sitesOfSpace,
    organizationSiteCount,
    grantedSiteCount,
    siteSpaces,
    sections,
    sectionGroups,
    shareLinks,
    liveExternalLinks,
    siteSpace,
    section,
    sectionGroup,
    forget,
  };
}

export type SiteLoaders = ReturnType<typeof createSiteLoaders>;

const SITE_LOADERS = new ScopeSlot("site loaders", createSiteLoaders);

export const siteLoaders = (ctx: CoreContext): SiteLoaders => ctx.scope.get(SITE_LOADERS, ctx.prisma);
