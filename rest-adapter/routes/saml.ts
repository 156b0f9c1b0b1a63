// /v1/orgs/{organizationId}/saml routes (SAML providers) and the organization's SSO logins.
import { graphql, type FragmentOf } from "../graphql.ts";
import { ROLES } from "../../src/core/auth/roles.ts";
import {
  graphqlEnum,
  listBody,
  ListInfo,
  pageVariables,
  present,
  restEnum,
  RestInputError,
  type RestRequest,
  type RestRoute,
  typedRoute,
} from "../route.ts";
import { TeamFields, restTeam } from "./team-fields.ts";

export const SamlProviderFields = graphql(
  `
  fragment SamlProviderFields on SamlProvider {
    id label ssoURL entityID certificate defaultRole createdAt status
    defaultTeam { ...TeamFields }
    service { acsURL startURL entityID }
    urls { location }
  }`,
  [TeamFields],
);

export function restSamlProvider(p: FragmentOf<typeof SamlProviderFields>) {
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

const providerPath = ({ params }: { params: Record<string, string> }) => ({
  organization: params.organizationId,
  id: params.samlProviderId,
});

export const samlRoutes: RestRoute[] = [
  typedRoute({
    method: "GET",
    path: "/v1/orgs/:organizationId/saml",
    action: "saml.manage",
    query: { page: "string", limit: "limit" },
    document: graphql(
      `query ListSamlProviders($id: ID!, $first: Int, $after: String) {
        organization(id: $id) {
          samlProviders(first: $first, after: $after) { totalCount pageInfo { ...ListInfo } nodes { ...SamlProviderFields } }
        }
      }`,
      [SamlProviderFields, ListInfo],
    ),
    variables: ({ params, query }) => ({ id: params.organizationId, ...pageVariables(query) }),
    status: 200,
    body: (data) => listBody(data.organization.samlProviders, restSamlProvider),
  }),
  typedRoute({
    method: "POST",
    path: "/v1/orgs/:organizationId/saml",
    action: "saml.manage",
    document: graphql(
      `mutation CreateSamlProvider($input: CreateSamlProviderInput!) {
        createSamlProvider(input: $input) { samlProvider { ...SamlProviderFields } }
      }`,
      [SamlProviderFields],
    ),
    variables: ({ params, body }) => {
      for (const field of REQUIRED) if (body[field] == null) throw new RestInputError(`${field} is required`);
      return { input: { organization: params.organizationId, ...providerInput(body) } };
    },
    status: 201,
    body: (data) => restSamlProvider(data.createSamlProvider.samlProvider),
  }),
  typedRoute({
    method: "GET",
    path: "/v1/orgs/:organizationId/saml/:samlProviderId",
    action: "saml.manage",
    document: graphql(
      `query GetSamlProvider($organization: ID!, $id: ID!) {
        organization(id: $organization) { samlProvider(id: $id) { ...SamlProviderFields } }
      }`,
      [SamlProviderFields],
    ),
    variables: providerPath,
    status: 200,
    body: (data) => restSamlProvider(data.organization.samlProvider),
  }),
  typedRoute({
    method: "PATCH",
    path: "/v1/orgs/:organizationId/saml/:samlProviderId",
    action: "saml.manage",
    document: graphql(
      `mutation UpdateSamlProvider($input: UpdateSamlProviderInput!) {
        updateSamlProvider(input: $input) { samlProvider { ...SamlProviderFields } }
      }`,
      [SamlProviderFields],
    ),
    variables: (request) => ({ input: { ...providerPath(request), ...providerInput(request.body) } }),
    status: 200,
    body: (data) => restSamlProvider(data.updateSamlProvider.samlProvider),
  }),
  typedRoute({
    method: "DELETE",
    path: "/v1/orgs/:organizationId/saml/:samlProviderId",
    action: "saml.manage",
    document: graphql(`mutation DeleteSamlProvider($input: DeleteSamlProviderInput!) {
        deleteSamlProvider(input: $input) { deletedSamlProviderId }
      }`),
    variables: (request) => ({ input: providerPath(request) }),
    status: 205,
  }),
  typedRoute({
    method: "GET",
    path: "/v1/orgs/:organizationId/sso",
    action: "sso.list",
    document: graphql(`query ListSsoLogins($id: ID!) { organization(id: $id) { ssoLogins { id label startURL } } }`),
    variables: ({ params }) => ({ id: params.organizationId }),
    status: 200,
    body: (data) => ({ items: data.organization.ssoLogins }),
  }),
];
