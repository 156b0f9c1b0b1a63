// Redirects of a published site (the published API's site redirects). A redirect sends a request
// for its `source` (a path of the site; `/*` or `*` at its end matches any rest) to its
// destination: a section, a site space or a page of the site, or an external http(s) URL. The
// site server (serve.ts) answers it only where no page is found, before the 404: a page that
// exists is never hidden by a redirect. Draft redirects are stored and listed, never served.
// Site admins write them (`site.configure`), readers of the site read them; at most
// REDIRECTS_PER_SITE_MAX per site, counted under a per-site lock.
import type { Prisma, Site, SiteRedirect } from "../../generated/prisma/client.ts";
import type { CoreContext } from "../context.ts";
import { contentOf } from "../content/index.ts";
import { flatten, findPageByPath, type PageNode } from "../content/tree.ts";
import { badInput, conflict, DomainError, notFound, quote } from "../errors.ts";
import { newId } from "../ids.ts";
import { paginate, type PageArgs } from "../pagination.ts";
import { checkLength, checkUrl } from "../validate.ts";
import { requireSite, sectionPathOf, siteSpacePathOf, structureOf, type Structure } from "./index.ts";
import { publishedUrlOf } from "./share-links.ts";

/** Redirects a site may have (live and draft together). */
export const REDIRECTS_PER_SITE_MAX = 1000;
/** Items of one bulk upsert (the published maxItems). */
export const REDIRECTS_BULK_MAX = 500;
/** The published maxLength of a source path. */
export const REDIRECT_SOURCE_MAX = 512;
/** Redirects the site server follows for one request before it gives up (a longer chain answers 404). */
export const REDIRECT_HOPS_MAX = 5;
const SEARCH_MAX = 256;

/** The published SiteRedirectSourcePath pattern. */
const SOURCE_PATTERN =
  /^\/(?!\*)(?!.*\*.+)(?:[A-Za-z0-9\-._~+]|%[0-9A-Fa-f]{2})+(?:\/(?:[A-Za-z0-9\-._~+]|%[0-9A-Fa-f]{2})+)*(?:\/\*|\*)?$/;

export type RedirectDestination =
  | { kind: "site-section"; siteSectionId: string }
  | { kind: "site-space"; siteSpaceId: string }
  | { kind: "site-page"; siteSpaceId: string; pageId: string }
  | { kind: "external"; url: string };

export const DESTINATION_KINDS = ["site-section", "site-space", "site-page", "external"] as const;
const INPUT_KINDS = [...DESTINATION_KINDS, "path"] as const;

export const destinationOf = (redirect: Pick<SiteRedirect, "destination">) => redirect.destination as unknown as RedirectDestination;

/** The redirect as the published API shows it: `updatedAt` only once it was changed. */
export const redirectUpdatedAt = (redirect: SiteRedirect): Date | null =>
  redirect.updatedAt.getTime() === redirect.createdAt.getTime() ? null : redirect.updatedAt;

// ---------------------------------------------------------------------------------------------
// Checks

export function checkSource(field: string, value: unknown): string {
  if (typeof value !== "string") throw badInput(`${field} must be a path of the site (a string starting with /)`);
  checkLength(field, value, { min: 2, max: REDIRECT_SOURCE_MAX });
  if (!SOURCE_PATTERN.test(value)) {
    throw badInput(
      `${field} must be a path of the site: /segments of letters, digits, - . _ ~ + or %XX, with /* or * only at its end (got ${quote(value)})`,
    );
  }
  if (value.split("/").some((segment) => segment === "." || segment === ".."))
    throw badInput(`${field} must not have . or .. segments (got ${quote(value)})`);
  return value;
}

function checkBoolean(field: string, value: unknown): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "boolean") throw badInput(`${field} must be a boolean`);
  return value;
}

function checkId(field: string, value: unknown): string {
  if (typeof value !== "string" || !value) throw badInput(`${field} is required (an id)`);
  return checkLength(field, value, { max: 100 });
}

/**
 * An external destination: an absolute http(s) URL of at most 2,048 characters without control
 * characters (so no stored string can split a Location header or run script).
 */
export function checkExternalUrl(field: string, value: unknown): string {
  if (typeof value !== "string") throw badInput(`${field} must be an absolute http(s) URL`);
  return checkUrl(field, value);
}

/** The pages of a space's head revision (null for a deleted or unknown space). */
async function pagesOfSpace(ctx: CoreContext, spaceId: string): Promise<PageNode[] | null> {
  const space = await ctx.prisma.space.findFirst({ where: { id: spaceId, deletedAt: null } });
  if (!space) return null;
  const revision = await ctx.prisma.revision.findUnique({ where: { id: space.revisionId } });
  return revision ? contentOf(revision).pages : null;
}

/** A destination of a write, checked against the site's structure; `path` (input only) becomes the page it names. */
async function checkDestination(
  ctx: CoreContext,
  structure: Structure,
  field: string,
  value: unknown,
  allowPath: boolean,
): Promise<RedirectDestination> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw badInput(`${field} must be an object { kind, … } (kind: ${DESTINATION_KINDS.join(", ")}${allowPath ? ", path" : ""})`);
  }
  const raw = value as Record<string, unknown>;
  const kinds: readonly string[] = allowPath ? INPUT_KINDS : DESTINATION_KINDS;
  if (typeof raw.kind !== "string" || !kinds.includes(raw.kind)) {
    throw badInput(`${field}.kind must be one of ${kinds.join(", ")} (got ${quote(raw.kind)})`);
  }
  const siteSpaceOf = (key: string, id: string) => {
    const siteSpace = structure.siteSpaces.find((row) => row.id === id);
    if (!siteSpace) throw badInput(`${field}.${key}: the site has no site space ${quote(id)}`);
    return siteSpace;
  };
  switch (raw.kind) {
    case "site-section": {
      const id = checkId(`${field}.siteSectionId`, raw.siteSectionId);
      if (!structure.sections.some((section) => section.id === id))
        throw badInput(`${field}.siteSectionId: the site has no section ${quote(id)}`);
      return { kind: "site-section", siteSectionId: id };
    }
    case "site-space": {
      const id = checkId(`${field}.siteSpaceId`, raw.siteSpaceId);
      siteSpaceOf("siteSpaceId", id);
      return { kind: "site-space", siteSpaceId: id };
    }
    case "site-page": {
      const siteSpace = siteSpaceOf("siteSpaceId", checkId(`${field}.siteSpaceId`, raw.siteSpaceId));
      const pageId = checkId(`${field}.pageId`, raw.pageId);
      const pages = await pagesOfSpace(ctx, siteSpace.spaceId);
      if (!pages || !flatten(pages).some((located) => located.page.id === pageId))
        throw badInput(`${field}.pageId: the site space has no page ${quote(pageId)}`);
      return { kind: "site-page", siteSpaceId: siteSpace.id, pageId };
    }
    case "external":
      return { kind: "external", url: checkExternalUrl(`${field}.url`, raw.url) };
    default: {
      // kind: path: a page of a space the site shows, by its path in the space's head revision.
      const spaceId = checkId(`${field}.spaceId`, raw.spaceId);
      if (typeof raw.path !== "string") throw badInput(`${field}.path is required (the page's path in the space)`);
      checkLength(`${field}.path`, raw.path, { max: REDIRECT_SOURCE_MAX });
      const siteSpace = structure.siteSpaces.find((row) => row.spaceId === spaceId);
      if (!siteSpace) throw badInput(`${field}.spaceId: the site shows no space ${quote(spaceId)}`);
      const pages = await pagesOfSpace(ctx, spaceId);
      const located = pages ? findPageByPath(pages, raw.path) : undefined;
      if (!located) throw badInput(`${field}.path: the space has no page at ${quote(raw.path)}`);
      return { kind: "site-page", siteSpaceId: siteSpace.id, pageId: located.page.id };
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Matching and targets (shared by the site server and getSiteRedirectBySource)

const decodeSafe = (text: string) => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};

/**
 * The redirect a request path (decoded, with its leading slash, no trailing one) matches: the one
 * whose source is the path, else the wildcard source with the longest prefix; `rest` is what the
 * wildcard matched (`/b/c` for `/a/*` and `/a/b/c`).
 */
export function matchRedirect<T extends Pick<SiteRedirect, "source">>(
  redirects: readonly T[],
  path: string,
): { redirect: T; rest: string } | null {
  let best: { redirect: T; rest: string; length: number } | null = null;
  for (const redirect of redirects) {
    const source = redirect.source;
    if (source.endsWith("*")) {
      const slash = source.endsWith("/*");
      const prefix = decodeSafe(source.slice(0, slash ? -2 : -1));
      const matches = slash ? path === prefix || path.startsWith(`${prefix}/`) : path.startsWith(prefix);
      if (matches && (!best || prefix.length > best.length)) best = { redirect, rest: path.slice(prefix.length), length: prefix.length };
    } else if (decodeSafe(source) === path) {
      return { redirect, rest: "" };
    }
  }
  return best && { redirect: best.redirect, rest: best.rest };
}

/** Where a destination leads: a path of the site (no leading slash) or an external URL; null when it is gone. */
export function targetOf(
  structure: Structure,
  pagesOf: (spaceId: string) => PageNode[] | null | undefined,
  destination: RedirectDestination,
): { path: string } | { external: string } | null {
  switch (destination.kind) {
    case "site-section": {
      const section = structure.sections.find((row) => row.id === destination.siteSectionId);
      return section ? { path: sectionPathOf(structure, section) } : null;
    }
    case "site-space": {
      const siteSpace = structure.siteSpaces.find((row) => row.id === destination.siteSpaceId);
      return siteSpace ? { path: siteSpacePathOf(structure, siteSpace) } : null;
    }
    case "site-page": {
      const siteSpace = structure.siteSpaces.find((row) => row.id === destination.siteSpaceId);
      const pages = siteSpace ? pagesOf(siteSpace.spaceId) : null;
      const located = pages ? flatten(pages).find((row) => row.page.id === destination.pageId) : undefined;
      if (!siteSpace || !located) return null;
      return { path: [siteSpacePathOf(structure, siteSpace), located.path].filter(Boolean).join("/") };
    }
    case "external":
      return typeof destination.url === "string" ? { external: destination.url } : null;
    default:
      return null;
  }
}

const encodePath = (path: string) => path.split("/").map(encodeURIComponent).join("/");

/**
 * The URL a redirect sends to: the target (a site path under `base`, or the external URL) with the
 * wildcard's rest when it captures it, checked as a Location header's value: an absolute http(s)
 * URL without control characters, else null (the request then finds its 404).
 */
export function locationOf(target: { path: string } | { external: string }, base: string, rest: string): string | null {
  const suffix = rest ? encodePath(rest) : "";
  let url: URL;
  try {
    if ("path" in target) {
      url = new URL(`${base}/${`${encodePath(target.path)}${suffix}`.replace(/^\/+/, "")}`);
    } else {
      if (/[\u0000-\u001f\u007f]/.test(target.external)) return null;
      url = new URL(target.external);
      if (suffix) url.pathname = `${url.pathname.replace(/\/$/, "")}${suffix}`;
    }
  } catch {
    return null;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  const href = url.href;
  return /[\u0000-\u001f\u007f\s]/.test(href) ? null : href;
}

// ---------------------------------------------------------------------------------------------
// Reading

const REDIRECT_ORDERS = ["createdAt", "updatedAt", "source"] as const;
export type RedirectOrder = (typeof REDIRECT_ORDERS)[number];

export async function listRedirects(
  ctx: CoreContext,
  organizationId: string | null | undefined,
  siteId: string,
  args: PageArgs,
  filter: { search?: string | null; draft?: boolean | null; orderBy?: string | null },
) {
  await requireSite(ctx, organizationId, siteId, "site.read");
  if (filter.search != null) checkLength("search", filter.search, { max: SEARCH_MAX });
  const orderBy = (filter.orderBy ?? "createdAt") as RedirectOrder;
  if (!REDIRECT_ORDERS.includes(orderBy)) throw badInput(`orderBy must be one of ${REDIRECT_ORDERS.join(", ")} (got ${quote(orderBy)})`);
  const where: Prisma.SiteRedirectWhereInput = {
    siteId,
    draft: filter.draft ?? false,
    ...(filter.search ? { source: { contains: filter.search, mode: "insensitive" } } : {}),
  };
  return paginate<SiteRedirect, Prisma.SiteRedirectWhereInput>(args, {
    sortField: orderBy,
    sortKind: orderBy === "source" ? "text" : "date",
    direction: orderBy === "source" ? "asc" : "desc",
    where,
    rows: ctx.prisma.siteRedirect,
  });
}

/** What a visitor requesting `source` is sent to: the live redirect it matches and the destination's URL (404 when none). */
export async function resolveRedirect(ctx: CoreContext, organizationId: string | null | undefined, siteId: string, source: unknown) {
  const site = await requireSite(ctx, organizationId, siteId, "site.read");
  const path = decodeSafe(checkSource("source", source).replace(/\/+$/, ""));
  const redirects = await ctx.prisma.siteRedirect.findMany({ where: { siteId, draft: false } });
  const match = matchRedirect(redirects, path);
  if (!match) throw new DomainError("NOT_FOUND", `The site has no redirect from ${quote(source)}`);
  const destination = destinationOf(match.redirect);
  const structure = await structureOf(ctx, site);
  const siteSpace = destination.kind === "site-page" ? structure.siteSpaces.find((row) => row.id === destination.siteSpaceId) : undefined;
  const pages = siteSpace ? await pagesOfSpace(ctx, siteSpace.spaceId) : null;
  const target = targetOf(structure, () => pages, destination);
  const base = publishedUrlOf(ctx, site, "").replace(/\/$/, "");
  const location = target && locationOf(target, base, match.redirect.captureWildcard ? match.rest : "");
  if (!location)
    throw new DomainError("NOT_FOUND", `The destination of the redirect from ${quote(match.redirect.source)} no longer exists`);
  return { redirect: match.redirect, target: location };
}

// ---------------------------------------------------------------------------------------------
// Writing

/** Serializes the writes of one site's redirects (the count bound, the source's uniqueness). */
const lockRedirects = (tx: { $queryRaw: CoreContext["prisma"]["$queryRaw"] }, siteId: string) =>
  tx.$queryRaw`SELECT pg_advisory_xact_lock(hashtext(${`redirects:${siteId}`}))::text`;

type Tx = Parameters<Parameters<CoreContext["prisma"]["$transaction"]>[0]>[0];

async function checkCount(tx: Tx, siteId: string) {
  const count = await tx.siteRedirect.count({ where: { siteId } });
  if (count > REDIRECTS_PER_SITE_MAX)
    throw badInput(`redirects: a site has at most ${REDIRECTS_PER_SITE_MAX} redirects (this would make ${count}); delete some first`);
}

/** A redirect whose destination is its own source would send a visitor in a circle: refused. */
function checkNotSelf(structure: Structure, field: string, source: string, destination: RedirectDestination) {
  if (source.endsWith("*") || destination.kind === "external" || destination.kind === "site-page") return;
  const target = targetOf(structure, () => null, destination);
  if (target && "path" in target && decodeSafe(source) === `/${target.path}`)
    throw badInput(`${field}: the redirect would point at its own source ${quote(source)}`);
}

export interface RedirectInput {
  source?: unknown;
  captureWildcard?: unknown;
  draft?: unknown;
  permanent?: unknown;
  destination?: unknown;
}

export async function createRedirect(ctx: CoreContext, organizationId: string | null | undefined, siteId: string, input: RedirectInput) {
  const site = await requireSite(ctx, organizationId, siteId, "site.configure");
  const source = checkSource("source", input.source);
  const captureWildcard = checkBoolean("captureWildcard", input.captureWildcard) ?? false;
  const draft = checkBoolean("draft", input.draft) ?? false;
  const permanent = checkBoolean("permanent", input.permanent) ?? false;
  if (input.destination == null) throw badInput("destination is required");
  const structure = await structureOf(ctx, site);
  const destination = await checkDestination(ctx, structure, "destination", input.destination, true);
  checkNotSelf(structure, "destination", source, destination);
  const now = ctx.clock.now();
  return ctx.prisma.$transaction(async (tx) => {
    await lockRedirects(tx, siteId);
    if (await tx.siteRedirect.findUnique({ where: { siteId_source_draft: { siteId, source, draft } } }))
      throw conflict(`source: the site already has a ${draft ? "draft" : "live"} redirect from ${quote(source)}`);
    const created = await tx.siteRedirect.create({
      data: { id: newId("SiteRedirect"), siteId, source, draft, captureWildcard, permanent, destination, createdAt: now, updatedAt: now },
    });
    await checkCount(tx, siteId);
    return created;
  });
}

/** A change's time: after the creation's, so that `updatedAt` shows the redirect was changed. */
const changedAt = (ctx: CoreContext, createdAt: Date) => new Date(Math.max(ctx.clock.now().getTime(), createdAt.getTime() + 1));

export async function updateRedirect(
  ctx: CoreContext,
  organizationId: string | null | undefined,
  siteId: string,
  id: string,
  input: RedirectInput,
) {
  const site = await requireSite(ctx, organizationId, siteId, "site.configure");
  const source = input.source == null ? undefined : checkSource("source", input.source);
  const captureWildcard = checkBoolean("captureWildcard", input.captureWildcard);
  const draft = checkBoolean("draft", input.draft);
  const permanent = checkBoolean("permanent", input.permanent);
  const structure = await structureOf(ctx, site);
  const destination =
    input.destination == null ? undefined : await checkDestination(ctx, structure, "destination", input.destination, true);
  return ctx.prisma.$transaction(async (tx) => {
    await lockRedirects(tx, siteId);
    const current = await tx.siteRedirect.findFirst({ where: { id, siteId } });
    if (!current) throw notFound("site redirect", id);
    const next = { source: source ?? current.source, draft: draft ?? current.draft };
    checkNotSelf(structure, "destination", next.source, destination ?? destinationOf(current));
    if (next.source !== current.source || next.draft !== current.draft) {
      const other = await tx.siteRedirect.findUnique({ where: { siteId_source_draft: { siteId, ...next } } });
      if (other) throw conflict(`source: the site already has a ${next.draft ? "draft" : "live"} redirect from ${quote(next.source)}`);
    }
    return tx.siteRedirect.update({
      where: { id },
      data: {
        ...next,
        ...(captureWildcard !== undefined ? { captureWildcard } : {}),
        ...(permanent !== undefined ? { permanent } : {}),
        ...(destination !== undefined ? { destination } : {}),
        updatedAt: changedAt(ctx, current.createdAt),
      },
    });
  });
}

/** Deletes the redirect; false when there was none (the published API answers 204 then, 205 otherwise). */
export async function deleteRedirect(ctx: CoreContext, organizationId: string | null | undefined, siteId: string, id: string) {
  await requireSite(ctx, organizationId, siteId, "site.configure");
  const { count } = await ctx.prisma.siteRedirect.deleteMany({ where: { id, siteId } });
  return count > 0;
}

export type BulkResult =
  | { status: "created" | "updated" | "published"; source: string; draft: boolean; id: string }
  | { status: "deleted"; source: string; draft: boolean }
  | { status: "error"; source: string; draft: boolean; error: string };

type BulkItem =
  | { source: string; intent: "publish" }
  | {
      source: string;
      intent: "live" | "draft";
      captureWildcard: boolean;
      permanent: boolean | undefined;
      destination: RedirectDestination | null;
    };

/**
 * The published bulk upsert: each item creates or updates the live or draft redirect from its
 * source, deletes it (a null destination), or publishes the draft (intent publish). Every item is
 * checked before anything is written (a bad one: 400 naming `redirects[i]…`, nothing changed);
 * then all are written in one transaction, each answering its result (a deletion or publication
 * of a redirect that does not exist answers `error`, the others still apply). Over the site's
 * bound: 400, nothing changed.
 */
export async function bulkUpsertRedirects(ctx: CoreContext, organizationId: string | null | undefined, siteId: string, items: unknown) {
  const site = await requireSite(ctx, organizationId, siteId, "site.configure");
  if (!Array.isArray(items)) throw badInput("redirects must be a list of redirects");
  if (items.length < 1 || items.length > REDIRECTS_BULK_MAX)
    throw badInput(`redirects: 1 to ${REDIRECTS_BULK_MAX} items (got ${items.length})`);
  const structure = await structureOf(ctx, site);
  const checked: BulkItem[] = [];
  const seen = new Set<string>();
  for (const [index, item] of items.entries()) {
    const field = `redirects[${index}]`;
    if (typeof item !== "object" || item === null || Array.isArray(item)) throw badInput(`${field} must be an object { source, … }`);
    const raw = item as Record<string, unknown>;
    const source = checkSource(`${field}.source`, raw.source);
    if (seen.has(source)) throw badInput(`${field}.source: ${quote(source)} is given twice`);
    seen.add(source);
    const intent = raw.intent ?? "live";
    if (intent !== "live" && intent !== "draft" && intent !== "publish")
      throw badInput(`${field}.intent must be one of live, draft, publish (got ${quote(intent)})`);
    if (intent === "publish") {
      checked.push({ source, intent });
      continue;
    }
    if (!("destination" in raw)) throw badInput(`${field}.destination is required (null deletes the redirect)`);
    const destination =
      raw.destination === null ? null : await checkDestination(ctx, structure, `${field}.destination`, raw.destination, true);
    if (destination) checkNotSelf(structure, `${field}.destination`, source, destination);
    checked.push({
      source,
      intent,
      captureWildcard: checkBoolean(`${field}.captureWildcard`, raw.captureWildcard) ?? false,
      permanent: checkBoolean(`${field}.permanent`, raw.permanent),
      destination,
    });
  }
  return ctx.prisma.$transaction(async (tx): Promise<BulkResult[]> => {
    await lockRedirects(tx, siteId);
    // The rows the items name, read at once (each source appears once per request, so no item
    // changes another's), and the new rows written at once: two statements rather than two per item.
    const rows = await tx.siteRedirect.findMany({ where: { siteId, source: { in: checked.map((item) => item.source) } } });
    const stored = new Map(rows.map((row) => [`${row.draft}:${row.source}`, row]));
    const creations: Prisma.SiteRedirectCreateManyInput[] = [];
    const results: BulkResult[] = [];
    for (const item of checked) {
      const { source } = item;
      const find = (draft: boolean) => stored.get(`${draft}:${source}`) ?? null;
      if (item.intent === "publish") {
        const draft = find(true);
        if (!draft) {
          results.push({ status: "error", source, draft: true, error: `no draft redirect from ${quote(source)} to publish` });
          continue;
        }
        const live = find(false);
        const fields = {
          captureWildcard: draft.captureWildcard,
          permanent: draft.permanent,
          destination: draft.destination as Prisma.InputJsonValue,
        };
        await tx.siteRedirect.delete({ where: { id: draft.id } });
        const published = live
          ? await tx.siteRedirect.update({ where: { id: live.id }, data: { ...fields, updatedAt: changedAt(ctx, live.createdAt) } })
          : await tx.siteRedirect.create({
              data: {
                id: newId("SiteRedirect"),
                siteId,
                source,
                draft: false,
                ...fields,
                createdAt: ctx.clock.now(),
                updatedAt: ctx.clock.now(),
              },
            });
        results.push({ status: "published", source, draft: false, id: published.id });
        continue;
      }
      const draft = item.intent === "draft";
      const existing = find(draft);
      if (item.destination === null) {
        if (!existing) {
          results.push({
            status: "error",
            source,
            draft,
            error: `no ${draft ? "draft" : "live"} redirect from ${quote(source)} to delete`,
          });
          continue;
        }
        await tx.siteRedirect.delete({ where: { id: existing.id } });
        results.push({ status: "deleted", source, draft });
        continue;
      }
      const fields = {
        captureWildcard: item.captureWildcard,
        destination: item.destination,
        ...(item.permanent !== undefined ? { permanent: item.permanent } : {}),
      };
      if (existing) {
        await tx.siteRedirect.update({ where: { id: existing.id }, data: { ...fields, updatedAt: changedAt(ctx, existing.createdAt) } });
        results.push({ status: "updated", source, draft, id: existing.id });
      } else {
        const now = ctx.clock.now();
        const id = newId("SiteRedirect");
        creations.push({ id, siteId, source, draft, ...fields, createdAt: now, updatedAt: now });
        results.push({ status: "created", source, draft, id });
      }
    }
    if (creations.length) await tx.siteRedirect.createMany({ data: creations });
    await checkCount(tx, siteId);
    return results;
  });
}

/** The site's live redirects, for the site server (only read for a request that found no page). */
export const liveRedirects = (ctx: Pick<CoreContext, "prisma">, site: Pick<Site, "id">) =>
  ctx.prisma.siteRedirect.findMany({ where: { siteId: site.id, draft: false } });
