// Site ads (the published updateSiteAdsById, adsListSites, adsUpdateSite). What "ads" means
// here: a review state that the site's admins ask for and an ad partner answers, stored on the
// site and nothing more. Published pages never load anything from an ad network (no script,
// frame, pixel or request to a third party), whatever the state says: `live` records the
// partner's zone and reporting ids for the organization's own use. The site's admins submit a
// published public site for review (in-review, with a topic) or turn a live site's ads off
// (disabled). The partner, whose key the service is configured with (ADS_PARTNER_KEY; none: no
// partner, every partner call is refused), lists the sites by state and sets live (zone and
// reporting ids), rejected (a reason) or pending. A refused call changes nothing.
import { timingSafeEqual, createHash } from "node:crypto";
import type { Prisma, Site } from "../../generated/prisma/client.ts";
import type { CoreContext } from "../context.ts";
import { badInput, forbidden, notFound, quote } from "../errors.ts";
import { type PageArgs, paginate } from "../pagination.ts";
import { checkLength, checkNoControlCharacters } from "../validate.ts";
import { requireSite, siteBaseUrl } from "./index.ts";
import { siteLoaders } from "./loaders.ts";

export const ADS_TOPICS = ["webdev", "crypto"] as const;
export const ADS_STATUSES = ["pending", "in-review", "live", "rejected", "disabled"] as const;
const PARTNER_STATUSES = ["in-review", "live", "rejected"] as const;
const ID_MAX = 256;
const REASON_MAX = 512;

/** Whether the site may be submitted for review: published and public. */
const submittable = (site: Site) => site.published && site.visibility === "public";

/** The published SiteAds of a site. */
export function adsOf(site: Site): Record<string, unknown> {
  switch (site.adsStatus) {
    case "in-review":
      return { status: "in-review", topic: site.adsTopic };
    case "rejected":
      return { status: "rejected", ...(site.adsReason ? { reason: site.adsReason } : {}) };
    case "live":
    case "disabled":
      return { status: site.adsStatus, topic: site.adsTopic, zoneId: site.adsZoneId };
    default:
      return { status: "pending", submittable: submittable(site) };
  }
}

function checkTopic(topic: unknown): string {
  if (typeof topic !== "string" || !(ADS_TOPICS as readonly string[]).includes(topic))
    throw badInput(`topic must be one of ${ADS_TOPICS.join(", ")} (got ${quote(topic)})`);
  return topic;
}

/** The site's admins: submit for review (in-review) or turn a live site's ads off (disabled); a topic alone changes the topic. */
export async function updateSiteAds(
  ctx: CoreContext,
  organizationId: string | null | undefined,
  siteId: string,
  input: { status?: unknown; topic?: unknown },
): Promise<Site> {
  const site = await requireSite(ctx, organizationId, siteId, "site.configure");
  const topic = input.topic == null ? undefined : checkTopic(input.topic);
  const data: Prisma.SiteUpdateInput = {};
  if (input.status != null) {
    if (input.status === "in-review") {
      if (!submittable(site)) throw badInput("status: only a published public site can be submitted for ads review");
      if (site.adsStatus === "live" || site.adsStatus === "in-review")
        throw badInput(`status: the site's ads are already ${site.adsStatus}`);
      const chosen = topic ?? site.adsTopic;
      if (!chosen) throw badInput(`topic is required to submit the site for review (${ADS_TOPICS.join(" or ")})`);
      Object.assign(data, { adsStatus: "in-review", adsTopic: chosen, adsReason: null });
    } else if (input.status === "disabled") {
      if (site.adsStatus !== "live" && site.adsStatus !== "disabled")
        throw badInput(`status: only live ads can be disabled (the site's are ${site.adsStatus})`);
      Object.assign(data, { adsStatus: "disabled", ...(topic ? { adsTopic: topic } : {}) });
    } else {
      throw badInput(`status must be in-review or disabled (got ${quote(input.status)})`);
    }
  } else if (topic) {
    data.adsTopic = topic;
  }
  if (!Object.keys(data).length) return site;
  try {
    return await ctx.prisma.site.update({ where: { id: site.id }, data });
  } finally {
    siteLoaders(ctx).forget(site.id);
  }
}

/** The ad partner's key must be the configured one (compared in constant time); no configured key: no partner. */
function requirePartner(ctx: CoreContext, key: string | null | undefined) {
  const configured = ctx.sites.adsPartnerKey;
  const digest = (value: string) => createHash("sha256").update(value).digest();
  if (!configured || !key || !timingSafeEqual(digest(configured), digest(key)))
    throw forbidden("X-GitBook-Partner-Key is not the key of this service's ad partner");
}

export interface PartnerSite {
  site: Site;
  url: string;
  email: string;
}

/** The ad partner: sites whose ads are in `status` (default in-review), oldest first. */
export async function partnerListSites(
  ctx: CoreContext,
  key: string | null | undefined,
  status: string | null | undefined,
  page: PageArgs,
) {
  requirePartner(ctx, key);
  const wanted = status ?? "in-review";
  if (!(PARTNER_STATUSES as readonly string[]).includes(wanted))
    throw badInput(`status must be one of ${PARTNER_STATUSES.join(", ")} (got ${quote(wanted)})`);
  const sites = await paginate<Site, Prisma.SiteWhereInput>(page, {
    sortField: "createdAt",
    sortKind: "date",
    where: { adsStatus: wanted, adsTopic: { not: null } },
    rows: ctx.prisma.site,
  });
  // The contact: the organization's first admin.
  const organizations = [...new Set(sites.items.map((site) => site.organizationId))];
  const admins = await ctx.prisma.member.findMany({
    where: { organizationId: { in: organizations }, role: "admin", disabled: false },
    orderBy: [{ organizationId: "asc" }, { userId: "asc" }],
    select: { organizationId: true, user: { select: { email: true } } },
  });
  const emailOf = (organizationId: string) => admins.find((admin) => admin.organizationId === organizationId)?.user.email ?? "";
  return {
    ...sites,
    items: sites.items.map((site) => ({ site, url: `${siteBaseUrl(ctx, site)}/`, email: emailOf(site.organizationId) })),
    cursorOf: (item: PartnerSite) => sites.cursorOf(item.site),
  };
}

function checkPartnerId(field: string, value: unknown): string {
  if (typeof value !== "string" || !value) throw badInput(`${field} is required (at most ${ID_MAX} characters)`);
  checkLength(field, value, { max: ID_MAX });
  return checkNoControlCharacters(field, value);
}

/** The ad partner: the review's answer for a site submitted to it (any other site is unknown). */
export async function partnerUpdateSite(
  ctx: CoreContext,
  key: string | null | undefined,
  siteId: string,
  input: { status?: unknown; zoneId?: unknown; reportingId?: unknown; reason?: unknown },
): Promise<Site> {
  requirePartner(ctx, key);
  let data: Prisma.SiteUpdateInput;
  if (input.status === "live") {
    data = {
      adsStatus: "live",
      adsZoneId: checkPartnerId("zoneId", input.zoneId),
      adsReportingId: checkPartnerId("reportingId", input.reportingId),
      adsReason: null,
    };
  } else if (input.status === "rejected") {
    let reason: string | null = null;
    if (input.reason != null) {
      if (typeof input.reason !== "string") throw badInput("reason must be a string");
      checkLength("reason", input.reason, { max: REASON_MAX });
      reason = checkNoControlCharacters("reason", input.reason);
    }
    data = { adsStatus: "rejected", adsReason: reason, adsZoneId: null, adsReportingId: null };
  } else if (input.status === "pending") {
    data = { adsStatus: "pending", adsReason: null, adsZoneId: null, adsReportingId: null };
  } else {
    throw badInput(`status must be live, rejected or pending (got ${quote(input.status)})`);
  }
  const site = await ctx.prisma.site.findUnique({ where: { id: siteId } });
  // Only sites submitted to the partner (or answered by it) are its to answer: not those never
  // submitted, nor those whose admins turned their ads off.
  if (!site || !(PARTNER_STATUSES as readonly string[]).includes(site.adsStatus)) throw notFound("site", siteId);
  try {
    return await ctx.prisma.site.update({ where: { id: site.id }, data });
  } finally {
    siteLoaders(ctx).forget(site.id);
  }
}
