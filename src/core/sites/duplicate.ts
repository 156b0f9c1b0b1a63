// Duplicating a site space (the published duplicateSiteSpace): its space is duplicated (the
// space's own duplicate: content at its head, title "… (copy)", next to it) and the copy is added
// to the site next to the source, in the same section. The caller needs to edit the site's
// structure and to duplicate the space; both are checked before anything is written, and if the
// copy cannot be added to the site (the site changed meanwhile) the copy is removed again, so a
// refused request leaves nothing behind. `draft: true` adds it hidden: the closest this service
// has to a draft site space (readers do not see it among the variants until it is shown).
import type { SiteSpace } from "../../generated/prisma/client.ts";
import type { CoreContext } from "../context.ts";
import { badInput, notFound } from "../errors.ts";
import { duplicateSpace } from "../spaces/index.ts";
import { requireSpace } from "../spaces/read.ts";
import { addSiteSpace, requireSite, structureOf, updateSiteSpace } from "./index.ts";

export async function duplicateSiteSpace(
  ctx: CoreContext,
  organizationId: string | null | undefined,
  siteId: string,
  siteSpaceId: string,
  input: { draft?: unknown },
): Promise<SiteSpace> {
  if (input.draft != null && typeof input.draft !== "boolean") throw badInput("draft must be a boolean");
  const site = await requireSite(ctx, organizationId, siteId, "site.editStructure");
  const source = (await structureOf(ctx, site)).siteSpaces.find((row) => row.id === siteSpaceId);
  if (!source) throw notFound("site space", siteSpaceId);
  await requireSpace(ctx, source.spaceId, "space.duplicate");
  const copy = await duplicateSpace(ctx, source.spaceId);
  try {
    const added = await addSiteSpace(ctx, site.organizationId, site.id, { spaceId: copy.id, sectionId: source.sectionId });
    return input.draft === true ? await updateSiteSpace(ctx, site.organizationId, site.id, added.id, { hidden: true }) : added;
  } catch (error) {
    await ctx.prisma.space.delete({ where: { id: copy.id } }).catch(() => undefined);
    throw error;
  }
}
