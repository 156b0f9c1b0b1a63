// Git Sync of a space (issue 32): POST …/git/import and …/git/export queue a durable job and answer
// 204 (as published); GET …/git/info is the published GitSyncState (404 before any operation).
// Body fields go to the operation as they came (strings checked by the core).
import { quote } from "../../src/core/errors.ts";
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
    throw new RestInputError(`timestamp must be a date-time (got ${quote(value)})`);
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

// Git Sync installations (the published `/git/installations…` operations).

const INSTALLATION = `id provider targetType space site parentInstallation status projectDirectory commitMessageTemplate
  previewExternalBranches agentInstructions priority repositoryId branch customInstanceURL createdAt createdBy updatedAt location
  repository { id provider fullName url }`;

const INSTALLATION_DOCUMENT = graphql(`query GitSyncInstallation($id: ID!) { gitSyncInstallation(id: $id) { ${INSTALLATION} } }`);
const SITE_INSTALLATIONS_DOCUMENT = graphql(
  `query SiteGitSyncInstallations($organization: ID, $site: ID!) { siteGitSyncInstallations(organization: $organization, site: $site) { ${INSTALLATION} } }`,
);
const INSTALL_DOCUMENT = graphql(
  `mutation InstallGitSync($input: InstallGitSyncInput!) { installGitSync(input: $input) { ${INSTALLATION} } }`,
);
const UPDATE_INSTALLATION_DOCUMENT = graphql(
  `mutation UpdateGitSyncInstallation($input: UpdateGitSyncInstallationInput!) { updateGitSyncInstallation(input: $input) { ${INSTALLATION} } }`,
);
const UNINSTALL_DOCUMENT = graphql(`mutation UninstallGitSync($id: ID!) { uninstallGitSync(id: $id) }`);
const REPOSITORIES_DOCUMENT = graphql(
  `query GitSyncRepositories($installation: ID!, $provider: String!) { gitSyncRepositories(installation: $installation, provider: $provider) { id accountName repositoryName fullName } }`,
);
const BRANCHES_DOCUMENT = graphql(
  `query GitSyncBranches($installation: ID!, $provider: String!, $accountName: String, $repositoryName: String, $projectId: Int) {
    gitSyncBranches(installation: $installation, provider: $provider, accountName: $accountName, repositoryName: $repositoryName, projectId: $projectId) { name ref } }`,
);
const FILE_DOCUMENT = graphql(
  `query GitSyncFile($installation: ID!, $provider: String!, $accountName: String, $repositoryName: String, $projectId: Int, $path: String!, $ref: String!) {
    gitSyncFile(installation: $installation, provider: $provider, accountName: $accountName, repositoryName: $repositoryName, projectId: $projectId, path: $path, ref: $ref) { name path sha size } }`,
);

type Installation = ResultOf<typeof INSTALLATION_DOCUMENT>["gitSyncInstallation"];

/** The published GitSyncInstallation. */
const installationBody = (i: Installation) => {
  const gitlab = i.provider === "gitlab";
  return {
    object: "git-sync-installation",
    id: i.id,
    provider: i.provider,
    providerConfiguration: compact(
      gitlab
        ? { projectId: i.repositoryId ?? undefined, customInstanceURL: i.customInstanceURL ?? undefined, branch: i.branch ?? undefined }
        : { repositoryId: i.repositoryId ?? undefined, branch: i.branch ?? undefined },
    ),
    ...compact({
      projectDirectory: i.projectDirectory ?? undefined,
      commitMessageTemplate: i.commitMessageTemplate ?? undefined,
      previewExternalBranches: i.previewExternalBranches ?? undefined,
      agentInstructions: i.agentInstructions ?? undefined,
      priority: i.priority ?? undefined,
      parentInstallationId: i.parentInstallation ?? undefined,
    }),
    target:
      i.targetType === "space"
        ? compact({ type: "space", spaceId: i.space!, siteId: i.site ?? undefined })
        : { type: "site", siteId: i.site! },
    status: i.status,
    ...(i.repository
      ? {
          repositoryConnection: {
            object: "git-repository-connection",
            id: `grc_${i.repository.provider}_${i.repository.id}`,
            provider: i.repository.provider,
            repositoryId: String(i.repository.id),
            repositoryName: i.repository.fullName,
            repositoryUrl: i.repository.url,
            authState: "active",
            capabilities: { pullRequests: false, commitStatuses: false },
            createdAt: i.createdAt,
            updatedAt: i.updatedAt,
          },
        }
      : {}),
    ...(i.branch
      ? {
          repositoryRef: {
            object: "git-repository-ref",
            id: `${i.id}:${i.branch}`,
            name: i.branch,
            type: "branch",
            updatedAt: i.updatedAt,
          },
        }
      : {}),
    createdAt: i.createdAt,
    createdBy: i.createdBy,
    updatedAt: i.updatedAt,
    urls: { location: i.location },
  };
};

function objectOf(field: string, value: unknown): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new RestInputError(`${field} must be an object`);
  return value as Record<string, unknown>;
}

function typed<T>(field: string, value: unknown, type: "string" | "number" | "boolean"): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== type || (type === "number" && !Number.isInteger(value))) {
    throw new RestInputError(`${field} must be ${type === "number" ? "an integer" : `a ${type}`} (got ${quote(value)})`);
  }
  return value as T;
}

function projectIdOf(params: Record<string, string>): number {
  const id = Number(params.projectId);
  if (!Number.isInteger(id) || id <= 0) throw new RestInputError(`projectId must be a positive integer (got ${quote(params.projectId)})`);
  return id;
}

const installationRoute = { status: 200 as const, body: installationBody };

gitSyncRoutes.push(
  typedRoute({
    method: "GET",
    path: "/v1/orgs/:organizationId/sites/:siteId/spaces/git/installations",
    action: "site.read",
    document: SITE_INSTALLATIONS_DOCUMENT,
    variables: ({ params }) => ({ organization: params.organizationId, site: params.siteId }),
    status: 200,
    body: (data) => ({ items: data.siteGitSyncInstallations.map(installationBody) }),
  }),
  typedRoute({
    method: "POST",
    path: "/v1/git/installations",
    action: "space.configure",
    document: INSTALL_DOCUMENT,
    variables: ({ body }) => {
      const target = objectOf("target", body.target) ?? {};
      return {
        input: {
          provider: typed<string>("provider", body.provider, "string") ?? "",
          target: compact({
            type: typed<string>("target.type", target.type, "string") ?? "",
            space: typed<string>("target.spaceId", target.spaceId, "string"),
            site: typed<string>("target.siteId", target.siteId, "string"),
          }) as { type: string },
        },
      };
    },
    status: 201,
    body: (data) => installationBody(data.installGitSync),
  }),
  typedRoute({
    method: "GET",
    path: "/v1/git/installations/:installationId",
    action: "space.read",
    document: INSTALLATION_DOCUMENT,
    variables: ({ params }) => ({ id: params.installationId }),
    ...installationRoute,
    body: (data) => installationBody(data.gitSyncInstallation),
  }),
  typedRoute({
    method: "PATCH",
    path: "/v1/git/installations/:installationId",
    action: "space.configure",
    document: UPDATE_INSTALLATION_DOCUMENT,
    variables: ({ params, body }) => {
      const configuration = objectOf("providerConfiguration", body.providerConfiguration) ?? {};
      const repositoryField = "projectId" in configuration ? "projectId" : "repositoryId";
      const customInstanceURL = configuration.customInstanceURL;
      if (customInstanceURL !== undefined && customInstanceURL !== null && typeof customInstanceURL !== "string") {
        throw new RestInputError("providerConfiguration.customInstanceURL must be a string or null");
      }
      const agentInstructions = body.agentInstructions;
      if (agentInstructions !== undefined && (!Array.isArray(agentInstructions) || agentInstructions.some((v) => typeof v !== "string"))) {
        throw new RestInputError("agentInstructions must be an array of strings");
      }
      return {
        input: {
          id: params.installationId,
          provider: typed<string>("provider", body.provider, "string") ?? "",
          repositoryId: typed<number>(`providerConfiguration.${repositoryField}`, configuration[repositoryField], "number"),
          branch: typed<string>("providerConfiguration.branch", configuration.branch, "string"),
          accessToken: typed<string>("providerConfiguration.accessToken", configuration.accessToken, "string"),
          customInstanceURL: customInstanceURL as string | null | undefined,
          projectDirectory: typed<string>("projectDirectory", body.projectDirectory, "string"),
          commitMessageTemplate: typed<string>("commitMessageTemplate", body.commitMessageTemplate, "string"),
          previewExternalBranches: typed<boolean>("previewExternalBranches", body.previewExternalBranches, "boolean"),
          agentInstructions: agentInstructions as string[] | undefined,
          priority: typed<string>("priority", body.priority, "string"),
          childInstallationProjectDirectories: objectOf("childInstallationProjectDirectories", body.childInstallationProjectDirectories),
        },
      };
    },
    ...installationRoute,
    body: (data) => installationBody(data.updateGitSyncInstallation),
  }),
  typedRoute({
    method: "DELETE",
    path: "/v1/git/installations/:installationId",
    action: "space.configure",
    document: UNINSTALL_DOCUMENT,
    variables: ({ params }) => ({ id: params.installationId }),
    status: 205,
  }),
  typedRoute({
    method: "GET",
    path: "/v1/git/installations/:installationId/github/repos",
    action: "space.configure",
    document: REPOSITORIES_DOCUMENT,
    variables: ({ params }) => ({ installation: params.installationId, provider: "github" }),
    status: 200,
    body: (data) => ({
      items: data.gitSyncRepositories.map((r) => ({
        id: r.id,
        accountName: r.accountName,
        repositoryName: r.repositoryName,
        fullName: r.fullName,
        defaultBranch: null,
      })),
    }),
  }),
  typedRoute({
    method: "GET",
    path: "/v1/git/installations/:installationId/gitlab/projects",
    action: "space.configure",
    document: REPOSITORIES_DOCUMENT,
    variables: ({ params }) => ({ installation: params.installationId, provider: "gitlab" }),
    status: 200,
    body: (data) => ({
      items: data.gitSyncRepositories.map((r) => ({
        id: r.id,
        accountName: r.accountName,
        repositoryName: r.repositoryName,
        fullName: r.fullName,
        defaultBranch: null,
      })),
    }),
  }),
  typedRoute({
    method: "GET",
    path: "/v1/git/installations/:installationId/github/repos/:accountName/:repositoryName/branches",
    action: "space.configure",
    document: BRANCHES_DOCUMENT,
    variables: ({ params }) => ({
      installation: params.installationId,
      provider: "github",
      accountName: params.accountName,
      repositoryName: params.repositoryName,
    }),
    status: 200,
    body: (data) => ({ items: data.gitSyncBranches }),
  }),
  typedRoute({
    method: "GET",
    path: "/v1/git/installations/:installationId/gitlab/projects/:projectId/branches",
    action: "space.configure",
    document: BRANCHES_DOCUMENT,
    variables: ({ params }) => ({ installation: params.installationId, provider: "gitlab", projectId: projectIdOf(params) }),
    status: 200,
    body: (data) => ({ items: data.gitSyncBranches }),
  }),
  typedRoute({
    method: "GET",
    path: "/v1/git/installations/:installationId/github/repos/:accountName/:repositoryName/file",
    action: "space.configure",
    query: { path: "string", ref: "string" },
    document: FILE_DOCUMENT,
    variables: ({ params, query }) => ({
      installation: params.installationId,
      provider: "github",
      accountName: params.accountName,
      repositoryName: params.repositoryName,
      path: String(query.path ?? ""),
      ref: String(query.ref ?? ""),
    }),
    status: 200,
    body: (data) => data.gitSyncFile,
  }),
  typedRoute({
    method: "GET",
    path: "/v1/git/installations/:installationId/gitlab/projects/:projectId/file",
    action: "space.configure",
    query: { path: "string", ref: "string" },
    document: FILE_DOCUMENT,
    variables: ({ params, query }) => ({
      installation: params.installationId,
      provider: "gitlab",
      projectId: projectIdOf(params),
      path: String(query.path ?? ""),
      ref: String(query.ref ?? ""),
    }),
    status: 200,
    body: (data) => data.gitSyncFile,
  }),
);
