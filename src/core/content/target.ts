// The content target: a space's own content or one of its change requests' — two kinds of one
// thing, a head revision that reads and edits apply to. Everything that differs between the two
// kinds is decided here (permission, lock, app URL), so callers never branch on the kind; and
// the views every caller needs of a head (page paths, app URLs, finding a file, the revision
// message limit) are here too; a revision's lists page in memory with `pageInMemory`
// (pagination.ts).
import type { ChangeRequest, Revision, Space } from "../../generated/prisma/client.ts";
import { checkChangeRequestActive, readChangeRequest, requireChangeRequest } from "../change-requests/access.ts";
import type { CoreContext } from "../context.ts";
import { badInput, conflict, notFound, quote, characterCount } from "../errors.ts";
import { readSpace, requireSpace } from "../spaces/read.ts";
import type { Urls } from "../urls.ts";
import type { FileEntry, PageNode } from "./tree.ts";

/** What a read or an edit applies to: the space's content, or the change request's (id or number). */
export interface ContentTarget {
  spaceId: string;
  changeRequest?: string | null;
}

/** A target found and checked: its space, its change request (null for the space's own content). */
export interface ContentHead {
  space: Space;
  changeRequest: ChangeRequest | null;
}

/** The target of a caller who can read it (404 otherwise). */
export async function readTarget(ctx: CoreContext, target: ContentTarget): Promise<ContentHead> {
  if (target.changeRequest != null) return readChangeRequest(ctx, target.spaceId, target.changeRequest);
  const { space } = await readSpace(ctx, target.spaceId);
  return { space, changeRequest: null };
}

/**
 * The target of a caller who may edit it (`edit` on the space); a merged or archived change
 * request refuses edits (409). Whether a space's own content takes live edits is checked by the
 * edit itself (`checkLiveEditing`), after the input: a locked space refuses direct edits (409),
 * not edits in a change request (that is how a locked space changes).
 */
export async function requireEditableTarget(ctx: CoreContext, target: ContentTarget): Promise<ContentHead> {
  if (target.changeRequest != null) {
    const head = await requireChangeRequest(ctx, target.spaceId, target.changeRequest, "changeRequest.editContent");
    checkChangeRequestActive(head.changeRequest, "be edited");
    return head;
  }
  const space = await requireSpace(ctx, target.spaceId, "space.editContent");
  return { space, changeRequest: null };
}

export function checkLiveEditing(space: { id: string; editMode: string }) {
  if (space.editMode === "locked") {
    throw conflict(`Space ${quote(space.id)} is locked: edit it through a change request, or set its editMode to live`);
  }
}

/** The current revision of a space or a change request (every head has one). */
export async function revisionAt(ctx: CoreContext, owner: { id: string; revisionId: string }): Promise<Revision> {
  const revision = await ctx.loaders.revision.load(owner.revisionId);
  if (!revision) throw new Error(`${owner.id} has no head revision ${owner.revisionId}`);
  return revision;
}

/** The head's current revision. */
export const headRevision = (ctx: CoreContext, head: ContentHead) => revisionAt(ctx, head.changeRequest ?? head.space);

/** The advisory lock that serializes moves of one head (a space's or a change request's). */
export const contentLockKey = (headOwnerId: string) => `content:${headOwnerId}`;
export const headLockKey = (head: ContentHead) => contentLockKey(head.changeRequest?.id ?? head.space.id);

// --- Views ---------------------------------------------------------------------------------------

/** The app path of a head's live pages: `/s/<space>`, or `/s/<space>/~/changes/<number>`. */
export const headAppPath = (head: ContentHead) =>
  head.changeRequest ? `/s/${head.space.id}/~/changes/${head.changeRequest.number}` : `/s/${head.space.id}`;

/**
 * The app path of a revision's pages: the head revision's pages are the live pages of their space
 * or change request (`headAppPath`), any other's are under `/s/<space>/~/revisions/<revision>`.
 */
export async function revisionAppPath(ctx: CoreContext, revision: Revision): Promise<string> {
  if (revision.changeRequestId) {
    const changeRequest = await ctx.loaders.changeRequest.load(revision.changeRequestId);
    if (changeRequest?.revisionId === revision.id) return `/s/${revision.spaceId}/~/changes/${changeRequest.number}`;
  }
  const space = await ctx.loaders.space.load(revision.spaceId);
  return space?.revisionId === revision.id ? `/s/${revision.spaceId}` : `/s/${revision.spaceId}/~/revisions/${revision.id}`;
}

/** The path of a child page under its parent's path: slugs joined by `/`; groups add none. */
export const childPath = (parentPath: string, page: PageNode) =>
  page.kind === "group" ? parentPath : parentPath ? `${parentPath}/${page.slug}` : page.slug;

/** Where a space is published: `published` unless private, `public` only when public. */
export function publishedUrls(urls: Urls, space: { id: string; visibility: string }) {
  const published = space.visibility === "private" ? null : urls.app(`/published/${space.id}`);
  return { published, public: space.visibility === "public" ? published : null };
}

export function findFile(files: FileEntry[], fileId: string): FileEntry {
  const file = files.find((entry) => entry.id === fileId);
  if (!file) throw notFound("file", fileId);
  return file;
}

export const REVISION_MESSAGE_MAX = 1000;

/** A revision message as given (at most REVISION_MESSAGE_MAX characters), or undefined. */
export function checkRevisionMessage(message: string | null | undefined): string | undefined {
  if (message != null && characterCount(message) > REVISION_MESSAGE_MAX)
    throw badInput(`message must be at most ${REVISION_MESSAGE_MAX} characters`);
  return message ?? undefined;
}
