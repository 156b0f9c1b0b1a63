// A space as a bare Git repository on disk, built from its revisions with Debian's `git`
// (fast-import), one commit per revision, and kept: a later request adds only the revisions it
// lacks. Every git command runs as a child process with a deadline, so building or packing a
// large repository never holds the event loop. Hidden refs `refs/revisions/<revisionId>` map
// each revision to its commit; a pushed commit becomes the commit of the revision made from it.
import { spawn } from "node:child_process";
import { mkdir, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { childEnvironment } from "../../config.ts";
import type { PrismaClient } from "../../generated/prisma/client.ts";
import { contentOf, sha256 } from "../content/columns.ts";
import type { FileEntry, PageNode } from "../content/tree.ts";
import { exportFiles } from "./layout.ts";

export interface GitLimits {
  /** Where the repositories are kept (a cache: rebuilt from the revisions when lost). */
  dataDir: string;
  /** Deadline of every git operation (a clone's pack, a push's indexing, a build). */
  timeoutMs: number;
  /** Most files in one revision's tree. */
  maxFiles: number;
  /** Largest file in a push. */
  maxFileBytes: number;
  /** Largest push (request body). */
  maxPushBytes: number;
  /** Largest tree (all files of one revision), in bytes. */
  maxRepositoryBytes: number;
  /**
   * Bytes of page and file contents one build keeps between revisions, so that a page unchanged
   * from one revision to the next is read from the database once (default 64 MiB; 0: none).
   */
  buildCacheBytes?: number;
}

export const DEFAULT_GIT_LIMITS: Omit<GitLimits, "dataDir"> = {
  timeoutMs: 120_000,
  maxFiles: 20_000,
  maxFileBytes: 10 * 1024 * 1024,
  maxPushBytes: 200 * 1024 * 1024,
  maxRepositoryBytes: 1024 * 1024 * 1024,
  buildCacheBytes: 64 * 1024 * 1024,
};

export const ZERO = "0000000000000000000000000000000000000000";
export const DEFAULT_BRANCH = "main";

export class GitError extends Error {
  constructor(
    message: string,
    readonly status = 500,
  ) {
    super(message);
  }
}

export interface RunOptions {
  input?: Uint8Array | Readable | AsyncIterable<Uint8Array>;
  timeoutMs: number;
  /** Added to the process's environment (credentials of a remote, commit identities). */
  env?: Record<string, string>;
  /** Stops the command early (a job's time bound or shutdown). */
  signal?: AbortSignal;
}

/** Runs `git args` in `gitDir`; resolves with stdout (refuses on a non-zero exit, naming stderr). */
export function runGit(gitDir: string, args: string[], { input, timeoutMs, env, signal }: RunOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // The environment is the process's own (git found on its PATH); the repository is named on the command line.
    const deadline = AbortSignal.timeout(timeoutMs);
    const child = spawn("git", [`--git-dir=${gitDir}`, ...args], {
      stdio: ["pipe", "pipe", "pipe"],
      signal: signal ? AbortSignal.any([deadline, signal]) : deadline,
      killSignal: "SIGKILL",
      ...(env ? { env: childEnvironment(env) } : {}),
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => err.length < 64 && err.push(chunk));
    child.on("error", (error) =>
      reject(
        error.name === "AbortError" ? new GitError(`git ${gitCommand(args)} took longer than ${timeoutMs} ms and was stopped`, 504) : error,
      ),
    );
    child.on("close", (code) => {
      if (code === 0) resolve(Buffer.concat(out));
      else reject(new GitError(`git ${gitCommand(args)} failed (${code}): ${Buffer.concat(err).toString("utf8").trim().slice(0, 500)}`));
    });
    child.stdin.on("error", () => {});
    if (input === undefined) child.stdin.end();
    else if (input instanceof Uint8Array) child.stdin.end(input);
    else
      (async () => {
        for await (const chunk of input as AsyncIterable<Uint8Array>) {
          if (!child.stdin.write(chunk)) await new Promise((done) => child.stdin.once("drain", done));
        }
        child.stdin.end();
      })().catch((error) => child.kill("SIGKILL") && reject(error));
  });
}

/** The git command's name, past its `-c name=value` options. */
function gitCommand(args: string[]): string {
  let index = 0;
  while (args[index] === "-c") index += 2;
  return args[index] ?? "";
}

/** Starts `git args` and hands its stdout as a stream (for packs sent to a client). */
export function streamGit(gitDir: string, args: string[], input: Uint8Array, timeoutMs: number): Readable {
  const child = spawn("git", [`--git-dir=${gitDir}`, ...args], {
    stdio: ["pipe", "pipe", "ignore"],
    signal: AbortSignal.timeout(timeoutMs),
    killSignal: "SIGKILL",
  });
  child.on("error", () => child.stdout.destroy());
  child.stdin.on("error", () => {});
  child.stdin.end(input);
  return child.stdout;
}

interface RevisionMeta {
  id: string;
  parentIds: string[];
  createdAt: Date;
  createdById: string | null;
  message: string | null;
  type: string;
  changeRequestId: string | null;
}

export interface RepositoryState {
  gitDir: string;
  /** Revision id → commit id. */
  commits: Map<string, string>;
  /** Commit id → revision id (the first revision made from it). */
  revisions: Map<string, string>;
  /** Branch name → commit id, `main` first. */
  branches: Map<string, string>;
  /** Branch name → change request id, for the branches that are change requests. */
  changeRequests: Map<string, string>;
}

/** The repositories of the spaces; one build at a time per space. Lives in Services. */
export class GitRepositories {
  private readonly building = new Map<string, Promise<RepositoryState>>();
  /** What builds read from the database: contents (rows) and revisions, since this instance began. */
  readonly reads = { blobs: 0, revisions: 0 };

  constructor(
    private readonly prisma: PrismaClient,
    readonly limits: GitLimits,
  ) {}

  gitDir(spaceId: string): string {
    return join(this.limits.dataDir, `${spaceId.replace(/[^A-Za-z0-9_-]/g, "_")}.git`);
  }

  git(spaceId: string, args: string[], options: Partial<RunOptions> = {}) {
    return runGit(this.gitDir(spaceId), args, { timeoutMs: this.limits.timeoutMs, ...options });
  }

  /** The repository of the space with every revision in it, and its branches as they are now. */
  sync(spaceId: string): Promise<RepositoryState> {
    const running = this.building.get(spaceId);
    if (running) return running.then(() => this.sync(spaceId));
    const build = this.build(spaceId).finally(() => this.building.delete(spaceId));
    this.building.set(spaceId, build);
    return build;
  }

  /** Records a branch as the change request a push made. */
  async nameBranch(spaceId: string, branch: string, changeRequestId: string) {
    await this.git(spaceId, ["config", `changerequest.${branch}.id`, changeRequestId]);
  }

  /** Records `commit` as the commit of `revisionId`. */
  async mapRevision(spaceId: string, revisionId: string, commit: string) {
    await this.git(spaceId, ["update-ref", `refs/revisions/${revisionId}`, commit]);
  }

  private async build(spaceId: string): Promise<RepositoryState> {
    const gitDir = this.gitDir(spaceId);
    const exists = await stat(join(gitDir, "HEAD")).then(
      () => true,
      () => false,
    );
    if (!exists) {
      await mkdir(gitDir, { recursive: true });
      await runGit(gitDir, ["init", "--bare", "-q", "-b", DEFAULT_BRANCH, gitDir], { timeoutMs: this.limits.timeoutMs });
    }
    const refs = (await this.git(spaceId, ["for-each-ref", "--format=%(objectname) %(refname)", "refs/revisions/"])).toString("utf8");
    const commits = new Map<string, string>();
    for (const line of refs.split("\n")) {
      const [oid, ref] = line.split(" ");
      if (ref) commits.set(ref.slice("refs/revisions/".length), oid);
    }
    const [space, metas, openChangeRequests] = await Promise.all([
      this.prisma.space.findUniqueOrThrow({ where: { id: spaceId }, select: { revisionId: true } }),
      this.prisma.revision.findMany({
        where: { spaceId },
        select: { id: true, parentIds: true, createdAt: true, createdById: true, message: true, type: true, changeRequestId: true },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      }),
      this.prisma.changeRequest.findMany({
        where: { spaceId, status: { in: ["draft", "open"] } },
        select: { id: true, number: true, revisionId: true },
        orderBy: { number: "asc" },
      }),
    ]);
    const missing = topological(metas.filter((meta) => !commits.has(meta.id)));
    if (missing.length) await this.importRevisions(spaceId, missing, commits);
    const named = (await this.git(spaceId, ["config", "--get-regexp", "^changerequest\\."]).catch(() => Buffer.alloc(0))).toString("utf8");
    const branchOf = new Map<string, string>();
    for (const line of named.split("\n")) {
      const match = line.match(/^changerequest\.(.+)\.id (\S+)$/);
      if (match) branchOf.set(match[2], match[1]);
    }
    const branches = new Map<string, string>([[DEFAULT_BRANCH, commits.get(space.revisionId)!]]);
    const changeRequests = new Map<string, string>();
    for (const changeRequest of openChangeRequests) {
      const name = branchOf.get(changeRequest.id) ?? `change-requests/${changeRequest.number}`;
      const commit = commits.get(changeRequest.revisionId);
      if (!commit || name === DEFAULT_BRANCH) continue;
      branches.set(name, commit);
      changeRequests.set(name, changeRequest.id);
    }
    // The branch refs follow the database: stale ones go, the rest point where the content is.
    const heads = (await this.git(spaceId, ["for-each-ref", "--format=%(refname)", "refs/heads/"]))
      .toString("utf8")
      .split("\n")
      .filter(Boolean);
    const updates = [
      ...heads.filter((ref) => !branches.has(ref.slice("refs/heads/".length))).map((ref) => `delete ${ref}\n`),
      ...[...branches].map(([name, commit]) => `update refs/heads/${name} ${commit}\n`),
    ];
    await this.git(spaceId, ["update-ref", "--stdin"], { input: Buffer.from(updates.join(""), "utf8") });
    const revisions = new Map<string, string>();
    for (const meta of metas) if (!revisions.has(commits.get(meta.id)!)) revisions.set(commits.get(meta.id)!, meta.id);
    return { gitDir, commits, revisions, branches, changeRequests };
  }

  /** Writes the commits of `missing` (parents first) with one fast-import, and records them in `commits`. */
  private async importRevisions(spaceId: string, missing: RevisionMeta[], commits: Map<string, string>) {
    const userIds = [...new Set(missing.map((meta) => meta.createdById).filter((id): id is string => !!id))];
    const users = new Map(
      (await this.prisma.user.findMany({ where: { id: { in: userIds } }, select: { id: true, displayName: true, email: true } })).map(
        (user) => [user.id, user],
      ),
    );
    const limits = this.limits;
    const prisma = this.prisma;
    const reads = this.reads;
    const marks = new Map<string, number>();
    const blobMarks = new Map<string, number>();
    // Contents read for earlier revisions of this build, by content hash (insertion order: the
    // oldest go first when it is over its bound). A revision reads only the contents it adds.
    const cache = new Map<string, Uint8Array>();
    const cacheLimit = limits.buildCacheBytes ?? DEFAULT_GIT_LIMITS.buildCacheBytes ?? 0;
    let cached = 0;
    let next = 1;
    const pending = new Set(missing.map((meta) => meta.id));
    async function* stream(): AsyncGenerator<Buffer> {
      // In batches: a revision's content is read when its commit is written, not all at once.
      for (let start = 0; start < missing.length; start += 20) {
        const batch = missing.slice(start, start + 20);
        const rows = await prisma.revision.findMany({ where: { id: { in: batch.map((meta) => meta.id) } } });
        reads.revisions += rows.length;
        const byId = new Map(rows.map((row) => [row.id, row]));
        for (const meta of batch) {
          const content = contentOf(byId.get(meta.id)!);
          const hashes = new Set<string>();
          const collect = (pages: PageNode[]) => pages.forEach((page) => (page.body && hashes.add(page.body), collect(page.pages)));
          collect(content.pages);
          for (const file of content.files) hashes.add(file.blob);
          const blobs = new Map<string, Uint8Array>();
          const unread: string[] = [];
          for (const hash of hashes) {
            const data = cache.get(hash);
            if (data) blobs.set(hash, data);
            else unread.push(hash);
          }
          if (unread.length) {
            const fetched = await prisma.blob.findMany({ where: { hash: { in: unread } }, select: { hash: true, data: true } });
            reads.blobs += fetched.length;
            for (const row of fetched) {
              blobs.set(row.hash, row.data);
              if (row.data.length > cacheLimit) continue;
              cache.set(row.hash, row.data);
              cached += row.data.length;
            }
            for (const [hash, data] of cache) {
              if (cached <= cacheLimit) break;
              cache.delete(hash);
              cached -= data.length;
            }
          }
          const files = exportFiles(
            content,
            (hash) => (blobs.has(hash) ? Buffer.from(blobs.get(hash)!).toString("utf8") : ""),
            (file: FileEntry) => blobs.get(file.blob) ?? new Uint8Array(),
          );
          if (files.size > limits.maxFiles)
            throw new GitError(`Revision ${meta.id} has ${files.size} files; at most ${limits.maxFiles} are allowed`, 413);
          let bytes = 0;
          const entries: string[] = [];
          for (const [path, data] of [...files].sort(([a], [b]) => (a < b ? -1 : 1))) {
            bytes += data.length;
            const key = sha256(data);
            let mark = blobMarks.get(key);
            if (mark === undefined) {
              mark = next++;
              blobMarks.set(key, mark);
              yield Buffer.from(`blob\nmark :${mark}\ndata ${data.length}\n`, "utf8");
              yield Buffer.from(data);
              yield Buffer.from("\n", "utf8");
            }
            entries.push(`M 100644 :${mark} ${quotePath(path)}\n`);
          }
          if (bytes > limits.maxRepositoryBytes) {
            throw new GitError(`Revision ${meta.id} holds ${bytes} bytes; at most ${limits.maxRepositoryBytes} are allowed`, 413);
          }
          const user = meta.createdById ? users.get(meta.createdById) : undefined;
          const who = `${sanitize(user?.displayName || "Documentation service")} <${sanitize(user?.email || "noreply@localhost")}> ${Math.floor(meta.createdAt.getTime() / 1000)} +0000`;
          const message = Buffer.from(`${meta.message?.trim() || describe(meta)}\n`, "utf8");
          const mark = next++;
          marks.set(meta.id, mark);
          const parents = meta.parentIds
            .map((id) => (pending.has(id) ? `:${marks.get(id)}` : commits.get(id)))
            .filter((parent): parent is string => !!parent && parent !== ":undefined");
          const header = [
            `commit refs/revisions/${meta.id}`,
            `mark :${mark}`,
            `author ${who}`,
            `committer ${who}`,
            `data ${message.length}`,
          ].join("\n");
          yield Buffer.concat([
            Buffer.from(`${header}\n`, "utf8"),
            message,
            Buffer.from(
              `${parents.map((parent, index) => `${index === 0 ? "from" : "merge"} ${parent}\n`).join("")}deleteall\n${entries.join("")}\n`,
              "utf8",
            ),
          ]);
        }
      }
      yield Buffer.from("done\n", "utf8");
    }
    await this.git(spaceId, ["fast-import", "--quiet", "--done", "--force"], { input: stream() });
    const refs = (await this.git(spaceId, ["for-each-ref", "--format=%(objectname) %(refname)", "refs/revisions/"])).toString("utf8");
    for (const line of refs.split("\n")) {
      const [oid, ref] = line.split(" ");
      if (ref) commits.set(ref.slice("refs/revisions/".length), oid);
    }
  }
}

function describe(meta: RevisionMeta): string {
  if (meta.type === "merge") return "Merge of a change request";
  if (meta.type === "update") return "Update from the space";
  return `Revision ${meta.id}`;
}

const sanitize = (text: string) => text.replace(/[<>\n\r\0]/g, "").trim() || "unknown";

/** fast-import's quoting of a path with special characters. */
function quotePath(path: string): string {
  if (!/["\\\n]/.test(path) && !path.startsWith('"')) return path;
  return `"${path.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`;
}

/** Parents before children (a revision's parents are older, but clocks can tie). */
function topological(metas: RevisionMeta[]): RevisionMeta[] {
  const byId = new Map(metas.map((meta) => [meta.id, meta]));
  const done = new Set<string>();
  const out: RevisionMeta[] = [];
  const visit = (meta: RevisionMeta) => {
    const stack: [RevisionMeta, number][] = [[meta, 0]];
    while (stack.length) {
      const top = stack.at(-1)!;
      const [current, index] = top;
      if (done.has(current.id)) {
        stack.pop();
        continue;
      }
      if (index < current.parentIds.length) {
        top[1]++;
        const parent = byId.get(current.parentIds[index]);
        if (parent && !done.has(parent.id)) stack.push([parent, 0]);
        continue;
      }
      done.add(current.id);
      out.push(current);
      stack.pop();
    }
  };
  metas.forEach(visit);
  return out;
}
