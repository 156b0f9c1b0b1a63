// Git Sync installations (issue 32): the published `/git/installations…` operations. An
// installation connects a space or a site to one repository the operator configured
// (GIT_SYNC_REPOSITORIES: there is no GitHub App or GitLab API here, so "the repositories the
// installation can see" are that list), with a branch and its set-up. Branches and file reads ask
// the repository itself with the real `git` (`ls-remote`, a shallow `fetch` + `ls-tree`), under the
// same outbound policy and deadline as import and export (src/core/git/sync.ts).
//
// A space installation made under a site's (target.siteId) uses the site installation's
// repository and branch. Only the repository's root is synchronized here, as for import and
// export: a `projectDirectory` other than the root is refused rather than stored and ignored.
import { randomBytes } from "node:crypto";
import { mkdir, stat } from "node:fs/promises";
import { join } from "node:path";
import type { GitSyncRepositoryConfig } from "../../config.ts";
import type { GitSyncInstallation } from "../../generated/prisma/client.ts";
import type { CoreContext } from "../context.ts";
import { badInput, conflict, DomainError, notFound, quote } from "../errors.ts";
import { requireSite } from "../sites/index.ts";
import { requireSpace } from "../spaces/index.ts";
import { GitError, runGit } from "./repository.ts";
import { parseRemote, remoteOptions, seal, unseal } from "./sync.ts";

export type GitSyncProvider = "github" | "gitlab";
export const GIT_SYNC_PROVIDERS: readonly GitSyncProvider[] = ["github", "gitlab"];
const AGENT_INSTRUCTIONS = ["agents", "claude"] as const;
const PRIORITIES = ["git", "gitbook"] as const;
/** Most branches a listing answers (a remote with more is cut, in name order). */
export const MAX_BRANCHES = 1000;

export interface InstallationSetup {
  projectDirectory?: string;
  commitMessageTemplate?: string;
  previewExternalBranches?: boolean;
  agentInstructions?: string[];
  priority?: string;
}

export interface InstallationView extends Omit<GitSyncInstallation, "setup" | "accessToken"> {
  setup: InstallationSetup;
  hasAccessToken: boolean;
  /** The repository (the parent's for a space installed under a site), when one is chosen. */
  repository: RepositoryView | null;
  /** The branch in effect (the parent's for a space installed under a site). */
  effectiveBranch: string | null;
}

export interface RepositoryView {
  id: number;
  provider: GitSyncProvider;
  accountName: string;
  repositoryName: string;
  fullName: string;
  /** The remote, without credentials. */
  url: string;
}

/** A configured repository as the API shows it (never its credentials). */
export function repositoryView(config: GitSyncRepositoryConfig): RepositoryView {
  const url = new URL(config.url);
  url.username = "";
  url.password = "";
  // The last two segments of the path name it, as GitHub's account/name (a local path's
  // directories above them, or a GitLab subgroup's parents, are not part of the name).
  const segments = url.pathname
    .replace(/\.git$/, "")
    .split("/")
    .filter(Boolean);
  const repositoryName = segments.at(-1) ?? url.hostname;
  const accountName = segments.at(-2) ?? url.hostname;
  return {
    id: config.id,
    provider: config.provider,
    accountName,
    repositoryName,
    fullName: `${accountName}/${repositoryName}`,
    url: url.toString(),
  };
}

const targetKeyOf = (target: { type: "space"; spaceId: string } | { type: "site"; siteId: string }) =>
  target.type === "space" ? `space:${target.spaceId}` : `site:${target.siteId}`;

function configured(ctx: CoreContext, provider: string, id: number): GitSyncRepositoryConfig | undefined {
  return ctx.gitSync.repositories.find((repository) => repository.provider === provider && repository.id === id);
}

/** The caller may do `level` (read or configure) on the installation's target; 404 when it may not see it. */
async function authorizeTarget(ctx: CoreContext, row: GitSyncInstallation, level: "read" | "configure") {
  if (row.spaceId) await requireSpace(ctx, row.spaceId, level === "read" ? "space.read" : "space.configure");
  else if (row.siteId) await requireSite(ctx, null, row.siteId, level === "read" ? "site.read" : "site.configure");
}

async function loadInstallation(ctx: CoreContext, id: string, level: "read" | "configure"): Promise<GitSyncInstallation> {
  const row = await ctx.prisma.gitSyncInstallation.findUnique({ where: { id } });
  if (!row) throw notFound("Git Sync installation", id);
  try {
    await authorizeTarget(ctx, row, level);
  } catch (error) {
    // Another organization's installation, or a target the caller cannot see: as if it did not exist.
    if (error instanceof DomainError && error.code === "NOT_FOUND") throw notFound("Git Sync installation", id);
    throw error;
  }
  return row;
}

async function view(ctx: CoreContext, row: GitSyncInstallation): Promise<InstallationView> {
  const parent = row.parentId ? await ctx.prisma.gitSyncInstallation.findUnique({ where: { id: row.parentId } }) : null;
  const source = parent ?? row;
  const repository = source.repositoryId === null ? undefined : configured(ctx, source.provider, source.repositoryId);
  const { accessToken, setup, ...rest } = row;
  return {
    ...rest,
    setup: (setup ?? {}) as InstallationSetup,
    hasAccessToken: accessToken !== null,
    repository: repository ? repositoryView(repository) : null,
    effectiveBranch: source.branch,
  };
}

export interface InstallInput {
  provider: string;
  target: { type: string; spaceId?: string | null; siteId?: string | null };
}

/** POST /git/installations: a pending installation on a space or a site (409 when it has one). */
export async function installGitSync(ctx: CoreContext, input: InstallInput): Promise<InstallationView> {
  if (!GIT_SYNC_PROVIDERS.includes(input.provider as GitSyncProvider)) {
    throw badInput(`provider must be one of ${GIT_SYNC_PROVIDERS.join(", ")} (got ${quote(input.provider)})`);
  }
  let organizationId: string;
  let parentId: string | null = null;
  let spaceId: string | null = null;
  let siteId: string | null = null;
  if (input.target.type === "space") {
    if (!input.target.spaceId) throw badInput("target.spaceId is required for a space target");
    const space = await requireSpace(ctx, input.target.spaceId, "space.configure");
    organizationId = space.organizationId;
    spaceId = space.id;
    if (input.target.siteId) {
      const site = await requireSite(ctx, organizationId, input.target.siteId, "site.configure");
      const inSite = await ctx.prisma.siteSpace.findFirst({ where: { siteId: site.id, spaceId }, select: { id: true } });
      if (!inSite) throw badInput(`target.siteId: the space ${spaceId} is not in the site ${site.id}`);
      const parent = await ctx.prisma.gitSyncInstallation.findUnique({ where: { targetKey: `site:${site.id}` } });
      if (!parent) throw conflict(`target.siteId: the site ${site.id} has no Git Sync installation to manage the space's`);
      if (parent.provider !== input.provider) {
        throw badInput(`provider must be the site installation's (${parent.provider}) for a space it manages`);
      }
      parentId = parent.id;
      siteId = site.id;
    }
  } else if (input.target.type === "site") {
    if (!input.target.siteId) throw badInput("target.siteId is required for a site target");
    const site = await requireSite(ctx, null, input.target.siteId, "site.configure");
    organizationId = site.organizationId;
    siteId = site.id;
  } else {
    throw badInput(`target.type must be space or site (got ${quote(input.target.type)})`);
  }
  const targetKey = spaceId ? targetKeyOf({ type: "space", spaceId }) : targetKeyOf({ type: "site", siteId: siteId! });
  const now = ctx.clock.now();
  try {
    const row = await ctx.prisma.gitSyncInstallation.create({
      data: {
        id: `gsi_${randomBytes(12).toString("base64url")}`,
        organizationId,
        provider: input.provider,
        targetKey,
        spaceId,
        siteId,
        parentId,
        createdById: ctx.viewer.userId,
        createdAt: now,
        updatedAt: now,
      },
    });
    return view(ctx, row);
  } catch (error) {
    if ((error as { code?: string }).code === "P2002") {
      throw conflict(`The ${spaceId ? `space ${spaceId}` : `site ${siteId}`} already has a Git Sync installation`);
    }
    throw error;
  }
}

export async function gitSyncInstallation(ctx: CoreContext, id: string): Promise<InstallationView> {
  return view(ctx, await loadInstallation(ctx, id, "read"));
}

/** The installations of a site: its own and those of the spaces it manages. */
export async function siteGitSyncInstallations(ctx: CoreContext, organizationId: string | null, siteId: string) {
  const site = await requireSite(ctx, organizationId, siteId, "site.read");
  // The site's own first, then the spaces' it manages.
  const rows = await ctx.prisma.gitSyncInstallation.findMany({
    where: { siteId: site.id },
    orderBy: [{ parentId: { sort: "asc", nulls: "first" } }, { createdAt: "asc" }, { id: "asc" }],
  });
  return Promise.all(rows.map((row) => view(ctx, row)));
}

export interface UpdateInput extends InstallationSetup {
  provider: string;
  repositoryId?: number | null;
  branch?: string | null;
  accessToken?: string | null;
  /** undefined: unchanged; null: cleared. */
  customInstanceURL?: string | null;
  childInstallationProjectDirectories?: Record<string, string> | null;
}

const isRoot = (directory: string) => directory.replace(/^\.?\/+|\/+$/g, "").replace(/^\.$/, "") === "";

/** PATCH /git/installations/{id}: the repository, branch and set-up. */
export async function updateGitSyncInstallation(ctx: CoreContext, id: string, input: UpdateInput): Promise<InstallationView> {
  const row = await loadInstallation(ctx, id, "configure");
  if (input.provider !== row.provider) {
    throw badInput(`provider: the installation's provider is ${row.provider} (got ${quote(input.provider)}); install again to change it`);
  }
  const child = row.parentId !== null;
  if (input.projectDirectory !== undefined && input.projectDirectory !== null && !isRoot(input.projectDirectory)) {
    throw badInput("projectDirectory: only the repository's root is synchronized here (leave it empty)");
  }
  if (input.commitMessageTemplate !== undefined && input.commitMessageTemplate !== null && input.commitMessageTemplate.length > 1000) {
    throw badInput("commitMessageTemplate: at most 1000 characters");
  }
  if (child && (input.previewExternalBranches !== undefined || input.agentInstructions !== undefined)) {
    throw badInput(
      `${input.previewExternalBranches !== undefined ? "previewExternalBranches" : "agentInstructions"}: inherited from the site's installation, cannot be set on a space it manages`,
    );
  }
  for (const value of input.agentInstructions ?? []) {
    if (!(AGENT_INSTRUCTIONS as readonly string[]).includes(value)) {
      throw badInput(`agentInstructions: each must be one of ${AGENT_INSTRUCTIONS.join(", ")} (got ${quote(value)})`);
    }
  }
  if (input.priority !== undefined && input.priority !== null && !(PRIORITIES as readonly string[]).includes(input.priority)) {
    throw badInput(`priority must be one of ${PRIORITIES.join(", ")} (got ${quote(input.priority)})`);
  }
  if (child && (input.repositoryId != null || input.branch != null)) {
    throw badInput(
      `${input.repositoryId != null ? (row.provider === "gitlab" ? "providerConfiguration.projectId" : "providerConfiguration.repositoryId") : "providerConfiguration.branch"}: a space managed by a site uses the site installation's repository and branch`,
    );
  }
  const idField = row.provider === "gitlab" ? "providerConfiguration.projectId" : "providerConfiguration.repositoryId";
  let repository: GitSyncRepositoryConfig | undefined;
  if (input.repositoryId != null) {
    repository = configured(ctx, row.provider, input.repositoryId);
    if (!repository)
      throw badInput(`${idField}: no ${row.provider} repository ${input.repositoryId} is configured (GIT_SYNC_REPOSITORIES)`);
  }
  if (input.branch != null && !/^refs\/heads\/[A-Za-z0-9._/-]{1,200}$/.test(input.branch)) {
    throw badInput(`providerConfiguration.branch must be "refs/heads/<name>" (got ${quote(input.branch)})`);
  }
  if ((input.accessToken != null || input.customInstanceURL !== undefined) && row.provider !== "gitlab") {
    throw badInput("providerConfiguration: accessToken and customInstanceURL are GitLab's");
  }
  if (input.accessToken != null && (input.accessToken.length === 0 || input.accessToken.length > 1000 || /\s/.test(input.accessToken))) {
    throw badInput("providerConfiguration.accessToken must be a token (1 to 1000 characters, no spaces)");
  }
  const repositoryId = input.repositoryId ?? row.repositoryId;
  if (input.customInstanceURL != null) {
    let origin: string;
    try {
      origin = new URL(input.customInstanceURL).origin;
    } catch {
      throw badInput(`providerConfiguration.customInstanceURL must be a URL (got ${quote(input.customInstanceURL)})`);
    }
    const chosen = repositoryId === null ? undefined : configured(ctx, row.provider, repositoryId);
    if (chosen && new URL(chosen.url).origin !== origin) {
      throw badInput(
        `providerConfiguration.customInstanceURL: the project ${chosen.id} is on ${new URL(chosen.url).origin}, not ${origin}`,
      );
    }
  }
  if (input.childInstallationProjectDirectories) {
    if (row.siteId === null || row.spaceId !== null) {
      throw badInput("childInstallationProjectDirectories: only a site's installation has child installations");
    }
    const children = new Set(
      (await ctx.prisma.gitSyncInstallation.findMany({ where: { parentId: row.id }, select: { id: true } })).map((c) => c.id),
    );
    for (const [childId, directory] of Object.entries(input.childInstallationProjectDirectories)) {
      if (!children.has(childId))
        throw badInput(`childInstallationProjectDirectories: ${childId} is not a child installation of ${row.id}`);
      if (typeof directory !== "string" || !isRoot(directory)) {
        throw badInput(`childInstallationProjectDirectories.${childId}: only the repository's root is synchronized here`);
      }
    }
  }
  const setup: InstallationSetup = { ...((row.setup ?? {}) as InstallationSetup) };
  for (const key of ["projectDirectory", "commitMessageTemplate", "previewExternalBranches", "agentInstructions", "priority"] as const) {
    const value = input[key];
    if (value === null) delete setup[key];
    else if (value !== undefined) (setup as Record<string, unknown>)[key] = value;
  }
  const updated = await ctx.prisma.gitSyncInstallation.update({
    where: { id: row.id },
    data: {
      setup: setup as object,
      ...(input.repositoryId != null ? { repositoryId: input.repositoryId } : {}),
      ...(input.branch != null ? { branch: input.branch } : {}),
      ...(input.accessToken != null ? { accessToken: seal(ctx.gitSync.key, input.accessToken) } : {}),
      ...(input.customInstanceURL !== undefined ? { customInstanceUrl: input.customInstanceURL } : {}),
      updatedAt: ctx.clock.now(),
    },
  });
  return view(ctx, updated);
}

/** DELETE /git/installations/{id} (the spaces a site's installation managed lose theirs too). */
export async function uninstallGitSync(ctx: CoreContext, id: string): Promise<boolean> {
  const row = await loadInstallation(ctx, id, "configure");
  await ctx.prisma.gitSyncInstallation.delete({ where: { id: row.id } });
  return true;
}

/** The repositories (GitHub) or projects (GitLab) the installation may connect to. */
export async function gitSyncRepositories(ctx: CoreContext, id: string, provider: GitSyncProvider): Promise<RepositoryView[]> {
  const row = await loadInstallation(ctx, id, "configure");
  if (row.provider !== provider) throw notFound(`${provider === "github" ? "GitHub" : "GitLab"} Git Sync installation`, id);
  return ctx.gitSync.repositories.filter((repository) => repository.provider === provider).map(repositoryView);
}

/** How to name a repository in a path: GitHub's account/name, GitLab's project id. */
export type RepositorySelector = { accountName: string; repositoryName: string } | { projectId: number };

async function repositoryFor(ctx: CoreContext, id: string, provider: GitSyncProvider, selector: RepositorySelector) {
  const row = await loadInstallation(ctx, id, "configure");
  if (row.provider !== provider) throw notFound(`${provider === "github" ? "GitHub" : "GitLab"} Git Sync installation`, id);
  const config = ctx.gitSync.repositories.find((repository) => {
    if (repository.provider !== provider) return false;
    if ("projectId" in selector) return repository.id === selector.projectId;
    const shown = repositoryView(repository);
    return (
      shown.accountName.toLowerCase() === selector.accountName.toLowerCase() &&
      shown.repositoryName.toLowerCase() === selector.repositoryName.toLowerCase()
    );
  });
  if (!config) {
    throw notFound(
      "repository configured for Git Sync",
      "projectId" in selector ? String(selector.projectId) : `${selector.accountName}/${selector.repositoryName}`,
    );
  }
  // GitLab: the installation's access token, when it has one, stands for the URL's credentials.
  const remote = parseRemote(config.url, ctx.gitSync.allowPrivateHosts);
  const credentials = provider === "gitlab" && row.accessToken ? `oauth2:${unseal(ctx.gitSync.key, row.accessToken)}` : remote.credentials;
  return { row, config, remote, credentials };
}

/** A scratch repository per installation, for ls-remote and shallow fetches (a cache). */
async function scratchRepository(ctx: CoreContext, installationId: string): Promise<string> {
  const gitDir = join(ctx.git.limits.dataDir, "git-sync", `${installationId}.git`);
  const exists = await stat(join(gitDir, "HEAD")).then(
    () => true,
    () => false,
  );
  if (!exists) {
    await mkdir(gitDir, { recursive: true });
    await runGit(gitDir, ["init", "--bare", "-q", gitDir], { timeoutMs: ctx.git.limits.timeoutMs });
  }
  return gitDir;
}

/** Remote failures as the API's errors: what git said, never a 500. */
function remoteError(error: unknown, url: string): never {
  if (error instanceof GitError) {
    if (error.status === 504) throw new DomainError("BAD_GATEWAY", `The repository ${url} did not answer in time: ${error.message}`);
    if (error.status === 400) throw badInput(error.message);
    throw new DomainError("BAD_GATEWAY", `The repository ${url} could not be read: ${error.message}`);
  }
  throw error;
}

/** The repository's branches (`git ls-remote --heads`), in name order, at most MAX_BRANCHES. */
export async function gitSyncBranches(
  ctx: CoreContext,
  id: string,
  provider: GitSyncProvider,
  selector: RepositorySelector,
): Promise<{ name: string; ref: string }[]> {
  const { row, remote, credentials } = await repositoryFor(ctx, id, provider, selector);
  const gitDir = await scratchRepository(ctx, row.id);
  const { config, env } = await remoteOptions(remote.url, credentials, ctx.gitSync.allowPrivateHosts).catch((error) =>
    remoteError(error, remote.url),
  );
  const out = await runGit(gitDir, [...config, "ls-remote", "--heads", "--", remote.url], {
    timeoutMs: ctx.git.limits.timeoutMs,
    env,
  }).catch((error) => remoteError(error, remote.url));
  return out
    .toString("utf8")
    .split("\n")
    .map((line) => line.split("\t")[1])
    .filter((ref): ref is string => !!ref?.startsWith("refs/heads/"))
    .sort()
    .slice(0, MAX_BRANCHES)
    .map((ref) => ({ name: ref.slice("refs/heads/".length), ref }));
}

/** A file of the repository at `ref`: its name, path, blob sha and size (the published GitSyncRepositoryFile). */
export async function gitSyncFile(
  ctx: CoreContext,
  id: string,
  provider: GitSyncProvider,
  selector: RepositorySelector,
  path: string,
  ref: string,
): Promise<{ name: string; path: string; sha: string; size: number }> {
  const clean = path.replace(/^\/+/, "");
  if (
    !clean ||
    clean.length > 1000 ||
    clean.split("/").some((part) => part === ".." || part === "." || part === "") ||
    clean.includes("\0")
  ) {
    throw badInput(`path must be a file's path in the repository (got ${quote(path)})`);
  }
  const fullRef = ref.startsWith("refs/") ? ref : `refs/heads/${ref}`;
  if (!/^refs\/(heads|tags)\/[A-Za-z0-9._/-]{1,200}$/.test(fullRef) || fullRef.includes("..") || fullRef.endsWith("/")) {
    throw badInput(`ref must be a branch or a tag, as "refs/heads/<name>" (got ${quote(ref)})`);
  }
  const { row, remote, credentials } = await repositoryFor(ctx, id, provider, selector);
  const gitDir = await scratchRepository(ctx, row.id);
  const { config, env } = await remoteOptions(remote.url, credentials, ctx.gitSync.allowPrivateHosts).catch((error) =>
    remoteError(error, remote.url),
  );
  const timeoutMs = ctx.git.limits.timeoutMs;
  const local = `refs/git-sync/read/${randomBytes(6).toString("hex")}`;
  try {
    await runGit(
      gitDir,
      [...config, "fetch", "--depth=1", "--no-tags", "--no-write-fetch-head", "--", remote.url, `+${fullRef}:${local}`],
      {
        timeoutMs,
        env,
      },
    );
  } catch (error) {
    if (error instanceof GitError && /couldn't find remote ref/i.test(error.message)) throw notFound("ref in the repository", ref);
    remoteError(error, remote.url);
  }
  try {
    const listed = (await runGit(gitDir, ["ls-tree", "-l", "-z", local, "--", clean], { timeoutMs })).toString("utf8");
    // <mode> SP <type> SP <object> SP+ <size> TAB <path> NUL
    const entry = listed.split("\0").find((line) => line.split("\t")[1] === clean);
    const match = entry?.match(/^\d+ (\w+) ([0-9a-f]+) +(\d+|-)\t/);
    if (!match || match[1] !== "blob") throw notFound(`file at ${fullRef}`, clean);
    return { name: clean.slice(clean.lastIndexOf("/") + 1), path: clean, sha: match[2], size: Number(match[3]) };
  } finally {
    await runGit(gitDir, ["update-ref", "-d", local], { timeoutMs }).catch(() => {});
  }
}
