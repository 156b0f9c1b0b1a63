// Git Sync of a space (issue 32): import from and export to a Git remote as durable jobs, and the
// space's Git Sync state. The rules are in src/core/git/sync.ts.
import { badInput, quote } from "../core/errors.ts";
import {
  GIT_SYNC_PROVIDERS,
  type GitSyncProvider,
  gitSyncBranches,
  gitSyncFile,
  gitSyncInstallation,
  gitSyncRepositories,
  type InstallationView,
  installGitSync,
  MAX_BRANCHES,
  type RepositorySelector,
  type RepositoryView,
  siteGitSyncInstallations,
  uninstallGitSync,
  updateGitSyncInstallation,
} from "../core/git/installations.ts";
import { gitSyncInfo, requestGitSync, type GitSyncOperation } from "../core/git/sync.ts";
import { builder } from "./builder.ts";

interface GitSyncStateShape {
  installationId: string;
  provider: string;
  url: string;
  treeUrl: string | null;
  operation: GitSyncOperation | null;
  operationTimeout: number;
  updatedAt: Date;
}

const GitSyncOperationRef = builder.objectRef<GitSyncOperation>("GitSyncOperation").implement({
  description: "The latest Git Sync operation of a space",
  fields: (t) => ({
    state: t.exposeString("state", { description: "running, failure, success or timeout" }),
    direction: t.exposeString("direction", { description: "import or export" }),
    startedAt: t.field({ type: "DateTime", description: "When it was asked for", resolve: (o) => new Date(o.startedAt) }),
    endedAt: t.field({
      type: "DateTime",
      nullable: true,
      description: "When it ended (null while running)",
      resolve: (o) => (o.endedAt ? new Date(o.endedAt) : null),
    }),
    error: t.string({
      nullable: true,
      description: "Why it failed, naming the file when a file is the reason",
      resolve: (o) => o.error ?? null,
    }),
    changeRequest: t.id({
      nullable: true,
      description: "The change request an import made (its content is the imported tree)",
      resolve: (o) => o.changeRequestId ?? null,
    }),
  }),
});

const GitSyncStateRef = builder.objectRef<GitSyncStateShape>("GitSyncState").implement({
  description: "Git Sync of a space: its remote and its latest operation (the published GitSyncState)",
  fields: (t) => ({
    installationId: t.exposeString("installationId", { description: "Identifier of the space's Git Sync set-up" }),
    installationProvider: t.exposeString("provider", {
      description: "github or gitlab, from the remote's host (github for any other host)",
    }),
    installationStatus: t.string({ description: "Always active: the remote is given with each operation", resolve: () => "active" }),
    repoName: t.string({
      description: "The remote's path, without `.git`",
      resolve: (s) => new URL(s.url).pathname.replace(/^\/+|\/+$/g, "").replace(/\.git$/, ""),
    }),
    url: t.string({
      description: "The repository tree URL when one was given, else the remote (without credentials)",
      resolve: (s) => s.treeUrl ?? s.url,
    }),
    operation: t.field({ type: GitSyncOperationRef, nullable: true, description: "The latest operation", resolve: (s) => s.operation }),
    operationTimeout: t.exposeInt("operationTimeout", { description: "How long an operation may run, in ms" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime", description: "When the Git Sync state last changed" }),
  }),
});

builder.queryFields((t) => ({
  gitSyncInfo: t.field({
    type: GitSyncStateRef,
    description: "The space's Git Sync state (NOT_FOUND when no import or export was ever asked for on it)",
    args: { space: t.arg.id({ required: true, description: "The space" }) },
    resolve: async (_root, { space }, { core }) => {
      const row = await gitSyncInfo(core, space);
      return { ...row, operationTimeout: core.git.limits.timeoutMs };
    },
  }),
}));

const ImportGitRepositoryInput = builder.inputType("ImportGitRepositoryInput", {
  description: "Input of the importGitRepository mutation",
  fields: (f) => ({
    space: f.id({ required: true, description: "The space" }),
    url: f.string({ required: true, description: "The Git remote (http or https; it may carry `user:password@`, stored sealed)" }),
    ref: f.string({ required: true, description: 'The branch, as "refs/heads/main"' }),
    repoTreeURL: f.string({ description: "Prefix of the repository tree's URL (shown as the state's url)" }),
    repoCommitURL: f.string({ description: "Prefix of commit URLs (accepted, not used)" }),
    repoProjectDirectory: f.string({
      description: "The directory of the repository the space is kept in (relative, no '..'; default the root)",
    }),
    timestamp: f.field({
      type: "DateTime",
      description: "When the event that asked for it happened: an older one than the last is refused",
    }),
    force: f.boolean({ description: "Accepted; an import is always a change request here" }),
    standalone: f.boolean({ description: "Accepted; an import is always a change request here" }),
  }),
});

const ExportToGitRepositoryInput = builder.inputType("ExportToGitRepositoryInput", {
  description: "Input of the exportToGitRepository mutation",
  fields: (f) => ({
    space: f.id({ required: true, description: "The space" }),
    url: f.string({ required: true, description: "The Git remote (http or https; it may carry `user:password@`, stored sealed)" }),
    ref: f.string({ required: true, description: 'The branch, as "refs/heads/main"' }),
    commitMessage: f.string({ required: true, description: "Message of the exported commit" }),
    repoTreeURL: f.string({ description: "Prefix of the repository tree's URL (shown as the state's url)" }),
    repoCommitURL: f.string({ description: "Prefix of commit URLs (accepted, not used)" }),
    repoProjectDirectory: f.string({
      description: "The directory of the repository the space is kept in (relative, no '..'; default the root)",
    }),
    timestamp: f.field({
      type: "DateTime",
      description: "When the event that asked for it happened: an older one than the last is refused",
    }),
    force: f.boolean({ description: "Replace the remote branch even when it moved (a force push)" }),
    standalone: f.boolean({ description: "Accepted; the export is the same either way" }),
  }),
});

builder.mutationFields((t) => ({
  importGitRepository: t.field({
    type: GitSyncStateRef,
    description:
      "Queues an import of the remote branch into the space as a change request (never an overwrite); the state's operation reports it",
    args: { input: t.arg({ type: ImportGitRepositoryInput, required: true }) },
    resolve: async (_root, { input }, { core }) => {
      await requestGitSync(core, input.space, "import", {
        url: input.url,
        ref: input.ref,
        repoTreeURL: input.repoTreeURL ?? undefined,
        repoProjectDirectory: input.repoProjectDirectory ?? undefined,
        timestamp: input.timestamp?.toISOString(),
      });
      return { ...(await gitSyncInfo(core, input.space)), operationTimeout: core.git.limits.timeoutMs };
    },
  }),
  exportToGitRepository: t.field({
    type: GitSyncStateRef,
    description: "Queues an export of the space's head to the remote branch, as one commit on top of it; the state's operation reports it",
    args: { input: t.arg({ type: ExportToGitRepositoryInput, required: true }) },
    resolve: async (_root, { input }, { core }) => {
      await requestGitSync(core, input.space, "export", {
        url: input.url,
        ref: input.ref,
        commitMessage: input.commitMessage,
        repoTreeURL: input.repoTreeURL ?? undefined,
        repoProjectDirectory: input.repoProjectDirectory ?? undefined,
        timestamp: input.timestamp?.toISOString(),
        force: input.force ?? false,
      });
      return { ...(await gitSyncInfo(core, input.space)), operationTimeout: core.git.limits.timeoutMs };
    },
  }),
}));

// Git Sync installations (the published `/git/installations…` operations): src/core/git/installations.ts.

const GitSyncRepositoryRef = builder.objectRef<RepositoryView>("GitSyncRepository").implement({
  description: "A repository Git Sync installations may connect to (configured by the operator, GIT_SYNC_REPOSITORIES)",
  fields: (t) => ({
    id: t.exposeInt("id", { description: "The published repositoryId (GitHub) or projectId (GitLab)" }),
    provider: t.exposeString("provider", { description: "github or gitlab" }),
    accountName: t.exposeString("accountName", { description: "The remote path's directory (the owner)" }),
    repositoryName: t.exposeString("repositoryName", { description: "The remote path's last segment, without .git" }),
    fullName: t.exposeString("fullName", { description: "accountName/repositoryName" }),
    url: t.exposeString("url", { description: "The remote, without credentials" }),
  }),
});

const GitSyncInstallationRef = builder.objectRef<InstallationView>("GitSyncInstallation").implement({
  description: "A space or a site connected to a repository, with a branch and its set-up (the published GitSyncInstallation)",
  fields: (t) => ({
    id: t.exposeString("id", { description: "Identifier of the installation" }),
    provider: t.exposeString("provider", { description: "github or gitlab" }),
    targetType: t.string({ description: "space or site", resolve: (i) => (i.spaceId ? "space" : "site") }),
    space: t.id({ nullable: true, description: "The space, for a space installation", resolve: (i) => i.spaceId }),
    site: t.id({
      nullable: true,
      description: "The site, for a site installation or a space installation the site manages",
      resolve: (i) => i.siteId,
    }),
    parentInstallation: t.id({ nullable: true, description: "The site's installation that manages this one", resolve: (i) => i.parentId }),
    status: t.string({
      description: "active once a repository and a branch are chosen, pending before",
      resolve: (i) => (i.repository && i.effectiveBranch ? "active" : "pending"),
    }),
    projectDirectory: t.string({ nullable: true, description: "Always the root here", resolve: (i) => i.setup.projectDirectory ?? null }),
    commitMessageTemplate: t.string({
      nullable: true,
      description: "Template of exported commits' messages",
      resolve: (i) => i.setup.commitMessageTemplate ?? null,
    }),
    previewExternalBranches: t.boolean({
      nullable: true,
      description: "Whether branches other than the configured one get previews",
      resolve: (i) => i.setup.previewExternalBranches ?? null,
    }),
    agentInstructions: t.stringList({
      nullable: true,
      description: "Agent instruction files exported at the repository's root (agents, claude)",
      resolve: (i) => i.setup.agentInstructions ?? null,
    }),
    priority: t.string({ nullable: true, description: "git or gitbook", resolve: (i) => i.setup.priority ?? null }),
    repositoryId: t.int({
      nullable: true,
      description: "The chosen repository (GitHub) or project (GitLab)",
      resolve: (i) => i.repository?.id ?? null,
    }),
    repository: t.field({
      type: GitSyncRepositoryRef,
      nullable: true,
      description: "The chosen repository (the site's, for a space it manages)",
      resolve: (i) => i.repository,
    }),
    branch: t.string({ nullable: true, description: 'The branch, as "refs/heads/<name>"', resolve: (i) => i.effectiveBranch }),
    customInstanceURL: t.string({ nullable: true, description: "GitLab: the self-hosted instance", resolve: (i) => i.customInstanceUrl }),
    hasAccessToken: t.exposeBoolean("hasAccessToken", { description: "GitLab: whether an access token is stored (sealed; never shown)" }),
    createdAt: t.expose("createdAt", { type: "DateTime", description: "When it was installed" }),
    createdBy: t.exposeID("createdById", { description: "The user who installed it" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime", description: "When it last changed" }),
    location: t.string({
      description: "The installation's URL in the REST API",
      resolve: (i, _args, { core }) => core.urls.api(`/git/installations/${i.id}`),
    }),
  }),
});

const GitSyncBranchRef = builder.objectRef<{ name: string; ref: string }>("GitSyncBranch").implement({
  description: "A branch of a repository",
  fields: (t) => ({
    name: t.exposeString("name", { description: "The branch's name" }),
    ref: t.exposeString("ref", { description: '"refs/heads/<name>"' }),
  }),
});

const GitSyncRepositoryFileRef = builder
  .objectRef<{ name: string; path: string; sha: string; size: number }>("GitSyncRepositoryFile")
  .implement({
    description: "A file of a repository at a ref",
    fields: (t) => ({
      name: t.exposeString("name", { description: "The file's name" }),
      path: t.exposeString("path", { description: "The file's path in the repository" }),
      sha: t.exposeString("sha", { description: "The Git blob id" }),
      size: t.exposeInt("size", { description: "In bytes" }),
    }),
  });

const providerOf = (value: string): GitSyncProvider => {
  if (!GIT_SYNC_PROVIDERS.includes(value as GitSyncProvider)) throw badInput(`provider must be github or gitlab (got ${quote(value)})`);
  return value as GitSyncProvider;
};

const selectorOf = (args: {
  accountName?: string | null;
  repositoryName?: string | null;
  projectId?: number | null;
}): RepositorySelector => {
  if (args.projectId != null) return { projectId: args.projectId };
  if (!args.accountName || !args.repositoryName)
    throw badInput("accountName and repositoryName (GitHub) or projectId (GitLab) are required");
  return { accountName: args.accountName, repositoryName: args.repositoryName };
};

builder.queryFields((t) => {
  const repositoryArgs = {
    installation: t.arg.id({ required: true, description: "The installation" }),
    provider: t.arg.string({ required: true, description: "github or gitlab (the installation's)" }),
    accountName: t.arg.string({ description: "GitHub: the repository's owner" }),
    repositoryName: t.arg.string({ description: "GitHub: the repository's name" }),
    projectId: t.arg.int({ description: "GitLab: the project's id" }),
  };
  return {
    gitSyncInstallation: t.field({
      type: GitSyncInstallationRef,
      description: "A Git Sync installation (NOT_FOUND when the caller cannot read its space or site)",
      args: { id: t.arg.id({ required: true }) },
      resolve: (_root, { id }, { core }) => gitSyncInstallation(core, id),
    }),
    siteGitSyncInstallations: t.field({
      type: [GitSyncInstallationRef],
      description: "The Git Sync installations of a site: its own and those of the spaces it manages",
      args: { organization: t.arg.id({ description: "The site's organization" }), site: t.arg.id({ required: true }) },
      resolve: (_root, { organization, site }, { core }) => siteGitSyncInstallations(core, organization ?? null, site),
    }),
    gitSyncRepositories: t.field({
      type: [GitSyncRepositoryRef],
      description: "The repositories (GitHub) or projects (GitLab) the installation may connect to",
      args: { installation: t.arg.id({ required: true }), provider: t.arg.string({ required: true }) },
      resolve: (_root, { installation, provider }, { core }) => gitSyncRepositories(core, installation, providerOf(provider)),
    }),
    gitSyncBranches: t.field({
      type: [GitSyncBranchRef],
      description: `The branches of a repository the installation may connect to, read from it (git ls-remote; at most ${MAX_BRANCHES})`,
      args: repositoryArgs,
      resolve: (_root, args, { core }) => gitSyncBranches(core, args.installation, providerOf(args.provider), selectorOf(args)),
    }),
    gitSyncFile: t.field({
      type: GitSyncRepositoryFileRef,
      description: "A file of a repository the installation may connect to, at a branch or tag (read with a shallow fetch)",
      args: {
        ...repositoryArgs,
        path: t.arg.string({ required: true, description: "The file's path in the repository" }),
        ref: t.arg.string({ required: true, description: 'A branch or tag, as "refs/heads/<name>"' }),
      },
      resolve: (_root, args, { core }) =>
        gitSyncFile(core, args.installation, providerOf(args.provider), selectorOf(args), args.path, args.ref),
    }),
  };
});

const GitSyncTargetInput = builder.inputType("GitSyncTargetInput", {
  description: "What a Git Sync installation is for: a space or a site",
  fields: (f) => ({
    type: f.string({ required: true, description: "space or site" }),
    space: f.id({ description: "The space (type space)" }),
    site: f.id({ description: "The site (type site), or the site whose installation manages the space's" }),
  }),
});

const InstallGitSyncInput = builder.inputType("InstallGitSyncInput", {
  description: "Input of the installGitSync mutation",
  fields: (f) => ({
    provider: f.string({ required: true, description: "github or gitlab" }),
    target: f.field({ type: GitSyncTargetInput, required: true, description: "The space or the site" }),
  }),
});

const UpdateGitSyncInstallationInput = builder.inputType("UpdateGitSyncInstallationInput", {
  description: "Null clears a set-up field; an absent field is unchanged",
  fields: (f) => ({
    id: f.id({ required: true, description: "The installation" }),
    provider: f.string({ required: true, description: "The installation's provider (it cannot change)" }),
    repositoryId: f.int({ description: "GitHub repositoryId or GitLab projectId (one of GIT_SYNC_REPOSITORIES)" }),
    branch: f.string({ description: '"refs/heads/<name>"' }),
    accessToken: f.string({ description: "GitLab: an access token (stored sealed, never shown)" }),
    customInstanceURL: f.string({ description: "GitLab: the self-hosted instance (null clears it)" }),
    projectDirectory: f.string({
      description: "The directory of the repository the space is kept in (relative, no '..'; default the root)",
    }),
    commitMessageTemplate: f.string({ description: "Template of exported commits' messages" }),
    previewExternalBranches: f.boolean({ description: "Whether branches other than the configured one get previews" }),
    agentInstructions: f.stringList({ description: "agents and/or claude" }),
    priority: f.string({ description: "git or gitbook" }),
    childInstallationProjectDirectories: f.field({ type: "JSON", description: "Child installation id → directory (only the root here)" }),
  }),
});

builder.mutationFields((t) => ({
  installGitSync: t.field({
    type: GitSyncInstallationRef,
    description: "Installs Git Sync on a space or a site (pending until a repository and a branch are chosen)",
    args: { input: t.arg({ type: InstallGitSyncInput, required: true }) },
    resolve: (_root, { input }, { core }) =>
      installGitSync(core, {
        provider: input.provider,
        target: { type: input.target.type, spaceId: input.target.space ?? null, siteId: input.target.site ?? null },
      }),
  }),
  updateGitSyncInstallation: t.field({
    type: GitSyncInstallationRef,
    description: "Chooses the installation's repository and branch, and its set-up",
    args: { input: t.arg({ type: UpdateGitSyncInstallationInput, required: true }) },
    resolve: (_root, { input }, { core }) => {
      const children = input.childInstallationProjectDirectories as unknown;
      if (children != null && (typeof children !== "object" || Array.isArray(children))) {
        throw badInput("childInstallationProjectDirectories must be an object of installation id → directory");
      }
      return updateGitSyncInstallation(core, input.id, {
        provider: input.provider,
        repositoryId: input.repositoryId,
        branch: input.branch,
        accessToken: input.accessToken,
        customInstanceURL: input.customInstanceURL,
        projectDirectory: input.projectDirectory ?? undefined,
        commitMessageTemplate: input.commitMessageTemplate ?? undefined,
        previewExternalBranches: input.previewExternalBranches ?? undefined,
        agentInstructions: input.agentInstructions ?? undefined,
        priority: input.priority ?? undefined,
        childInstallationProjectDirectories: (children as Record<string, string> | null) ?? undefined,
      });
    },
  }),
  uninstallGitSync: t.boolean({
    description: "Removes a Git Sync installation (and those of the spaces a site's installation managed)",
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, { core }) => uninstallGitSync(core, id),
  }),
}));
