// /v1/integrations routes (and the organization's and space's lists of installed integrations):
// publishing, installations on organizations, spaces and sites, events, development mode,
// installation tokens and rendering.
import LZString from "lz-string";
import { compact, listBody, pageVariables, RestInputError, type RestRequest, type RestRoute } from "../route.ts";

const INTEGRATION_FIELDS = /* GraphQL */ `
  fragment IntegrationFields on Integration {
    name version title description summary previewImages target verified visibility scopes categories
    blocks contentSources configurations externalLinks contentSecurityPolicy
    ownerProfile { id title createdAt hostname type plan location app permissions }
    urls { location app assets icon publicEndpoint }
    permissions { admin }
  }`;

const INSTALLATION_FIELDS = /* GraphQL */ `
  fragment InstallationFields on IntegrationInstallation {
    id status spaceSelection siteSelection spacesCount configuration externalIds createdAt updatedAt
    organization { id }
    urls { location app publicEndpoint }
  }`;

const SPACE_INSTALLATION_FIELDS = /* GraphQL */ `
  fragment SpaceInstallationFields on IntegrationSpaceInstallation {
    integrationName installationId status configuration externalIds spaceId urls { location publicEndpoint }
  }`;

const SITE_INSTALLATION_FIELDS = /* GraphQL */ `
  fragment SiteInstallationFields on IntegrationSiteInstallation {
    integrationName installationId status configuration externalIds siteId urls { location publicEndpoint }
  }`;

const EVENT_FIELDS = /* GraphQL */ `
  fragment EventFields on IntegrationEvent { id integrationId installationId createdAt payload status logs { level message timestamp } }`;

function restOwner(owner: any) {
  return {
    object: "organization",
    id: owner.id,
    title: owner.title,
    createdAt: owner.createdAt,
    emailDomains: [],
    ...(owner.hostname ? { hostname: owner.hostname } : {}),
    type: owner.type,
    inviteLinks: false,
    plan: owner.plan,
    mergeRules: { type: "none" },
    trial: { status: "notapplicable", count: 0 },
    urls: { location: owner.location, app: owner.app },
    permissions: owner.permissions,
  };
}

export function restIntegration(integration: any) {
  return {
    object: "integration",
    name: integration.name,
    version: integration.version,
    title: integration.title,
    description: integration.description,
    ...(integration.summary ? { summary: integration.summary } : {}),
    previewImages: integration.previewImages,
    target: integration.target,
    verified: integration.verified,
    visibility: integration.visibility,
    scopes: integration.scopes,
    categories: integration.categories,
    blocks: integration.blocks,
    contentSources: integration.contentSources,
    configurations: integration.configurations,
    externalLinks: integration.externalLinks,
    ...(integration.contentSecurityPolicy ? { contentSecurityPolicy: integration.contentSecurityPolicy } : {}),
    owner: restOwner(integration.ownerProfile),
    urls: { ...compact(integration.urls), publicContentEndpoint: integration.urls.publicEndpoint },
    permissions: integration.permissions,
  };
}

export function restInstallation(installation: any) {
  return {
    id: installation.id,
    status: installation.status,
    space_selection: installation.spaceSelection,
    site_selection: installation.siteSelection,
    spaces: installation.spacesCount,
    configuration: installation.configuration,
    externalIds: installation.externalIds,
    target: { organization: installation.organization.id },
    createdAt: installation.createdAt,
    updatedAt: installation.updatedAt,
    urls: { ...installation.urls, publicContentEndpoint: installation.urls.publicEndpoint },
  };
}

const restContentInstallation = (row: any) => ({
  integration: row.integrationName,
  installation: row.installationId,
  status: row.status,
  configuration: row.configuration,
  externalIds: row.externalIds,
  urls: { ...row.urls, publicContentEndpoint: row.urls.publicEndpoint },
});
const restSpaceInstallation = (row: any) => ({ ...restContentInstallation(row), space: row.spaceId });
const restSiteInstallation = (row: any) => ({ ...restContentInstallation(row), site: row.siteId });

const restEvent = (event: any) => ({
  id: event.id,
  integrationId: event.integrationId,
  ...(event.installationId ? { installationId: event.installationId } : {}),
  createdAt: event.createdAt,
  payload: event.payload,
  status: event.status,
});

const FILTER_QUERY = {
  page: "string",
  limit: "limit",
  search: "string",
  category: "string",
  blockDomain: "string",
  blocks: "boolean",
  contentSources: "boolean",
  owner: "string",
  scope: "string",
  target: "string",
} as const;
const FILTER_ARGS =
  "$search: String, $category: String, $blockDomain: String, $blocks: Boolean, $contentSources: Boolean, $owner: ID, $scope: String, $target: String, $first: Int, $after: String";
const FILTER_PASS =
  "search: $search, category: $category, blockDomain: $blockDomain, blocks: $blocks, contentSources: $contentSources, owner: $owner, scope: $scope, target: $target, first: $first, after: $after";
const filterVariables = ({ query }: RestRequest) => ({
  search: query.search,
  category: query.category,
  blockDomain: query.blockDomain,
  blocks: query.blocks,
  contentSources: query.contentSources,
  owner: query.owner,
  scope: query.scope,
  target: query.target,
  ...pageVariables(query),
});
const CONNECTION = "totalCount pageInfo { hasNextPage endCursor }";

const name = ({ params }: RestRequest) => params.integrationName;
const installationKey = ({ params }: RestRequest) => ({ integration: params.integrationName, installation: params.installationId });

/** A JSON object field of a body, or absent. */
function objectField(body: Record<string, unknown>, field: string): Record<string, unknown> | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new RestInputError(`${field} must be an object`);
  return value as Record<string, unknown>;
}

function stringField(body: Record<string, unknown>, field: string, required = false): string | undefined {
  const value = body[field];
  if (value == null) {
    if (required) throw new RestInputError(`${field} is required`);
    return undefined;
  }
  if (typeof value !== "string") throw new RestInputError(`${field} must be a string`);
  return value;
}

function stringListField(body: Record<string, unknown>, field: string): string[] | undefined {
  const value = body[field];
  if (value == null) return undefined;
  if (!Array.isArray(value) || value.some((item) => typeof item !== "string"))
    throw new RestInputError(`${field} must be a list of strings`);
  return value as string[];
}

const PUBLISH_STRING_FIELDS = ["organization", "runtime", "title", "description", "summary", "icon", "visibility", "target", "script"];
const PUBLISH_LIST_FIELDS = ["previewImages", "scopes", "categories"];
const PUBLISH_JSON_FIELDS = ["blocks", "contentSources", "externalLinks", "configurations", "secrets", "contentSecurityPolicy"];

function publishInput(body: Record<string, unknown>) {
  return {
    ...Object.fromEntries(PUBLISH_STRING_FIELDS.map((field) => [field, stringField(body, field)])),
    ...Object.fromEntries(PUBLISH_LIST_FIELDS.map((field) => [field, stringListField(body, field)])),
    ...Object.fromEntries(PUBLISH_JSON_FIELDS.filter((field) => body[field] != null).map((field) => [field, body[field]])),
  };
}

/** The render request: the body, or (GET) the `request` parameter, a JSON document compressed with lz-string (`compressToEncodedURIComponent`). */
function renderInput(request: RestRequest) {
  let body = request.body;
  if (request.query.request !== undefined) {
    const text = LZString.decompressFromEncodedURIComponent(String(request.query.request));
    try {
      body = JSON.parse(text ?? "");
    } catch {
      throw new RestInputError("request must be a JSON document compressed with lz-string (compressToEncodedURIComponent)");
    }
    if (typeof body !== "object" || body === null || Array.isArray(body)) throw new RestInputError("request must hold a JSON object");
  }
  const componentId = stringField(body, "componentId", true);
  if (body.props === undefined) throw new RestInputError("props is required");
  if (body.context === undefined) throw new RestInputError("context is required");
  return {
    input: {
      integration: request.params.integrationName,
      componentId,
      props: body.props,
      state: body.state,
      context: body.context,
      action: body.action,
    },
  };
}

const RENDER_DOCUMENT = /* GraphQL */ `
  mutation RenderIntegrationUI($input: RenderIntegrationUIInput!) { renderIntegrationUI(input: $input) { output cacheControl } }`;

export const integrationRoutes: RestRoute[] = [
  {
    method: "GET",
    path: "/v1/integrations",
    action: "viewer",
    query: FILTER_QUERY,
    document: /* GraphQL */ `
      query ListIntegrations(${FILTER_ARGS}) { integrations(${FILTER_PASS}) { ${CONNECTION} nodes { ...IntegrationFields } } }
      ${INTEGRATION_FIELDS}`,
    variables: filterVariables,
    status: 200,
    body: (data) => listBody(data.integrations, restIntegration),
  },
  {
    method: "GET",
    path: "/v1/integrations/:integrationName",
    action: "integration.read",
    document: /* GraphQL */ `
      query GetIntegration($name: String!) { integration(name: $name) { ...IntegrationFields } }
      ${INTEGRATION_FIELDS}`,
    variables: (request) => ({ name: name(request) }),
    status: 200,
    body: (data) => restIntegration(data.integration),
  },
  {
    method: "POST",
    path: "/v1/integrations/:integrationName",
    action: "integration.manage",
    maxBodyBytes: 12 * 1024 * 1024,
    document: /* GraphQL */ `
      mutation PublishIntegration($name: String!, $input: PublishIntegrationInput!) {
        publishIntegration(name: $name, input: $input) { created integration { ...IntegrationFields } }
      }
      ${INTEGRATION_FIELDS}`,
    variables: (request) => ({ name: name(request), input: publishInput(request.body) }),
    status: 200,
    body: (data) => restIntegration(data.publishIntegration.integration),
  },
  {
    method: "DELETE",
    path: "/v1/integrations/:integrationName",
    action: "integration.manage",
    document: /* GraphQL */ `mutation DeleteIntegration($name: String!) { deleteIntegration(name: $name) { deletedName } }`,
    variables: (request) => ({ name: name(request) }),
    status: 205,
  },
  {
    method: "GET",
    path: "/v1/integrations/:integrationName/installations",
    action: "integration.install",
    query: { page: "string", limit: "limit", externalId: "string" },
    document: /* GraphQL */ `
      query ListIntegrationInstallations($name: String!, $externalId: String, $first: Int, $after: String) {
        integration(name: $name) { installations(externalId: $externalId, first: $first, after: $after) { ${CONNECTION} nodes { ...InstallationFields } } }
      }
      ${INSTALLATION_FIELDS}`,
    variables: (request) => ({ name: name(request), externalId: request.query.externalId, ...pageVariables(request.query) }),
    status: 200,
    body: (data) => listBody(data.integration.installations, restInstallation),
  },
  {
    method: "POST",
    path: "/v1/integrations/:integrationName/installations",
    action: "integration.install",
    document: /* GraphQL */ `
      mutation InstallIntegration($input: InstallIntegrationInput!) { installIntegration(input: $input) { installation { ...InstallationFields } } }
      ${INSTALLATION_FIELDS}`,
    variables: (request) => ({
      input: {
        integration: name(request),
        organization: stringField(request.body, "organization", true),
        configuration: objectField(request.body, "configuration"),
      },
    }),
    status: 201,
    body: (data) => restInstallation(data.installIntegration.installation),
  },
  {
    method: "GET",
    path: "/v1/integrations/:integrationName/installations/:installationId",
    action: "integration.install",
    document: /* GraphQL */ `
      query GetIntegrationInstallation($name: String!, $id: ID!) { integration(name: $name) { installation(id: $id) { ...InstallationFields } } }
      ${INSTALLATION_FIELDS}`,
    variables: (request) => ({ name: name(request), id: request.params.installationId }),
    status: 200,
    body: (data) => restInstallation(data.integration.installation),
  },
  {
    method: "PATCH",
    path: "/v1/integrations/:integrationName/installations/:installationId",
    action: "integration.install",
    document: /* GraphQL */ `
      mutation UpdateIntegrationInstallation($input: UpdateIntegrationInstallationInput!) {
        updateIntegrationInstallation(input: $input) { installation { ...InstallationFields } }
      }
      ${INSTALLATION_FIELDS}`,
    variables: (request) => ({
      input: {
        ...installationKey(request),
        configuration: objectField(request.body, "configuration"),
        externalIds: stringListField(request.body, "externalIds"),
        spaceSelection: stringField(request.body, "space_selection"),
        siteSelection: stringField(request.body, "site_selection"),
      },
    }),
    status: 200,
    body: (data) => restInstallation(data.updateIntegrationInstallation.installation),
  },
  {
    method: "DELETE",
    path: "/v1/integrations/:integrationName/installations/:installationId",
    action: "integration.install",
    document: /* GraphQL */ `mutation UninstallIntegration($input: UninstallIntegrationInput!) { uninstallIntegration(input: $input) { deletedInstallationId } }`,
    variables: (request) => ({ input: installationKey(request) }),
    status: 205,
  },
  {
    method: "POST",
    path: "/v1/integrations/:integrationName/installations/:installationId/tokens",
    action: "integration.install",
    document: /* GraphQL */ `
      mutation CreateIntegrationInstallationToken($input: CreateIntegrationInstallationTokenInput!) {
        createIntegrationInstallationToken(input: $input) { token expiresAt }
      }`,
    variables: (request) => ({ input: installationKey(request) }),
    status: 200,
    body: (data) => ({
      token: data.createIntegrationInstallationToken.token,
      expiresAt: data.createIntegrationInstallationToken.expiresAt,
    }),
  },
  {
    method: "GET",
    path: "/v1/integrations/:integrationName/installations/:installationId/spaces",
    action: "organization.read",
    query: { page: "string", limit: "limit" },
    document: /* GraphQL */ `
      query ListIntegrationInstallationSpaces($name: String!, $id: ID!, $first: Int, $after: String) {
        integration(name: $name) { installationSpaces(installation: $id, first: $first, after: $after) { ${CONNECTION} nodes { ...SpaceInstallationFields } } }
      }
      ${SPACE_INSTALLATION_FIELDS}`,
    variables: (request) => ({ name: name(request), id: request.params.installationId, ...pageVariables(request.query) }),
    status: 200,
    body: (data) => listBody(data.integration.installationSpaces, restSpaceInstallation),
  },
  {
    method: "POST",
    path: "/v1/integrations/:integrationName/installations/:installationId/spaces",
    action: "integration.installOnSpace",
    document: /* GraphQL */ `
      mutation InstallIntegrationOnSpace($input: InstallIntegrationOnSpaceInput!) { installIntegrationOnSpace(input: $input) { spaceInstallation { ...SpaceInstallationFields } } }
      ${SPACE_INSTALLATION_FIELDS}`,
    variables: (request) => ({
      input: {
        ...installationKey(request),
        space: stringField(request.body, "space", true),
        configuration: objectField(request.body, "configuration"),
      },
    }),
    status: 201,
    body: (data) => restSpaceInstallation(data.installIntegrationOnSpace.spaceInstallation),
  },
  {
    method: "GET",
    path: "/v1/integrations/:integrationName/installations/:installationId/spaces/:spaceId",
    action: "space.read",
    document: /* GraphQL */ `
      query GetIntegrationSpaceInstallation($integration: String!, $installation: ID!, $space: ID!) {
        integrationSpaceInstallation(integration: $integration, installation: $installation, space: $space) { ...SpaceInstallationFields }
      }
      ${SPACE_INSTALLATION_FIELDS}`,
    variables: (request) => ({ ...installationKey(request), space: request.params.spaceId }),
    status: 200,
    body: (data) => restSpaceInstallation(data.integrationSpaceInstallation),
  },
  {
    method: "PATCH",
    path: "/v1/integrations/:integrationName/installations/:installationId/spaces/:spaceId",
    action: "integration.installOnSpace",
    document: /* GraphQL */ `
      mutation UpdateIntegrationSpaceInstallation($input: UpdateIntegrationSpaceInstallationInput!) {
        updateIntegrationSpaceInstallation(input: $input) { spaceInstallation { ...SpaceInstallationFields } }
      }
      ${SPACE_INSTALLATION_FIELDS}`,
    variables: (request) => ({
      input: {
        ...installationKey(request),
        space: request.params.spaceId,
        configuration: objectField(request.body, "configuration"),
        externalIds: stringListField(request.body, "externalIds"),
      },
    }),
    status: 200,
    body: (data) => restSpaceInstallation(data.updateIntegrationSpaceInstallation.spaceInstallation),
  },
  {
    method: "DELETE",
    path: "/v1/integrations/:integrationName/installations/:installationId/spaces/:spaceId",
    action: "integration.installOnSpace",
    document: /* GraphQL */ `
      mutation UninstallIntegrationFromSpace($input: UninstallIntegrationFromSpaceInput!) { uninstallIntegrationFromSpace(input: $input) { removed } }`,
    variables: (request) => ({ input: { ...installationKey(request), space: request.params.spaceId } }),
    status: 205,
    statusOf: (data) => (data.uninstallIntegrationFromSpace.removed ? 205 : 204),
  },
  {
    method: "GET",
    path: "/v1/integrations/:integrationName/installations/:installationId/sites",
    action: "organization.read",
    query: { page: "string", limit: "limit" },
    document: /* GraphQL */ `
      query ListIntegrationInstallationSites($name: String!, $id: ID!, $first: Int, $after: String) {
        integration(name: $name) { installationSites(installation: $id, first: $first, after: $after) { ${CONNECTION} nodes { ...SiteInstallationFields } } }
      }
      ${SITE_INSTALLATION_FIELDS}`,
    variables: (request) => ({ name: name(request), id: request.params.installationId, ...pageVariables(request.query) }),
    status: 200,
    body: (data) => listBody(data.integration.installationSites, restSiteInstallation),
  },
  {
    method: "POST",
    path: "/v1/integrations/:integrationName/installations/:installationId/sites",
    action: "integration.installOnSite",
    document: /* GraphQL */ `
      mutation InstallIntegrationOnSite($input: InstallIntegrationOnSiteInput!) { installIntegrationOnSite(input: $input) { siteInstallation { ...SiteInstallationFields } } }
      ${SITE_INSTALLATION_FIELDS}`,
    variables: (request) => ({
      input: {
        ...installationKey(request),
        site: stringField(request.body, "siteId", true),
        configuration: objectField(request.body, "configuration"),
      },
    }),
    status: 201,
    body: (data) => restSiteInstallation(data.installIntegrationOnSite.siteInstallation),
  },
  {
    method: "GET",
    path: "/v1/integrations/:integrationName/installations/:installationId/sites/:siteId",
    action: "site.read",
    document: /* GraphQL */ `
      query GetIntegrationSiteInstallation($integration: String!, $installation: ID!, $site: ID!) {
        integrationSiteInstallation(integration: $integration, installation: $installation, site: $site) { ...SiteInstallationFields }
      }
      ${SITE_INSTALLATION_FIELDS}`,
    variables: (request) => ({ ...installationKey(request), site: request.params.siteId }),
    status: 200,
    body: (data) => restSiteInstallation(data.integrationSiteInstallation),
  },
  {
    method: "PATCH",
    path: "/v1/integrations/:integrationName/installations/:installationId/sites/:siteId",
    action: "integration.installOnSite",
    document: /* GraphQL */ `
      mutation UpdateIntegrationSiteInstallation($input: UpdateIntegrationSiteInstallationInput!) {
        updateIntegrationSiteInstallation(input: $input) { siteInstallation { ...SiteInstallationFields } }
      }
      ${SITE_INSTALLATION_FIELDS}`,
    variables: (request) => ({
      input: {
        ...installationKey(request),
        site: request.params.siteId,
        configuration: objectField(request.body, "configuration"),
        externalIds: stringListField(request.body, "externalIds"),
      },
    }),
    status: 200,
    body: (data) => restSiteInstallation(data.updateIntegrationSiteInstallation.siteInstallation),
  },
  {
    method: "DELETE",
    path: "/v1/integrations/:integrationName/installations/:installationId/sites/:siteId",
    action: "integration.installOnSite",
    document: /* GraphQL */ `
      mutation UninstallIntegrationFromSite($input: UninstallIntegrationFromSiteInput!) { uninstallIntegrationFromSite(input: $input) { removed } }`,
    variables: (request) => ({ input: { ...installationKey(request), site: request.params.siteId } }),
    status: 205,
    statusOf: (data) => (data.uninstallIntegrationFromSite.removed ? 205 : 204),
  },
  {
    method: "GET",
    path: "/v1/integrations/:integrationName/spaces",
    action: "integration.read",
    query: { page: "string", limit: "limit", externalId: "string" },
    document: /* GraphQL */ `
      query ListIntegrationSpaceInstallations($name: String!, $externalId: String, $first: Int, $after: String) {
        integration(name: $name) { spaceInstallations(externalId: $externalId, first: $first, after: $after) { ${CONNECTION} nodes { ...SpaceInstallationFields } } }
      }
      ${SPACE_INSTALLATION_FIELDS}`,
    variables: (request) => ({ name: name(request), externalId: request.query.externalId, ...pageVariables(request.query) }),
    status: 200,
    body: (data) => listBody(data.integration.spaceInstallations, restSpaceInstallation),
  },
  {
    method: "GET",
    path: "/v1/integrations/:integrationName/sites",
    action: "integration.read",
    query: { page: "string", limit: "limit", externalId: "string" },
    document: /* GraphQL */ `
      query ListIntegrationSiteInstallations($name: String!, $externalId: String, $first: Int, $after: String) {
        integration(name: $name) { siteInstallations(externalId: $externalId, first: $first, after: $after) { ${CONNECTION} nodes { ...SiteInstallationFields } } }
      }
      ${SITE_INSTALLATION_FIELDS}`,
    variables: (request) => ({ name: name(request), externalId: request.query.externalId, ...pageVariables(request.query) }),
    status: 200,
    body: (data) => listBody(data.integration.siteInstallations, restSiteInstallation),
  },
  {
    method: "GET",
    path: "/v1/integrations/:integrationName/events",
    action: "integration.manage",
    query: { page: "string", limit: "limit" },
    document: /* GraphQL */ `
      query ListIntegrationEvents($name: String!, $first: Int, $after: String) {
        integration(name: $name) { events(first: $first, after: $after) { ${CONNECTION} nodes { ...EventFields } } }
      }
      ${EVENT_FIELDS}`,
    variables: (request) => ({ name: name(request), ...pageVariables(request.query) }),
    status: 200,
    body: (data) => listBody(data.integration.events, restEvent),
  },
  {
    method: "GET",
    path: "/v1/integrations/:integrationName/events/:eventId",
    action: "integration.manage",
    document: /* GraphQL */ `
      query GetIntegrationEvent($name: String!, $id: ID!) { integration(name: $name) { event(id: $id) { ...EventFields } } }
      ${EVENT_FIELDS}`,
    variables: (request) => ({ name: name(request), id: request.params.eventId }),
    status: 200,
    body: (data) => ({ event: restEvent(data.integration.event), trace: { logs: data.integration.event.logs } }),
  },
  {
    method: "PUT",
    path: "/v1/integrations/:integrationName/dev",
    action: "integration.manage",
    document: /* GraphQL */ `
      mutation SetIntegrationDevelopmentMode($name: String!, $tunnelUrl: String!, $all: Boolean) {
        setIntegrationDevelopmentMode(name: $name, tunnelUrl: $tunnelUrl, all: $all) { integration { name } }
      }`,
    variables: (request) => {
      const all = request.body.all;
      if (all != null && typeof all !== "boolean") throw new RestInputError("all must be a boolean");
      return { name: name(request), tunnelUrl: stringField(request.body, "tunnelUrl", true), all };
    },
    status: 204,
  },
  {
    method: "DELETE",
    path: "/v1/integrations/:integrationName/dev",
    action: "integration.manage",
    document: /* GraphQL */ `mutation DisableIntegrationDevelopmentMode($name: String!) { disableIntegrationDevelopmentMode(name: $name) { integration { name } } }`,
    variables: (request) => ({ name: name(request) }),
    status: 205,
  },
  {
    method: "GET",
    path: "/v1/integrations/:integrationName/render",
    action: "integration.render",
    query: { request: "string" },
    document: RENDER_DOCUMENT,
    variables: (request) => {
      if (request.query.request === undefined)
        throw new RestInputError("request is required: the render request compressed with lz-string");
      return renderInput(request);
    },
    status: 200,
    body: (data) => data.renderIntegrationUI.output,
  },
  {
    method: "POST",
    path: "/v1/integrations/:integrationName/render",
    action: "integration.render",
    document: RENDER_DOCUMENT,
    variables: renderInput,
    status: 200,
    body: (data) => data.renderIntegrationUI.output,
  },
  {
    method: "GET",
    path: "/v1/orgs/:organizationId/integrations",
    action: "integration.list",
    query: FILTER_QUERY,
    document: /* GraphQL */ `
      query ListOrganizationIntegrations($id: ID!, ${FILTER_ARGS}) {
        organization(id: $id) { integrations(${FILTER_PASS}) { ${CONNECTION} nodes { ...IntegrationFields } } }
      }
      ${INTEGRATION_FIELDS}`,
    variables: (request) => ({ id: request.params.organizationId, ...filterVariables(request) }),
    status: 200,
    body: (data) => listBody(data.organization.integrations, restIntegration),
  },
  {
    method: "GET",
    path: "/v1/spaces/:spaceId/integrations",
    action: "space.read",
    query: FILTER_QUERY,
    document: /* GraphQL */ `
      query ListSpaceIntegrations($id: ID!, ${FILTER_ARGS}) {
        space(id: $id) { integrations(${FILTER_PASS}) { ${CONNECTION} nodes { ...IntegrationFields } } }
      }
      ${INTEGRATION_FIELDS}`,
    variables: (request) => ({ id: request.params.spaceId, ...filterVariables(request) }),
    status: 200,
    body: (data) => listBody(data.space.integrations, restIntegration),
  },
];
