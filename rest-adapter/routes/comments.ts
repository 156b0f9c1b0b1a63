// Comments, replies and commenters, on the two bases of the published API: the space itself
// (`/v1/spaces/:spaceId/comments…`) and a change request (`…/change-requests/:changeRequestId/
// comments…`, by id or number). Each route reaches the comment through its base, so an id
// addressed through another base is 404.
//
// `format` (`markdown` | `document`, default `markdown`: the body as it was posted) picks the
// body's form on every route that answers a comment or reply. Bodies are taken as `{ markdown }`
// only. Posting answers 200 and deleting 205, as the published spec has them; deleting what does
// not exist is a 404, as everywhere else.
import type { TadaDocumentNode } from "gql.tada";
import { COMMENT_ORDERS, COMMENT_STATUS_FILTERS } from "../../src/core/comments/index.ts";
import { graphql, type FragmentOf } from "../graphql.ts";
import {
  compact,
  formatVariables,
  graphqlEnum,
  ListInfo,
  listBody,
  pageVariables,
  RestInputError,
  type RestRequest,
  type RestRoute,
  typedRoute,
} from "../route.ts";
import { MemberFields, restMember, restUser, UserFields } from "./members.ts";
import { quote } from "../../src/core/errors.ts";

/** The fields comments and replies share (what `restPosted` reads). */
const POSTED_FIELDS = `
    id postedAt editedAt
    postedBy { ...UserFields }
    reactions { emoji count users { reactedAt user { ...UserFields } } }
    body { markdown @include(if: $markdown) document @include(if: $document) }
    permissions { view edit reply delete }
    urls { location }` as const;

export const CommentFields = graphql(
  `fragment CommentFields on Comment {
    ${POSTED_FIELDS}
    status resolvedAt
    resolvedBy { ...UserFields }
    replyCount
    repliers { count updatedAt user { ...UserFields } }
    target {
      node { id preview }
      page { id title emoji icon createdAt updatedAt path outdated }
      changeRequest { id }
      space { id }
      revision { id }
    }
  }`,
  [UserFields],
);

const CommentReplyFields = graphql(
  `fragment CommentReplyFields on CommentReply {
    ${POSTED_FIELDS}
  }`,
  [UserFields],
);

/** A comment or a reply as POSTED_FIELDS has it. */
type Posted = FragmentOf<typeof CommentReplyFields>;

function restPosted(c: Posted) {
  return {
    id: c.id,
    postedBy: restUser(c.postedBy),
    postedAt: c.postedAt,
    ...compact({ editedAt: c.editedAt }),
    reactions: c.reactions.map((r) => ({
      emoji: r.emoji,
      count: r.count,
      users: r.users.map((u) => ({ user: restUser(u.user), reactedAt: u.reactedAt })),
    })),
    body: compact(c.body),
    urls: c.urls,
    permissions: c.permissions,
  };
}

export function restComment(c: FragmentOf<typeof CommentFields>) {
  const { node, page, changeRequest, space, revision } = c.target;
  return {
    object: "comment",
    ...restPosted(c),
    replies: c.replyCount,
    repliers: c.repliers.map((r) => ({ user: restUser(r.user), count: r.count, updatedAt: r.updatedAt })),
    target: {
      ...compact({
        node: node ? compact(node) : null,
        page: page ? compact(page) : null,
        changeRequest: changeRequest?.id,
      }),
      space: space.id,
      revision: revision.id,
    },
    status: c.status.toLowerCase(),
    ...(c.resolvedAt && c.resolvedBy ? { resolvedAt: c.resolvedAt, resolvedBy: restUser(c.resolvedBy) } : {}),
  };
}

const restReply = (r: Posted) => ({ object: "comment-reply", ...restPosted(r) });

/** A body field (`field`): `{ markdown }`. A document tree is not converted (400). */
export function markdownIn(value: unknown, field = "body"): string {
  const markdown = typeof value === "object" && value !== null ? (value as { markdown?: unknown }).markdown : undefined;
  if (typeof markdown !== "string")
    throw new RestInputError(`${field} must be { "markdown": "<text>" } (got ${JSON.stringify(value) ?? "nothing"})`);
  return markdown;
}

function optional<T>(body: Record<string, unknown>, field: string, check: (value: unknown) => value is T, what: string): T | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (!check(value)) throw new RestInputError(`${field} must be ${what} (got ${quote(value)})`);
  return value;
}

const isString = (value: unknown): value is string => typeof value === "string";
const isBoolean = (value: unknown): value is boolean => typeof value === "boolean";
const isStringList = (value: unknown): value is string[] => Array.isArray(value) && value.every(isString);

/** The fields of a PUT body, as the update input takes them. */
function updateInput(body: Record<string, unknown>) {
  return {
    ...(body.body != null ? { body: markdownIn(body.body) } : {}),
    resolved: optional(body, "resolved", isBoolean, "true or false"),
    addedReactions: optional(body, "addedReactions", isStringList, "a list of emojis"),
    removedReactions: optional(body, "removedReactions", isStringList, "a list of emojis"),
  };
}

const FORMAT_QUERY = { format: "string" } as const;
const LIST_QUERY = { page: "string", limit: "limit" } as const;

/** The space's comment rows; the change request's are the same rows under its path. */
const COMMENTS = "/v1/spaces/:spaceId/comments";
const COMMENT = `${COMMENTS}/:commentId`;
const REPLY = `${COMMENT}/replies/:commentReplyId`;
/** The base of every operation: the space, or its change request when the path names one. */
const baseVariables = ({ params }: RestRequest) => ({ space: params.spaceId, changeRequest: params.changeRequestId ?? null });
/** The comment, or the reply, the path names. */
const commentOf = ({ params }: RestRequest) => ({ comment: params.commentId });
const replyOf = ({ params }: RestRequest) => ({ comment: params.commentId, reply: params.commentReplyId });

/** What every row answering a comment or reply shares: `format` read, 200. */
type PostedRow<Result, Variables, Body> = Pick<RestRoute, "method" | "path" | "action"> & {
  document: TadaDocumentNode<Result, Variables>;
  body: (data: Result) => Body;
};

/** A row reading one comment or reply (`key`: the path's ids of it) through its base. */
function readRoute<Result, Variables, Body>(
  row: PostedRow<Result, Variables, Body> & { key: (request: RestRequest) => Record<string, string> },
): RestRoute {
  const { key, ...rest } = row;
  return typedRoute({
    ...rest,
    query: FORMAT_QUERY,
    variables: (request) => ({ ...baseVariables(request), ...key(request), ...formatVariables(request, "markdown") }),
    status: 200,
  });
}

/** A row writing a comment or reply (POST, PUT): its input names the base, then the fields `input` reads. */
function writeRoute<Result, Variables, Body>(
  row: PostedRow<Result, Variables, Body> & { input: (request: RestRequest) => Record<string, unknown> },
): RestRoute {
  const { input, ...rest } = row;
  return typedRoute({
    ...rest,
    query: FORMAT_QUERY,
    variables: (request) => ({ ...formatVariables(request, "markdown"), input: { ...baseVariables(request), ...input(request) } }),
    status: 200,
  });
}

const CHANGED_FIELDS = { Comment: "comment", CommentReply: "reply" } as const;

/**
 * The documents changing and deleting a comment or a reply: one text for both kinds
 * (`UpdateComment`, `deleteCommentReply`…). The names are literal types, so gql.tada reads each
 * kind's documents whole.
 */
function changeDocuments<Kind extends keyof typeof CHANGED_FIELDS, Fields extends typeof CommentFields | typeof CommentReplyFields>(
  kind: Kind,
  fields: Fields,
) {
  const field = CHANGED_FIELDS[kind];
  return {
    update: graphql(
      `mutation Update${kind}($input: Update${kind}Input!, $markdown: Boolean!, $document: Boolean!) {
        update${kind}(input: $input) { ${field} { ...${kind}Fields } }
      }`,
      [fields],
    ),
    remove: graphql(`mutation Delete${kind}($input: Delete${kind}Input!) { delete${kind}(input: $input) { deleted${kind}Id } }`),
  };
}

/**
 * Changing (PUT) and deleting (DELETE) one comment or reply, alike in the published API: `path`
 * and `key` name it, `answer` is the body of a change. Body edits need the author or a space
 * admin; `resolved` and reactions, the comment role (on a change request, a reply's `resolved`
 * resolves or reopens the comment replied to).
 */
function changeRoutes<Update, UpdateVariables, Removed, RemoveVariables, Body>(
  path: string,
  key: (request: RestRequest) => Record<string, string>,
  documents: { update: TadaDocumentNode<Update, UpdateVariables>; remove: TadaDocumentNode<Removed, RemoveVariables> },
  answer: (data: Update) => Body,
): RestRoute[] {
  return [
    writeRoute({
      method: "PUT",
      path,
      action: "comment.editOwn",
      document: documents.update,
      input: (request) => ({ ...key(request), ...updateInput(request.body) }),
      body: answer,
    }),
    typedRoute({
      method: "DELETE",
      path,
      action: "comment.deleteOwn",
      document: documents.remove,
      variables: (request) => ({ input: { ...baseVariables(request), ...key(request) } }),
      status: 205,
    }),
  ];
}

const spaceCommentRoutes: RestRoute[] = [
  typedRoute({
    method: "GET",
    path: COMMENTS,
    action: "comment.read",
    query: { ...LIST_QUERY, ...FORMAT_QUERY, order: "string", status: "string", targetPage: "string", authors: "string[]" },
    document: graphql(
      `query ListComments(
        $space: ID!, $changeRequest: ID, $first: Int, $after: String, $order: ListOrder, $status: CommentStatusFilter, $targetPage: ID,
        $authors: [ID!], $markdown: Boolean!, $document: Boolean!
      ) {
        contentTarget(space: $space, changeRequest: $changeRequest) {
          comments(first: $first, after: $after, order: $order, status: $status, targetPage: $targetPage, authors: $authors) {
            totalCount pageInfo { ...ListInfo } nodes { ...CommentFields }
          }
        }
      }`,
      [CommentFields, ListInfo],
    ),
    variables: (request) => ({
      ...baseVariables(request),
      ...pageVariables(request.query),
      ...formatVariables(request, "markdown"),
      order: request.query.order === undefined ? undefined : graphqlEnum("order", request.query.order, COMMENT_ORDERS),
      status: request.query.status === undefined ? undefined : graphqlEnum("status", request.query.status, COMMENT_STATUS_FILTERS),
      targetPage: request.query.targetPage,
      authors: request.query.authors,
    }),
    status: 200,
    body: (data) => listBody(data.contentTarget.comments, restComment),
  }),
  writeRoute({
    method: "POST",
    path: COMMENTS,
    action: "comment.post",
    document: graphql(
      `mutation PostComment($input: PostCommentInput!, $markdown: Boolean!, $document: Boolean!) {
        postComment(input: $input) { comment { ...CommentFields } }
      }`,
      [CommentFields],
    ),
    input: (request) => ({
      body: markdownIn(request.body.body),
      page: optional(request.body, "page", isString, "a page id"),
      node: optional(request.body, "node", isString, "a node id"),
    }),
    body: (data) => restComment(data.postComment.comment),
  }),
  readRoute({
    method: "GET",
    path: COMMENT,
    action: "comment.read",
    document: graphql(
      `query GetComment($space: ID!, $changeRequest: ID, $comment: ID!, $markdown: Boolean!, $document: Boolean!) {
        contentTarget(space: $space, changeRequest: $changeRequest) { comment(id: $comment) { ...CommentFields } }
      }`,
      [CommentFields],
    ),
    key: commentOf,
    body: (data) => restComment(data.contentTarget.comment),
  }),
  ...changeRoutes(COMMENT, commentOf, changeDocuments("Comment", CommentFields), (data) => restComment(data.updateComment.comment)),
  typedRoute({
    method: "GET",
    path: `${COMMENT}/replies`,
    action: "comment.read",
    query: { ...LIST_QUERY, ...FORMAT_QUERY },
    document: graphql(
      `query ListCommentReplies(
        $space: ID!, $changeRequest: ID, $comment: ID!, $first: Int, $after: String, $markdown: Boolean!, $document: Boolean!
      ) {
        contentTarget(space: $space, changeRequest: $changeRequest) {
          comment(id: $comment) { replies(first: $first, after: $after) { totalCount pageInfo { ...ListInfo } nodes { ...CommentReplyFields } } }
        }
      }`,
      [CommentReplyFields, ListInfo],
    ),
    variables: (request) => ({
      ...baseVariables(request),
      ...commentOf(request),
      ...pageVariables(request.query),
      ...formatVariables(request, "markdown"),
    }),
    status: 200,
    body: (data) => listBody(data.contentTarget.comment.replies, restReply),
  }),
  writeRoute({
    method: "POST",
    path: `${COMMENT}/replies`,
    action: "comment.post",
    document: graphql(
      `mutation PostCommentReply($input: PostCommentReplyInput!, $markdown: Boolean!, $document: Boolean!) {
        postCommentReply(input: $input) { reply { ...CommentReplyFields } }
      }`,
      [CommentReplyFields],
    ),
    input: (request) => ({ ...commentOf(request), body: markdownIn(request.body.body) }),
    body: (data) => restReply(data.postCommentReply.reply),
  }),
  readRoute({
    method: "GET",
    path: REPLY,
    action: "comment.read",
    document: graphql(
      `query GetCommentReply($space: ID!, $changeRequest: ID, $comment: ID!, $reply: ID!, $markdown: Boolean!, $document: Boolean!) {
        contentTarget(space: $space, changeRequest: $changeRequest) { comment(id: $comment) { reply(id: $reply) { ...CommentReplyFields } } }
      }`,
      [CommentReplyFields],
    ),
    key: replyOf,
    body: (data) => restReply(data.contentTarget.comment.reply),
  }),
  ...changeRoutes(REPLY, replyOf, changeDocuments("CommentReply", CommentReplyFields), (data) => restReply(data.updateCommentReply.reply)),
  typedRoute({
    method: "GET",
    path: "/v1/spaces/:spaceId/commenters",
    action: "comment.read",
    query: LIST_QUERY,
    document: graphql(
      `query ListCommenters($space: ID!, $changeRequest: ID, $first: Int, $after: String) {
        contentTarget(space: $space, changeRequest: $changeRequest) {
          commenters(first: $first, after: $after) { totalCount pageInfo { ...ListInfo } nodes { ...MemberFields } }
        }
      }`,
      [MemberFields, ListInfo],
    ),
    variables: (request) => ({ ...baseVariables(request), ...pageVariables(request.query) }),
    status: 200,
    body: (data) => listBody(data.contentTarget.commenters, restMember),
  }),
];

const SPACE = "/v1/spaces/:spaceId";
const CHANGE_REQUEST = "/v1/spaces/:spaceId/change-requests/:changeRequestId";

export const commentsRoutes: RestRoute[] = [
  ...spaceCommentRoutes,
  ...spaceCommentRoutes.map((route) => ({ ...route, path: CHANGE_REQUEST + route.path.slice(SPACE.length) })),
];
