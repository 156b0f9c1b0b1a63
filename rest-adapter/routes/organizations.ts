// /v1/orgs routes.
import { graphql, type FragmentOf } from "../graphql.ts";
import { ROLES } from "../../src/core/auth/roles.ts";
import { compact, graphqlEnum, listBody, ListInfo, pageVariables, present, restEnum, type RestRoute, typedRoute } from "../route.ts";

export const OrganizationFields = graphql(`
  fragment OrganizationFields on Organization {
    id title createdAt emailDomains hostname type useCase communityType defaultRole
    defaultContent { type site }
    sso ai inviteLinks plan mergeRules
    trial { status count }
    urls { location app logo }
    permissions {
      view access admin ownTeam createContent createOpenAPISpec ingestConversations viewBilling
      listMembers listTeams listIntegrations listInstallations installIntegration
    }
  }`);

export function restOrganization(o: FragmentOf<typeof OrganizationFields>) {
  // Object.assign, not properties after a spread (slow on Node 20, issue 15): the same object.
  return Object.assign({ object: "organization" }, compact(Object.assign({}, o, { urls: undefined, defaultRole: undefined })), {
    type: restEnum(o.type),
    defaultRole: restEnum(o.defaultRole),
    urls: compact(o.urls),
    mergeRules: o.mergeRules,
    internal_isOnNewTrial: true,
  });
}

export const organizationRoutes: RestRoute[] = [
  typedRoute({
    method: "GET",
    path: "/v1/orgs",
    action: "viewer",
    query: { page: "string", limit: "limit" },
    document: graphql(
      `query ListOrganizations($first: Int, $after: String) {
        viewer {
          organizations(first: $first, after: $after) { totalCount pageInfo { ...ListInfo } nodes { ...OrganizationFields } }
        }
      }`,
      [OrganizationFields, ListInfo],
    ),
    variables: ({ query }) => pageVariables(query),
    status: 200,
    body: (data) => listBody(data.viewer.organizations, restOrganization),
  }),
  typedRoute({
    method: "GET",
    path: "/v1/orgs/:organizationId",
    action: "organization.read",
    document: graphql(`query GetOrganization($id: ID!) { organization(id: $id) { ...OrganizationFields } }`, [OrganizationFields]),
    variables: ({ params }) => ({ id: params.organizationId }),
    status: 200,
    body: (data) => restOrganization(data.organization),
  }),
  typedRoute({
    method: "PATCH",
    path: "/v1/orgs/:organizationId",
    action: "organization.update",
    document: graphql(
      `mutation UpdateOrganization($input: UpdateOrganizationInput!) {
        updateOrganization(input: $input) { organization { ...OrganizationFields } }
      }`,
      [OrganizationFields],
    ),
    variables: ({ params, body }) => ({
      input: {
        id: params.organizationId,
        ...present(body, ["title", "emailDomains", "hostname", "defaultContent", "logo", "sso", "ai", "inviteLinks", "mergeRules"]),
        ...("defaultRole" in body ? { defaultRole: graphqlEnum("defaultRole", body.defaultRole, ROLES) } : {}),
      },
    }),
    status: 200,
    body: (data) => restOrganization(data.updateOrganization.organization),
  }),
];
