// /v1/orgs routes.
import { ROLES } from "../../src/auth/roles.ts";
import { compact, graphqlEnum, listBody, pageVariables, present, restEnum, type RestRoute } from "../route.ts";

export const ORGANIZATION_FIELDS = /* GraphQL */ `
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
  }`;

export function restOrganization(o: any) {
  return {
    object: "organization",
    ...compact({ ...o, urls: undefined, defaultRole: undefined }),
    type: restEnum(o.type),
    defaultRole: restEnum(o.defaultRole),
    urls: compact(o.urls),
    mergeRules: o.mergeRules,
    internal_isOnNewTrial: true,
  };
}

export const organizationRoutes: RestRoute[] = [
  {
    method: "GET",
    path: "/v1/orgs",
    action: "viewer",
    query: { page: "string", limit: "limit" },
    document: /* GraphQL */ `
      query ListOrganizations($first: Int, $after: String) {
        viewer {
          organizations(first: $first, after: $after) {
            totalCount
            pageInfo { hasNextPage endCursor }
            nodes { ...OrganizationFields }
          }
        }
      }
      ${ORGANIZATION_FIELDS}`,
    variables: ({ query }) => pageVariables(query),
    status: 200,
    body: (data) => listBody(data.viewer.organizations, restOrganization),
  },
  {
    method: "GET",
    path: "/v1/orgs/:organizationId",
    action: "organization.read",
    document: /* GraphQL */ `
      query GetOrganization($id: ID!) { organization(id: $id) { ...OrganizationFields } }
      ${ORGANIZATION_FIELDS}`,
    variables: ({ params }) => ({ id: params.organizationId }),
    status: 200,
    body: (data) => restOrganization(data.organization),
  },
  {
    method: "PATCH",
    path: "/v1/orgs/:organizationId",
    action: "organization.update",
    document: /* GraphQL */ `
      mutation UpdateOrganization($input: UpdateOrganizationInput!) {
        updateOrganization(input: $input) { organization { ...OrganizationFields } }
      }
      ${ORGANIZATION_FIELDS}`,
    variables: ({ params, body }) => ({
      input: {
        id: params.organizationId,
        ...present(body, ["title", "emailDomains", "hostname", "defaultContent", "logo", "sso", "ai", "inviteLinks", "mergeRules"]),
        ...("defaultRole" in body ? { defaultRole: graphqlEnum("defaultRole", body.defaultRole, ROLES) } : {}),
      },
    }),
    status: 200,
    body: (data) => restOrganization(data.updateOrganization.organization),
  },
];
