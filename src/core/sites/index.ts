// Sites: how spaces reach readers. A site shows spaces through site spaces, either at its root or
// in sections (which section groups gather). Every site belongs to one organization; its members
// see it (404 for anyone else), reading needs `read`, changing the structure `create`, settings,
// publishing, access and deletion `admin` (src/core/auth/policy.ts), on the site: the organization
// role, raised by grants on the site (a guest sees only the sites granted to them). Structural writes of one site are
// serialized by an advisory lock, so defaults, paths and orders stay consistent under concurrency.
import { recordAuditEvent } from "../audit/index.ts";
import { randomBytes } from "node:crypto";
import { generateKeyBetween } from "fractional-indexing";
import { Prisma, type Site, type SiteSection, type SiteSectionGroup, type SiteSpace, type Space } from "../../generated/prisma/client.ts";
import { authorize, may, POLICY, type Action } from "../auth/policy.ts";
import type { CoreContext } from "../context.ts";
import { type Transaction, WRITE_TRANSACTION } from "../../db/transaction.ts";
import { badInput, conflict, notFound, quote } from "../errors.ts";
import { newId } from "../ids.ts";
import { paginate, type PageArgs } from "../pagination.ts";
import { checkLength, checkOneOf } from "../validate.ts";
import { getOrganization } from "../organizations/read.ts";
import { readSpace } from "../spaces/read.ts";
import { slugify } from "../content/tree.ts";
import { checkSynonyms } from "../search/index.ts";
import { checkClaimableHostname } from "./hostname-rules.ts";
import { checkCondition, conditionHolds, type VisitorClaims } from "./conditions.ts";
import { siteLoaders, sortByKey } from "./loaders.ts";

export const SITE_VISIBILITIES = ["public", "unlisted", "share-link", "visitor-auth"] as const;
export const SITE_TYPES = ["basic", "premium", "ultimate", "sponsored", "legacy-basic", "legacy-premium"] as const;
export const AGENTS_CONTEXTS = ["included", "excluded"] as const;
export const SITE_TITLE = { min: 2, max: 128 };
export const SECTION_TITLE = { min: 2, max: 128 };
export const SECTION_DESCRIPTION_MAX = 256;
export const GROUP_TITLE = { min: 1, max: 100 };
export const PATH_MAX = 100;
export const ICON_MAX = 50;
/** One URL segment: letters, digits, and inner `-`, `_` or `.`. */
const PATH = /^[A-Za-z0-9]+(?:[-_.][A-Za-z0-9]+)*$/;
const HOSTNAME = /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?[.]){2,}[a-z0-9][a-z0-9-]{0,61}[a-z0-9]$/;
const PROXY_ORIGIN = /^([\w-]+\.)*[\w-]+\.[a-zA-Z]{2,}(\/[\w-]+)+$/;
const TX_OPTIONS = { maxWait: 15_000, timeout: 30_000 };

// ---------------------------------------------------------------------------------------------
// Finding a site

/**
 * The site, if the caller is a member of its organization (a guest: one granted a role on the
 * site) and it is one of `organizationId`'s (when given: REST paths name the organization); 404
 * otherwise. An installation's token sees the sites its installation is on (what it may do there is
 * what its integration's scopes allow: policy.ts `tokenScopes`).
 */
export async function getSite(ctx: CoreContext, organizationId: string | null | undefined, siteId: string): Promise<Site> {
  const site = await siteLoaders(ctx).site.load(siteId);
  if (!site || (organizationId != null && site.organizationId !== organizationId)) throw notFound("site", siteId);
  if (ctx.viewer.installationId) {
    if (!(await ctx.access.siteScopes(site))) throw notFound("site", siteId);
    return site;
  }
  const membership = await ctx.access.membership(site.organizationId);
  if (!membership) throw notFound("site", siteId);
  if (membership.role === null && !(await ctx.access.roleOnSite(site))) throw notFound("site", siteId);
  return site;
}

/** The site (404 unless visible) if the caller may do `action` on it (else 403). */
export async function requireSite(
  ctx: CoreContext,
  organizationId: string | null | undefined,
  siteId: string,
  action: Action,
): Promise<Site> {
  const site = await getSite(ctx, organizationId, siteId);
  await authorize(ctx, action, POLICY[action].scope === "site" ? { site } : { organizationId: site.organizationId });
  return site;
}

/** For `node(id:)`: the site when the caller may read it, else null. */
export async function loadReadableSite(ctx: CoreContext, siteId: string): Promise<Site | null> {
  const site = await siteLoaders(ctx).site.load(siteId);
  if (!site) return null;
  return requireSite(ctx, null, siteId, "site.read").catch(() => null);
}

/** For `node(id:)` of a structure row: the row when the caller may read its site, else null. */
export async function loadReadableStructureRow<K extends "siteSpace" | "section" | "sectionGroup">(ctx: CoreContext, kind: K, id: string) {
  const row = await siteLoaders(ctx)[kind].load(id);
  if (!row || !(await loadReadableSite(ctx, row.siteId))) return null;
  return row as NonNullable<Awaited<ReturnType<ReturnType<typeof siteLoaders>[K]["load"]>>>;
}

// ---------------------------------------------------------------------------------------------
// The structure of a site, read in one statement per kind

export interface Structure {
  site: Site;
  /** Root items in order: sections outside groups, and groups. */
  root: (SiteSection | SiteSectionGroup)[];
  sections: SiteSection[];
  groups: SiteSectionGroup[];
  siteSpaces: SiteSpace[];
}

export async function structureOf(ctx: CoreContext, site: Site): Promise<Structure> {
  const loaders = siteLoaders(ctx);
  const [siteSpaces, sections, groups] = await Promise.all([
    loaders.siteSpaces.load(site.id),
    loaders.sections.load(site.id),
    loaders.sectionGroups.load(site.id),
  ]);
  return structureFrom(site, siteSpaces, sections, groups);
}

/** A site's structure from its rows, each kind in order, and its root (sections outside groups, and groups). */
function structureFrom(site: Site, siteSpaces: SiteSpace[], sections: SiteSection[], groups: SiteSectionGroup[]): Structure {
  return {
    site,
    root: sortByKey([...sections.filter((section) => !section.sectionGroupId), ...groups]),
    sections: sortByKey(sections),
    groups: sortByKey(groups),
    siteSpaces: sortByKey(siteSpaces),
  };
}

/** Sections in reading order: root sections and each group's sections where the group stands. */
export function orderedSections(structure: Structure): SiteSection[] {
  return structure.root.flatMap((item) =>
    isGroup(item) ? sortByKey(structure.sections.filter((section) => section.sectionGroupId === item.id)) : [item as SiteSection],
  );
}

/** Root items are sections or groups; the id prefix tells which (their columns overlap). */
export const isGroup = (item: { id: string }) => item.id.startsWith("ssg_");

export const siteSpacesIn = (structure: Pick<Structure, "siteSpaces">, sectionId: string | null) =>
  structure.siteSpaces.filter((siteSpace) => siteSpace.sectionId === sectionId);

export const sectionsOfGroup = (structure: Pick<Structure, "sections">, groupId: string) =>
  sortByKey(structure.sections.filter((section) => section.sectionGroupId === groupId));

/** What a visitor with `claims` sees: sections and site spaces whose condition holds. */
export function visibleStructure(structure: Structure, claims: VisitorClaims): Structure {
  const sections = structure.sections.filter((section) => conditionHolds(section.condition, claims));
  const sectionIds = new Set(sections.map((section) => section.id));
  const siteSpaces = structure.siteSpaces.filter(
    (siteSpace) => conditionHolds(siteSpace.condition, claims) && (siteSpace.sectionId === null || sectionIds.has(siteSpace.sectionId)),
  );
  const withSpaces = new Set(siteSpaces.map((siteSpace) => siteSpace.sectionId));
  const shownSections = sections.filter((section) => withSpaces.has(section.id));
  const shownIds = new Set(shownSections.map((section) => section.id));
  const groups = structure.groups.filter((group) => shownSections.some((section) => section.sectionGroupId === group.id));
  const groupIds = new Set(groups.map((group) => group.id));
  return {
    site: structure.site,
    root: structure.root.filter((item) => shownIds.has(item.id) || groupIds.has(item.id)),
    sections: shownSections,
    groups,
    siteSpaces,
  };
}

/** The default among `items`: the one marked, else the first. */
export const defaultOf = <T extends { isDefault: boolean }>(items: T[]): T | undefined => items.find((item) => item.isDefault) ?? items[0];

// ---------------------------------------------------------------------------------------------
// Published URLs

/** The site's own base URL, under PUBLIC_URL. */
export const siteBaseUrl = (ctx: Pick<CoreContext, "urls">, site: Pick<Site, "id">) => ctx.urls.site(`/${site.id}`);

/** Path of a section inside the site: empty for the default section. */
export function sectionPathOf(structure: Structure, section: SiteSection): string {
  return defaultOf(orderedSections(structure))?.id === section.id ? "" : section.path;
}

/** Path of a site space inside the site: its section's, then its own unless it is the default there. */
export function siteSpacePathOf(structure: Structure, siteSpace: SiteSpace): string {
  const section = siteSpace.sectionId ? structure.sections.find((s) => s.id === siteSpace.sectionId) : undefined;
  const own = defaultOf(siteSpacesIn(structure, siteSpace.sectionId))?.id === siteSpace.id ? "" : siteSpace.path;
  return [section ? sectionPathOf(structure, section) : "", own].filter(Boolean).join("/");
}

export const joinUrl = (base: string, path: string) => (path ? `${base}/${path}` : `${base}/`);

// ---------------------------------------------------------------------------------------------
// Sites

function checkTitle(title: string): string {
  checkLength("title", title, SITE_TITLE);
  if (!title.trim()) throw badInput("title must not be blank");
  return title;
}

function checkPath(field: string, path: string): string {
  checkLength(field, path, { min: 1, max: PATH_MAX });
  if (!PATH.test(path)) throw badInput(`${field} must be letters and digits, with inner -, _ or . (got ${quote(path)})`);
  return path;
}

function checkIcon(icon: string | null | undefined): string | null {
  if (icon == null) return null;
  return checkLength("icon", icon, { min: 1, max: ICON_MAX });
}

/** A space of the organization the caller can read: 404 for any other (another organization's too). */
async function spaceOfOrganization(ctx: CoreContext, organizationId: string, spaceId: unknown, field = "spaceId"): Promise<Space> {
  if (typeof spaceId !== "string" || !spaceId) throw badInput(`${field} is required: the id of a space of this organization`);
  const { space } = await readSpace(ctx, spaceId);
  if (space.organizationId !== organizationId || space.deletedAt) throw notFound("space", spaceId);
  return space;
}

export interface SiteFilters {
  space?: string | null;
  title?: string | null;
  published?: boolean | null;
  /** Sites of any of these types (plans); empty or absent: every type. */
  type?: readonly string[] | null;
}

/** The organization's sites; a guest's list holds the sites granted to them (or to a team of theirs). */
export async function listSites(ctx: CoreContext, organizationId: string, args: PageArgs, filters: SiteFilters = {}) {
  await getOrganization(ctx, organizationId);
  await authorize(ctx, "site.list", { organizationId });
  const guest = (await ctx.access.organizationRole(organizationId)) === null;
  const userId = ctx.viewer.userId;
  const installation = await ctx.access.installationSites(organizationId);
  // An installation's token lists the sites its installation is on, if its scopes let it read them.
  const visible: Prisma.SiteWhereInput = installation
    ? POLICY["site.read"].tokenScopes.some((scope) => installation.scopes.includes(scope))
      ? installation.all
        ? {}
        : { id: { in: [...installation.siteIds] } }
      : { id: { in: [] } }
    : guest
      ? { grants: { some: { OR: [{ userId }, { team: { members: { some: { userId } } } }] } } }
      : {};
  const where: Prisma.SiteWhereInput = {
    organizationId,
    ...visible,
    ...(filters.title ? { title: { contains: filters.title, mode: "insensitive" } } : {}),
    ...(filters.published != null ? { published: filters.published } : {}),
    ...(filters.space ? { siteSpaces: { some: { spaceId: filters.space } } } : {}),
    ...(filters.type?.length ? { type: { in: filters.type.map((type) => checkOneOf("type", type, SITE_TYPES)) } } : {}),
  };
  const page = await paginate<Site, Prisma.SiteWhereInput>(args, {
    sortField: "createdAt",
    sortKind: "date",
    where,
    rows: ctx.prisma.site,
  });
  for (const site of page.items) siteLoaders(ctx).site.prime(site.id, site);
  return page;
}

/** Runs `work` in a transaction holding the site's structure lock; the site's `updatedAt` moves. */
async function withSiteLock<T>(ctx: CoreContext, siteId: string, work: (tx: Transaction, structure: Structure) => Promise<T>): Promise<T> {
  try {
    return await ctx.prisma.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT pg_advisory_xact_lock(hashtext(${`site:${siteId}`}))::text`;
      const result = await work(tx, await loadStructure(tx, siteId));
      await tx.site.update({ where: { id: siteId }, data: { updatedAt: ctx.clock.now() } });
      return result;
    }, TX_OPTIONS);
  } finally {
    siteLoaders(ctx).forget(siteId);
  }
}

/** `withSiteLock` for an edit of the site's structure, by one who may make it. */
export async function editStructure<T>(
  ctx: CoreContext,
  organizationId: string | null | undefined,
  siteId: string,
  work: (tx: Transaction, structure: Structure) => Promise<T>,
): Promise<T> {
  await requireSite(ctx, organizationId, siteId, "site.editStructure");
  return withSiteLock(ctx, siteId, work);
}

/** A slug from `title` not among `taken` (numbered when it is: `guide-2`). */
function freePath(title: string, taken: Iterable<string>): string {
  const base = (slugify(title) || "space").slice(0, PATH_MAX - 4);
  const used = new Set([...taken].map((path) => path.toLowerCase()));
  if (!used.has(base)) return base;
  for (let n = 2; ; n++) if (!used.has(`${base}-${n}`)) return `${base}-${n}`;
}

async function loadStructure(tx: Transaction, siteId: string) {
  const [site, siteSpaces, sections, groups] = await Promise.all([
    tx.site.findUniqueOrThrow({ where: { id: siteId } }),
    tx.siteSpace.findMany({ where: { siteId } }),
    tx.siteSection.findMany({ where: { siteId } }),
    tx.siteSectionGroup.findMany({ where: { siteId } }),
  ]);
  return structureFrom(site, siteSpaces, sections, groups);
}

const lastKey = (rows: { sortKey: string; id: string }[]) => generateKeyBetween(sortByKey(rows).at(-1)?.sortKey ?? null, null);

async function insertSiteSpace(tx: Transaction, structure: Structure, space: Space, sectionId: string | null): Promise<SiteSpace> {
  const siblings = siteSpacesIn(structure, sectionId);
  const row = await tx.siteSpace.create({
    data: {
      id: newId("SiteSpace"),
      siteId: structure.site.id,
      sectionId,
      spaceId: space.id,
      path: freePath(
        space.title,
        siblings.map((s) => s.path),
      ),
      isDefault: siblings.length === 0,
      sortKey: lastKey(siblings),
    },
  });
  structure.siteSpaces.push(row);
  return row;
}

export async function createSite(
  ctx: CoreContext,
  input: { organizationId: string; title?: string | null; visibility?: string | null; type?: string | null; spaces?: string[] | null },
): Promise<Site> {
  await getOrganization(ctx, input.organizationId);
  await authorize(ctx, "site.create", { organizationId: input.organizationId });
  const title = checkTitle(input.title ?? "Untitled site");
  const visibility = checkOneOf("visibility", input.visibility ?? "public", SITE_VISIBILITIES);
  const type = checkOneOf("type", input.type ?? "basic", SITE_TYPES);
  const spaces: Space[] = [];
  for (const spaceId of input.spaces ?? []) spaces.push(await spaceOfOrganization(ctx, input.organizationId, spaceId, "spaces"));
  const id = newId("Site");
  return ctx.prisma.$transaction(async (tx) => {
    const site = await tx.site.create({
      data: { id, organizationId: input.organizationId, title, visibility, type, authPrivateKey: newPrivateKey() },
    });
    const structure: Structure = { site, root: [], sections: [], groups: [], siteSpaces: [] };
    for (const space of spaces) await insertSiteSpace(tx, structure, space, null);
    await recordAuditEvent(ctx, tx, {
      organizationId: site.organizationId,
      action: "site.created",
      target: siteTarget(site),
      payload: { visibility, type, spaces: spaces.map((space) => space.id) },
    });
    return site;
  }, TX_OPTIONS);
}

/** A site as the target of an audit event. */
const siteTarget = (site: Pick<Site, "id" | "title">) => ({ type: "site", id: site.id, label: site.title });

export const newPrivateKey = () => randomBytes(32).toString("base64url");

export interface SitePatch {
  title?: string;
  visibility?: string;
  basename?: string | null;
  hostname?: string | null;
  proxy?: string | null;
  adaptiveContent?: boolean;
  agentsContext?: string;
  defaultSiteSpace?: string;
  defaultSiteSection?: string;
  /** Groups of words or phrases the site's search treats as one. */
  searchSynonyms?: unknown;
}

export async function updateSite(
  ctx: CoreContext,
  organizationId: string | null | undefined,
  siteId: string,
  patch: SitePatch,
): Promise<Site> {
  await requireSite(ctx, organizationId, siteId, "site.configure");
  const data: Prisma.SiteUpdateInput = {};
  if (patch.title !== undefined) data.title = checkTitle(patch.title);
  if (patch.visibility !== undefined) data.visibility = checkOneOf("visibility", patch.visibility, SITE_VISIBILITIES);
  if (patch.basename !== undefined) data.basename = patch.basename === null ? null : checkPath("basename", patch.basename);
  if (patch.hostname !== undefined) {
    if (patch.hostname !== null && (patch.hostname.length > 512 || !HOSTNAME.test(patch.hostname))) {
      throw badInput(
        `hostname must be a lowercase domain name with at least three labels, like docs.example.com (got ${quote(patch.hostname)})`,
      );
    }
    if (patch.hostname !== null) checkClaimableHostname(ctx, patch.hostname);
    data.hostname = patch.hostname;
  }
  if (patch.proxy !== undefined) {
    if (patch.proxy !== null && (patch.proxy.length > 512 || !PROXY_ORIGIN.test(patch.proxy))) {
      throw badInput(`proxy must be a domain and a path, like example.com/docs (got ${quote(patch.proxy)})`);
    }
    data.proxy = patch.proxy;
  }
  if (patch.adaptiveContent !== undefined) data.adaptiveContent = patch.adaptiveContent;
  if (patch.searchSynonyms !== undefined) data.searchSynonyms = checkSynonyms(patch.searchSynonyms);
  if (patch.agentsContext !== undefined) data.agentsContext = checkOneOf("agentsContext", patch.agentsContext, AGENTS_CONTEXTS);
  try {
    return await withSiteLock(ctx, siteId, async (tx, structure) => {
      if (patch.hostname !== undefined && patch.hostname !== structure.site.hostname) {
        // A new name starts pending (it routes nothing until its DNS proof, hostnames.ts). Another
        // site's verified name is refused; its pending claim is not a proof and is taken over.
        data.hostnameVerifiedAt = null;
        const holder = patch.hostname
          ? await tx.site.findFirst({
              where: { hostname: patch.hostname, id: { not: siteId } },
              select: { id: true, hostnameVerifiedAt: true },
            })
          : null;
        if (holder?.hostnameVerifiedAt) throw hostnameTaken(patch.hostname!);
        if (holder) await tx.site.update({ where: { id: holder.id }, data: { hostname: null } });
      }
      if (patch.defaultSiteSection !== undefined) {
        const section = structure.sections.find((s) => s.id === patch.defaultSiteSection);
        if (!section) throw badInput(`defaultSiteSection: no section ${quote(patch.defaultSiteSection)} in this site`);
        await makeDefaultSection(tx, structure, section.id);
      }
      if (patch.defaultSiteSpace !== undefined) {
        const siteSpace = structure.siteSpaces.find((s) => s.id === patch.defaultSiteSpace);
        if (!siteSpace) throw badInput(`defaultSiteSpace: no site space ${quote(patch.defaultSiteSpace)} in this site`);
        const defaultSection = defaultOf(orderedSections(structure));
        if (defaultSection && siteSpace.sectionId !== defaultSection.id) {
          throw badInput("defaultSiteSpace must be a site space of the default section (set defaultSiteSection to change that one)");
        }
        await makeDefaultSiteSpace(tx, structure, siteSpace);
      }
      const site = await tx.site.update({ where: { id: siteId }, data });
      await recordAuditEvent(ctx, tx, {
        organizationId: site.organizationId,
        action: "site.updated",
        target: siteTarget(site),
        payload: { fields: Object.keys(patch).filter((key) => patch[key as keyof SitePatch] !== undefined) },
      });
      return site;
    });
  } catch (error) {
    // Two sites taking one hostname at once: the unique index refuses the second.
    const code = (error as { code?: string; cause?: { code?: string } }).code ?? (error as { cause?: { code?: string } }).cause?.code;
    if (patch.hostname && (code === "P2002" || code === "23505")) throw hostnameTaken(patch.hostname);
    throw error;
  }
}

const hostnameTaken = (hostname: string) => conflict(`hostname ${quote(hostname)} is already used by another site`);

async function makeDefaultSection(tx: Transaction, structure: Structure, sectionId: string) {
  await tx.siteSection.updateMany({ where: { siteId: structure.site.id, id: { not: sectionId } }, data: { isDefault: false } });
  await tx.siteSection.update({ where: { id: sectionId }, data: { isDefault: true } });
}

async function makeDefaultSiteSpace(tx: Transaction, structure: Structure, siteSpace: SiteSpace) {
  await tx.siteSpace.updateMany({
    where: { siteId: structure.site.id, sectionId: siteSpace.sectionId, id: { not: siteSpace.id } },
    data: { isDefault: false },
  });
  await tx.siteSpace.update({ where: { id: siteSpace.id }, data: { isDefault: true } });
}

/** Deleting a site also stops it being the organization's default content. */
export async function deleteSite(ctx: CoreContext, organizationId: string | null | undefined, siteId: string): Promise<void> {
  const site = await requireSite(ctx, organizationId, siteId, "site.delete");
  await ctx.prisma.$transaction(async (tx) => {
    await tx.organization.updateMany({ where: { id: site.organizationId, defaultSiteId: siteId }, data: { defaultSiteId: null } });
    await tx.site.delete({ where: { id: siteId } });
    await recordAuditEvent(ctx, tx, { organizationId: site.organizationId, action: "site.deleted", target: siteTarget(site) });
  }, WRITE_TRANSACTION);
  siteLoaders(ctx).forget(siteId);
  ctx.loaders.organization.clear(site.organizationId);
}

export async function setSitePublished(
  ctx: CoreContext,
  organizationId: string | null | undefined,
  siteId: string,
  published: boolean,
): Promise<Site> {
  await requireSite(ctx, organizationId, siteId, "site.publish");
  const now = ctx.clock.now();
  const site = await ctx.prisma.$transaction(async (tx) => {
    const before = await tx.site.findUniqueOrThrow({ where: { id: siteId }, select: { published: true } });
    const row = await tx.site.update({ where: { id: siteId }, data: { published, updatedAt: now } });
    // Publishing a published site changes nothing: it is no event.
    if (before.published !== published) {
      await recordAuditEvent(ctx, tx, {
        organizationId: row.organizationId,
        action: published ? "site.published" : "site.unpublished",
        target: siteTarget(row),
      });
    }
    return row;
  }, WRITE_TRANSACTION);
  siteLoaders(ctx).forget(siteId);
  return site;
}

/** Writes fields of a site's row (given the time, for their own timestamps); its `updatedAt` moves with them. */
export async function writeSite(ctx: CoreContext, siteId: string, fields: (now: Date) => Prisma.SiteUpdateInput): Promise<Site> {
  const now = ctx.clock.now();
  const site = await ctx.prisma.site.update({ where: { id: siteId }, data: { ...fields(now), updatedAt: now } });
  siteLoaders(ctx).forget(siteId);
  return site;
}

// ---------------------------------------------------------------------------------------------
// Site spaces

function findIn<T extends { id: string }>(rows: T[], id: string, what: string): T {
  const row = rows.find((r) => r.id === id);
  if (!row) throw notFound(what, id);
  return row;
}

/**
 * An edit of one row of a site's structure (a site space, section or section group) named by its
 * id: `editStructure` (the caller may edit the site, which is locked), the row found among
 * `rowsOf(structure)` (404 as `what` otherwise), then `edit` on it with the edit's own arguments.
 */
function rowEdit<Row extends { id: string }, Args extends unknown[], T>(
  rowsOf: (structure: Structure) => Row[],
  what: string,
  edit: (tx: Transaction, structure: Structure, row: Row, ...args: Args) => Promise<T>,
) {
  return (ctx: CoreContext, organizationId: string | null | undefined, siteId: string, rowId: string, ...args: Args): Promise<T> =>
    editStructure(ctx, organizationId, siteId, (tx, structure) => edit(tx, structure, findIn(rowsOf(structure), rowId, what), ...args));
}

const siteSpaceEdit = <Args extends unknown[], T>(
  edit: (tx: Transaction, structure: Structure, siteSpace: SiteSpace, ...args: Args) => Promise<T>,
) => rowEdit((structure) => structure.siteSpaces, "site space", edit);
const sectionEdit = <Args extends unknown[], T>(
  edit: (tx: Transaction, structure: Structure, section: SiteSection, ...args: Args) => Promise<T>,
) => rowEdit((structure) => structure.sections, "section", edit);
const groupEdit = <Args extends unknown[], T>(
  edit: (tx: Transaction, structure: Structure, group: SiteSectionGroup, ...args: Args) => Promise<T>,
) => rowEdit((structure) => structure.groups, "section group", edit);

export async function addSiteSpace(
  ctx: CoreContext,
  organizationId: string | null | undefined,
  siteId: string,
  input: { spaceId: unknown; sectionId?: string | null },
): Promise<SiteSpace> {
  const site = await requireSite(ctx, organizationId, siteId, "site.editStructure");
  const space = await spaceOfOrganization(ctx, site.organizationId, input.spaceId);
  return withSiteLock(ctx, siteId, async (tx, structure) => {
    let sectionId: string | null = null;
    if (input.sectionId != null) {
      if (!structure.sections.some((section) => section.id === input.sectionId))
        throw badInput(`sectionId: no section ${quote(input.sectionId)} in this site`);
      sectionId = input.sectionId;
    } else if (structure.sections.length) {
      sectionId = defaultOf(orderedSections(structure))!.id;
    }
    return insertSiteSpace(tx, structure, space, sectionId);
  });
}

export async function updateSiteSpace(
  ctx: CoreContext,
  organizationId: string | null | undefined,
  siteId: string,
  siteSpaceId: string,
  patch: { path?: string; condition?: string | null; spaceId?: string; hidden?: boolean },
): Promise<SiteSpace> {
  const site = await requireSite(ctx, organizationId, siteId, "site.editStructure");
  const data: Prisma.SiteSpaceUncheckedUpdateInput = {};
  if (patch.path !== undefined) data.path = checkPath("path", patch.path);
  if (patch.condition !== undefined) data.condition = patch.condition === null ? null : checkCondition("condition", patch.condition);
  if (patch.hidden !== undefined) data.hidden = patch.hidden;
  if (patch.spaceId !== undefined) data.spaceId = (await spaceOfOrganization(ctx, site.organizationId, patch.spaceId)).id;
  return withSiteLock(ctx, siteId, async (tx, structure) => {
    const siteSpace = findIn(structure.siteSpaces, siteSpaceId, "site space");
    if (patch.path !== undefined) checkPathFree(siteSpacesIn(structure, siteSpace.sectionId), patch.path, siteSpace.id);
    return tx.siteSpace.update({ where: { id: siteSpace.id }, data });
  });
}

function checkPathFree(siblings: { id: string; path: string }[], path: string, except?: string) {
  if (siblings.some((sibling) => sibling.id !== except && sibling.path.toLowerCase() === path.toLowerCase())) {
    throw conflict(`path ${quote(path)} is already used here: paths are unique among their siblings`);
  }
}

/** Removes the site space; the next one becomes the default; a section left empty goes too. */
export const deleteSiteSpace = siteSpaceEdit(async (tx, structure, siteSpace): Promise<void> => {
  await tx.siteSpace.delete({ where: { id: siteSpace.id } });
  const remaining = siteSpacesIn(structure, siteSpace.sectionId).filter((s) => s.id !== siteSpace.id);
  if (siteSpace.sectionId && remaining.length === 0) {
    await removeSection(tx, structure, siteSpace.sectionId);
  } else if (siteSpace.isDefault && remaining.length) {
    await tx.siteSpace.update({ where: { id: remaining[0].id }, data: { isDefault: true } });
  }
});

async function removeSection(tx: Transaction, structure: Structure, sectionId: string) {
  const section = findIn(structure.sections, sectionId, "section");
  await tx.siteSection.delete({ where: { id: section.id } });
  const next = orderedSections(structure).find((s) => s.id !== section.id);
  if (next && (section.isDefault || !structure.sections.some((s) => s.isDefault && s.id !== section.id))) {
    await tx.siteSection.update({ where: { id: next.id }, data: { isDefault: true } });
  }
}

export interface PositionInput {
  before?: string | null;
  after?: string | null;
}

/** A key next to `reference` among `siblings` (sorted), or last when there is none. */
function keyAt(
  siblings: { id: string; sortKey: string }[],
  position: PositionInput | null | undefined,
  movingId: string,
  field: string,
): string {
  const others = sortByKey(siblings.filter((sibling) => sibling.id !== movingId));
  const referenceId = position?.before ?? position?.after;
  if (position?.before && position?.after) throw badInput(`${field}: give before or after, not both`);
  if (!referenceId) return generateKeyBetween(others.at(-1)?.sortKey ?? null, null);
  const index = others.findIndex((sibling) => sibling.id === referenceId);
  if (index < 0) throw badInput(`${field}: ${quote(referenceId)} is not beside this item in the site`);
  return position?.before
    ? generateKeyBetween(others[index - 1]?.sortKey ?? null, others[index].sortKey)
    : generateKeyBetween(others[index].sortKey, others[index + 1]?.sortKey ?? null);
}

/** Moves a site space next to another one (into its section), or last in its own. */
export const moveSiteSpace = siteSpaceEdit(async (tx, structure, siteSpace, position: PositionInput | null | undefined) => {
  const referenceId = position?.before ?? position?.after;
  let sectionId = siteSpace.sectionId;
  if (referenceId) {
    const reference = structure.siteSpaces.find((s) => s.id === referenceId);
    if (!reference) throw badInput(`position: no site space ${quote(referenceId)} in this site`);
    sectionId = reference.sectionId;
  }
  const siblings = siteSpacesIn(structure, sectionId);
  if (sectionId !== siteSpace.sectionId) checkPathFree(siblings, siteSpace.path, siteSpace.id);
  const sortKey = keyAt(siblings, position, siteSpace.id, "position");
  if (sectionId !== siteSpace.sectionId) await leaveContainer(tx, structure, siteSpace);
  return tx.siteSpace.update({
    where: { id: siteSpace.id },
    data: { sectionId, sortKey, isDefault: sectionId === siteSpace.sectionId ? siteSpace.isDefault : siblings.length === 0 },
  });
});

/** Before a site space leaves its section or the root: the next there becomes the default. */
async function leaveContainer(tx: Transaction, structure: Structure, siteSpace: SiteSpace) {
  const remaining = siteSpacesIn(structure, siteSpace.sectionId).filter((s) => s.id !== siteSpace.id);
  if (siteSpace.isDefault && remaining.length) await tx.siteSpace.update({ where: { id: remaining[0].id }, data: { isDefault: true } });
}

// ---------------------------------------------------------------------------------------------
// Sections

/**
 * Adds a section holding `spaceId` as its first site space. On a site without sections, the site
 * spaces at its root first move into a section of their own (titled after the site), so that
 * every site space of a site with sections is in one.
 */
export async function addSection(
  ctx: CoreContext,
  organizationId: string | null | undefined,
  siteId: string,
  input: { spaceId: unknown; title?: string | null; icon?: string | null; siteSectionGroupId?: string | null },
): Promise<SiteSection> {
  const site = await requireSite(ctx, organizationId, siteId, "site.editStructure");
  const space = await spaceOfOrganization(ctx, site.organizationId, input.spaceId);
  const title = checkSectionTitle(input.title ?? sectionTitleFrom(space.title));
  const icon = checkIcon(input.icon);
  return withSiteLock(ctx, siteId, async (tx, structure) => {
    if (input.siteSectionGroupId != null && !structure.groups.some((g) => g.id === input.siteSectionGroupId)) {
      throw badInput(`siteSectionGroupId: no section group ${quote(input.siteSectionGroupId)} in this site`);
    }
    const rootSpaces = siteSpacesIn(structure, null);
    if (structure.sections.length === 0 && rootSpaces.length) {
      const first = await insertSection(tx, structure, { title: sectionTitleFrom(structure.site.title), icon: null, groupId: null });
      await tx.siteSpace.updateMany({ where: { siteId, sectionId: null }, data: { sectionId: first.id } });
      for (const siteSpace of rootSpaces) siteSpace.sectionId = first.id;
    }
    const section = await insertSection(tx, structure, { title, icon, groupId: input.siteSectionGroupId ?? null });
    await insertSiteSpace(tx, structure, space, section.id);
    return section;
  });
}

const sectionTitleFrom = (title: string) =>
  title.length >= SECTION_TITLE.min ? [...title].slice(0, SECTION_TITLE.max).join("") : `${title} section`;

function checkSectionTitle(title: string): string {
  checkLength("title", title, SECTION_TITLE);
  if (!title.trim()) throw badInput("title must not be blank");
  return title;
}

async function insertSection(tx: Transaction, structure: Structure, input: { title: string; icon: string | null; groupId: string | null }) {
  const siblings = input.groupId ? sectionsOfGroup(structure, input.groupId) : structure.root;
  const section = await tx.siteSection.create({
    data: {
      id: newId("SiteSection"),
      siteId: structure.site.id,
      sectionGroupId: input.groupId,
      title: input.title,
      icon: input.icon,
      path: freePath(
        input.title,
        structure.sections.map((s) => s.path),
      ),
      isDefault: structure.sections.length === 0,
      sortKey: lastKey(siblings),
    },
  });
  structure.sections.push(section);
  if (!input.groupId) structure.root.push(section);
  return section;
}

export async function updateSection(
  ctx: CoreContext,
  organizationId: string | null | undefined,
  siteId: string,
  sectionId: string,
  patch: {
    title?: string;
    path?: string;
    defaultSiteSpace?: string;
    condition?: string | null;
    icon?: string | null;
    description?: string | null;
    /** A group of the site to put the section in (last), or null to take it out of its group (where the group stands). */
    sectionGroup?: string | null;
  },
): Promise<SiteSection> {
  await requireSite(ctx, organizationId, siteId, "site.editStructure");
  const data: Prisma.SiteSectionUncheckedUpdateInput = {};
  if (patch.title !== undefined) data.title = checkSectionTitle(patch.title);
  if (patch.path !== undefined) data.path = checkPath("path", patch.path);
  if (patch.condition !== undefined) data.condition = patch.condition === null ? null : checkCondition("condition", patch.condition);
  if (patch.icon !== undefined) data.icon = checkIcon(patch.icon);
  if (patch.description !== undefined) {
    data.description = patch.description === null ? null : checkLength("description", patch.description, { max: SECTION_DESCRIPTION_MAX });
  }
  return withSiteLock(ctx, siteId, async (tx, structure) => {
    const section = findIn(structure.sections, sectionId, "section");
    if (patch.path !== undefined) checkPathFree(structure.sections, patch.path, section.id);
    if (patch.defaultSiteSpace !== undefined) {
      const siteSpace = siteSpacesIn(structure, section.id).find((s) => s.id === patch.defaultSiteSpace);
      if (!siteSpace) throw badInput(`defaultSiteSpace: no site space ${quote(patch.defaultSiteSpace)} in this section`);
      await makeDefaultSiteSpace(tx, structure, siteSpace);
    }
    if (patch.sectionGroup !== undefined && patch.sectionGroup !== section.sectionGroupId) {
      if (patch.sectionGroup === null) {
        await ungroup(tx, structure, findIn(structure.groups, section.sectionGroupId!, "section group"), [section]);
      } else {
        const group = structure.groups.find((g) => g.id === patch.sectionGroup);
        if (!group) throw badInput(`siteSectionGroupId: no section group ${quote(patch.sectionGroup)} in this site`);
        data.sectionGroupId = group.id;
        data.sortKey = lastKey(sectionsOfGroup(structure, group.id));
      }
    }
    return tx.siteSection.update({ where: { id: section.id }, data });
  });
}

/** Removes the section with its site spaces; the next section becomes the default. */
export const deleteSection = sectionEdit((tx, structure, section) => removeSection(tx, structure, section.id));

/**
 * Moves a section next to a section or a group (`before`/`after` are ids of either): it joins the
 * reference's group, or the root. Without a position it goes last at the root.
 */
export const moveSection = sectionEdit(async (tx, structure, section, position: PositionInput | null | undefined) => {
  const referenceId = position?.before ?? position?.after;
  let groupId: string | null = null;
  if (referenceId) {
    const reference = structure.sections.find((s) => s.id === referenceId) ?? structure.groups.find((g) => g.id === referenceId);
    if (!reference) throw badInput(`position: no section or section group ${quote(referenceId)} in this site`);
    groupId = isGroup(reference) ? null : (reference as SiteSection).sectionGroupId;
  }
  const siblings = groupId ? sectionsOfGroup(structure, groupId) : structure.root;
  const sortKey = keyAt(siblings, position, section.id, "position");
  return tx.siteSection.update({ where: { id: section.id }, data: { sectionGroupId: groupId, sortKey } });
});

// ---------------------------------------------------------------------------------------------
// Section groups

function checkGroupTitle(title: string): string {
  checkLength("title", title, GROUP_TITLE);
  if (!title.trim()) throw badInput("title must not be blank");
  return title;
}

/** The sections named by `ids`, all of this site (400 naming `field` otherwise). */
function sectionsNamed(structure: Structure, ids: string[], field: string): SiteSection[] {
  return ids.map((id) => {
    const section = structure.sections.find((s) => s.id === id);
    if (!section) throw badInput(`${field}: no section ${quote(id)} in this site`);
    return section;
  });
}

export async function addSectionGroup(
  ctx: CoreContext,
  organizationId: string | null | undefined,
  siteId: string,
  input: { title: unknown; icon?: string | null; sections?: string[] | null },
): Promise<SiteSectionGroup> {
  await requireSite(ctx, organizationId, siteId, "site.editStructure");
  if (typeof input.title !== "string") throw badInput("title is required");
  const title = checkGroupTitle(input.title);
  const icon = checkIcon(input.icon);
  return withSiteLock(ctx, siteId, async (tx, structure) => {
    const members = sectionsNamed(structure, [...new Set(input.sections ?? [])], "sections");
    // The group stands where its first section stood (else last).
    const first = members.find((section) => !section.sectionGroupId);
    const group = await tx.siteSectionGroup.create({
      data: { id: newId("SiteSectionGroup"), siteId, title, icon, sortKey: first ? first.sortKey : lastKey(structure.root) },
    });
    let previous: string | null = null;
    for (const section of members) {
      previous = generateKeyBetween(previous, null);
      await tx.siteSection.update({ where: { id: section.id }, data: { sectionGroupId: group.id, sortKey: previous } });
    }
    return group;
  });
}

export async function updateSectionGroup(
  ctx: CoreContext,
  organizationId: string | null | undefined,
  siteId: string,
  groupId: string,
  patch: { title?: string; icon?: string | null },
): Promise<SiteSectionGroup> {
  await requireSite(ctx, organizationId, siteId, "site.editStructure");
  const data: Prisma.SiteSectionGroupUpdateInput = {};
  if (patch.title !== undefined) data.title = checkGroupTitle(patch.title);
  if (patch.icon !== undefined) data.icon = checkIcon(patch.icon);
  return withSiteLock(ctx, siteId, async (tx, structure) => {
    findIn(structure.groups, groupId, "section group");
    return tx.siteSectionGroup.update({ where: { id: groupId }, data });
  });
}

/** Sections leaving a group stand at the root, in their order, right after where the group stands. */
async function ungroup(tx: Transaction, structure: Structure, group: SiteSectionGroup, sections: SiteSection[]) {
  const index = structure.root.findIndex((item) => item.id === group.id);
  const next = structure.root[index + 1]?.sortKey ?? null;
  let previous = group.sortKey;
  for (const section of sections) {
    previous = generateKeyBetween(previous, next);
    await tx.siteSection.update({ where: { id: section.id }, data: { sectionGroupId: null, sortKey: previous } });
  }
}

/** Removes the group; its sections stay, at the root where the group stood. */
export const deleteSectionGroup = groupEdit(async (tx, structure, group): Promise<void> => {
  await ungroup(tx, structure, group, sectionsOfGroup(structure, group.id));
  await tx.siteSectionGroup.delete({ where: { id: group.id } });
});

export async function addSectionToGroup(
  ctx: CoreContext,
  organizationId: string | null | undefined,
  siteId: string,
  groupId: string,
  sectionId: unknown,
) {
  await requireSite(ctx, organizationId, siteId, "site.editStructure");
  if (typeof sectionId !== "string") throw badInput("sectionId is required");
  return withSiteLock(ctx, siteId, async (tx, structure) => {
    const group = findIn(structure.groups, groupId, "section group");
    const [section] = sectionsNamed(structure, [sectionId], "sectionId");
    if (section.sectionGroupId !== group.id) {
      await tx.siteSection.update({
        where: { id: section.id },
        data: { sectionGroupId: group.id, sortKey: lastKey(sectionsOfGroup(structure, group.id)) },
      });
    }
    return group;
  });
}

export const removeSectionFromGroup = groupEdit(async (tx, structure, group, sectionId: string) => {
  const section = sectionsOfGroup(structure, group.id).find((s) => s.id === sectionId);
  if (!section) throw notFound("section in this group", sectionId);
  await ungroup(tx, structure, group, [section]);
  return group;
});

/** Moves a group next to a root item (a section outside groups, or another group), or last. */
export const moveSectionGroup = groupEdit(async (tx, structure, group, position: PositionInput | null | undefined) => {
  const sortKey = keyAt(structure.root, position, group.id, "position");
  return tx.siteSectionGroup.update({ where: { id: group.id }, data: { sortKey } });
});

export const STRUCTURE_ITEM_TYPES = ["site-space", "site-section", "site-section-group", "site-external-link"] as const;

/** `PATCH …/structure/sort`: one move of any structure item, by its kind. */
export async function sortStructure(
  ctx: CoreContext,
  organizationId: string | null | undefined,
  siteId: string,
  item: { type: string; id: string },
  position: { before?: { type: string; id: string } | null; after?: { type: string; id: string } | null } | null | undefined,
): Promise<SiteSpace | SiteSection | SiteSectionGroup> {
  const type = checkOneOf("item.type", item.type, STRUCTURE_ITEM_TYPES);
  if (type === "site-external-link") throw badInput("item.type: external links are not supported by this service");
  const reference = position?.before ?? position?.after;
  if (reference) checkOneOf("position.type", reference.type, STRUCTURE_ITEM_TYPES);
  const moves: PositionInput = { before: position?.before?.id ?? null, after: position?.after?.id ?? null };
  if (type === "site-space") {
    if (reference && reference.type !== "site-space") throw badInput("position: a site space moves next to another site space");
    return moveSiteSpace(ctx, organizationId, siteId, item.id, moves);
  }
  if (reference && reference.type === "site-space") throw badInput("position: a section or group moves next to a section or group");
  return type === "site-section"
    ? moveSection(ctx, organizationId, siteId, item.id, moves)
    : moveSectionGroup(ctx, organizationId, siteId, item.id, moves);
}

// ---------------------------------------------------------------------------------------------
// Reading the structure

/** Structure of a site the caller may read, as the visitor with `claims` sees it. */
export async function readStructure(
  ctx: CoreContext,
  organizationId: string | null | undefined,
  siteId: string,
  claims: VisitorClaims = {},
) {
  const site = await requireSite(ctx, organizationId, siteId, "site.read");
  return visibleStructure(await structureOf(ctx, site), claims);
}

export async function readSiteSpaces(
  ctx: CoreContext,
  organizationId: string | null | undefined,
  siteId: string,
  onlyDefault?: boolean | null,
) {
  const site = await requireSite(ctx, organizationId, siteId, "site.read");
  const structure = await structureOf(ctx, site);
  const ordered = [
    ...siteSpacesIn(structure, null),
    ...orderedSections(structure).flatMap((section) => siteSpacesIn(structure, section.id)),
  ];
  if (onlyDefault == null) return ordered;
  const defaults = new Set([
    defaultOf(siteSpacesIn(structure, null))?.id,
    ...structure.sections.map((s) => defaultOf(siteSpacesIn(structure, s.id))?.id),
  ]);
  return ordered.filter((siteSpace) => defaults.has(siteSpace.id) === onlyDefault);
}

export async function readSections(ctx: CoreContext, organizationId: string | null | undefined, siteId: string) {
  const site = await requireSite(ctx, organizationId, siteId, "site.read");
  return orderedSections(await structureOf(ctx, site));
}

export async function readSectionGroups(ctx: CoreContext, organizationId: string | null | undefined, siteId: string) {
  const site = await requireSite(ctx, organizationId, siteId, "site.read");
  return (await structureOf(ctx, site)).groups;
}

/** Sites showing `space` that the caller may read (a guest: those granted to them). */
export async function sitesOfSpace(ctx: CoreContext, space: Space): Promise<Site[]> {
  const membership = await ctx.access.membership(space.organizationId);
  if (!membership) return [];
  const sites = await siteLoaders(ctx).sitesOfSpace.load(space.id);
  if (membership.role) return sites;
  const readable = await Promise.all(
    sites.map(async (site) => (ctx.viewer.installationId ? may(ctx, "site.read", { site }) : (await ctx.access.roleOnSite(site)) !== null)),
  );
  return sites.filter((_site, index) => readable[index]);
}

/**
 * How many sites a member reads: every enabled member with an organization role reads all of the
 * organization's sites; a guest those granted to them (or a team of theirs); disabled members none.
 */
export async function memberSiteCount(
  ctx: CoreContext,
  member: { organizationId: string; userId: string; role: string | null; disabled: boolean },
): Promise<number> {
  if (member.disabled) return 0;
  if (member.role === null) {
    return siteLoaders(ctx).grantedSiteCount.load(`${member.organizationId}:${member.userId}`);
  }
  return siteLoaders(ctx).organizationSiteCount.load(member.organizationId);
}

/** The organization's default content: a site of its own (400 otherwise). */
export async function checkDefaultContentSite(
  ctx: CoreContext,
  organizationId: string,
  content: { type: string; site: string },
): Promise<string> {
  if (content.type !== "site") throw badInput(`defaultContent.type must be "site" (got ${quote(content.type)})`);
  const site = await siteLoaders(ctx).site.load(content.site);
  if (!site || site.organizationId !== organizationId)
    throw badInput(`defaultContent.site: no site ${quote(content.site)} in this organization`);
  return site.id;
}
