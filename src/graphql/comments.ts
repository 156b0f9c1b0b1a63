// Comments and their replies, on a space or on a change request: the node types, the lists of a
// space and of a change request (comments, commenters), and the mutations. Rules are in
// src/core/comments; every relation here goes through the request's loaders.
//
// The users a comment shows (author, resolver, reacting users, repliers) are read as rows, not
// through the User node's visibility: they stay shown on a comment the caller can read after
// they left the organization.
import { commentStatusOf } from "../core/storage-types.ts";
import type { Comment, User } from "../generated/prisma/client.ts";
import type { CoreContext } from "../core/context.ts";
import {
  COMMENT_BODY_MAX,
  COMMENT_STATUS_FILTERS,
  COMMENT_STATUSES,
  REACTION_MAX,
  commentPermissions,
  deleteComment,
  deleteReply,
  getComment,
  listCommenters,
  listComments,
  nodePreviewOf,
  postComment,
  postReply,
  reactionsOf,
  readCommentOrReply,
  repliersOf,
  replyOf,
  repliesOf,
  replyCountOf,
  targetPageOf,
  updateComment,
  updateReply,
  type CommentBase,
  type ReactionGroup,
  type Replier,
  type TargetPage,
} from "../core/comments/index.ts";
import { markdownToDocument } from "../core/content/document.ts";
import { builder } from "./builder.ts";
import { ChangeRequestRef } from "./change-requests.ts";
import { enumName, toConnection, payloadDescription } from "./common.ts";
import { ContentTargetRef, RevisionRef } from "./content.ts";
import { MemberRef } from "./member-refs.ts";
import { ListOrder } from "./members.ts";
import { UserRef } from "./organizations.ts";
import { SpaceRef } from "./spaces.ts";

function enumOf<T extends string>(name: string, description: string, values: readonly T[]) {
  return builder.enumType(name, {
    description,
    values: Object.fromEntries(values.map((value) => [enumName(value), { value }])) as Record<Uppercase<T>, { value: T }>,
  });
}

const CommentStatus = enumOf("CommentStatus", "open, or resolved (by `resolved` in an update)", COMMENT_STATUSES);
const CommentStatusFilter = enumOf("CommentStatusFilter", "Which comments a list holds, by status", COMMENT_STATUS_FILTERS);

/** A user a comment (or a review) shows, as a row (see the top of this file). */
export async function shownUser(core: CoreContext, userId: string): Promise<User> {
  const user = await core.loaders.user.load(userId);
  if (!user) throw new Error(`User ${userId} of a comment is missing`);
  return user;
}

/** The API path of a comment or reply, under its base. */
function pathOf(row: Comment): string {
  const base = `/spaces/${row.spaceId}${row.changeRequestId ? `/change-requests/${row.changeRequestId}` : ""}`;
  return row.parentId ? `${base}/comments/${row.parentId}/replies/${row.id}` : `${base}/comments/${row.id}`;
}

const CommentBody = builder.objectRef<string>("CommentBody").implement({
  description: "The body of a comment or reply: markdown as posted, or parsed into a document tree",
  fields: (t) => ({
    markdown: t.string({ description: "The body as Markdown, as it was posted", resolve: (markdown) => markdown }),
    document: t.field({
      description: "The body as a document tree (the published API's JSONDocument)",
      type: "JSON",
      resolve: (markdown) => markdownToDocument(markdown),
    }),
  }),
});

const EmojiReactionUser = builder.objectRef<{ userId: string; reactedAt: Date }>("EmojiReactionUser").implement({
  description: "A user who reacted with an emoji, and when",
  fields: (t) => ({
    user: t.field({ description: "The user who reacted", type: UserRef, resolve: (r, _args, { core }) => shownUser(core, r.userId) }),
    reactedAt: t.field({ description: "When the user reacted", type: "DateTime", resolve: (r) => r.reactedAt }),
  }),
});

const EmojiReaction = builder.objectRef<ReactionGroup>("EmojiReaction").implement({
  description: "The users who reacted with one emoji (each user once)",
  fields: (t) => ({
    emoji: t.string({ description: "The emoji", resolve: (r) => r.emoji }),
    count: t.int({ description: "How many users reacted with this emoji", resolve: (r) => r.users.length }),
    users: t.field({ type: [EmojiReactionUser], description: "In the order they reacted", resolve: (r) => r.users }),
  }),
});

const CommentReplier = builder.objectRef<Replier>("CommentReplier").implement({
  description: "A user who replied to a comment",
  fields: (t) => ({
    user: t.field({ description: "A user who replied", type: UserRef, resolve: (r, _args, { core }) => shownUser(core, r.userId) }),
    count: t.int({ description: "How many replies they posted", resolve: (r) => r.count }),
    updatedAt: t.field({ type: "DateTime", description: "When they last replied", resolve: (r) => r.updatedAt }),
  }),
});

const CommentPermissions = builder.simpleObject("CommentPermissions", {
  description: "What the caller may do with the comment or reply",
  fields: (t) => ({
    view: t.boolean({ description: "Whether the caller may read the comment" }),
    edit: t.boolean({ description: "Edit the body: its author, or an admin of the space" }),
    reply: t.boolean({ description: "Reply and react" }),
    delete: t.boolean({ description: "Its author, or an admin of the space" }),
  }),
});

const CommentUrls = builder.simpleObject("CommentUrls", {
  description: "Addresses of a comment or reply",
  fields: (t) => ({ location: t.string({ description: "URL of the comment in the REST API" }) }),
});

const CommentTargetNode = builder.objectRef<Comment>("CommentTargetNode").implement({
  description: "The place in the page the comment is attached to",
  fields: (t) => ({
    id: t.id({ description: "Id of the place (a block) in the page", resolve: (c) => c.targetNodeId! }),
    preview: t.string({
      nullable: true,
      description: "The title of the page section whose heading anchor is the node id (as in the target revision); null when none is",
      resolve: (c, _args, { core }) => nodePreviewOf(core, c),
    }),
  }),
});

const CommentTargetPage = builder.objectRef<TargetPage>("CommentTargetPage").implement({
  description: "The page a comment is on, as it was in the revision the comment targets",
  fields: (t) => ({
    id: t.id({ description: "Id of the page", resolve: (p) => p.page.id }),
    title: t.string({ description: "Title of the page", resolve: (p) => p.page.title }),
    emoji: t.string({ description: "Emoji of the page; null when none", nullable: true, resolve: (p) => p.page.emoji ?? null }),
    icon: t.string({ description: "Icon of the page; null when none", nullable: true, resolve: (p) => p.page.icon ?? null }),
    createdAt: t.field({ description: "When the page was created", type: "DateTime", resolve: (p) => new Date(p.page.createdAt) }),
    updatedAt: t.field({ description: "When the page last changed", type: "DateTime", resolve: (p) => new Date(p.page.updatedAt) }),
    path: t.string({ description: "Path of the page in its content", resolve: (p) => p.path }),
    outdated: t.boolean({
      description:
        "True when, in the current head of the comment's space or change request, the page is gone or its title or body changed since",
      resolve: (p) => p.outdated,
    }),
  }),
});

const CommentTarget = builder.objectRef<Comment>("CommentTarget").implement({
  description: "What a comment is about",
  fields: (t) => ({
    node: t.field({
      description: "The place in the page the comment is attached to; null for the whole page",
      type: CommentTargetNode,
      nullable: true,
      resolve: (c) => (c.targetNodeId ? c : null),
    }),
    page: t.field({
      description: "The page the comment is on; null for a comment on the whole content",
      type: CommentTargetPage,
      nullable: true,
      resolve: (c, _args, { core }) => targetPageOf(core, c),
    }),
    changeRequest: t.field({
      description: "The change request the comment is on; null for a comment on the space",
      type: ChangeRequestRef,
      nullable: true,
      resolve: (c) => c.changeRequestId,
    }),
    space: t.field({ description: "The space the comment belongs to", type: SpaceRef, resolve: (c) => c.spaceId }),
    revision: t.field({
      type: RevisionRef,
      description: "The head of the space or change request when the comment was posted",
      resolve: (c) => c.targetRevisionId,
    }),
  }),
});

/** Fields comments and replies share. */
const postedFields = (t: PothosSchemaTypes.ObjectFieldBuilder<Types, Comment>) => ({
  postedBy: t.field({ description: "Who posted it", type: UserRef, resolve: (c, _args, { core }) => shownUser(core, c.postedById) }),
  postedAt: t.expose("postedAt", { description: "When it was posted", type: "DateTime" }),
  editedAt: t.expose("editedAt", { type: "DateTime", nullable: true, description: "When the body was last edited" }),
  reactions: t.field({
    description: "Emoji reactions, one entry per emoji with its count",
    type: [EmojiReaction],
    resolve: (c, _args, { core }) => reactionsOf(core, c),
  }),
  body: t.field({ type: CommentBody, description: `Markdown, 1 to ${COMMENT_BODY_MAX} characters`, resolve: (c) => c.body }),
  permissions: t.field({
    description: "What the caller may do with it",
    type: CommentPermissions,
    resolve: (c, _args, { core }) => commentPermissions(core, c),
  }),
  urls: t.field({
    description: "Addresses of it in the REST API",
    type: CommentUrls,
    resolve: (c, _args, { core }) => ({ location: core.urls.api(pathOf(c)) }),
  }),
});

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;

export const CommentRef = builder.loadableNode("Comment", {
  description: "A comment on a space or on a change request, possibly on a page",
  id: { resolve: (comment: Comment) => comment.id },
  // Found only when the caller can read the comment's space (404 otherwise, like any node).
  load: (ids: string[], { core }) => Promise.all(ids.map((id) => readCommentOrReply(core, id, "comment").catch((error: Error) => error))),
  fields: (t) => ({
    ...postedFields(t),
    status: t.field({ description: "open or resolved", type: CommentStatus, resolve: (c) => commentStatusOf(c.status) }),
    resolvedAt: t.expose("resolvedAt", { description: "When the comment was resolved; null while open", type: "DateTime", nullable: true }),
    resolvedBy: t.field({
      description: "Who resolved the comment; null while open",
      type: UserRef,
      nullable: true,
      resolve: (c, _args, { core }) => (c.resolvedById ? shownUser(core, c.resolvedById) : null),
    }),
    replyCount: t.int({ description: "Number of replies", resolve: (c, _args, { core }) => replyCountOf(core, c) }),
    repliers: t.field({
      type: [CommentReplier],
      description: "In the order of their last reply",
      resolve: (c, _args, { core }) => repliersOf(core, c),
    }),
    target: t.field({
      description: "What the comment is about: the space or a change request, and the page and place in it if any",
      type: CommentTarget,
      resolve: (c) => c,
    }),
  }),
});

export const CommentReplyRef = builder.loadableNode("CommentReply", {
  description: "A reply to a comment",
  id: { resolve: (reply: Comment) => reply.id },
  load: (ids: string[], { core }) => Promise.all(ids.map((id) => readCommentOrReply(core, id, "reply").catch((error: Error) => error))),
  fields: (t) => ({
    ...postedFields(t),
    comment: t.field({ type: CommentRef, description: "The comment it replies to", resolve: (r) => r.parentId! }),
  }),
});

const CommentReplyConnection = builder.connectionObject(
  { type: CommentReplyRef, name: "CommentReplyConnection" },
  { name: "CommentReplyEdge" },
);

builder.objectFields(CommentRef, (t) => ({
  replies: t.connection(
    {
      type: CommentReplyRef,
      description: "Replies, oldest first",
      resolve: async (c, args, { core }) => toConnection(await repliesOf(core, c, args)),
    },
    CommentReplyConnection,
  ),
  reply: t.field({
    type: CommentReplyRef,
    description: "A reply to this comment (not found when it replies to another)",
    args: { id: t.arg.id({ required: true }) },
    resolve: (c, { id }, { core }) => replyOf(core, c, id),
  }),
}));

const CommentConnection = builder.connectionObject({ type: CommentRef, name: "CommentConnection" }, { name: "CommentEdge" });
const CommenterConnection = builder.connectionObject({ type: MemberRef, name: "CommenterConnection" }, { name: "CommenterEdge" });

const commentListArgs = builder.args((t) => ({
  order: t.field({ type: ListOrder, defaultValue: "desc", description: "By postedAt (default: desc, newest first)" }),
  status: t.field({ type: CommentStatusFilter, defaultValue: "all", description: "default: all" }),
  targetPage: t.id({ description: "Only the comments on this page" }),
  authors: t.idList({ description: "Only the comments posted by these users (user ids)" }),
}));

/** `comments` and `commenters` of a space or a change request. */
function commentLists<Parent>(baseOf: (parent: Parent) => CommentBase, kind: "space" | "change request" | "target") {
  const on = {
    space: "the space itself (not on its change requests)",
    "change request": "the change request",
    target: "the target: the space itself, or the change request when one is given",
  }[kind];
  return (t: PothosSchemaTypes.ObjectFieldBuilder<Types, Parent>) => ({
    comments: t.connection(
      {
        type: CommentRef,
        description: `Comments on ${on}, newest first unless asked otherwise (each lists its own replies)`,
        args: commentListArgs,
        resolve: async (parent, args, { core }) => toConnection(await listComments(core, baseOf(parent), args, args)),
      },
      CommentConnection,
    ),
    comment: t.field({
      type: CommentRef,
      description: `A comment on ${on} by id (not found when it is elsewhere)`,
      args: { id: t.arg.id({ required: true }) },
      resolve: (parent, { id }, { core }) => getComment(core, baseOf(parent), id),
    }),
    commenters: t.connection(
      {
        type: MemberRef,
        description: `Members of the organization who commented or replied on ${on}`,
        resolve: async (parent, args, { core }) => toConnection(await listCommenters(core, baseOf(parent), args)),
      },
      CommenterConnection,
    ),
  });
}

builder.objectFields(
  SpaceRef,
  commentLists((space) => ({ spaceId: space.id }), "space"),
);
builder.objectFields(
  ChangeRequestRef,
  commentLists((changeRequest) => ({ spaceId: changeRequest.spaceId, changeRequestId: changeRequest.id }), "change request"),
);
// One operation serves both bases of the REST comment routes.
builder.objectFields(
  ContentTargetRef,
  commentLists((head) => ({ spaceId: head.space.id, changeRequestId: head.changeRequest?.id ?? null }), "target"),
);

// --- Mutations -----------------------------------------------------------------------------------

type Fields = PothosSchemaTypes.InputFieldBuilder<Types, "InputObject">;

const baseFields = (f: Fields) => ({
  space: f.id({ description: "Id of the space", required: true }),
  changeRequest: f.id({ description: "A change request of the space (its id or number); absent: the space itself" }),
});

const BODY = `Markdown, 1 to ${COMMENT_BODY_MAX} characters`;
const updateFields = (f: Fields) => ({
  body: f.string({ description: `${BODY}; null leaves it` }),
  addedReactions: f.stringList({
    description: `Emojis (at most ${REACTION_MAX} characters each) the caller reacts with; reacting twice counts once`,
  }),
  removedReactions: f.stringList({ description: "Emojis whose reaction of the caller goes (removal wins over addition)" }),
});

const baseOf = (input: { space: string; changeRequest?: string | null }): CommentBase => ({
  spaceId: input.space,
  changeRequestId: input.changeRequest,
});

const CommentPayload = (name: string) =>
  builder.simpleObject(name, {
    description: payloadDescription(name),
    fields: (p) => ({ comment: p.field({ description: "The comment, as it stands after the change", type: CommentRef }) }),
  });
const ReplyPayload = (name: string) =>
  builder.simpleObject(name, {
    description: payloadDescription(name),
    fields: (p) => ({
      reply: p.field({ description: "The reply, as it stands after the change", type: CommentReplyRef }),
      comment: p.field({ type: CommentRef, description: "The comment it replies to" }),
    }),
  });

builder.mutationFields((t) => ({
  postComment: t.field({
    type: CommentPayload("PostCommentPayload"),
    description: "Comments on a space or a change request, on one of its pages when `page` is given (at a place in it: `node`)",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("PostCommentInput", {
          description: "Input of the postComment mutation",
          fields: (f) => ({
            ...baseFields(f),
            page: f.id({ description: "A page of the current head of the space or change request" }),
            node: f.id({ description: "A place in the page (needs page)" }),
            body: f.string({ required: true, description: BODY }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({ comment: await postComment(core, baseOf(input), input) }),
  }),
  updateComment: t.field({
    type: CommentPayload("UpdateCommentPayload"),
    description: "Edits the body (author or space admin), resolves or reopens, or changes the caller's reactions",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UpdateCommentInput", {
          description: "Input of the updateComment mutation",
          fields: (f) => ({
            ...baseFields(f),
            comment: f.id({ description: "Id of the comment", required: true }),
            ...updateFields(f),
            resolved: f.boolean({ description: "true resolves, false reopens; null leaves it" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({ comment: await updateComment(core, baseOf(input), input.comment, input) }),
  }),
  deleteComment: t.field({
    type: builder.simpleObject("DeleteCommentPayload", {
      description: "Result of the deleteComment mutation",
      fields: (p) => ({ deletedCommentId: p.id({ description: "Id of the comment deleted" }) }),
    }),
    description: "Deletes a comment with its replies and reactions (author or space admin)",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("DeleteCommentInput", {
          description: "Input of the deleteComment mutation",
          fields: (f) => ({ ...baseFields(f), comment: f.id({ description: "Id of the comment", required: true }) }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => {
      await deleteComment(core, baseOf(input), input.comment);
      return { deletedCommentId: input.comment };
    },
  }),
  postCommentReply: t.field({
    description: "Replies to a comment",
    type: ReplyPayload("PostCommentReplyPayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("PostCommentReplyInput", {
          description: "Input of the postCommentReply mutation",
          fields: (f) => ({
            ...baseFields(f),
            comment: f.id({ description: "Id of the comment", required: true }),
            body: f.string({ required: true, description: BODY }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => {
      const reply = await postReply(core, baseOf(input), input.comment, input);
      return { reply, comment: await getComment(core, baseOf(input), input.comment) };
    },
  }),
  updateCommentReply: t.field({
    type: ReplyPayload("UpdateCommentReplyPayload"),
    description:
      "Edits the body (author or space admin) or changes the caller's reactions; on a change request, resolves or reopens the comment",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UpdateCommentReplyInput", {
          description: "Input of the updateCommentReply mutation",
          fields: (f) => ({
            ...baseFields(f),
            comment: f.id({ description: "Id of the comment", required: true }),
            reply: f.id({ description: "Id of the reply", required: true }),
            ...updateFields(f),
            resolved: f.boolean({ description: "Change requests only: true resolves the comment, false reopens it; null leaves it" }),
          }),
        }),
      }),
    },
    resolve: (_root, { input }, { core }) => updateReply(core, baseOf(input), input.comment, input.reply, input),
  }),
  deleteCommentReply: t.field({
    type: builder.simpleObject("DeleteCommentReplyPayload", {
      description: "Result of the deleteCommentReply mutation",
      fields: (p) => ({ deletedCommentReplyId: p.id({ description: "Id of the reply deleted" }) }),
    }),
    description: "Deletes a reply with its reactions (author or space admin)",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("DeleteCommentReplyInput", {
          description: "Input of the deleteCommentReply mutation",
          fields: (f) => ({
            ...baseFields(f),
            comment: f.id({ description: "Id of the comment", required: true }),
            reply: f.id({ description: "Id of the reply", required: true }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => {
      await deleteReply(core, baseOf(input), input.comment, input.reply);
      return { deletedCommentReplyId: input.reply };
    },
  }),
}));
