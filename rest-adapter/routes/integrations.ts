// /v1/integrations routes (and the organization's and space's lists of installed integrations):
// publishing, installations on organizations, spaces and sites, events, development mode,
// installation tokens and rendering.
import type { TadaDocumentNode } from "gql.tada";
import LZString from "lz-string";
import { graphql, type FragmentOf } from "../graphql.ts";
import { restSite, SiteFields } from "./sites.ts";
import { restSpace, SpaceFields } from "./spaces.ts";
import {
  type Connection,
  compact,
  ListInfo,
  listBody,
  pageVariables,
  RestInputError,
  type RestRequest,
  type RestRoute,
  typedRoute,
} from "../route.ts";

export const IntegrationFields = graphql(`
  fragment IntegrationFields on Integration {
    name version title description summary previewImages target verified visibility scopes categories
    blocks contentSources configurations externalLinks contentSecurityPolicy
    ownerProfile { id title createdAt hostname type plan location app permissions }
    urls { location app assets icon publicEndpoint }
    permissions { admin }
  }`);

export const InstallationFields = graphql(`
  fragment InstallationFields on IntegrationInstallation {
    id status spaceSelection siteSelection spacesCount configuration externalIds createdAt updatedAt
    organization { id }
    urls { location app publicEndpoint }
  }`);

// The installations on a space and on a site, with the space or site id as \`target\`: one shape,
// so one set of rows serves both (contentInstallationRoutes).
// \`extended\` (published on these rows): the space or site object itself instead of its id.
const SpaceInstallationFields = graphql(
  `
  fragment SpaceInstallationFields on IntegrationSpaceInstallation {
    integrationName installationId status configuration externalIds target: spaceId urls { location publicEndpoint }
    space @include(if: $extended) { ...SpaceFields }
  }`,
  [SpaceFields],
);

const SiteInstallationFields = graphql(
  `
  fragment SiteInstallationFields on IntegrationSiteInstallation {
    integrationName installationId status configuration externalIds target: siteId urls { location publicEndpoint }
    site @include(if: $extended) { ...SiteFields }
  }`,
  [SiteFields],
);

const EventFields = graphql(`
  fragment EventFields on IntegrationEvent { id integrationId installationId createdAt payload status logs { level message timestamp } }`);

type Owner = FragmentOf<typeof IntegrationFields>["ownerProfile"];

function restOwner(owner: Owner) {
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

export function restIntegration(integration: FragmentOf<typeof IntegrationFields>) {
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
    urls: Object.assign(compact(integration.urls), { publicContentEndpoint: integration.urls.publicEndpoint }),
    permissions: integration.permissions,
  };
}

export function restInstallation(installation: FragmentOf<typeof InstallationFields>) {
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
    urls: Object.assign({}, installation.urls, { publicContentEndpoint: installation.urls.publicEndpoint }),
  };
}

type ContentInstallation = FragmentOf<typeof SpaceInstallationFields> | FragmentOf<typeof SiteInstallationFields>;

/** An installation on a space (`{ space }`) or a site (`{ site }`): its id, or the object when asked (`extended`). */
const restContentInstallation = (kind: "space" | "site") => (row: ContentInstallation) => ({
  integration: row.integrationName,
  installation: row.installationId,
  status: row.status,
  configuration: row.configuration,
  externalIds: row.externalIds,
  urls: Object.assign({}, row.urls, { publicContentEndpoint: row.urls.publicEndpoint }),
  [kind]: "space" in row && row.space ? restSpace(row.space) : "site" in row && row.site ? restSite(row.site) : row.target,
});

const extendedVariables = ({ query }: RestRequest) => ({ extended: query.extended === true });

const InstalledIntegrationFields = graphql(
  `
  fragment InstalledIntegrationFields on InstalledIntegration {
    status
    integration { ...IntegrationFields }
    target { type organizationId spaceId siteId }
  }`,
  [IntegrationFields],
);

/** The published InstalledIntegration: its target names the one id its type has. */
const restInstalledIntegration = (row: FragmentOf<typeof InstalledIntegrationFields>) => ({
  status: row.status,
  integration: restIntegration(row.integration),
  target: {
    type: row.target.type,
    ...compact({ organizationId: row.target.organizationId, spaceId: row.target.spaceId, siteId: row.target.siteId }),
  },
});

const restEvent = (event: FragmentOf<typeof EventFields>) => ({
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

/** The same filters as GraphQL variables, and the list field that takes them (for an operation's root or its owner's field). */
const FILTER_DEFINITIONS = `
  $search: String, $category: String, $blockDomain: String, $blocks: Boolean, $contentSources: Boolean, $owner: ID, $scope: String,
  $target: String, $first: Int, $after: String` as const;
const INTEGRATION_LIST = `
  integrations(
    search: $search, category: $category, blockDomain: $blockDomain, blocks: $blocks, contentSources: $contentSources, owner: $owner,
    scope: $scope, target: $target, first: $first, after: $after
  ) { totalCount pageInfo { ...ListInfo } nodes { ...IntegrationFields } }` as const;

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

const RenderDocument = graphql(`
  mutation RenderIntegrationUI($input: RenderIntegrationUIInput!) { renderIntegrationUI(input: $input) { output cacheControl } }`);

/** The documents of the rows on spaces or on sites; their fields are aliased to one shape (`result`, `row`, `list`). */
interface ContentDocuments {
  listOfInstallation: TadaDocumentNode<{ integration: { list: Connection<ContentInstallation> } }, never>;
  install: TadaDocumentNode<{ result: { row: ContentInstallation } }, never>;
  read: TadaDocumentNode<{ row: ContentInstallation }, never>;
  update: TadaDocumentNode<{ result: { row: ContentInstallation } }, never>;
  uninstall: TadaDocumentNode<{ result: { removed: boolean } }, never>;
  listEverywhere: TadaDocumentNode<{ integration: { list: Connection<ContentInstallation> } }, never>;
}

const CONTENT_KINDS = { space: "Space", site: "Site" } as const;

/**
 * The documents of the rows on spaces or on sites: one text for both kinds, as the schema names
 * their fields alike (`installationSpaces`, `installationSites`…). The names are literal types,
 * so gql.tada still reads each kind's documents whole and the compiler checks them against the
 * schema and against ContentDocuments, where contentInstallationRoutes takes them.
 */
function contentDocuments<
  Kind extends keyof typeof CONTENT_KINDS,
  Fields extends typeof SpaceInstallationFields | typeof SiteInstallationFields,
>(kind: Kind, fields: Fields) {
  const Name = CONTENT_KINDS[kind];
  return {
    listOfInstallation: graphql(
      `query ListIntegrationInstallation${Name}s($extended: Boolean!, $name: String!, $id: ID!, $first: Int, $after: String) {
        integration(name: $name) {
          list: installation${Name}s(installation: $id, first: $first, after: $after) {
            totalCount pageInfo { ...ListInfo } nodes { ...${Name}InstallationFields }
          }
        }
      }`,
      [fields, ListInfo],
    ),
    install: graphql(
      `mutation InstallIntegrationOn${Name}($extended: Boolean!, $input: InstallIntegrationOn${Name}Input!) {
        result: installIntegrationOn${Name}(input: $input) { row: ${kind}Installation { ...${Name}InstallationFields } }
      }`,
      [fields],
    ),
    read: graphql(
      `query GetIntegration${Name}Installation($extended: Boolean!, $integration: String!, $installation: ID!, $${kind}: ID!) {
        row: integration${Name}Installation(integration: $integration, installation: $installation, ${kind}: $${kind}) { ...${Name}InstallationFields }
      }`,
      [fields],
    ),
    update: graphql(
      `mutation UpdateIntegration${Name}Installation($extended: Boolean!, $input: UpdateIntegration${Name}InstallationInput!) {
        result: updateIntegration${Name}Installation(input: $input) { row: ${kind}Installation { ...${Name}InstallationFields } }
      }`,
      [fields],
    ),
    uninstall: graphql(
      `mutation UninstallIntegrationFrom${Name}($input: UninstallIntegrationFrom${Name}Input!) {
        result: uninstallIntegrationFrom${Name}(input: $input) { removed }
      }`,
    ),
    listEverywhere: graphql(
      `query ListIntegration${Name}Installations($extended: Boolean!, $name: String!, $externalId: String, $first: Int, $after: String) {
        integration(name: $name) {
          list: ${kind}Installations(externalId: $externalId, first: $first, after: $after) {
            totalCount pageInfo { ...ListInfo } nodes { ...${Name}InstallationFields }
          }
        }
      }`,
      [fields, ListInfo],
    ),
  };
}

/**
 * The rows of an installation's spaces or sites (list, install, read, change, remove) and of all
 * the integration's: one set for both kinds, as the published API mirrors them. Installing on a
 * site names it \`siteId\` in the body; on a space, \`space\`.
 */
function contentInstallationRoutes(
  kind: "space" | "site",
  { bodyField, actions }: { bodyField: string; actions: { read: RestRoute["action"]; install: RestRoute["action"] } },
  documents: ContentDocuments,
): RestRoute[] {
  const rows = `/v1/integrations/:integrationName/installations/:installationId/${kind}s`;
  const row = `${rows}/:${kind}Id`;
  const rowKey = (request: RestRequest) => ({ ...installationKey(request), [kind]: request.params[`${kind}Id`] });
  const rest = restContentInstallation(kind);
  return [
    typedRoute({
      method: "GET",
      path: rows,
      action: "organization.read",
      query: { page: "string", limit: "limit", extended: "boolean" },
      document: documents.listOfInstallation,
      variables: (request) => ({
        name: name(request),
        id: request.params.installationId,
        ...pageVariables(request.query),
        ...extendedVariables(request),
      }),
      status: 200,
      body: (data) => listBody(data.integration.list, rest),
    }),
    typedRoute({
      method: "POST",
      path: rows,
      action: actions.install,
      query: { extended: "boolean" },
      document: documents.install,
      variables: (request) => ({
        ...extendedVariables(request),
        input: {
          ...installationKey(request),
          [kind]: stringField(request.body, bodyField, true),
          configuration: objectField(request.body, "configuration"),
        },
      }),
      status: 201,
      body: (data) => rest(data.result.row),
    }),
    typedRoute({
      method: "GET",
      path: row,
      action: actions.read,
      query: { extended: "boolean" },
      document: documents.read,
      variables: (request) => ({ ...rowKey(request), ...extendedVariables(request) }),
      status: 200,
      body: (data) => rest(data.row),
    }),
    typedRoute({
      method: "PATCH",
      path: row,
      action: actions.install,
      query: { extended: "boolean" },
      document: documents.update,
      variables: (request) => ({
        ...extendedVariables(request),
        input: {
          ...rowKey(request),
          configuration: objectField(request.body, "configuration"),
          externalIds: stringListField(request.body, "externalIds"),
        },
      }),
      status: 200,
      body: (data) => rest(data.result.row),
    }),
    typedRoute({
      method: "DELETE",
      path: row,
      action: actions.install,
      document: documents.uninstall,
      variables: (request) => ({ input: rowKey(request) }),
      status: 205,
      statusOf: (data) => (data.result.removed ? 205 : 204),
    }),
    typedRoute({
      method: "GET",
      path: `/v1/integrations/:integrationName/${kind}s`,
      action: "integration.read",
      query: { page: "string", limit: "limit", externalId: "string", extended: "boolean" },
      document: documents.listEverywhere,
      variables: (request) => ({
        name: name(request),
        externalId: request.query.externalId,
        ...pageVariables(request.query),
        ...extendedVariables(request),
      }),
      status: 200,
      body: (data) => listBody(data.integration.list, rest),
    }),
  ];
}
export const integrationRoutes: RestRoute[] = [
  typedRoute({
    method: "GET",
    path: "/v1/integrations",
    action: "viewer",
    query: FILTER_QUERY,
    document: graphql(`query ListIntegrations(${FILTER_DEFINITIONS}) { ${INTEGRATION_LIST} }`, [IntegrationFields, ListInfo]),
    variables: filterVariables,
    status: 200,
    body: (data) => listBody(data.integrations, restIntegration),
  }),
  typedRoute({
    method: "GET",
    path: "/v1/integrations/:integrationName",
    action: "integration.read",
    document: graphql(`query GetIntegration($name: String!) { integration(name: $name) { ...IntegrationFields } }`, [IntegrationFields]),
    variables: (request) => ({ name: name(request) }),
    status: 200,
    body: (data) => restIntegration(data.integration),
  }),
  typedRoute({
    method: "POST",
    path: "/v1/integrations/:integrationName",
    action: "integration.manage",
    maxBodyBytes: 12 * 1024 * 1024,
    document: graphql(
      `mutation PublishIntegration($name: String!, $input: PublishIntegrationInput!) {
        publishIntegration(name: $name, input: $input) { created integration { ...IntegrationFields } }
      }`,
      [IntegrationFields],
    ),
    variables: (request) => ({ name: name(request), input: publishInput(request.body) }),
    status: 200,
    body: (data) => restIntegration(data.publishIntegration.integration),
  }),
  typedRoute({
    method: "DELETE",
    path: "/v1/integrations/:integrationName",
    action: "integration.manage",
    document: graphql(`mutation DeleteIntegration($name: String!) { deleteIntegration(name: $name) { deletedName } }`),
    variables: (request) => ({ name: name(request) }),
    status: 205,
  }),
  typedRoute({
    method: "GET",
    path: "/v1/integrations/:integrationName/installations",
    action: "integration.install",
    query: { page: "string", limit: "limit", externalId: "string" },
    document: graphql(
      `query ListIntegrationInstallations($name: String!, $externalId: String, $first: Int, $after: String) {
        integration(name: $name) {
          installations(externalId: $externalId, first: $first, after: $after) {
            totalCount pageInfo { ...ListInfo } nodes { ...InstallationFields }
          }
        }
      }`,
      [InstallationFields, ListInfo],
    ),
    variables: (request) => ({ name: name(request), externalId: request.query.externalId, ...pageVariables(request.query) }),
    status: 200,
    body: (data) => listBody(data.integration.installations, restInstallation),
  }),
  typedRoute({
    method: "POST",
    path: "/v1/integrations/:integrationName/installations",
    action: "integration.install",
    document: graphql(
      `mutation InstallIntegration($input: InstallIntegrationInput!) { installIntegration(input: $input) { installation { ...InstallationFields } } }`,
      [InstallationFields],
    ),
    variables: (request) => ({
      input: {
        integration: name(request),
        organization: stringField(request.body, "organization", true),
        configuration: objectField(request.body, "configuration"),
      },
    }),
    status: 201,
    body: (data) => restInstallation(data.installIntegration.installation),
  }),
  typedRoute({
    method: "GET",
    path: "/v1/integrations/:integrationName/installations/:installationId",
    action: "integration.install",
    document: graphql(
      `query GetIntegrationInstallation($name: String!, $id: ID!) { integration(name: $name) { installation(id: $id) { ...InstallationFields } } }`,
      [InstallationFields],
    ),
    variables: (request) => ({ name: name(request), id: request.params.installationId }),
    status: 200,
    body: (data) => restInstallation(data.integration.installation),
  }),
  typedRoute({
    method: "PATCH",
    path: "/v1/integrations/:integrationName/installations/:installationId",
    action: "integration.install",
    document: graphql(
      `mutation UpdateIntegrationInstallation($input: UpdateIntegrationInstallationInput!) {
        updateIntegrationInstallation(input: $input) { installation { ...InstallationFields } }
      }`,
      [InstallationFields],
    ),
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
  }),
  typedRoute({
    method: "DELETE",
    path: "/v1/integrations/:integrationName/installations/:installationId",
    action: "integration.install",
    document: graphql(
      `mutation UninstallIntegration($input: UninstallIntegrationInput!) { uninstallIntegration(input: $input) { deletedInstallationId } }`,
    ),
    variables: (request) => ({ input: installationKey(request) }),
    status: 205,
  }),
  typedRoute({
    method: "POST",
    path: "/v1/integrations/:integrationName/installations/:installationId/tokens",
    action: "integration.install",
    document: graphql(
      `mutation CreateIntegrationInstallationToken($input: CreateIntegrationInstallationTokenInput!) {
        createIntegrationInstallationToken(input: $input) { token expiresAt }
      }`,
    ),
    variables: (request) => ({ input: installationKey(request) }),
    status: 200,
    body: (data) => ({
      token: data.createIntegrationInstallationToken.token,
      expiresAt: data.createIntegrationInstallationToken.expiresAt,
    }),
  }),
  ...contentInstallationRoutes(
    "space",
    { bodyField: "space", actions: { read: "space.read", install: "integration.installOnSpace" } },
    contentDocuments("space", SpaceInstallationFields),
  ),
  ...contentInstallationRoutes(
    "site",
    { bodyField: "siteId", actions: { read: "site.read", install: "integration.installOnSite" } },
    contentDocuments("site", SiteInstallationFields),
  ),
  typedRoute({
    method: "GET",
    path: "/v1/integrations/:integrationName/events",
    action: "integration.manage",
    query: { page: "string", limit: "limit" },
    document: graphql(
      `query ListIntegrationEvents($name: String!, $first: Int, $after: String) {
        integration(name: $name) { events(first: $first, after: $after) { totalCount pageInfo { ...ListInfo } nodes { ...EventFields } } }
      }`,
      [EventFields, ListInfo],
    ),
    variables: (request) => ({ name: name(request), ...pageVariables(request.query) }),
    status: 200,
    body: (data) => listBody(data.integration.events, restEvent),
  }),
  typedRoute({
    method: "GET",
    path: "/v1/integrations/:integrationName/events/:eventId",
    action: "integration.manage",
    document: graphql(
      `query GetIntegrationEvent($name: String!, $id: ID!) { integration(name: $name) { event(id: $id) { ...EventFields } } }`,
      [EventFields],
    ),
    variables: (request) => ({ name: name(request), id: request.params.eventId }),
    status: 200,
    body: (data) => ({ event: restEvent(data.integration.event), trace: { logs: data.integration.event.logs } }),
  }),
  typedRoute({
    method: "PUT",
    path: "/v1/integrations/:integrationName/dev",
    action: "integration.manage",
    document: graphql(
      `mutation SetIntegrationDevelopmentMode($name: String!, $tunnelUrl: String!, $all: Boolean) {
        setIntegrationDevelopmentMode(name: $name, tunnelUrl: $tunnelUrl, all: $all) { integration { name } }
      }`,
    ),
    variables: (request) => {
      const all = request.body.all;
      if (all != null && typeof all !== "boolean") throw new RestInputError("all must be a boolean");
      return { name: name(request), tunnelUrl: stringField(request.body, "tunnelUrl", true), all };
    },
    status: 204,
  }),
  typedRoute({
    method: "DELETE",
    path: "/v1/integrations/:integrationName/dev",
    action: "integration.manage",
    document: graphql(
      `mutation DisableIntegrationDevelopmentMode($name: String!) { disableIntegrationDevelopmentMode(name: $name) { integration { name } } }`,
    ),
    variables: (request) => ({ name: name(request) }),
    status: 205,
  }),
  typedRoute({
    method: "GET",
    path: "/v1/integrations/:integrationName/render",
    action: "integration.render",
    query: { request: "string" },
    document: RenderDocument,
    variables: (request) => {
      if (request.query.request === undefined)
        throw new RestInputError("request is required: the render request compressed with lz-string");
      return renderInput(request);
    },
    status: 200,
    body: (data) => data.renderIntegrationUI.output,
  }),
  typedRoute({
    method: "POST",
    path: "/v1/integrations/:integrationName/render",
    action: "integration.render",
    document: RenderDocument,
    variables: renderInput,
    status: 200,
    body: (data) => data.renderIntegrationUI.output,
  }),
  typedRoute({
    method: "GET",
    path: "/v1/orgs/:organizationId/integrations",
    action: "integration.list",
    query: FILTER_QUERY,
    document: graphql(
      `query ListOrganizationIntegrations($id: ID!, ${FILTER_DEFINITIONS}) { organization(id: $id) { ${INTEGRATION_LIST} } }`,
      [IntegrationFields, ListInfo],
    ),
    variables: (request) => ({ id: request.params.organizationId, ...filterVariables(request) }),
    status: 200,
    body: (data) => listBody(data.organization.integrations, restIntegration),
  }),
  typedRoute({
    method: "GET",
    path: "/v1/orgs/:organizationId/integrations/:integrationName/installation_status",
    action: "integration.list",
    document: graphql(
      `query GetOrganizationIntegrationStatus($id: ID!, $integration: String!) {
        organization(id: $id) { integrationInstallationStatus(integration: $integration) }
      }`,
    ),
    variables: (request) => ({ id: request.params.organizationId, integration: name(request) }),
    status: 200,
    body: (data) => ({ status: data.organization.integrationInstallationStatus }),
  }),
  typedRoute({
    method: "GET",
    path: "/v1/orgs/:organizationId/integrations/installations-status",
    action: "integration.list",
    query: { page: "string", limit: "limit", target: "string", space: "string", site: "string" },
    document: graphql(
      `query ListOrganizationIntegrationsStatus($id: ID!, $target: String, $space: ID, $site: ID, $first: Int, $after: String) {
        organization(id: $id) {
          installedIntegrations(target: $target, space: $space, site: $site, first: $first, after: $after) {
            totalCount pageInfo { ...ListInfo } nodes { ...InstalledIntegrationFields }
          }
        }
      }`,
      [InstalledIntegrationFields, ListInfo],
    ),
    variables: ({ params, query }) => ({
      id: params.organizationId,
      target: query.target,
      space: query.space,
      site: query.site,
      ...pageVariables(query),
    }),
    status: 200,
    body: (data) => listBody(data.organization.installedIntegrations, restInstalledIntegration),
  }),
  typedRoute({
    method: "POST",
    path: "/v1/integrations/:integrationName/tasks",
    action: "integration.task",
    document: graphql(
      `mutation QueueIntegrationTask($input: QueueIntegrationTaskInput!) { queueIntegrationTask(input: $input) { eventId } }`,
    ),
    variables: (request) => {
      if (request.body.task === undefined) throw new RestInputError("task is required: the task's payload (an object)");
      const schedule = request.body.schedule;
      if (schedule != null && typeof schedule !== "number") throw new RestInputError("schedule must be a number of seconds");
      return { input: { integration: name(request), task: request.body.task, schedule } };
    },
    status: 204,
  }),
  typedRoute({
    method: "GET",
    path: "/v1/spaces/:spaceId/integrations",
    action: "space.read",
    query: FILTER_QUERY,
    document: graphql(`query ListSpaceIntegrations($id: ID!, ${FILTER_DEFINITIONS}) { space(id: $id) { ${INTEGRATION_LIST} } }`, [
      IntegrationFields,
      ListInfo,
    ]),
    variables: (request) => ({ id: request.params.spaceId, ...filterVariables(request) }),
    status: 200,
    body: (data) => listBody(data.space.integrations, restIntegration),
  }),
];
