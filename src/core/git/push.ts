// A `git push` as change requests. A branch is a change request whose content is the pushed
// tree (a new branch opens one); the default branch takes a push through a change request merged
// at once with the API's own merge (three-way, merge rules, 409 naming the conflicting pages): a
// push that conflicts is refused and nothing changes. Non-fast-forward pushes, deletions and
// pushes without the role are refused with the reason, as `git push` shows it.
import type { Revision } from "../../generated/prisma/client.ts";
import type { CoreContext } from "../context.ts";
import { storeBlobs } from "../blobs.ts";
import { contentColumns, contentOf, sha256, TRANSACTION_OPTIONS } from "../content/index.ts";
import { contentLockKey } from "../content/target.ts";
import { DomainError, quote } from "../errors.ts";
import { newId } from "../ids.ts";
import { mergeChangeRequest } from "../change-requests/index.ts";
import { checkChangeRequestActive } from "../change-requests/access.ts";
import { requireSpace } from "../spaces/index.ts";
import { importFiles, LayoutError, type PushedFile } from "./layout.ts";
import { DEFAULT_BRANCH, GitError, ZERO, type GitRepositories, type RepositoryState } from "./repository.ts";

export interface RefUpdate {
  old: string;
  new: string;
  ref: string;
}

export type RefResult = { ref: string; ok: true } | { ref: string; ok: false; reason: string };

/** The commands and the pack of a receive-pack request body. */
export function parseReceivePack(body: Buffer): { updates: RefUpdate[]; pack: Buffer } {
  const updates: RefUpdate[] = [];
  let at = 0;
  for (;;) {
    if (at + 4 > body.length) throw new GitError("The push request ended before its commands did", 400);
    const length = Number.parseInt(body.subarray(at, at + 4).toString("latin1"), 16);
    if (Number.isNaN(length)) throw new GitError("The push request is not in the Git protocol", 400);
    if (length === 0) {
      at += 4;
      break;
    }
    const line = body
      .subarray(at + 4, at + length)
      .toString("utf8")
      .split("\0")[0]
      .replace(/\n$/, "");
    at += length;
    const match = line.match(/^([0-9a-f]{40}) ([0-9a-f]{40}) (refs\/\S+)$/);
    if (!match) {
      if (line.startsWith("shallow ")) throw new GitError("Shallow pushes are not accepted: push from a full clone", 400);
      throw new GitError(`Unexpected command in the push: ${quote(line.slice(0, 100))}`, 400);
    }
    updates.push({ old: match[1], new: match[2], ref: match[3] });
  }
  return { updates, pack: body.subarray(at) };
}

export const pkt = (text: string) => {
  const data = Buffer.from(text, "utf8");
  return Buffer.concat([Buffer.from((data.length + 4).toString(16).padStart(4, "0"), "latin1"), data]);
};

export const FLUSH = Buffer.from("0000", "latin1");

/** The files of a commit's tree, with their bytes. */
async function treeFiles(repos: GitRepositories, spaceId: string, commit: string): Promise<PushedFile[]> {
  const listing = (await repos.git(spaceId, ["ls-tree", "-r", "-z", "--full-tree", commit])).toString("utf8");
  const entries = listing
    .split("\0")
    .filter(Boolean)
    .map((entry) => {
      const [meta, path] = [entry.slice(0, entry.indexOf("\t")), entry.slice(entry.indexOf("\t") + 1)];
      const [mode, type, oid] = meta.split(" ");
      return { mode, type, oid, path };
    });
  if (entries.length > repos.limits.maxFiles) {
    throw new LayoutError(".", `the pushed tree holds ${entries.length} files; at most ${repos.limits.maxFiles} are allowed`);
  }
  const blobs = entries.filter((entry) => entry.type === "blob");
  const sizes = (
    await repos.git(spaceId, ["cat-file", "--batch-check"], { input: Buffer.from(blobs.map((b) => `${b.oid}\n`).join(""), "utf8") })
  )
    .toString("utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => Number(line.split(" ")[2]));
  blobs.forEach((blob, index) => {
    if (sizes[index] > repos.limits.maxFileBytes) {
      throw new LayoutError(blob.path, `is ${sizes[index]} bytes; at most ${repos.limits.maxFileBytes} are allowed`);
    }
  });
  const data = await repos.git(spaceId, ["cat-file", "--batch"], { input: Buffer.from(blobs.map((b) => `${b.oid}\n`).join(""), "utf8") });
  const files: PushedFile[] = [];
  let at = 0;
  for (const blob of blobs) {
    const headerEnd = data.indexOf(10, at);
    const size = Number(data.subarray(at, headerEnd).toString("latin1").split(" ")[2]);
    files.push({ path: blob.path, mode: blob.mode, bytes: data.subarray(headerEnd + 1, headerEnd + 1 + size) });
    at = headerEnd + 1 + size + 1;
  }
  for (const entry of entries) if (entry.type !== "blob") files.push({ path: entry.path, mode: entry.mode, bytes: new Uint8Array() });
  return files;
}

/** The revision the pushed commit starts from: its nearest first-parent ancestor that is a revision's commit. */
async function baseRevision(repos: GitRepositories, spaceId: string, state: RepositoryState, commit: string): Promise<string | undefined> {
  const chain = (await repos.git(spaceId, ["rev-list", "--first-parent", "--max-count=1000", commit])).toString("utf8").split("\n");
  for (const oid of chain) if (state.revisions.has(oid)) return state.revisions.get(oid);
  return undefined;
}

async function isAncestor(repos: GitRepositories, spaceId: string, ancestor: string, commit: string): Promise<boolean> {
  return repos.git(spaceId, ["merge-base", "--is-ancestor", ancestor, commit]).then(
    () => true,
    () => false,
  );
}

/** Applies one ref update; never throws for a refusal (the reason goes back to `git push`). */
export async function applyRefUpdate(ctx: CoreContext, repos: GitRepositories, spaceId: string, update: RefUpdate): Promise<RefResult> {
  const refuse = (reason: string): RefResult => ({ ref: update.ref, ok: false, reason: reason.replace(/\s+/g, " ").slice(0, 900) });
  try {
    if (!update.ref.startsWith("refs/heads/")) return refuse("only branches can be pushed (refs/heads/…)");
    const branch = update.ref.slice("refs/heads/".length);
    if (update.new === ZERO) return refuse("deleting a branch is not supported: archive its change request instead");
    const state = await repos.sync(spaceId);
    const current = state.branches.get(branch);
    if (branch === DEFAULT_BRANCH) return await pushDefault(ctx, repos, spaceId, state, update, refuse);
    const changeRequestId = state.changeRequests.get(branch);
    if (update.old !== (current ?? ZERO)) {
      return refuse(
        current ? "fetch first: the branch moved since you fetched it" : `no branch "${branch}" to update: it was merged or archived`,
      );
    }
    if (current && !(await isAncestor(repos, spaceId, current, update.new))) return refuse("non-fast-forward: force pushes are refused");
    if (changeRequestId) {
      await requireSpace(ctx, spaceId, "changeRequest.editContent");
      const revision = await writeChangeRequestRevision(ctx, repos, spaceId, update.new, { changeRequestId });
      await repos.mapRevision(spaceId, revision.id, update.new);
      return { ref: update.ref, ok: true };
    }
    if (!/^[A-Za-z0-9][A-Za-z0-9._/-]{0,99}$/.test(branch) || branch.includes("..")) {
      return refuse("branch names are letters, digits, '.', '_', '-' and '/', at most 100");
    }
    await requireSpace(ctx, spaceId, "changeRequest.create");
    const base = await baseRevision(repos, spaceId, state, update.new);
    if (!base) return refuse("the pushed commits do not start from this space's history: clone the space and commit on top of it");
    const { revision, changeRequestId: created } = await writeChangeRequestRevision(ctx, repos, spaceId, update.new, {
      base,
      subject: await subjectOf(repos, spaceId, update.new),
    }).then((revision) => ({ revision, changeRequestId: revision.changeRequestId! }));
    await repos.nameBranch(spaceId, branch, created);
    await repos.mapRevision(spaceId, revision.id, update.new);
    return { ref: update.ref, ok: true };
  } catch (error) {
    if (error instanceof LayoutError || error instanceof DomainError) return refuse(error.message);
    if (error instanceof GitError) return refuse(error.message);
    throw error;
  }
}

async function subjectOf(repos: GitRepositories, spaceId: string, commit: string): Promise<string> {
  const subject = (await repos.git(spaceId, ["log", "-1", "--format=%s", commit])).toString("utf8").trim();
  return [...subject].slice(0, 100).join("");
}

async function pushDefault(
  ctx: CoreContext,
  repos: GitRepositories,
  spaceId: string,
  state: RepositoryState,
  update: RefUpdate,
  refuse: (reason: string) => RefResult,
): Promise<RefResult> {
  await requireSpace(ctx, spaceId, "changeRequest.merge").catch((error: unknown) => {
    throw error instanceof DomainError && error.code === "FORBIDDEN"
      ? new DomainError(
          "FORBIDDEN",
          `pushing to ${DEFAULT_BRANCH} merges, which needs the review role on the space: push to a branch instead`,
        )
      : error;
  });
  const head = state.branches.get(DEFAULT_BRANCH)!;
  // The head moved since the client fetched (an edit in between): the same three-way merge
  // as the API's decides, so a concurrent edit of another page is kept and one of the same
  // page refuses the push. A commit the service never handed out is a rewrite: refused.
  if (update.old !== head && !state.revisions.has(update.old)) return refuse("fetch first: the branch is not where you fetched it");
  if (!(await isAncestor(repos, spaceId, update.old, update.new))) return refuse("non-fast-forward: force pushes are refused");
  const base = await baseRevision(repos, spaceId, state, update.new);
  if (!base) return refuse("the pushed commits do not start from this space's history");
  const subject = await subjectOf(repos, spaceId, update.new);
  const revision = await writeChangeRequestRevision(ctx, repos, spaceId, update.new, {
    base,
    subject: `Push to ${DEFAULT_BRANCH}: ${subject}`.slice(0, 100),
  });
  const changeRequestId = revision.changeRequestId!;
  try {
    const merged = await mergeChangeRequest(ctx, spaceId, changeRequestId);
    await repos.mapRevision(spaceId, revision.id, update.new);
    // Nothing happened in between: the merge's content is the pushed tree, and its commit the pushed one.
    if (update.old === head && state.revisions.get(head) === base) await repos.mapRevision(spaceId, merged.revision.id, update.new);
    return { ref: update.ref, ok: true };
  } catch (error) {
    // Refused: the change request made for the push goes too; nothing was merged.
    await ctx.prisma.changeRequest.delete({ where: { id: changeRequestId } }).catch(() => {});
    ctx.loaders.changeRequestCounts.clear(spaceId);
    if (error instanceof DomainError) return refuse(error.message);
    throw error;
  }
}

/**
 * A change request whose content is `commit`'s tree (a commit fetched from a Git Sync remote),
 * started from `base`, the space's head. The repository builds the change request's own commit.
 */
export async function importCommit(
  ctx: CoreContext,
  repos: GitRepositories,
  spaceId: string,
  commit: string,
  target: { base: string; subject: string },
): Promise<Revision> {
  await requireSpace(ctx, spaceId, "changeRequest.create");
  return writeChangeRequestRevision(ctx, repos, spaceId, commit, target);
}

/**
 * A new revision whose content is the pushed tree: on an existing change request's head, or as
 * the first revision of a new change request started from `base` (a revision of the space).
 */
async function writeChangeRequestRevision(
  ctx: CoreContext,
  repos: GitRepositories,
  spaceId: string,
  commit: string,
  target: { changeRequestId: string } | { base: string; subject: string },
): Promise<Revision> {
  const pushed = await treeFiles(repos, spaceId, commit);
  const message = (await repos.git(spaceId, ["log", "-1", "--format=%B", commit])).toString("utf8").trim().slice(0, 1000) || null;
  const now = ctx.clock.now();
  return ctx.prisma.$transaction(async (tx) => {
    let changeRequestId: string;
    let parent: Revision;
    if ("changeRequestId" in target) {
      changeRequestId = target.changeRequestId;
      await tx.$queryRaw`SELECT pg_advisory_xact_lock(hashtext(${contentLockKey(changeRequestId)}))::text`;
      const changeRequest = await tx.changeRequest.findUniqueOrThrow({ where: { id: changeRequestId } });
      checkChangeRequestActive(changeRequest, "be edited");
      parent = await tx.revision.findUniqueOrThrow({ where: { id: changeRequest.revisionId } });
    } else {
      parent = await tx.revision.findUniqueOrThrow({ where: { id: target.base } });
      const [space] = await tx.$queryRaw<{ number: number }[]>`
        UPDATE "Space" SET "changeRequestNumber" = "changeRequestNumber" + 1 WHERE id = ${spaceId} RETURNING "changeRequestNumber" AS number`;
      changeRequestId = newId("ChangeRequest");
      await tx.changeRequest.create({
        data: {
          id: changeRequestId,
          spaceId,
          number: space.number,
          status: "open",
          subject: target.subject,
          createdById: ctx.viewer.userId,
          createdAt: now,
          updatedAt: now,
          revisionId: parent.id,
          revisionInitialId: parent.id,
        },
      });
    }
    const result = importFiles(
      contentOf(parent),
      pushed,
      repos.limits,
      { page: () => newId("Page"), file: () => newId("File"), hash: (data) => sha256(data) },
      now.toISOString(),
    );
    const rows = [...result.markdown.map((text) => Buffer.from(text, "utf8")), ...result.files.map((bytes) => Buffer.from(bytes))].map(
      (data) => ({
        hash: sha256(data),
        data,
        size: data.length,
      }),
    );
    await storeBlobs(tx, "revision", [...new Map(rows.map((row) => [row.hash, row])).values()]);
    const created = await tx.revision.create({
      data: {
        id: newId("Revision"),
        spaceId,
        changeRequestId,
        parentIds: [parent.id],
        type: "edits",
        ...contentColumns(result.content),
        message,
        createdById: ctx.viewer.userId,
        createdAt: now,
      },
    });
    await tx.changeRequest.update({ where: { id: changeRequestId }, data: { revisionId: created.id, updatedAt: now } });
    return created;
  }, TRANSACTION_OPTIONS);
}
