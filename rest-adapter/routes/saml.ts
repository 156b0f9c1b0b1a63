// /v1/orgs/{organizationId}/saml routes (SAML providers) and the organization's SSO logins.
import { ROLES } from "../../src/auth/roles.ts";
import { graphqlEnum, listBody, pageVariables, present, restEnum, RestInputError, type RestRequest, type RestRoute } from "../route.ts";
import { TEAM_FIELDS, restTeam } from "./teams.ts";

export const SAML_PROVIDER_FIELDS = /* GraphQL */ `
  fragment SamlProviderFields on SamlProvider {
    id label ssoURL entityID certificate defaultRole createdAt status
    defaultTeam { ...TeamFields }
    service { acsURL startURL entityID }
    urls { location }
  }
  ${TEAM_FIELDS}`;

export function restSamlProvider(p: any) {
  return {
    object: "saml-provider",
    id: p.id,
    label: p.label,
    ssoURL: p.ssoURL,
    entityID: p.entityID,
    certificate: p.certificate,
    ...(p.defaultTeam ? { defaultTeam: restTeam(p.defaultTeam) } : {}),
    defaultRole: restEnum(p.defaultRole),
    createdAt: p.createdAt,
    status: restEnum(p.status),
    service: p.service,
    urls: p.urls,
  };
}

const FIELDS = ["label", "entityID", "certificate", "ssoURL", "defaultTeam"];
const REQUIRED = ["label", "entityID", "certificate", "ssoURL"];

/** The body's fields as the operation's input: absent stays absent; `defaultRole` as its enum value. */
function providerInput(body: RestRequest["body"]) {
  return {
    ...present(body, FIELDS),
    ...("defaultRole" in body ? { defaultRole: graphqlEnum("defaultRole", body.defaultRole, ROLES) } : {}),
  };
}

const providerPath = ({ params }: { params: Record<string, string> }) => ({ organization: params.organizationId, id: params.samlProviderId });
const providerPayload = (name: string) => (data: any) => restSamlProvider(data[name].samlProvider);

export const samlRoutes: RestRoute[] = [
  {
    method: "GET",
    path: "/v1/orgs/:organizationId/saml",
    action: "saml.manage",
    query: { page: "string", limit: "limit" },
    document: /* GraphQL */ `
      query ListSamlProviders($id: ID!, $first: Int, $after: String) {
        organization(id: $id) {
          samlProviders(first: $first, after: $after) {
            totalCount
            pageInfo { hasNextPage endCursor }
            nodes { ...SamlProviderFields }
          }
        }
      }
      ${SAML_PROVIDER_FIELDS}`,
    variables: ({ params, query }) => ({ id: params.organizationId, ...pageVariables(query) }),
    status: 200,
    body: (data) => listBody(data.organization.samlProviders, restSamlProvider),
  },
  {
    method: "POST",
    path: "/v1/orgs/:organizationId/saml",
    action: "saml.manage",
    document: /* GraphQL */ `
      mutation CreateSamlProvider($input: CreateSamlProviderInput!) {
        createSamlProvider(input: $input) { samlProvider { ...SamlProviderFields } }
      }
      ${SAML_PROVIDER_FIELDS}`,
    variables: ({ params, body }) => {
      for (const field of REQUIRED) if (body[field] == null) throw new RestInputError(`${field} is required`);
      return { input: { organization: params.organizationId, ...providerInput(body) } };
    },
    status: 201,
    body: providerPayload("createSamlProvider"),
  },
  {
    method: "GET",
    path: "/v1/orgs/:organizationId/saml/:samlProviderId",
    action: "saml.manage",
    document: /* GraphQL */ `
      query GetSamlProvider($organization: ID!, $id: ID!) {
        organization(id: $organization) { samlProvider(id: $id) { ...SamlProviderFields } }
      }
      ${SAML_PROVIDER_FIELDS}`,
    variables: providerPath,
    status: 200,
    body: (data) => restSamlProvider(data.organization.samlProvider),
  },
  {
    method: "PATCH",
    path: "/v1/orgs/:organizationId/saml/:samlProviderId",
    action: "saml.manage",
    document: /* GraphQL */ `
      mutation UpdateSamlProvider($input: UpdateSamlProviderInput!) {
        updateSamlProvider(input: $input) { samlProvider { ...SamlProviderFields } }
      }
      ${SAML_PROVIDER_FIELDS}`,
    variables: (request) => ({ input: { ...providerPath(request), ...providerInput(request.body) } }),
    status: 200,
    body: providerPayload("updateSamlProvider"),
  },
  {
    method: "DELETE",
    path: "/v1/orgs/:organizationId/saml/:samlProviderId",
    action: "saml.manage",
    document: /* GraphQL */ `
      mutation DeleteSamlProvider($input: DeleteSamlProviderInput!) {
        deleteSamlProvider(input: $input) { deletedSamlProviderId }
      }`,
    variables: (request) => ({ input: providerPath(request) }),
    status: 205,
  },
  {
    method: "GET",
    path: "/v1/orgs/:organizationId/sso",
    action: "sso.list",
    document: /* GraphQL */ `
      query ListSsoLogins($id: ID!) { organization(id: $id) { ssoLogins { id label startURL } } }`,
    variables: ({ params }) => ({ id: params.organizationId }),
    status: 200,
    body: (data) => ({ items: data.organization.ssoLogins }),
  },
];
