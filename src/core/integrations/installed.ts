// What the integration rules (index.ts) and the runtime both read of a stored integration: its
// manifest, and where it counts as installed. Apart from the rules so that the runtime, which
// Services holds, does not import them.
import type { Integration, Prisma } from "../../generated/prisma/client.ts";
import type { ConfigurationSchema } from "./configuration.ts";

/** The manifest fields kept as sent (validated) in `Integration.manifest`. */
export interface Manifest {
  runtime?: string;
  description?: string;
  summary?: string;
  blocks?: unknown[];
  contentSources?: unknown[];
  configurations?: { account?: ConfigurationSchema; space?: ConfigurationSchema; site?: ConfigurationSchema };
  externalLinks?: { url: string; label: string }[];
  contentSecurityPolicy?: unknown;
}

export const manifestOf = (integration: Integration) => integration.manifest as Manifest;

/**
 * Where an integration counts as installed on a space (and on a site, when given): its
 * installation in the space's organization is active, and it is on the space (an active space
 * installation, or `space_selection: all`) or on the site (an active site installation, or
 * `site_selection: all`). The one rule of the space's integration list, its blocks, the render
 * route and the blocks of published pages (blocks.ts).
 */
export function installedWhere(organizationId: string | null, spaceId: string, siteId?: string): Prisma.IntegrationInstallationWhereInput {
  return {
    // null: the organization of the space, in the same statement.
    ...(organizationId ? { organizationId } : { organization: { spaces: { some: { id: spaceId } } } }),
    status: "active",
    OR: [
      { spaceSelection: "all" },
      { spaces: { some: { spaceId, status: "active" } } },
      ...(siteId ? [{ siteSelection: "all" }, { sites: { some: { siteId, status: "active" } } }] : []),
    ],
  };
}
