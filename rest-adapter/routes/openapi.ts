// /v1/orgs/{organizationId}/openapi routes: OpenAPI specifications and their versions.
import { graphql, type FragmentOf } from "../graphql.ts";
import { graphqlEnum, ListInfo, listBody, pageVariables, RestInputError, type RestRequest, type RestRoute, typedRoute } from "../route.ts";

const SpecFields = graphql(`
  fragment OpenAPISpecFields on OpenAPISpec {
    id createdAt updatedAt slug sourceURL processingState visibility
    lastVersion { id }
    lastProcessedAt lastProcessErrorCode lastProcessedErrors { code message } lastProcessedErrorCount
    permissions { view edit }
    urls { location app }
  }`);

const VersionFields = graphql(`
  fragment OpenAPISpecVersionFields on OpenAPISpecVersion { id createdAt url urls { location } }`);

export function restSpec(spec: FragmentOf<typeof SpecFields>) {
  return {
    object: "openapi-spec",
    id: spec.id,
    createdAt: spec.createdAt,
    updatedAt: spec.updatedAt,
    slug: spec.slug,
    ...(spec.sourceURL ? { sourceURL: spec.sourceURL } : {}),
    processingState: spec.processingState.toLowerCase(),
    visibility: spec.visibility.toLowerCase(),
    ...(spec.lastVersion ? { lastVersion: spec.lastVersion.id } : {}),
    ...(spec.lastProcessedAt ? { lastProcessedAt: spec.lastProcessedAt } : {}),
    ...(spec.lastProcessErrorCode ? { lastProcessErrorCode: spec.lastProcessErrorCode } : {}),
    lastProcessedErrors: spec.lastProcessedErrors.map((error) => (error.code ? error : { message: error.message })),
    lastProcessedErrorCount: spec.lastProcessedErrorCount,
    permissions: spec.permissions,
    urls: spec.urls,
  };
}

const restVersion = (version: FragmentOf<typeof VersionFields>) => ({
  object: "openapi-spec-version",
  id: version.id,
  createdAt: version.createdAt,
  url: version.url,
  urls: version.urls,
});

/** `source` as the operation's input: an object with `url` or `text`; the core checks the rest. */
function sourceOf(body: RestRequest["body"]) {
  const source = body.source;
  if (source == null) throw new RestInputError("source is required: { url } or { text }");
  if (typeof source !== "object" || Array.isArray(source)) throw new RestInputError("source must be an object: { url } or { text }");
  const { url, text } = source as Record<string, unknown>;
  for (const [field, value] of [
    ["url", url],
    ["text", text],
  ] as const) {
    if (value != null && typeof value !== "string") throw new RestInputError(`source.${field} must be a string`);
  }
  return { url, text };
}

const specPath = ({ params }: RestRequest) => ({ organization: params.organizationId, slug: params.specSlug });

const GET_SPEC = graphql(
  `query GetOpenAPISpec($organization: ID!, $slug: String!) {
    organization(id: $organization) { openAPISpec(slug: $slug) { ...OpenAPISpecFields } }
  }`,
  [SpecFields],
);

/** A version by id or `latest` (the `version` variable). */
const GET_VERSION = graphql(
  `query GetOpenAPISpecVersion($organization: ID!, $slug: String!, $version: ID!) {
    organization(id: $organization) { openAPISpec(slug: $slug) { version(id: $version) { ...OpenAPISpecVersionFields } } }
  }`,
  [VersionFields],
);
const GET_VERSION_CONTENT = graphql(
  `query GetOpenAPISpecVersionContent($organization: ID!, $slug: String!, $version: ID!) {
    organization(id: $organization) { openAPISpec(slug: $slug) { version(id: $version) { content } } }
  }`,
);

export const openapiRoutes: RestRoute[] = [
  typedRoute({
    method: "GET",
    path: "/v1/orgs/:organizationId/openapi",
    action: "openapi.read",
    query: { page: "string", limit: "limit" },
    document: graphql(
      `query ListOpenAPISpecs($id: ID!, $first: Int, $after: String) {
        organization(id: $id) {
          openAPISpecs(first: $first, after: $after) { totalCount pageInfo { ...ListInfo } nodes { ...OpenAPISpecFields } }
        }
      }`,
      [SpecFields, ListInfo],
    ),
    variables: ({ params, query }) => ({ id: params.organizationId, ...pageVariables(query) }),
    status: 200,
    body: (data) => listBody(data.organization.openAPISpecs, restSpec),
  }),
  typedRoute({
    method: "POST",
    path: "/v1/orgs/:organizationId/openapi",
    action: "openapi.manage",
    document: graphql(
      `mutation CreateOpenAPISpec($input: CreateOpenAPISpecInput!) { createOpenAPISpec(input: $input) { spec { ...OpenAPISpecFields } } }`,
      [SpecFields],
    ),
    variables: ({ params, body }) => {
      if (body.slug == null) throw new RestInputError("slug is required");
      if (typeof body.slug !== "string") throw new RestInputError("slug must be a string");
      return { input: { organization: params.organizationId, slug: body.slug, source: sourceOf(body) } };
    },
    status: 201,
    body: (data) => restSpec(data.createOpenAPISpec.spec),
  }),
  typedRoute({
    method: "GET",
    path: "/v1/orgs/:organizationId/openapi/:specSlug",
    action: "openapi.read",
    document: GET_SPEC,
    variables: specPath,
    status: 200,
    body: (data) => restSpec(data.organization.openAPISpec),
  }),
  typedRoute({
    method: "PUT",
    path: "/v1/orgs/:organizationId/openapi/:specSlug",
    action: "openapi.manage",
    document: graphql(
      `mutation PutOpenAPISpec($input: PutOpenAPISpecInput!) { putOpenAPISpec(input: $input) { created spec { ...OpenAPISpecFields } } }`,
      [SpecFields],
    ),
    variables: (request) => ({ input: { ...specPath(request), source: sourceOf(request.body) } }),
    status: 200,
    statusOf: (data) => (data.putOpenAPISpec.created ? 201 : 200),
    body: (data) => restSpec(data.putOpenAPISpec.spec),
  }),
  typedRoute({
    method: "PATCH",
    path: "/v1/orgs/:organizationId/openapi/:specSlug",
    action: "openapi.manage",
    document: graphql(
      `mutation UpdateOpenAPISpec($input: UpdateOpenAPISpecInput!) { updateOpenAPISpec(input: $input) { spec { ...OpenAPISpecFields } } }`,
      [SpecFields],
    ),
    variables: (request) => {
      if (request.body.visibility == null) throw new RestInputError("visibility is required");
      return { input: { ...specPath(request), visibility: graphqlEnum("visibility", request.body.visibility, ["private", "public"]) } };
    },
    status: 200,
    body: (data) => restSpec(data.updateOpenAPISpec.spec),
  }),
  typedRoute({
    method: "DELETE",
    path: "/v1/orgs/:organizationId/openapi/:specSlug",
    action: "openapi.manage",
    document: graphql(`mutation DeleteOpenAPISpec($input: DeleteOpenAPISpecInput!) { deleteOpenAPISpec(input: $input) { deletedSlug } }`),
    variables: (request) => ({ input: specPath(request) }),
    status: 205,
  }),
  typedRoute({
    method: "GET",
    path: "/v1/orgs/:organizationId/openapi/:specSlug/versions",
    action: "openapi.read",
    query: { page: "string", limit: "limit" },
    document: graphql(
      `query ListOpenAPISpecVersions($organization: ID!, $slug: String!, $first: Int, $after: String) {
        organization(id: $organization) {
          openAPISpec(slug: $slug) {
            versions(first: $first, after: $after) { totalCount pageInfo { ...ListInfo } nodes { ...OpenAPISpecVersionFields } }
          }
        }
      }`,
      [VersionFields, ListInfo],
    ),
    variables: (request) => ({ ...specPath(request), ...pageVariables(request.query) }),
    status: 200,
    body: (data) => listBody(data.organization.openAPISpec.versions, restVersion),
  }),
  typedRoute({
    method: "GET",
    path: "/v1/orgs/:organizationId/openapi/:specSlug/versions/latest",
    action: "openapi.read",
    document: GET_VERSION,
    variables: (request) => ({ ...specPath(request), version: "latest" }),
    status: 200,
    body: (data) => restVersion(data.organization.openAPISpec.version),
  }),
  typedRoute({
    method: "GET",
    path: "/v1/orgs/:organizationId/openapi/:specSlug/versions/latest/content",
    action: "openapi.read",
    document: GET_VERSION_CONTENT,
    variables: (request) => ({ ...specPath(request), version: "latest" }),
    status: 200,
    body: (data) => data.organization.openAPISpec.version.content,
  }),
  typedRoute({
    method: "GET",
    path: "/v1/orgs/:organizationId/openapi/:specSlug/versions/latest/content/raw",
    action: "openapi.read",
    document: graphql(`query GetLatestOpenAPISpecVersionContentRaw($organization: ID!, $slug: String!) {
        organization(id: $organization) { openAPISpec(slug: $slug) { rawContent { text format } } }
      }`),
    variables: specPath,
    status: 200,
    body: (data) => data.organization.openAPISpec.rawContent,
  }),
  typedRoute({
    method: "GET",
    path: "/v1/orgs/:organizationId/openapi/:specSlug/versions/:versionId",
    action: "openapi.read",
    document: GET_VERSION,
    variables: (request) => ({ ...specPath(request), version: request.params.versionId }),
    status: 200,
    body: (data) => restVersion(data.organization.openAPISpec.version),
  }),
  typedRoute({
    method: "GET",
    path: "/v1/orgs/:organizationId/openapi/:specSlug/versions/:versionId/content",
    action: "openapi.read",
    document: GET_VERSION_CONTENT,
    variables: (request) => ({ ...specPath(request), version: request.params.versionId }),
    status: 200,
    body: (data) => data.organization.openAPISpec.version.content,
  }),
];
