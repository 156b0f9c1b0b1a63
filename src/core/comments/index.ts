// Comments on a space or on one of its change requests (the "base"), their replies and emoji
// reactions. One table holds both: a reply is a comment row with a `parentId`; a comment on the
// space itself has no `changeRequestId`. A comment or reply addressed through another base than
// its own is not found (404), like any id the caller cannot see.
//
// Who may do what (src/core/auth/policy.ts): reading needs `read` on the space; posting, replying,
// reacting and resolving need `comment`; editing a body or deleting needs `comment` and to be the
// author, or an admin of the space (organization admins are admins of every space). Every check
// runs before anything is written; writes of one update go in one batch transaction.
import type { ChangeRequest, Comment, Member, Prisma, Revision, Space } from "../../generated/prisma/client.ts";
import { allows, authorize, POLICY, type Action } from "../auth/policy.ts";
import { findChangeRequest } from "../change-requests/access.ts";
import { contentOf, markdownOf, pageOf } from "../content/index.ts";
import { findPage, type PageNode } from "../content/tree.ts";
import type { CoreContext } from "../context.ts";
import { headRevision } from "../content/target.ts";
import { badInput, forbidden, notFound, quote } from "../errors.ts";
import { newId } from "../ids.ts";
import { memberKey } from "../members/loaders.ts";
import { paginate, type Page, type PageArgs } from "../pagination.ts";
import { sectionsOf } from "../search/index.ts";
import { isEmoji, readSpace, requireSpace } from "../spaces/index.ts";
import { checkLength, checkOneOf } from "../validate.ts";
import { commentLoaders, type Replier } from "./loaders.ts";

export type { Replier } from "./loaders.ts";

export const COMMENT_BODY_MAX = 10_000;
export const REACTION_MAX = 50;
/** Emojis one update may add or remove. */
const REACTIONS_PER_UPDATE_MAX = 50;
/** User ids in one `authors` filter. */
const AUTHORS_MAX = 100;
export const COMMENT_STATUSES = ["open", "resolved"] as const;
export const COMMENT_STATUS_FILTERS = ["all", "open", "resolved"] as const;
export const COMMENT_ORDERS = ["asc", "desc"] as const;
export type CommentStatus = (typeof COMMENT_STATUSES)[number];

/** Where comments are: a space, or one of its change requests (by id or number). */
export interface CommentBase {
  spaceId: string;
  changeRequestId?: string | null;
}

interface OpenBase {
  space: Space;
  changeRequest: ChangeRequest | null;
}

const rowsOf = (base: OpenBase) => ({ spaceId: base.space.id, changeRequestId: base.changeRequest?.id ?? null });

/** The key of the base's open-comment counter (src/core/loaders.ts `openCommentCount`). */
const counterKey = (row: { spaceId: string; changeRequestId: string | null }) =>
  row.changeRequestId ? `cr:${row.changeRequestId}` : `space:${row.spaceId}`;

/**
 * The base, if the caller can read its space (404 otherwise; an unknown change request is 404 too)
 * and may do `action` there (403). Writes refuse a deleted space (409), reads do not.
 */
async function openBase(ctx: CoreContext, base: CommentBase, action: Action): Promise<OpenBase> {
  const { space } = await readSpace(ctx, base.spaceId);
  const changeRequest = base.changeRequestId != null ? await findChangeRequest(ctx, space.id, base.changeRequestId) : null;
  if (action === "comment.read") await authorize(ctx, action, { space });
  else await requireSpace(ctx, space.id, action);
  return { space, changeRequest };
}

const inBase = (row: Comment, base: OpenBase) => row.spaceId === base.space.id && row.changeRequestId === (base.changeRequest?.id ?? null);

async function commentIn(ctx: CoreContext, base: OpenBase, commentId: string): Promise<Comment> {
  const comment = await commentLoaders(ctx).comment.load(commentId);
  if (!comment || comment.parentId !== null || !inBase(comment, base)) throw notFound("comment", commentId);
  return comment;
}

/** A reply to `comment` (404 when it replies to another). */
export async function replyOf(ctx: CoreContext, comment: Comment, replyId: string): Promise<Comment> {
  const reply = await commentLoaders(ctx).comment.load(replyId);
  if (!reply || reply.parentId !== comment.id) throw notFound("comment reply", replyId);
  return reply;
}

// --- Input rules ---------------------------------------------------------------------------------

function checkBody(markdown: string): string {
  checkLength("body", markdown, { min: 1, max: COMMENT_BODY_MAX });
  if (markdown.trim() === "") throw badInput("body must not be blank: write some markdown");
  return markdown;
}

/** Each an emoji of at most 50 characters; duplicates count once. */
function checkReactions(field: string, emojis: readonly string[] | null | undefined): string[] {
  if (!emojis) return [];
  if (emojis.length > REACTIONS_PER_UPDATE_MAX)
    throw badInput(`${field} must hold at most ${REACTIONS_PER_UPDATE_MAX} emojis (got ${emojis.length})`);
  for (const emoji of emojis) {
    checkLength(field, emoji, { min: 1, max: REACTION_MAX });
    if (!isEmoji(emoji)) throw badInput(`${field} must hold emojis or their Unicode code points (got ${quote(emoji)})`);
  }
  return [...new Set(emojis)];
}

// --- Permissions ---------------------------------------------------------------------------------

/** Editing a body and deleting: the author, or an admin of the space. */
async function requireAuthorOrAdmin(ctx: CoreContext, base: OpenBase, row: Comment, action: "comment.editOwn" | "comment.deleteOwn") {
  await requireSpace(ctx, base.space.id, action);
  if (row.postedById === ctx.viewer.userId || (await ctx.access.roleOnSpace(base.space)) === "admin") return;
  const what = row.parentId ? "reply" : "comment";
  const verb = action === "comment.editOwn" ? "edit" : "delete";
  throw forbidden(`Only the author of this ${what} or an admin of the space can ${verb} it`);
}

export interface CommentPermissions {
  view: boolean;
  edit: boolean;
  reply: boolean;
  delete: boolean;
}

/** What the caller may do with a comment or reply they can see. */
export async function commentPermissions(ctx: CoreContext, row: Comment): Promise<CommentPermissions> {
  const space = await ctx.loaders.space.load(row.spaceId);
  const role = space ? await ctx.access.roleOnSpace(space) : null;
  const writable = Boolean(space && !space.deletedAt);
  const may = (action: Action) => writable && allows(POLICY[action].least, role);
  const ownOrAdmin = row.postedById === ctx.viewer.userId || role === "admin";
  return {
    view: allows(POLICY["comment.read"].least, role),
    edit: may("comment.editOwn") && ownOrAdmin,
    reply: may("comment.post") || may("comment.react"),
    delete: may("comment.deleteOwn") && ownOrAdmin,
  };
}

// --- Comments ------------------------------------------------------------------------------------

function remember(ctx: CoreContext, row: Comment): Comment {
  commentLoaders(ctx).forget([row.id]);
  commentLoaders(ctx).comment.prime(row.id, row);
  return row;
}

/**
 * Posts a comment, on a page of the base's head revision when `page` is given (404 naming it
 * otherwise), at a place in it when `node` is given too. The comment remembers that revision.
 */
export async function postComment(
  ctx: CoreContext,
  base: CommentBase,
  input: { body: string; page?: string | null; node?: string | null },
): Promise<Comment> {
  const body = checkBody(input.body);
  if (input.node != null) {
    checkLength("node", input.node, { min: 1, max: 100 });
    if (input.page == null) throw badInput("node needs page: a node is a place in a page");
  }
  const open = await openBase(ctx, base, "comment.post");
  const head = await headRevision(ctx, open);
  if (input.page != null) pageOf(head, input.page);
  const comment = await ctx.prisma.comment.create({
    data: {
      id: newId("Comment"),
      ...rowsOf(open),
      body,
      postedById: ctx.viewer.userId,
      postedAt: ctx.clock.now(),
      targetPageId: input.page ?? null,
      targetNodeId: input.node ?? null,
      targetRevisionId: head.id,
    },
  });
  ctx.loaders.openCommentCount.clear(counterKey(comment));
  return remember(ctx, comment);
}

export interface CommentFilter {
  /** By postedAt; default desc (newest first). */
  order?: string | null;
  /** all (default), open or resolved. */
  status?: string | null;
  /** A page id. */
  targetPage?: string | null;
  /** User ids: comments posted by any of them. */
  authors?: readonly string[] | null;
}

export async function listComments(ctx: CoreContext, base: CommentBase, filter: CommentFilter, page: PageArgs): Promise<Page<Comment>> {
  const order = checkOneOf("order", filter.order ?? "desc", COMMENT_ORDERS);
  const status = checkOneOf("status", filter.status ?? "all", COMMENT_STATUS_FILTERS);
  const authors = filter.authors ?? [];
  if (authors.length > AUTHORS_MAX) throw badInput(`authors must hold at most ${AUTHORS_MAX} user ids (got ${authors.length})`);
  const open = await openBase(ctx, base, "comment.read");
  const where: Prisma.CommentWhereInput = {
    ...rowsOf(open),
    parentId: null,
    ...(status === "all" ? {} : { status }),
    ...(filter.targetPage ? { targetPageId: filter.targetPage } : {}),
    ...(authors.length ? { postedById: { in: [...authors] } } : {}),
  };
  const result = await paginate<Comment, Prisma.CommentWhereInput>(page, {
    sortField: "postedAt",
    sortKind: "date",
    direction: order,
    where,
    rows: ctx.prisma.comment,
  });
  for (const comment of result.items) commentLoaders(ctx).comment.prime(comment.id, comment);
  return result;
}

export async function getComment(ctx: CoreContext, base: CommentBase, commentId: string): Promise<Comment> {
  return commentIn(ctx, await openBase(ctx, base, "comment.read"), commentId);
}

/** A comment by id alone (GraphQL `node`), when the caller can read its space; 404 otherwise. */
export async function readCommentOrReply(ctx: CoreContext, id: string, kind: "comment" | "reply"): Promise<Comment> {
  const row = await commentLoaders(ctx).comment.load(id);
  const what = kind === "comment" ? "comment" : "comment reply";
  if (!row || (row.parentId === null) !== (kind === "comment")) throw notFound(what, id);
  try {
    const { space } = await readSpace(ctx, row.spaceId);
    await authorize(ctx, "comment.read", { space });
  } catch {
    throw notFound(what, id);
  }
  return row;
}

export interface CommentUpdate {
  /** New markdown body (sets editedAt). */
  body?: string | null;
  /** true resolves, false reopens; on a reply (change requests only), of its comment. */
  resolved?: boolean | null;
  addedReactions?: readonly string[] | null;
  /** Removing a reaction the caller does not have changes nothing; removal wins over addition. */
  removedReactions?: readonly string[] | null;
}

/** The new status fields of `comment`, or nothing when it already is as asked (who resolved it stays). */
function resolution(ctx: CoreContext, comment: Comment, resolved: boolean): Prisma.CommentUpdateInput | null {
  if (resolved === (comment.status === "resolved")) return null;
  return resolved
    ? { status: "resolved", resolvedAt: ctx.clock.now(), resolvedById: ctx.viewer.userId }
    : { status: "open", resolvedAt: null, resolvedById: null };
}

/**
 * Checks every permission an update of a comment or reply (`row`) needs, then writes it all in one
 * transaction; `resolve` is the comment whose status `resolved` changes (the row, or a reply's comment).
 */
async function applyUpdate(ctx: CoreContext, base: OpenBase, row: Comment, update: CommentUpdate, resolve: Comment | null) {
  const body = update.body != null ? checkBody(update.body) : undefined;
  const added = checkReactions("addedReactions", update.addedReactions);
  const removed = checkReactions("removedReactions", update.removedReactions);
  if (body !== undefined) await requireAuthorOrAdmin(ctx, base, row, "comment.editOwn");
  if (added.length || removed.length) await requireSpace(ctx, base.space.id, "comment.react");
  if (update.resolved != null) await requireSpace(ctx, base.space.id, "comment.resolve");

  const now = ctx.clock.now();
  const status = resolve && update.resolved != null ? resolution(ctx, resolve, update.resolved) : null;
  const userId = ctx.viewer.userId;
  const writes: Prisma.PrismaPromise<unknown>[] = [];
  if (body !== undefined) writes.push(ctx.prisma.comment.update({ where: { id: row.id }, data: { body, editedAt: now } }));
  if (status) writes.push(ctx.prisma.comment.update({ where: { id: resolve!.id }, data: status }));
  const toAdd = added.filter((emoji) => !removed.includes(emoji));
  if (toAdd.length) {
    writes.push(
      ctx.prisma.commentReaction.createMany({
        data: toAdd.map((emoji) => ({ commentId: row.id, userId, emoji, reactedAt: now })),
        skipDuplicates: true,
      }),
    );
  }
  if (removed.length) writes.push(ctx.prisma.commentReaction.deleteMany({ where: { commentId: row.id, userId, emoji: { in: removed } } }));
  if (writes.length) await ctx.prisma.$transaction(writes);

  commentLoaders(ctx).forget([row.id, ...(resolve ? [resolve.id] : [])]);
  if (status) ctx.loaders.openCommentCount.clear(counterKey(resolve!));
}

async function reload(ctx: CoreContext, id: string): Promise<Comment> {
  const row = await commentLoaders(ctx).comment.load(id);
  if (!row) throw notFound("comment", id);
  return row;
}

/** Edits the body, resolves or reopens, adds or removes the caller's reactions. */
export async function updateComment(ctx: CoreContext, base: CommentBase, commentId: string, update: CommentUpdate): Promise<Comment> {
  const open = await openBase(ctx, base, "comment.read");
  const comment = await commentIn(ctx, open, commentId);
  await applyUpdate(ctx, open, comment, update, comment);
  return reload(ctx, comment.id);
}

/** Deletes a comment with its replies and reactions (the foreign keys cascade). */
export async function deleteComment(ctx: CoreContext, base: CommentBase, commentId: string): Promise<void> {
  const open = await openBase(ctx, base, "comment.read");
  const comment = await commentIn(ctx, open, commentId);
  await requireAuthorOrAdmin(ctx, open, comment, "comment.deleteOwn");
  await ctx.prisma.comment.delete({ where: { id: comment.id } });
  commentLoaders(ctx).forget([comment.id]);
  ctx.loaders.openCommentCount.clear(counterKey(comment));
}

// --- Replies -------------------------------------------------------------------------------------

/**
 * Replies of a comment the caller can see, oldest first. The first page of every comment of a
 * request is read in one batch (a list of comments with their replies costs the same statements
 * at any length); a later page reads that comment's replies only.
 */
export function repliesOf(ctx: CoreContext, comment: Comment, page: PageArgs): Promise<Page<Comment>> {
  const loaders = commentLoaders(ctx);
  return paginate<Comment, Prisma.CommentWhereInput>(page, {
    sortField: "postedAt",
    sortKind: "date",
    where: { parentId: comment.id },
    rows: {
      findMany: (query) => (page.after ? ctx.prisma.comment.findMany(query) : loaders.firstReplies(query.take).load(comment.id)),
      count: () => loaders.replyCount.load(comment.id),
    },
  });
}

export async function postReply(ctx: CoreContext, base: CommentBase, commentId: string, input: { body: string }): Promise<Comment> {
  const body = checkBody(input.body);
  const open = await openBase(ctx, base, "comment.post");
  const comment = await commentIn(ctx, open, commentId);
  const reply = await ctx.prisma.comment.create({
    data: {
      id: newId("CommentReply"),
      ...rowsOf(open),
      parentId: comment.id,
      body,
      postedById: ctx.viewer.userId,
      postedAt: ctx.clock.now(),
      targetRevisionId: comment.targetRevisionId,
    },
  });
  commentLoaders(ctx).forget([comment.id]);
  return remember(ctx, reply);
}

/**
 * Edits a reply's body, adds or removes the caller's reactions; on a change request, `resolved`
 * resolves or reopens the comment it replies to (a space's replies refuse it: resolve the comment).
 */
export async function updateReply(
  ctx: CoreContext,
  base: CommentBase,
  commentId: string,
  replyId: string,
  update: CommentUpdate,
): Promise<{ reply: Comment; comment: Comment }> {
  if (update.resolved != null && base.changeRequestId == null) {
    throw badInput("resolved is taken on the replies of change request comments only: resolve the comment itself");
  }
  const open = await openBase(ctx, base, "comment.read");
  const comment = await commentIn(ctx, open, commentId);
  const reply = await replyOf(ctx, comment, replyId);
  await applyUpdate(ctx, open, reply, update, update.resolved != null ? comment : null);
  return { reply: await reload(ctx, reply.id), comment: await reload(ctx, comment.id) };
}

export async function deleteReply(ctx: CoreContext, base: CommentBase, commentId: string, replyId: string): Promise<void> {
  const open = await openBase(ctx, base, "comment.read");
  const comment = await commentIn(ctx, open, commentId);
  const reply = await replyOf(ctx, comment, replyId);
  await requireAuthorOrAdmin(ctx, open, reply, "comment.deleteOwn");
  await ctx.prisma.comment.delete({ where: { id: reply.id } });
  commentLoaders(ctx).forget([reply.id, comment.id]);
}

// --- Commenters ----------------------------------------------------------------------------------

/** The organization's members who posted a comment or a reply on the base, latest joined first. */
export async function listCommenters(ctx: CoreContext, base: CommentBase, page: PageArgs): Promise<Page<Member>> {
  const open = await openBase(ctx, base, "comment.read");
  const authors = await ctx.prisma.comment.findMany({ where: rowsOf(open), distinct: ["postedById"], select: { postedById: true } });
  const result = await paginate<Member, Prisma.MemberWhereInput>(page, {
    sortField: "joinedAt",
    sortKind: "date",
    direction: "desc",
    idField: "userId",
    where: { organizationId: open.space.organizationId, userId: { in: authors.map((row) => row.postedById) } },
    rows: ctx.prisma.member,
  });
  for (const member of result.items) ctx.loaders.member.prime(memberKey(member.organizationId, member.userId), member);
  return result;
}

// --- What a comment shows ------------------------------------------------------------------------

export interface ReactionGroup {
  emoji: string;
  users: { userId: string; reactedAt: Date }[];
}

/** Reactions of a comment or reply by emoji, in the order each emoji was first used. */
export async function reactionsOf(ctx: CoreContext, row: Comment): Promise<ReactionGroup[]> {
  const groups = new Map<string, ReactionGroup>();
  for (const reaction of await commentLoaders(ctx).reactions.load(row.id)) {
    let group = groups.get(reaction.emoji);
    if (!group) groups.set(reaction.emoji, (group = { emoji: reaction.emoji, users: [] }));
    group.users.push({ userId: reaction.userId, reactedAt: reaction.reactedAt });
  }
  return [...groups.values()];
}

export const replyCountOf = (ctx: CoreContext, comment: Comment): Promise<number> => commentLoaders(ctx).replyCount.load(comment.id);
export const repliersOf = (ctx: CoreContext, comment: Comment): Promise<Replier[]> => commentLoaders(ctx).repliers.load(comment.id);

/** The revision that is now the head of the comment's base. */
async function currentHeadOf(ctx: CoreContext, comment: Comment): Promise<Revision | null> {
  const owner = comment.changeRequestId
    ? await ctx.loaders.changeRequest.load(comment.changeRequestId)
    : await ctx.loaders.space.load(comment.spaceId);
  return owner ? ctx.loaders.revision.load(owner.revisionId) : null;
}

export interface TargetPage {
  page: PageNode;
  path: string;
  /**
   * True when the page is no longer what the comment was posted on: in the base's current head
   * it is gone, or its title or body differ from the revision the comment targets.
   */
  outdated: boolean;
}

/** The page a comment is on, as it was in the revision it targets (null: not on a page). */
export async function targetPageOf(ctx: CoreContext, comment: Comment): Promise<TargetPage | null> {
  if (!comment.targetPageId) return null;
  const [target, head] = await Promise.all([ctx.loaders.revision.load(comment.targetRevisionId), currentHeadOf(ctx, comment)]);
  const then = target ? findPage(contentOf(target).pages, comment.targetPageId) : undefined;
  const now = head ? findPage(contentOf(head).pages, comment.targetPageId) : undefined;
  const shown = then ?? now;
  if (!shown) return null;
  const outdated = !now || now.page.title !== shown.page.title || now.page.body !== shown.page.body;
  return { page: shown.page, path: shown.path, outdated };
}

/**
 * What the comment's node is, for a reader: the title of the section of the target page whose
 * heading anchor is the node id; null when no heading has that anchor.
 */
export async function nodePreviewOf(ctx: CoreContext, comment: Comment): Promise<string | null> {
  if (!comment.targetNodeId || !comment.targetPageId) return null;
  const target = await ctx.loaders.revision.load(comment.targetRevisionId);
  const page = target ? findPage(contentOf(target).pages, comment.targetPageId)?.page : undefined;
  if (!page?.body) return null;
  const markdown = (await markdownOf(ctx, page)) ?? "";
  return (
    sectionsOf(page.title, markdown).find((section) => section.anchor !== "" && section.anchor === comment.targetNodeId)?.title ?? null
  );
}
