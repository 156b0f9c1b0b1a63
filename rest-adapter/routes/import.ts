// POST …/content/import: a website into a content target (the space's content, or a change
// request's through change-requests.ts), as one revision; under a page, the site's top pages
// become its children. `url` and `source` go to the operation as they came (strings checked by
// the core), so both surfaces give the same 400 for a bad value.
import { graphql, type FragmentOf, type ResultOf } from "../graphql.ts";
import { ListInfo, listBody, pageVariables, RestInputError, type RestRequest, type RestRoute, stringOf, typedRoute } from "../route.ts";

const IMPORT_DOCUMENT = graphql(`
  mutation ImportContent($input: ImportContentInput!) {
    importContent(input: $input) { revision { id } importedResources totalResources }
  }`);

const importInput = ({ params, body }: RestRequest) => ({
  input: {
    space: params.spaceId,
    changeRequest: params.changeRequestId,
    // Non-strings are left for the core to refuse with its message (not a GraphQL type error).
    url: stringOf(body.url) ?? "",
    source: stringOf(body.source) ?? "",
    parent: params.pageId,
  },
});

const importBody = (data: ResultOf<typeof IMPORT_DOCUMENT>) => ({
  revision: data.importContent.revision.id,
  importedResources: data.importContent.importedResources,
  totalResources: data.importContent.totalResources,
});

export const importRoutes: RestRoute[] = [
  typedRoute({
    method: "POST",
    path: "/v1/spaces/:spaceId/content/import",
    action: "space.editContent",
    document: IMPORT_DOCUMENT,
    variables: importInput,
    status: 201,
    body: importBody,
  }),
  typedRoute({
    method: "POST",
    path: "/v1/spaces/:spaceId/content/page/:pageId/import",
    action: "space.editContent",
    document: IMPORT_DOCUMENT,
    variables: importInput,
    status: 201,
    body: importBody,
  }),
];

// /v1/org/{organizationId}/imports (`/org/`, as published): import runs, the same import as a
// job with its status and progress; the answer is the published ContentImportRun.

const ImportRunFields = graphql(`
  fragment ImportRunFields on ImportRun {
    id
    status
    reason
    sourceType
    sourceUrl
    space
    changeRequest
    page
    site
    createdBy
    createdAt
    updatedAt
    startedAt
    completedAt
    location
    pages { id sourceURL type status }
  }
`);

const restImportRun = (run: FragmentOf<typeof ImportRunFields>) => ({
  object: "import-run" as const,
  id: run.id,
  status: run.status as "pending" | "in-progress" | "completed" | "failed" | "cancelled",
  ...(run.reason != null ? { reason: run.reason } : {}),
  source: { type: "website" as const, url: run.sourceUrl },
  target: {
    space: run.space,
    ...(run.changeRequest != null ? { changeRequest: run.changeRequest } : {}),
    ...(run.page != null ? { page: run.page } : {}),
  },
  ...(run.site != null ? { site: run.site } : {}),
  createdBy: run.createdBy,
  createdAt: run.createdAt,
  updatedAt: run.updatedAt,
  ...(run.startedAt != null ? { startedAt: run.startedAt } : {}),
  ...(run.completedAt != null && run.status === "completed" ? { completedAt: run.completedAt } : {}),
  urls: { location: run.location },
  pages: run.pages.map((page) => ({
    id: page.id,
    ...(page.sourceURL != null ? { sourceURL: page.sourceURL } : {}),
    type: page.type as "page" | "folder",
    status: page.status as "complete" | "pending",
  })),
});

export const importRunRoutes: RestRoute[] = [
  typedRoute({
    method: "GET",
    path: "/v1/org/:organizationId/imports",
    action: "importRun.read",
    query: { space: "string", changeRequest: "string", site: "string", status: "string", page: "string", limit: "limit" },
    document: graphql(
      `query ListImportRuns($id: ID!, $space: ID, $changeRequest: ID, $site: ID, $status: String, $first: Int, $after: String) {
        organization(id: $id) {
          importRuns(space: $space, changeRequest: $changeRequest, site: $site, status: $status, first: $first, after: $after) {
            totalCount
            pageInfo { ...ListInfo }
            nodes { ...ImportRunFields }
          }
        }
      }`,
      [ImportRunFields, ListInfo],
    ),
    variables: ({ params, query }) => ({
      id: params.organizationId,
      space: (query.space as string | undefined) ?? null,
      changeRequest: (query.changeRequest as string | undefined) ?? null,
      site: (query.site as string | undefined) ?? null,
      status: (query.status as string | undefined) ?? null,
      ...pageVariables(query),
    }),
    status: 200,
    body: (data) => listBody(data.organization.importRuns, restImportRun),
  }),
  typedRoute({
    method: "POST",
    path: "/v1/org/:organizationId/imports",
    action: "space.editContent",
    document: graphql(`mutation StartImportRun($input: StartImportRunInput!) { startImportRun(input: $input) { ...ImportRunFields } }`, [
      ImportRunFields,
    ]),
    variables: ({ params, body }) => {
      if (body.source == null) throw new RestInputError("source is required");
      if (body.target == null) throw new RestInputError("target is required");
      if (body.enhance != null && typeof body.enhance !== "boolean") throw new RestInputError("enhance must be a boolean");
      return {
        input: {
          organization: params.organizationId,
          source: body.source,
          target: body.target,
          // A non-string is left for the core to refuse with its message.
          site: body.site == null ? null : (stringOf(body.site) ?? null),
        },
      };
    },
    status: 201,
    body: (data) => restImportRun(data.startImportRun),
  }),
  typedRoute({
    method: "GET",
    path: "/v1/org/:organizationId/imports/:importRunId",
    action: "importRun.read",
    document: graphql(`query GetImportRun($id: ID!, $run: ID!) { organization(id: $id) { importRun(id: $run) { ...ImportRunFields } } }`, [
      ImportRunFields,
    ]),
    variables: ({ params }) => ({ id: params.organizationId, run: params.importRunId }),
    status: 200,
    body: (data) => restImportRun(data.organization.importRun),
  }),
  typedRoute({
    method: "POST",
    path: "/v1/org/:organizationId/imports/:importRunId/cancel",
    action: "space.editContent",
    document: graphql(
      `mutation CancelImportRun($organization: ID!, $id: ID!) { cancelImportRun(organization: $organization, id: $id) { ...ImportRunFields } }`,
      [ImportRunFields],
    ),
    variables: ({ params }) => ({ organization: params.organizationId, id: params.importRunId }),
    status: 200,
    body: (data) => restImportRun(data.cancelImportRun),
  }),
];
