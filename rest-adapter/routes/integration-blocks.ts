// GET /v1/spaces/{spaceId}/integration-blocks: the blocks of the integrations installed on the
// space (the published `SpaceIntegrationBlocks`: `[{ name, blocks: [IntegrationBlock] }]`); and
// GET /v1/orgs/{organizationId}/sites/{siteId}/integration-scripts: the scripts integrations
// inject into the site (`[SiteIntegrationScript]`).
import { graphql } from "../graphql.ts";
import { compact, typedRoute, type RestRoute } from "../route.ts";

export const integrationBlockRoutes: RestRoute[] = [
  typedRoute({
    method: "GET",
    path: "/v1/spaces/:spaceId/integration-blocks",
    action: "space.read",
    document: graphql(`
      query ListSpaceIntegrationBlocks($id: ID!) {
        space(id: $id) {
          integrationBlocks { name blocks { id title description icon urlUnfurl markdown { codeblock body } } }
        }
      }`),
    variables: ({ params }) => ({ id: params.spaceId }),
    status: 200,
    body: (data) =>
      data.space.integrationBlocks.map((entry) => ({
        name: entry.name,
        blocks: entry.blocks.map((block) => compact({ ...block })),
      })),
  }),
  typedRoute({
    method: "GET",
    path: "/v1/orgs/:organizationId/sites/:siteId/integration-scripts",
    action: "site.read",
    document: graphql(`
      query ListSiteIntegrationScripts($site: ID!, $organization: ID) {
        site(id: $site, organization: $organization) { integrationScripts { script contentSecurityPolicy cookies } }
      }`),
    variables: ({ params }) => ({ site: params.siteId, organization: params.organizationId }),
    status: 200,
    body: (data) => data.site.integrationScripts.map((entry) => compact({ ...entry })),
  }),
];
