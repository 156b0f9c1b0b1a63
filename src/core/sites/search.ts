// Site search: the published content of a site as a visitor sees it. Only the spaces the site
// shows are searched, and only those of the site spaces (and sections) whose condition holds for
// the visitor's claims: a site space hidden from a visitor is not found by them. An unpublished
// site has no published content: its search finds nothing. The scope is the published API's
// (`default`: each section's default site space, plus the current one; `specific`; `all`).
import type { SiteSpace } from "../../generated/prisma/client.ts";
import type { CoreContext } from "../context.ts";
import { badInput, quote } from "../errors.ts";
import type { PageArgs } from "../pagination.ts";
import { searchSpaces } from "../search/index.ts";
import type { VisitorClaims } from "./conditions.ts";
import { defaultOf, orderedSections, requireSite, siteSpacesIn, structureOf, visibleStructure } from "./index.ts";

export interface SiteSearchScope {
  mode: "default" | "specific" | "all";
  currentSiteSpace?: string | null;
  restrictTo?: "currentSiteSpace" | "otherSiteSpaces" | null;
  siteSpaceIds?: string[] | null;
}

const MODES = ["default", "specific", "all"];
const RESTRICTIONS = ["currentSiteSpace", "otherSiteSpaces"];

/** The scope as given (the published API's `scope`), checked. */
export function checkScope(scope: unknown): SiteSearchScope {
  if (scope == null) return { mode: "default" };
  if (typeof scope !== "object" || Array.isArray(scope)) throw badInput("scope must be an object with a mode");
  const { mode, currentSiteSpace, restrictTo, siteSpaceIds } = scope as Record<string, unknown>;
  if (typeof mode !== "string" || !MODES.includes(mode)) throw badInput(`scope.mode must be one of ${MODES.join(", ")}`);
  if (currentSiteSpace != null && typeof currentSiteSpace !== "string") throw badInput("scope.currentSiteSpace must be a site space id");
  if (restrictTo != null && (typeof restrictTo !== "string" || !RESTRICTIONS.includes(restrictTo))) {
    throw badInput(`scope.restrictTo must be one of ${RESTRICTIONS.join(", ")}`);
  }
  if (restrictTo != null && currentSiteSpace == null) throw badInput("scope.restrictTo needs scope.currentSiteSpace");
  if (mode === "specific") {
    if (!Array.isArray(siteSpaceIds) || !siteSpaceIds.length || siteSpaceIds.some((id) => typeof id !== "string")) {
      throw badInput("scope.siteSpaceIds must be a non-empty list of site space ids");
    }
  }
  return {
    mode: mode as SiteSearchScope["mode"],
    currentSiteSpace: currentSiteSpace as string | undefined,
    restrictTo: restrictTo as SiteSearchScope["restrictTo"],
    siteSpaceIds: siteSpaceIds as string[] | undefined,
  };
}

/**
 * The spaces of the site's published content that a visitor with `claims` sees within `scope`
 * (none for an unpublished site), with the site, its visible structure and the site space each
 * space is shown through: what site search and Ask read.
 */
export async function siteScope(
  ctx: CoreContext,
  organizationId: string | null | undefined,
  siteId: string,
  input: { scope?: unknown; claims?: VisitorClaims | null },
) {
  const scope = checkScope(input.scope);
  const site = await requireSite(ctx, organizationId, siteId, "site.read");
  const all = await structureOf(ctx, site);
  const visible = visibleStructure(all, input.claims ?? {});
  const ofSite = (field: string, id: string) => {
    if (!all.siteSpaces.some((siteSpace) => siteSpace.id === id)) throw badInput(`${field}: no site space ${quote(id)} in this site`);
    return visible.siteSpaces.find((siteSpace) => siteSpace.id === id);
  };
  let chosen: (SiteSpace | undefined)[];
  if (scope.mode === "all") {
    chosen = visible.siteSpaces;
  } else if (scope.mode === "specific") {
    chosen = scope.siteSpaceIds!.map((id) => ofSite("scope.siteSpaceIds", id));
  } else {
    const current = scope.currentSiteSpace ? ofSite("scope.currentSiteSpace", scope.currentSiteSpace) : undefined;
    const defaults = [siteSpacesIn(visible, null), ...orderedSections(visible).map((section) => siteSpacesIn(visible, section.id))].map(
      defaultOf,
    );
    chosen =
      scope.restrictTo === "currentSiteSpace"
        ? [current]
        : scope.restrictTo === "otherSiteSpaces"
          ? defaults.filter((siteSpace) => siteSpace?.id !== current?.id)
          : [current, ...defaults];
  }
  const siteSpaceOf = new Map<string, SiteSpace>();
  if (site.published)
    for (const siteSpace of chosen) if (siteSpace && !siteSpaceOf.has(siteSpace.spaceId)) siteSpaceOf.set(siteSpace.spaceId, siteSpace);
  const spaces = siteSpaceOf.size
    ? await ctx.prisma.space.findMany({
        where: { id: { in: [...siteSpaceOf.keys()] }, deletedAt: null },
        select: { id: true, title: true, revisionId: true },
      })
    : [];
  return { site, structure: visible, spaces, siteSpaceOf };
}

/** Pages of the site's published content matching `query`, grouped by space, best first. */
export async function searchSite(
  ctx: CoreContext,
  organizationId: string | null | undefined,
  siteId: string,
  input: { query: string; scope?: unknown; claims?: VisitorClaims | null },
  args: PageArgs,
) {
  const { site, spaces } = await siteScope(ctx, organizationId, siteId, input);
  return searchSpaces(ctx, spaces, input.query, args, { synonyms: site.searchSynonyms as string[][] });
}
