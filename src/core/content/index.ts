// Space content: reading revisions, pages and bodies, and editing. An edit batch makes exactly
// one new revision whose parent is the previous head; edits of one space are serialized by an
// advisory lock, so two editors at once both land, one after the other, and neither is lost.
import { createHash } from "node:crypto";
import type { Revision } from "../../generated/prisma/client.ts";
import type { CoreContext } from "../context.ts";
import { conflict, notFound } from "../errors.ts";
import { newId } from "../ids.ts";
import { reindexSpace } from "../search/index.ts";
import { readSpace, requireSpace } from "../spaces/index.ts";
import { checkChangeRequestActive, requireChangeRequest } from "../change-requests/access.ts";
import { cachedDocument } from "./cache.ts";
import type { JsonDocument } from "./document.ts";
import {
  applyEdits,
  findPage,
  findPageByPath,
  type Content,
  type ContentEdit,
  type FileEntry,
  type PageNode,
  type ReusableContentEntry,
} from "./tree.ts";

/** Options of the transactions that move a head: waiting for its lock is part of their time. */
export const TRANSACTION_OPTIONS = { maxWait: 15_000, timeout: 30_000 };

export const sha256 = (data: Uint8Array | string) => createHash("sha256").update(data).digest("hex");

export function contentOf(revision: Revision): Content {
  return {
    pages: revision.pages as unknown as PageNode[],
    files: revision.files as unknown as FileEntry[],
    reusableContents: (revision.reusableContents ?? []) as unknown as ReusableContentEntry[],
    variables: (revision.variables ?? {}) as unknown as Record<string, string>,
  };
}

/** A revision of a space the caller can read (404 otherwise, or when it is of another space). */
export async function readRevision(ctx: CoreContext, spaceId: string, revisionId: string): Promise<Revision> {
  await readSpace(ctx, spaceId);
  const revision = await ctx.loaders.revision.load(revisionId);
  if (!revision || revision.spaceId !== spaceId) throw notFound("revision", revisionId);
  return revision;
}

/** The head revision of a space the caller can read. */
export async function readHeadRevision(ctx: CoreContext, spaceId: string): Promise<Revision> {
  const { space } = await readSpace(ctx, spaceId);
  const revision = await ctx.loaders.revision.load(space.revisionId);
  if (!revision) throw new Error(`Space ${spaceId} has no head revision ${space.revisionId}`);
  return revision;
}

export function pageOf(revision: Revision, pageId: string) {
  const located = findPage(contentOf(revision).pages, pageId);
  if (!located) throw notFound("page", pageId);
  return located;
}

export function pageAtPath(revision: Revision, path: string) {
  const located = findPageByPath(contentOf(revision).pages, path);
  if (!located) throw notFound("page at path", path);
  return located;
}

export function fileOf(revision: Revision, fileId: string): FileEntry {
  const file = contentOf(revision).files.find((entry) => entry.id === fileId);
  if (!file) throw notFound("file", fileId);
  return file;
}

/** The markdown of a document page or a reusable content (batched: one statement for all of a request). */
export async function markdownOf(ctx: CoreContext, page: { body?: string }): Promise<string | null> {
  if (!page.body) return null;
  const data = await ctx.loaders.blob.load(page.body);
  return data ? Buffer.from(data).toString("utf8") : "";
}

/** The parsed document of a page or reusable content body (null without a body), cached by hash. */
export async function documentOf(ctx: CoreContext, page: { body?: string }): Promise<JsonDocument | null> {
  if (!page.body) return null;
  return cachedDocument(page.body, async () => (await markdownOf(ctx, page)) ?? "");
}

/** New bytes an edit batch brings: page bodies (markdown) and uploaded files. */
export interface NewBlobs {
  markdown: string[];
  files: Uint8Array[];
}

/**
 * Applies `edits` to the head of the space, or of one of its change requests, as one new revision
 * and moves that head. Needs `edit` on the space. A space in `locked` edit mode refuses direct
 * edits (409) but not edits in a change request (that is how a locked space changes); a merged
 * or archived change request refuses edits (409).
 */
export async function editContent(
  ctx: CoreContext,
  spaceId: string,
  edits: ContentEdit[],
  blobs: NewBlobs = { markdown: [], files: [] },
  message?: string,
  changeRequestId?: string | null,
): Promise<Revision> {
  const changeRequest = changeRequestId != null ? await requireEditableChangeRequest(ctx, spaceId, changeRequestId) : undefined;
  if (!changeRequest) {
    const space = await requireSpace(ctx, spaceId, "space.editContent");
    checkLiveEditing(space);
  }
  // The bodies the edits point at are stored whether or not the caller listed them in `blobs`
  // (a new document without markdown points at the empty body); one row per hash.
  const bodies = edits.flatMap((edit) =>
    (edit.op === "createPage" && edit.kind === "document") || edit.op === "createReusableContent"
      ? [edit.body ?? ""]
      : (edit.op === "updatePage" || edit.op === "updateReusableContent") && edit.body !== undefined
        ? [edit.body]
        : [],
  );
  const rows = [
    ...new Map(
      [...blobs.markdown, ...bodies]
        .map((text) => Buffer.from(text, "utf8"))
        .concat(blobs.files.map((bytes) => Buffer.from(bytes)))
        .map((data) => [sha256(data), { hash: sha256(data), data, size: data.length }] as const),
    ).values(),
  ];
  const revision = await ctx.prisma.$transaction(async (tx) => {
    // One lock per head: edits of the space, and of each change request, are serialized.
    const headOwner = changeRequest?.id ?? spaceId;
    await tx.$queryRaw`SELECT pg_advisory_xact_lock(hashtext(${contentLockKey(headOwner)}))::text`;
    let headId: string;
    if (changeRequest) {
      const current = await tx.changeRequest.findUniqueOrThrow({ where: { id: changeRequest.id } });
      checkChangeRequestActive(current, "be edited");
      headId = current.revisionId;
    } else {
      const current = await tx.space.findUniqueOrThrow({ where: { id: spaceId } });
      checkLiveEditing(current);
      headId = current.revisionId;
    }
    const head = await tx.revision.findUniqueOrThrow({ where: { id: headId } });
    const now = ctx.clock.now();
    const next = applyEdits(contentOf(head), edits, (markdown) => sha256(Buffer.from(markdown, "utf8")), now.toISOString());
    if (rows.length) await tx.blob.createMany({ data: rows, skipDuplicates: true });
    const created = await tx.revision.create({
      data: {
        id: newId("Revision"),
        spaceId,
        changeRequestId: changeRequest?.id ?? null,
        parentIds: [head.id],
        type: "edits",
        pages: next.pages as never,
        files: next.files as never,
        reusableContents: next.reusableContents as never,
        variables: next.variables as never,
        message,
        createdById: ctx.viewer.userId,
        createdAt: now,
      },
    });
    if (changeRequest) {
      await tx.changeRequest.update({ where: { id: changeRequest.id }, data: { revisionId: created.id, updatedAt: now } });
    } else {
      await tx.space.update({ where: { id: spaceId }, data: { revisionId: created.id, updatedAt: now } });
      await reindexSpace(tx, spaceId, next.pages);
    }
    return created;
  }, TRANSACTION_OPTIONS);
  if (changeRequest) ctx.loaders.changeRequest.clear(changeRequest.id);
  else ctx.loaders.space.clear(spaceId);
  ctx.loaders.revision.prime(revision.id, revision);
  return revision;
}

/** The advisory lock that serializes moves of one head (a space's or a change request's). */
export const contentLockKey = (headOwnerId: string) => `content:${headOwnerId}`;

function checkLiveEditing(space: { id: string; editMode: string }) {
  if (space.editMode === "locked") {
    throw conflict(`Space "${space.id}" is locked: edit it through a change request, or set its editMode to live`);
  }
}

/** A change request the caller may edit (`edit` on the space) and that still takes edits. */
export async function requireEditableChangeRequest(ctx: CoreContext, spaceId: string, idOrNumber: string) {
  const { changeRequest } = await requireChangeRequest(ctx, spaceId, idOrNumber, "changeRequest.editContent");
  checkChangeRequestActive(changeRequest, "be edited");
  return changeRequest;
}
