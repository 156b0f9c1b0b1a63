// Applying the site template (the published applyTemplateToSite, which takes no input): a site
// that shows no content yet gets a starter space, "Getting started" with a welcome page that says
// how to go on, shown as its site space. A site that already shows a space is left as it is
// (400): the template would otherwise bury what its editors made. The caller must be able to
// edit the site's structure and create content in the organization, both checked before
// anything is written; if a step fails, the starter space is removed again.
import type { CoreContext } from "../context.ts";
import { badInput } from "../errors.ts";
import { newId } from "../ids.ts";
import { editContent } from "../content/index.ts";
import { requireOrganization } from "../organizations/read.ts";
import { createSpace } from "../spaces/index.ts";
import { addSiteSpace, requireSite, structureOf } from "./index.ts";

export const TEMPLATE_SPACE_TITLE = "Getting started";
export const TEMPLATE_PAGE_TITLE = "Welcome";
const TEMPLATE_MARKDOWN = `This site was started from the template.

## Next steps

- Write your first pages in this space, or add other spaces to the site.
- Customize the site's look (colors, logo, fonts) and its sections.
- Publish the site when it is ready to be read.
`;

export async function applySiteTemplate(ctx: CoreContext, organizationId: string | null | undefined, siteId: string) {
  const site = await requireSite(ctx, organizationId, siteId, "site.editStructure");
  await requireOrganization(ctx, site.organizationId, "organization.createContent");
  if ((await structureOf(ctx, site)).siteSpaces.length)
    throw badInput("site: the site already shows content; the template applies to a site without any");
  const space = await createSpace(ctx, { organizationId: site.organizationId, title: TEMPLATE_SPACE_TITLE });
  try {
    await editContent(ctx, {
      target: { spaceId: space.id },
      edits: [
        {
          op: "createPage",
          id: newId("Page"),
          kind: "document",
          fields: { title: TEMPLATE_PAGE_TITLE },
          body: TEMPLATE_MARKDOWN,
          position: { parent: null, before: null, after: null },
        },
      ],
    });
    await addSiteSpace(ctx, site.organizationId, site.id, { spaceId: space.id });
    return site;
  } catch (error) {
    await ctx.prisma.space.delete({ where: { id: space.id } }).catch(() => undefined);
    throw error;
  }
}
