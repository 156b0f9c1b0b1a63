// Share links of a site: secret keys that open a `share-link` site to whoever holds one. The key
// is the `shareKey` readers present (`?shareKey=` on the published site, then kept in a cookie;
// `shareKey` on the API's read routes). A revoked link (`active: false`) or a deleted one opens
// nothing. Managing links needs `site.manageAccess` (admins): a link's URL carries its key.
import { randomBytes } from "node:crypto";
import type { Prisma, Site, SiteShareLink, Space } from "../../generated/prisma/client.ts";
import type { CoreContext } from "../context.ts";
import { badInput, notFound } from "../errors.ts";
import { newId } from "../ids.ts";
import { paginate, type PageArgs } from "../pagination.ts";
import { checkLength } from "../validate.ts";
import { joinUrl, requireSite, siteBaseUrl, siteSpacePathOf, structureOf } from "./index.ts";
import { siteLoaders } from "./loaders.ts";
import { ScopeSlot } from "../request-scope.ts";

export const SHARE_LINK_NAME_MAX = 50;
const SEARCH_MAX = 256;

const newShareKey = () => randomBytes(24).toString("base64url");

function checkName(name: unknown): string {
  if (typeof name !== "string") throw badInput("name must be a string (at most 50 characters)");
  return checkLength("name", name, { max: SHARE_LINK_NAME_MAX });
}

/** The URL that opens the site with the link's key. */
export const shareLinkUrl = (ctx: Pick<CoreContext, "urls">, link: Pick<SiteShareLink, "siteId" | "key">) =>
  `${ctx.urls.site(`/${link.siteId}`)}/?shareKey=${encodeURIComponent(link.key)}`;

export async function listShareLinks(
  ctx: CoreContext,
  organizationId: string | null | undefined,
  siteId: string,
  args: PageArgs,
  search?: string | null,
) {
  await requireSite(ctx, organizationId, siteId, "site.manageAccess");
  if (search != null) checkLength("search", search, { max: SEARCH_MAX });
  const where: Prisma.SiteShareLinkWhereInput = {
    siteId,
    ...(search ? { OR: [{ name: { contains: search, mode: "insensitive" } }, { key: search }] } : {}),
  };
  return paginate<SiteShareLink, Prisma.SiteShareLinkWhereInput>(args, {
    sortField: "createdAt",
    sortKind: "date",
    where,
    rows: ctx.prisma.siteShareLink,
  });
}

export async function createShareLink(
  ctx: CoreContext,
  organizationId: string | null | undefined,
  siteId: string,
  input: { name?: unknown },
) {
  await requireSite(ctx, organizationId, siteId, "site.manageAccess");
  const name = checkName(input.name);
  const link = await ctx.prisma.siteShareLink.create({
    data: { id: newId("SiteShareLink"), siteId, name, key: newShareKey(), createdAt: ctx.clock.now() },
  });
  siteLoaders(ctx).shareLinks.clear(siteId);
  return link;
}

async function linkOf(ctx: CoreContext, siteId: string, shareLinkId: string): Promise<SiteShareLink | null> {
  const link = await ctx.prisma.siteShareLink.findUnique({ where: { id: shareLinkId } });
  return link && link.siteId === siteId ? link : null;
}

export async function updateShareLink(
  ctx: CoreContext,
  organizationId: string | null | undefined,
  siteId: string,
  shareLinkId: string,
  patch: { name?: unknown; active?: unknown },
) {
  await requireSite(ctx, organizationId, siteId, "site.manageAccess");
  const data: Prisma.SiteShareLinkUpdateInput = {};
  if (patch.name !== undefined && patch.name !== null) data.name = checkName(patch.name);
  if (patch.active !== undefined && patch.active !== null) {
    if (typeof patch.active !== "boolean") throw badInput("active must be a boolean");
    data.active = patch.active;
  }
  if (!Object.keys(data).length) throw badInput("name or active is required: the body changes at least one of them");
  const link = await linkOf(ctx, siteId, shareLinkId);
  if (!link) throw notFound("share link", shareLinkId);
  siteLoaders(ctx).shareLinks.clear(siteId);
  return ctx.prisma.siteShareLink.update({ where: { id: link.id }, data });
}

/** Deletes the link; false when there was none (the published API answers 204 then, 205 otherwise). */
export async function deleteShareLink(
  ctx: CoreContext,
  organizationId: string | null | undefined,
  siteId: string,
  shareLinkId: string,
): Promise<boolean> {
  await requireSite(ctx, organizationId, siteId, "site.manageAccess");
  const { count } = await ctx.prisma.siteShareLink.deleteMany({ where: { id: shareLinkId, siteId } });
  siteLoaders(ctx).shareLinks.clear(siteId);
  return count > 0;
}

/** The site's active share link with `key`, or null (unknown, revoked, or another site's). */
export async function activeShareLink(
  ctx: Pick<CoreContext, "prisma">,
  site: Pick<Site, "id">,
  key: string,
): Promise<SiteShareLink | null> {
  if (!key || key.length > 200) return null;
  const link = await ctx.prisma.siteShareLink.findUnique({ where: { key } });
  return link && link.siteId === site.id && link.active ? link : null;
}

/** Share keys a request presented (`shareKey` of the read routes), by site id: its published URLs carry them. */
const PRESENTED_SHARE_KEYS = new ScopeSlot("share keys presented, by site id", () => new Map<string, string>());

/**
 * Remembers, for this request, the share key presented for a site: it must be one of the site's
 * active share links (400 naming shareKey otherwise). Published URLs of the site then carry it.
 */
export async function presentShareKey(ctx: CoreContext, site: Site, key: string): Promise<void> {
  if (!(await activeShareLink(ctx, site, key))) throw badInput("shareKey is not an active share link of this site");
  ctx.scope.get(PRESENTED_SHARE_KEYS).set(site.id, key);
}

/** Published URLs of spaces read with a share key (`GET /v1/spaces/{spaceId}?shareKey=`), by space id. */
const PRESENTED_SPACE_URLS = new ScopeSlot("published URLs of spaces read with a share key, by space id", () => new Map<string, string>());

/**
 * `shareKey` on a space's read: the key of an active share link of a site of the space's
 * organization that shows the space (400 naming shareKey otherwise). The space's published URL is
 * then where that site shows it, carrying the key. Two statements (the link with its site, the
 * site's structure through the loaders), only when a key is given.
 */
export async function presentSpaceShareKey(ctx: CoreContext, space: Space, key: string): Promise<void> {
  const link = key && key.length <= 200 ? await ctx.prisma.siteShareLink.findUnique({ where: { key }, include: { site: true } }) : null;
  const site = link?.active && link.site.organizationId === space.organizationId ? link.site : null;
  const structure = site ? await structureOf(ctx, site) : null;
  const siteSpace = structure?.siteSpaces.find((row) => row.spaceId === space.id);
  if (!site || !structure || !siteSpace) throw badInput("shareKey is not an active share link of a site showing this space");
  ctx.scope.get(PRESENTED_SHARE_KEYS).set(site.id, key);
  ctx.scope.get(PRESENTED_SPACE_URLS).set(space.id, publishedUrlOf(ctx, site, siteSpacePathOf(structure, siteSpace)));
}

/** The space's published URL through the share key this request presented for it, if any. */
export const presentedSpaceUrl = (ctx: CoreContext, spaceId: string): string | undefined =>
  ctx.scope.peek(PRESENTED_SPACE_URLS)?.get(spaceId);

/** The published URL of `path` in the site (with the share key the request presented, if any). */
export function publishedUrlOf(ctx: CoreContext, site: Pick<Site, "id">, path: string): string {
  const url = joinUrl(siteBaseUrl(ctx, site), path);
  const key = ctx.scope.peek(PRESENTED_SHARE_KEYS)?.get(site.id);
  return key ? `${url}?shareKey=${encodeURIComponent(key)}` : url;
}
