// Git Sync (issue 32): a space kept in step with a Git repository elsewhere, as the published
// `POST /spaces/{spaceId}/git/import`, `…/git/export` and `GET …/git/info` have it.
//
// - Asking for an import or an export records the space's remote (URL without credentials; the
//   credentials sealed with AES-256-GCM under the key from configuration, GIT_SYNC_KEY) and the
//   operation as `running`, and enqueues a durable job (src/core/jobs): the request answers at
//   once, the job runs on whichever instance claims it, within the Git deadline.
// - Import fetches the ref into the space's repository (hidden `refs/sync/import`) and makes a
//   change request whose content is the fetched tree, read with the same layout rules as a push
//   (a file outside the layout, a missing file, a binary page ... fail the operation naming the
//   file). It never overwrites the space: the change request is reviewed and merged as any other.
// - Export pushes the space's head as one commit on top of the remote branch (its parent is the
//   branch's tip, its message the one asked for), so the remote's history is kept; a remote that
//   moved meanwhile refuses it (non-fast-forward) unless `force`.
// - Outbound connections follow the import policy: with private hosts not allowed, only http(s)
//   URLs whose host resolves to public addresses, and git connects to exactly the addresses that
//   were checked (`http.curloptResolve`), without redirects. With private hosts allowed (local
//   use and tests), `file://` remotes are accepted too.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import type { GitSync } from "../../generated/prisma/client.ts";
import { createCoreContext, type CoreContext, type Services } from "../context.ts";
import { badInput, conflict, DomainError, notFound, quote } from "../errors.ts";
import { isPublicAddress } from "../import/net.ts";
import { requireSpace } from "../spaces/index.ts";
import { LayoutError } from "./layout.ts";
import { importCommit } from "./push.ts";
import { DEFAULT_BRANCH, GitError, runGit } from "./repository.ts";

export const IMPORT_JOB = "git-sync-import";
export const EXPORT_JOB = "git-sync-export";

/** `v1.<iv>.<tag>.<ciphertext>`, base64url. */
export function seal(key: Buffer, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const data = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  return ["v1", iv, cipher.getAuthTag(), data].map((part) => (typeof part === "string" ? part : part.toString("base64url"))).join(".");
}

export function unseal(key: Buffer, sealed: string): string {
  const [version, iv, tag, data] = sealed.split(".");
  if (version !== "v1" || !iv || !tag || data === undefined) throw new GitError("The stored credentials are not readable");
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  try {
    return Buffer.concat([decipher.update(Buffer.from(data, "base64url")), decipher.final()]).toString("utf8");
  } catch {
    throw new GitError(
      "The stored credentials cannot be opened with the configured key (GIT_SYNC_KEY changed or unset): import or export again with them",
    );
  }
}

/** The remote without its credentials, and the credentials (`user:password`) when the URL had them. */
export function parseRemote(
  input: string,
  allowPrivateHosts: boolean,
): { url: string; credentials?: string; provider: "github" | "gitlab" } {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw badInput(`url must be a Git URL (http:// or https://), got ${quote(input)}`);
  }
  const local = url.protocol === "file:" && allowPrivateHosts;
  if (url.protocol !== "https:" && url.protocol !== "http:" && !local) {
    throw badInput(`url must use https:// or http:// (got ${url.protocol.replace(/:$/, "")})`);
  }
  if (url.search || url.hash) throw badInput("url must not have a query or a fragment");
  const credentials = url.username || url.password ? `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` : undefined;
  url.username = "";
  url.password = "";
  const host = url.hostname.toLowerCase();
  const provider = host === "gitlab.com" || host.startsWith("gitlab.") ? "gitlab" : "github";
  return { url: url.toString(), ...(credentials ? { credentials } : {}), provider };
}

/** Refs the published API names ("refs/heads/main"); a bare branch name is taken as refs/heads/<name>. */
export function parseRef(ref: string): string {
  const full = ref.startsWith("refs/") ? ref : `refs/heads/${ref}`;
  if (!/^refs\/heads\/[A-Za-z0-9._/-]{1,200}$/.test(full) || full.includes("..") || full.endsWith("/") || full.endsWith(".lock")) {
    throw badInput(`ref must be a branch as "refs/heads/<name>" (got ${quote(ref)})`);
  }
  return full;
}

/**
 * The `-c` options and environment of a git command that talks to `url`: transports limited,
 * no redirects, no prompts or credential helpers, the host pinned to its checked addresses, the
 * credentials as a header in the environment (never on the command line).
 */
export async function remoteOptions(
  url: string,
  credentials: string | undefined,
  allowPrivateHosts: boolean,
): Promise<{ config: string[]; env: Record<string, string> }> {
  const parsed = new URL(url);
  const config = [
    "-c",
    "protocol.allow=never",
    "-c",
    "protocol.https.allow=always",
    "-c",
    "protocol.http.allow=always",
    "-c",
    `protocol.file.allow=${allowPrivateHosts ? "always" : "never"}`,
    "-c",
    "http.followRedirects=false",
    "-c",
    "credential.helper=",
    "-c",
    "core.askPass=",
  ];
  if (parsed.protocol !== "file:" && !allowPrivateHosts) {
    const host = parsed.hostname.replace(/^\[|\]$/g, "");
    const port = parsed.port || (parsed.protocol === "https:" ? "443" : "80");
    const addresses = isIP(host)
      ? [host]
      : (await lookup(host, { all: true, verbatim: true }).catch(() => [])).map((entry) => entry.address);
    if (addresses.length === 0) throw new GitError(`The host of ${url} does not resolve`, 400);
    const refused = addresses.find((address) => !isPublicAddress(address));
    if (refused) throw new GitError(`The host of ${url} resolves to a non-public address (${refused}): refused`, 400);
    config.push("-c", `http.curloptResolve=${parsed.hostname}:${port}:${addresses.map((a) => (isIP(a) === 6 ? `[${a}]` : a)).join(",")}`);
  }
  const env: Record<string, string> = { GIT_TERMINAL_PROMPT: "0", GIT_ASKPASS: "", SSH_ASKPASS: "" };
  if (credentials) {
    env.GIT_CONFIG_COUNT = "1";
    env.GIT_CONFIG_KEY_0 = "http.extraHeader";
    env.GIT_CONFIG_VALUE_0 = `Authorization: Basic ${Buffer.from(credentials, "utf8").toString("base64")}`;
  }
  return { config, env };
}

export interface GitSyncOperation {
  state: "running" | "failure" | "success" | "timeout";
  direction: "import" | "export";
  startedAt: string;
  endedAt?: string;
  error?: string;
  /** The change request an import made. */
  changeRequestId?: string;
}

export interface GitSyncRequest {
  url: string;
  ref: string;
  commitMessage?: string;
  repoProjectDirectory?: string;
  repoTreeURL?: string;
  timestamp?: string;
  force?: boolean;
}

type JobPayload = {
  spaceId: string;
  userId: string;
  tokenId: string;
  startedAt: string;
  commitMessage?: string;
  force?: boolean;
  /** The repository's directory the space is kept in ("" or absent: the root). */
  directory?: string;
};

const PROJECT_DIRECTORY_MAX = 512;

/**
 * The directory of the repository the space is kept in, as path segments joined by "/" ("" for the
 * root). Relative to the root and inside it: no "..", no absolute path, no ".git", bounded.
 */
export function parseProjectDirectory(input: string | undefined): string {
  if (input === undefined) return "";
  const refuse = (why: string) => badInput(`repoProjectDirectory ${why} (got ${quote(input.slice(0, 100))})`);
  if (input.length > PROJECT_DIRECTORY_MAX) throw refuse(`must be at most ${PROJECT_DIRECTORY_MAX} characters`);
  if (input.startsWith("/") || /^[A-Za-z]:/.test(input)) throw refuse("must be relative to the repository's root");
  const path = input.replace(/^\.\/+/, "").replace(/\/+$/, "");
  if (path === "" || path === ".") return "";
  const segments = path.split("/");
  for (const segment of segments) {
    if (segment === "" || segment === "." || segment === "..") throw refuse('must be a path inside the repository (no "..", "." or "//")');
    if (/[\\\x00-\x1f\x7f]/.test(segment)) throw refuse("must not hold backslashes or control characters");
    if (segment.toLowerCase() === ".git") throw refuse('must not name a ".git" directory');
  }
  return path;
}

/** Records the remote and the operation, and enqueues the job (the request answers at once). */
export async function requestGitSync(
  ctx: CoreContext,
  spaceId: string,
  direction: "import" | "export",
  input: GitSyncRequest,
): Promise<void> {
  await requireSpace(ctx, spaceId, "space.configure");
  const settings = ctx.gitSync;
  const directory = parseProjectDirectory(input.repoProjectDirectory);
  if (direction === "export" && !input.commitMessage?.trim()) throw badInput("commitMessage is required");
  const remote = parseRemote(input.url, settings.allowPrivateHosts);
  const ref = parseRef(input.ref);
  const timestamp = input.timestamp === undefined ? undefined : new Date(input.timestamp);
  if (timestamp && Number.isNaN(timestamp.getTime())) throw badInput(`timestamp must be a date-time (got ${quote(input.timestamp)})`);
  const now = ctx.clock.now();
  const operation: GitSyncOperation = { state: "running", direction, startedAt: now.toISOString() };
  await ctx.prisma.$transaction(async (tx) => {
    const existing = await tx.gitSync.findUnique({ where: { spaceId } });
    if (timestamp && existing?.eventTimestamp && timestamp < existing.eventTimestamp) {
      throw conflict(
        `timestamp ${timestamp.toISOString()} is older than the last synchronized event (${existing.eventTimestamp.toISOString()}): not run, so operations stay in order`,
      );
    }
    // A space managed by a site's installation: its operations are also the site's (site-gitsync-operation).
    const managed = await tx.gitSyncInstallation.findUnique({
      where: { targetKey: `space:${spaceId}` },
      select: { parent: { select: { siteId: true } } },
    });
    const fields = {
      url: remote.url,
      siteId: managed?.parent?.siteId ?? null,
      // Another remote or branch: the last synced commit says nothing about it.
      syncedCommit: existing && existing.url === remote.url && existing.ref === ref ? existing.syncedCommit : null,
      ref,
      provider: remote.provider,
      credentials: remote.credentials ? seal(settings.key, remote.credentials) : null,
      treeUrl: input.repoTreeURL ?? null,
      operation: operation as object,
      eventTimestamp: timestamp ?? existing?.eventTimestamp ?? null,
      updatedAt: now,
    };
    if (existing) await tx.gitSync.update({ where: { spaceId }, data: fields });
    else
      await tx.gitSync.create({
        data: {
          spaceId,
          installationId: `gsi_${randomBytes(12).toString("base64url")}`,
          createdById: ctx.viewer.userId,
          createdAt: now,
          ...fields,
        },
      });
    const payload: JobPayload = {
      spaceId,
      userId: ctx.viewer.userId,
      tokenId: ctx.viewer.tokenId,
      startedAt: operation.startedAt,
      ...(input.commitMessage ? { commitMessage: input.commitMessage.slice(0, 10_000) } : {}),
      ...(input.force ? { force: true } : {}),
      ...(directory ? { directory } : {}),
    };
    // One operation at a time per space: a later request replaces a waiting one. The handler reports
    // every failure in the state itself; attempts beyond the first are for an instance that died mid-run.
    await ctx.jobs.enqueue(direction === "import" ? IMPORT_JOB : EXPORT_JOB, payload, { key: `git-sync:${spaceId}`, maxAttempts: 3 }, tx);
  });
  ctx.jobs.wake();
}

/** The space's Git Sync state, as the published GitSyncState; 404 when Git Sync was never used on it. */
export async function gitSyncInfo(
  ctx: CoreContext,
  spaceId: string,
): Promise<Omit<GitSync, "operation"> & { operation: GitSyncOperation | null }> {
  await requireSpace(ctx, spaceId, "space.read");
  const row = await ctx.prisma.gitSync.findUnique({ where: { spaceId } });
  if (!row) throw notFound("Git Sync set up on the space", spaceId);
  return { ...row, operation: row.operation as unknown as GitSyncOperation | null };
}

/** Registers the import and export jobs (called once by the composition root). */
export function registerGitSyncJobs(services: Services): void {
  const run =
    (direction: "import" | "export") =>
    async (payload: JobPayload, { signal }: { signal: AbortSignal }) => {
      const ctx = createCoreContext(services, { userId: payload.userId, tokenId: payload.tokenId });
      const finish = async (fields: Partial<GitSyncOperation>) => {
        const row = await services.prisma.gitSync.findUnique({ where: { spaceId: payload.spaceId } });
        const current = row?.operation as unknown as GitSyncOperation | null;
        // A later request took over: its own job reports.
        if (!row || current?.startedAt !== payload.startedAt) return;
        await services.prisma.gitSync.update({
          where: { spaceId: payload.spaceId },
          data: {
            operation: { ...current, ...fields, endedAt: services.clock.now().toISOString() } as object,
            updatedAt: services.clock.now(),
          },
        });
      };
      try {
        const changeRequestId = direction === "import" ? await runImport(ctx, payload, signal) : await runExport(ctx, payload, signal);
        await finish({ state: "success", ...(changeRequestId ? { changeRequestId } : {}) });
      } catch (error) {
        const timedOut = signal.aborted || (error instanceof GitError && error.status === 504);
        const known = error instanceof GitError || error instanceof LayoutError || error instanceof DomainError;
        await finish({
          state: timedOut ? "timeout" : "failure",
          error: known ? (error as Error).message.slice(0, 2000) : "internal error",
        });
        if (!known) services.logger.error({ err: error, spaceId: payload.spaceId }, `git sync ${direction} failed`);
      }
    };
  services.jobs.register(IMPORT_JOB, run("import"));
  services.jobs.register(EXPORT_JOB, run("export"));
}

async function remoteOf(ctx: CoreContext, spaceId: string) {
  const row = await ctx.prisma.gitSync.findUniqueOrThrow({ where: { spaceId } });
  const credentials = row.credentials ? unseal(ctx.gitSync.key, row.credentials) : undefined;
  return { row, ...(await remoteOptions(row.url, credentials, ctx.gitSync.allowPrivateHosts)) };
}

async function runImport(ctx: CoreContext, payload: JobPayload, signal: AbortSignal): Promise<string> {
  await requireSpace(ctx, payload.spaceId, "space.configure");
  const repos = ctx.git;
  await repos.sync(payload.spaceId);
  const { row, config, env } = await remoteOf(ctx, payload.spaceId);
  const gitDir = repos.gitDir(payload.spaceId);
  const timeoutMs = repos.limits.timeoutMs;
  await runGit(gitDir, [...config, "fetch", "--no-tags", "--no-write-fetch-head", "--", row.url, `+${row.ref}:refs/sync/import`], {
    timeoutMs,
    env,
    signal,
  });
  const fetched = (await runGit(gitDir, ["rev-parse", "--verify", "refs/sync/import^{commit}"], { timeoutMs })).toString("utf8").trim();
  let commit = fetched;
  if (payload.directory) commit = await subdirectoryCommit(gitDir, commit, payload.directory, timeoutMs);
  const space = await ctx.prisma.space.findUniqueOrThrow({ where: { id: payload.spaceId } });
  const subject = `Git Sync import of ${row.ref.replace(/^refs\/heads\//, "")}`;
  const revision = await importCommit(ctx, repos, payload.spaceId, commit, { base: space.revisionId, subject });
  await ctx.prisma.gitSync.update({ where: { spaceId: payload.spaceId }, data: { syncedCommit: fetched } });
  return revision.changeRequestId!;
}

async function runExport(ctx: CoreContext, payload: JobPayload, signal: AbortSignal): Promise<undefined> {
  await requireSpace(ctx, payload.spaceId, "space.configure");
  const repos = ctx.git;
  const state = await repos.sync(payload.spaceId);
  const head = state.branches.get(DEFAULT_BRANCH)!;
  const { row, config, env } = await remoteOf(ctx, payload.spaceId);
  const gitDir = repos.gitDir(payload.spaceId);
  const timeoutMs = repos.limits.timeoutMs;
  // The remote branch's tip, when there is one: the exported commit goes on top of it.
  let parent: string | undefined;
  try {
    await runGit(gitDir, [...config, "fetch", "--no-tags", "--no-write-fetch-head", "--", row.url, `+${row.ref}:refs/sync/export`], {
      timeoutMs,
      env,
      signal,
    });
    parent = (await runGit(gitDir, ["rev-parse", "--verify", "refs/sync/export^{commit}"], { timeoutMs })).toString("utf8").trim();
  } catch (error) {
    if (!(error instanceof GitError && /couldn't find remote ref/i.test(error.message))) throw error;
  }
  // The branch moved since the last sync: its new edits would be replaced, so name them and stop.
  if (parent && row.syncedCommit && parent !== row.syncedCommit && !payload.force) {
    const changed = await runGit(
      gitDir,
      ["diff", "--name-only", "-z", row.syncedCommit, parent, "--", ...(payload.directory ? [payload.directory] : [])],
      {
        timeoutMs,
      },
    ).then(
      (out) => out.toString("utf8").split("\0").filter(Boolean),
      // The last synced commit is not in the branch's history (rewritten): nothing to compare with.
      (error: unknown) => {
        if (error instanceof GitError && error.status === 504) throw error;
        return [] as string[];
      },
    );
    if (changed.length > 0) {
      const shown = changed.slice(0, 20).join(", ") + (changed.length > 20 ? ` and ${changed.length - 20} more` : "");
      throw new GitError(`The remote branch ${row.ref} changed since the last sync (${shown}): import first, or export with force`, 409);
    }
  }
  let tree = (await runGit(gitDir, ["rev-parse", `${head}^{tree}`], { timeoutMs })).toString("utf8").trim();
  // In a directory: the space's tree replaces that directory only, the rest of the remote's tree is kept.
  if (payload.directory) {
    const base = parent && (await runGit(gitDir, ["rev-parse", `${parent}^{tree}`], { timeoutMs })).toString("utf8").trim();
    tree = await graftTree(gitDir, base || undefined, payload.directory.split("/"), tree, timeoutMs);
  }
  const synced = (commit: string) => ctx.prisma.gitSync.update({ where: { spaceId: payload.spaceId }, data: { syncedCommit: commit } });
  if (parent && (await runGit(gitDir, ["rev-parse", `${parent}^{tree}`], { timeoutMs })).toString("utf8").trim() === tree) {
    await synced(parent);
    return;
  }
  const user = await ctx.prisma.user.findUnique({ where: { id: payload.userId } });
  const name = user?.displayName || "Docs service";
  const email = user?.email || "git-sync@localhost";
  const date = `${Math.floor(ctx.clock.now().getTime() / 1000)} +0000`;
  const commit = (
    await runGit(gitDir, ["commit-tree", tree, ...(parent ? ["-p", parent] : []), "-F", "-"], {
      timeoutMs,
      input: Buffer.from(`${payload.commitMessage ?? "Export"}\n`, "utf8"),
      env: {
        GIT_AUTHOR_NAME: name,
        GIT_AUTHOR_EMAIL: email,
        GIT_AUTHOR_DATE: date,
        GIT_COMMITTER_NAME: name,
        GIT_COMMITTER_EMAIL: email,
        GIT_COMMITTER_DATE: date,
      },
    })
  )
    .toString("utf8")
    .trim();
  try {
    await runGit(gitDir, [...config, "push", "--porcelain", "--", row.url, `${payload.force ? "+" : ""}${commit}:${row.ref}`], {
      timeoutMs,
      env,
      signal,
    });
  } catch (error) {
    if (error instanceof GitError && /non-fast-forward|fetch first|rejected/i.test(error.message)) {
      throw new GitError(`The remote branch ${row.ref} moved while exporting (non-fast-forward): export again, or import first`, 409);
    }
    throw error;
  }
  await synced(commit);
}

/**
 * A commit whose tree is `directory` of `commit`, with its message and author, so that an import
 * reads the directory as a push reads a repository's root (its own `.gitbook.yaml` included).
 */
async function subdirectoryCommit(gitDir: string, commit: string, directory: string, timeoutMs: number): Promise<string> {
  // `<commit>:<path>` takes the rest of the argument as the path, so the type is asked apart.
  const [tree, type] = (
    await runGit(gitDir, ["--literal-pathspecs", "ls-tree", "--format=%(objectname) %(objecttype)", commit, "--", directory], { timeoutMs })
  )
    .toString("utf8")
    .trim()
    .split(" ");
  if (!tree || type !== "tree") throw new GitError(`repoProjectDirectory ${quote(directory)} is not a directory of the remote branch`, 400);
  const [name, email, date, ...message] = (
    await runGit(gitDir, ["log", "-1", "--format=%an%x00%ae%x00%ad%x00%B", "--date=raw", commit], { timeoutMs })
  )
    .toString("utf8")
    .split("\0");
  const env = {
    GIT_AUTHOR_NAME: name!,
    GIT_AUTHOR_EMAIL: email!,
    GIT_AUTHOR_DATE: date!,
    GIT_COMMITTER_NAME: name!,
    GIT_COMMITTER_EMAIL: email!,
    GIT_COMMITTER_DATE: date!,
  };
  return (await runGit(gitDir, ["commit-tree", tree, "-F", "-"], { timeoutMs, env, input: Buffer.from(message.join("\0"), "utf8") }))
    .toString("utf8")
    .trim();
}

/** `base` (a tree, or none) with the directory at `path` replaced by `tree`: one new tree per level. */
async function graftTree(gitDir: string, base: string | undefined, path: string[], tree: string, timeoutMs: number): Promise<string> {
  const [name, ...rest] = path;
  if (name === undefined) return tree;
  // `<mode> <type> <oid>\t<name>`, NUL-separated: the format mktree -z reads back.
  const entries = base ? (await runGit(gitDir, ["ls-tree", "-z", base], { timeoutMs })).toString("utf8").split("\0").filter(Boolean) : [];
  const index = entries.findIndex((entry) => entry.slice(entry.indexOf("\t") + 1) === name);
  const existing = index >= 0 && entries[index]!.split(" ")[1] === "tree" ? entries[index]!.split(/[ \t]/)[2] : undefined;
  const child = await graftTree(gitDir, existing, rest, tree, timeoutMs);
  if (index >= 0) entries.splice(index, 1);
  entries.push(`040000 tree ${child}\t${name}`);
  return (await runGit(gitDir, ["mktree", "-z"], { timeoutMs, input: Buffer.from(entries.map((entry) => `${entry}\0`).join(""), "utf8") }))
    .toString("utf8")
    .trim();
}
