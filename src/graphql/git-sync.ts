// Git Sync of a space (issue 32): import from and export to a Git remote as durable jobs, and the
// space's Git Sync state. The rules are in src/core/git/sync.ts.
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
    repoProjectDirectory: f.string({ description: "Only the root is synchronized: anything else is refused" }),
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
    repoProjectDirectory: f.string({ description: "Only the root is synchronized: anything else is refused" }),
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
