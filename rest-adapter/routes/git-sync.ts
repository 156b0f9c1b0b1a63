// Git Sync of a space (issue 32): POST …/git/import and …/git/export queue a durable job and answer
// 204 (as published); GET …/git/info is the published GitSyncState (404 before any operation).
// Body fields go to the operation as they came (strings checked by the core).
import { graphql, type ResultOf } from "../graphql.ts";
import { compact, RestInputError, type RestRequest, type RestRoute, stringOf, typedRoute } from "../route.ts";

const STATE = `installationId installationProvider installationStatus repoName url operationTimeout updatedAt
  operation { state direction startedAt endedAt error }`;

const INFO_DOCUMENT = graphql(`query GitSyncInfo($space: ID!) { gitSyncInfo(space: $space) { ${STATE} } }`);
const IMPORT_DOCUMENT = graphql(
  `mutation ImportGitRepository($input: ImportGitRepositoryInput!) { importGitRepository(input: $input) { installationId } }`,
);
const EXPORT_DOCUMENT = graphql(
  `mutation ExportToGitRepository($input: ExportToGitRepositoryInput!) { exportToGitRepository(input: $input) { installationId } }`,
);

/** A date-time, checked here so that a bad one is a 400 naming the field (the GraphQL scalar would refuse it as a variable). */
function timestampOf(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string" || Number.isNaN(Date.parse(value))) {
    throw new RestInputError(`timestamp must be a date-time (got ${JSON.stringify(value)?.slice(0, 100)})`);
  }
  return value;
}

const common = ({ params, body }: RestRequest) =>
  compact({
    space: params.spaceId,
    url: stringOf(body.url) ?? "",
    ref: stringOf(body.ref) ?? "",
    repoTreeURL: stringOf(body.repoTreeURL) ?? undefined,
    repoCommitURL: stringOf(body.repoCommitURL) ?? undefined,
    repoProjectDirectory: stringOf(body.repoProjectDirectory) ?? undefined,
    timestamp: timestampOf(body.timestamp),
    force: typeof body.force === "boolean" ? body.force : undefined,
    standalone: typeof body.standalone === "boolean" ? body.standalone : undefined,
  });

type State = ResultOf<typeof INFO_DOCUMENT>["gitSyncInfo"];

const stateBody = (state: State) => ({
  repoName: state.repoName,
  installationStatus: state.installationStatus,
  installationProvider: state.installationProvider,
  installationId: state.installationId,
  url: state.url,
  ...(state.operation
    ? {
        operation: compact({
          state: state.operation.state,
          direction: state.operation.direction,
          startedAt: state.operation.startedAt,
          endedAt: state.operation.endedAt ?? undefined,
          error: state.operation.error ?? undefined,
        }),
      }
    : {}),
  operationTimeout: state.operationTimeout,
  updatedAt: state.updatedAt,
});

export const gitSyncRoutes: RestRoute[] = [
  typedRoute({
    method: "POST",
    path: "/v1/spaces/:spaceId/git/import",
    action: "space.configure",
    document: IMPORT_DOCUMENT,
    variables: (request) => ({ input: common(request) as never }),
    status: 204,
  }),
  typedRoute({
    method: "POST",
    path: "/v1/spaces/:spaceId/git/export",
    action: "space.configure",
    document: EXPORT_DOCUMENT,
    variables: (request) => ({ input: { ...common(request), commitMessage: stringOf(request.body.commitMessage) ?? "" } as never }),
    status: 204,
  }),
  typedRoute({
    method: "GET",
    path: "/v1/spaces/:spaceId/git/info",
    action: "space.read",
    document: INFO_DOCUMENT,
    variables: ({ params }) => ({ space: params.spaceId }),
    status: 200,
    body: (data) => stateBody(data.gitSyncInfo),
  }),
];
