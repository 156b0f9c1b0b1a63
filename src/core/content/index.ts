// Content: reading revisions, pages and bodies, and editing a target's head (target.ts). An edit
// batch makes exactly one new revision whose parent is the previous head; edits of one head are
// serialized by an advisory lock, so two editors at once both land, one after the other, and
// neither is lost.
import type { Transaction } from "../../db/transaction.ts";
import type { Revision } from "../../generated/prisma/client.ts";
import type { CoreContext } from "../context.ts";
import { storeBlobs } from "../blobs.ts";
import { notFound } from "../errors.ts";
import { newId } from "../ids.ts";
import { reindexSpace } from "../search/index.ts";
import { spaceContentChanged } from "../ask/vectors.ts";
import { readSpace } from "../spaces/read.ts";
import { checkChangeRequestActive } from "../change-requests/access.ts";
import { cachedDocument } from "./cache.ts";
import { contentColumns, contentOf, sha256 } from "./columns.ts";
import { metaLinksIn, type PageMetaLinks } from "./meta-links.ts";
import type { JsonDocument } from "./document.ts";
import { checkLiveEditing, checkRevisionMessage, findFile, headLockKey, requireEditableTarget, type ContentTarget } from "./target.ts";
import { applyEdits, flatten, type ContentEdit, type FileEntry, type LocatedPage, type ReusableContentEntry } from "./tree.ts";

export { contentColumns, contentOf, sha256 };

/** Options of the transactions that move a head: waiting for its lock is part of their time. */
export const TRANSACTION_OPTIONS = { maxWait: 15_000, timeout: 30_000 };

/** A revision of a space the caller can read (404 otherwise, or when it is of another space). */
export async function readRevision(ctx: CoreContext, spaceId: string, revisionId: string): Promise<Revision> {
  await readSpace(ctx, spaceId);
  const revision = await ctx.loaders.revision.load(revisionId);
  if (!revision || revision.spaceId !== spaceId) throw notFound("revision", revisionId);
  return revision;
}

/**
 * A revision's pages by id and its documents by path, as `findPage` and `findPageByPath` find them
 * (the first in tree order), built once per revision object: a revision never changes, and the
 * loaders hand the same cached object to every request (cache.ts), so a page read does not walk
 * and copy the whole tree again.
 */
const pageIndexes = new WeakMap<Revision, { byId: Map<string, LocatedPage>; byPath: Map<string, LocatedPage> }>();
function pageIndex(revision: Revision) {
  let index = pageIndexes.get(revision);
  if (!index) {
    index = { byId: new Map(), byPath: new Map() };
    for (const located of flatten(contentOf(revision).pages)) {
      if (!index.byId.has(located.page.id)) index.byId.set(located.page.id, located);
      if (located.page.kind === "document" && !index.byPath.has(located.path)) index.byPath.set(located.path, located);
    }
    pageIndexes.set(revision, index);
  }
  return index;
}

export function pageOf(revision: Revision, pageId: string) {
  const located = pageIndex(revision).byId.get(pageId);
  if (!located) throw notFound("page", pageId);
  return located;
}

export function pageAtPath(revision: Revision, path: string) {
  const located = pageIndex(revision).byPath.get(path.replace(/^\/+|\/+$/g, ""));
  if (!located) throw notFound("page at path", path);
  return located;
}

/** A page's meta links in a revision (none for groups and links; 404 for a page it does not hold). */
export function pageMetaLinks(revision: Revision, pageId: string): PageMetaLinks {
  const { byId } = pageIndex(revision);
  return metaLinksIn(pageOf(revision, pageId).page.metaLinks, (id) => byId.has(id));
}

export const fileOf = (revision: Revision, fileId: string): FileEntry => findFile(contentOf(revision).files, fileId);

/** A reusable content of a revision by id (404 when the revision has none of that id). */
export function reusableContentOf(revision: Revision, id: string): ReusableContentEntry {
  const found = contentOf(revision).reusableContents?.find((entry) => entry.id === id);
  if (!found) throw notFound("reusable content", id);
  return found;
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

/** A document id: the SHA-256 content hash of a page's or reusable content's body. */
const DOCUMENT_ID = /^[0-9a-f]{64}$/;

/** Whether a revision holds a page or reusable content whose body is `hash`. */
function revisionHoldsBody(revision: Revision, hash: string): boolean {
  for (const located of pageIndex(revision).byId.values()) if (located.page.body === hash) return true;
  return (contentOf(revision).reusableContents ?? []).some((entry) => entry.body === hash);
}

/**
 * A document of a space by id (the content hash of a body): the body of a page or reusable
 * content in any revision of the space, its change requests' included, parsed. The head is looked
 * at first; then one statement looks through the space's other revisions. A hash that no revision
 * of the space holds is not found (404), even if another space holds it: a body is the space's
 * only through its revisions.
 */
export async function documentInSpace(ctx: CoreContext, spaceId: string, documentId: string): Promise<JsonDocument> {
  const { space } = await readSpace(ctx, spaceId);
  if (!DOCUMENT_ID.test(documentId)) throw notFound("document", documentId);
  const head = await ctx.loaders.revision.load(space.revisionId);
  let held = !!head && revisionHoldsBody(head, documentId);
  if (!held) {
    const hash = JSON.stringify({ h: documentId });
    const rows = await ctx.prisma.$queryRaw<{ found: number }[]>`
      SELECT 1 AS found FROM "Revision"
      WHERE "spaceId" = ${spaceId}
        AND (jsonb_path_exists(pages::jsonb, '$.** ? (@.body == $h)', ${hash}::jsonb)
          OR jsonb_path_exists("reusableContents"::jsonb, '$[*] ? (@.body == $h)', ${hash}::jsonb))
      LIMIT 1`;
    held = rows.length > 0;
  }
  if (!held) throw notFound("document", documentId);
  return (await documentOf(ctx, { body: documentId }))!;
}

/** New bytes an edit batch brings: page bodies (markdown) and uploaded files. */
export interface NewBlobs {
  markdown: string[];
  files: Uint8Array[];
}

export interface ContentEditing {
  target: ContentTarget;
  edits: ContentEdit[];
  /** New bytes beyond the page bodies the edits name (uploaded files). */
  blobs?: NewBlobs;
  /** Describes the new revision (at most REVISION_MESSAGE_MAX characters). */
  message?: string | null;
  /**
   * Runs inside the transaction that writes the revision, after it: throwing writes nothing (an
   * import run records its completion here, so a run cancelled meanwhile leaves no revision).
   */
  beforeCommit?: (tx: Transaction, revision: Revision) => Promise<void>;
}

/**
 * Applies `edits` to the target's head as one new revision and moves that head. Needs `edit` on
 * the space; see `requireEditableTarget` for locked spaces and closed change requests.
 */
export async function editContent(
  ctx: CoreContext,
  { target, edits, blobs = { markdown: [], files: [] }, message: given, beforeCommit }: ContentEditing,
): Promise<Revision> {
  const message = checkRevisionMessage(given);
  const { space, changeRequest } = await requireEditableTarget(ctx, target);
  if (!changeRequest) checkLiveEditing(space);
  const spaceId = space.id;
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
  let notified = false;
  const revision = await ctx.prisma.$transaction(async (tx) => {
    // One lock per head: edits of the space, and of each change request, are serialized.
    await tx.$queryRaw`SELECT pg_advisory_xact_lock(hashtext(${headLockKey({ space, changeRequest })}))::text`;
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
    await storeBlobs(tx, "revision", rows);
    const created = await tx.revision.create({
      data: {
        id: newId("Revision"),
        spaceId,
        changeRequestId: changeRequest?.id ?? null,
        parentIds: [head.id],
        type: "edits",
        ...contentColumns(next),
        message,
        createdById: ctx.viewer.userId,
        createdAt: now,
      },
    });
    if (changeRequest) {
      await tx.changeRequest.update({ where: { id: changeRequest.id }, data: { revisionId: created.id, updatedAt: now } });
    } else {
      await tx.space.update({ where: { id: spaceId }, data: { revisionId: created.id, updatedAt: now } });
      // The sites showing the space train their Ask vectors again (src/core/ask/vectors.ts).
      if (await reindexSpace(tx, spaceId, next.pages)) await spaceContentChanged(ctx, tx, spaceId);
      // Integrations installed on the space hear of it (space_content_updated), once committed.
      notified = await ctx.integrations.contentUpdated(tx, spaceId, created.id, ctx.viewer.userId);
    }
    await beforeCommit?.(tx, created);
    return created;
  }, TRANSACTION_OPTIONS);
  if (notified) ctx.jobs.wake();
  if (changeRequest) ctx.loaders.changeRequest.clear(changeRequest.id);
  else ctx.loaders.space.clear(spaceId);
  ctx.loaders.revision.prime(revision.id, revision);
  return revision;
}
