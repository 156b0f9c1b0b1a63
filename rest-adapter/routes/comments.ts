// Comments, replies and commenters, on the two bases of the published API: the space itself
// (`/v1/spaces/:spaceId/comments…`) and a change request (`…/change-requests/:changeRequestId/
// comments…`, by id or number). Each route reaches the comment through its base, so an id
// addressed through another base is 404.
//
// `format` (`markdown` | `document`, default `markdown`: the body as it was posted) picks the
// body's form on every route that answers a comment or reply. Bodies are taken as `{ markdown }`
// only. Posting answers 200 and deleting 205, as the published spec has them; deleting what does
// not exist is a 404, as everywhere else.
import { COMMENT_ORDERS, COMMENT_STATUS_FILTERS } from "../../src/core/comments/index.ts";
import { compact, formatVariables, graphqlEnum, listBody, pageVariables, RestInputError, type RestRequest, type RestRoute } from "../route.ts";
import { MEMBER_FIELDS, USER_FIELDS, restMember, restUser } from "./members.ts";

const POSTED_FIELDS = /* GraphQL */ `
  id postedAt editedAt
  postedBy { ...UserFields }
  reactions { emoji count users { reactedAt user { ...UserFields } } }
  body { markdown @include(if: $markdown) document @include(if: $document) }
  permissions { view edit reply delete }
  urls { location }`;

export const COMMENT_FIELDS = /* GraphQL */ `
  fragment CommentFields on Comment {
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
  }
  ${USER_FIELDS}`;

const REPLY_FIELDS = /* GraphQL */ `
  fragment CommentReplyFields on CommentReply { ${POSTED_FIELDS} }
  ${USER_FIELDS}`;

function restPosted(c: any) {
  return {
    id: c.id,
    postedBy: restUser(c.postedBy),
    postedAt: c.postedAt,
    ...compact({ editedAt: c.editedAt }),
    reactions: c.reactions.map((r: any) => ({
      emoji: r.emoji,
      count: r.count,
      users: r.users.map((u: any) => ({ user: restUser(u.user), reactedAt: u.reactedAt })),
    })),
    body: compact(c.body),
    urls: c.urls,
    permissions: c.permissions,
  };
}

export function restComment(c: any) {
  const { node, page, changeRequest, space, revision } = c.target;
  return {
    object: "comment",
    ...restPosted(c),
    replies: c.replyCount,
    repliers: c.repliers.map((r: any) => ({ user: restUser(r.user), count: r.count, updatedAt: r.updatedAt })),
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
    ...(c.resolvedAt ? { resolvedAt: c.resolvedAt, resolvedBy: restUser(c.resolvedBy) } : {}),
  };
}

const restReply = (r: any) => ({ object: "comment-reply", ...restPosted(r) });

/** A body field (`field`): `{ markdown }`. A document tree is not converted (400). */
export function markdownIn(value: unknown, field = "body"): string {
  const markdown = typeof value === "object" && value !== null ? (value as { markdown?: unknown }).markdown : undefined;
  if (typeof markdown !== "string") throw new RestInputError(`${field} must be { "markdown": "<text>" } (got ${JSON.stringify(value) ?? "nothing"})`);
  return markdown;
}

function optional<T>(body: Record<string, unknown>, field: string, check: (value: unknown) => value is T, what: string): T | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (!check(value)) throw new RestInputError(`${field} must be ${what} (got ${JSON.stringify(value)})`);
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

/** The rows of one base: `prefix` is the space's path or the change request's. */
function commentRoutes(prefix: string, kind: "space" | "change request"): RestRoute[] {
  const inChangeRequest = kind === "change request";
  const baseArgs = inChangeRequest ? "$space: ID!, $changeRequest: ID!" : "$space: ID!";
  /** `selection` on the base of the operation. */
  const onBase = (selection: string) =>
    inChangeRequest ? `space(id: $space) { changeRequest(id: $changeRequest) { ${selection} } }` : `space(id: $space) { ${selection} }`;
  const baseOf = (data: any) => (inChangeRequest ? data.space.changeRequest : data.space);
  const baseVariables = ({ params }: RestRequest) => ({ space: params.spaceId, ...(inChangeRequest ? { changeRequest: params.changeRequestId } : {}) });
  const name = inChangeRequest ? "InChangeRequest" : "InSpace";
  const COMMENTS = `${prefix}/comments`;
  const COMMENT = `${COMMENTS}/:commentId`;
  const REPLY = `${COMMENT}/replies/:commentReplyId`;

  return [
    {
      method: "GET",
      path: COMMENTS,
      action: "comment.read",
      query: { ...LIST_QUERY, ...FORMAT_QUERY, order: "string", status: "string", targetPage: "string", authors: "string[]" },
      document: /* GraphQL */ `
        query ListComments${name}(
          ${baseArgs}, $first: Int, $after: String, $order: ListOrder, $status: CommentStatusFilter, $targetPage: ID, $authors: [ID!],
          $markdown: Boolean!, $document: Boolean!
        ) {
          ${onBase(`comments(first: $first, after: $after, order: $order, status: $status, targetPage: $targetPage, authors: $authors) {
            totalCount
            pageInfo { hasNextPage endCursor }
            nodes { ...CommentFields }
          }`)}
        }
        ${COMMENT_FIELDS}`,
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
      body: (data) => listBody(baseOf(data).comments, restComment),
    },
    {
      method: "POST",
      path: COMMENTS,
      action: "comment.post",
      query: FORMAT_QUERY,
      document: /* GraphQL */ `
        mutation PostComment${name}($input: PostCommentInput!, $markdown: Boolean!, $document: Boolean!) {
          postComment(input: $input) { comment { ...CommentFields } }
        }
        ${COMMENT_FIELDS}`,
      variables: (request) => ({
        ...formatVariables(request, "markdown"),
        input: {
          ...baseVariables(request),
          body: markdownIn(request.body.body),
          page: optional(request.body, "page", isString, "a page id"),
          node: optional(request.body, "node", isString, "a node id"),
        },
      }),
      status: 200,
      body: (data) => restComment(data.postComment.comment),
    },
    {
      method: "GET",
      path: COMMENT,
      action: "comment.read",
      query: FORMAT_QUERY,
      document: /* GraphQL */ `
        query GetComment${name}(${baseArgs}, $comment: ID!, $markdown: Boolean!, $document: Boolean!) {
          ${onBase(`comment(id: $comment) { ...CommentFields }`)}
        }
        ${COMMENT_FIELDS}`,
      variables: (request) => ({ ...baseVariables(request), comment: request.params.commentId, ...formatVariables(request, "markdown") }),
      status: 200,
      body: (data) => restComment(baseOf(data).comment),
    },
    {
      // Body edits need the author or a space admin; `resolved` and reactions, the comment role.
      method: "PUT",
      path: COMMENT,
      action: "comment.editOwn",
      query: FORMAT_QUERY,
      document: /* GraphQL */ `
        mutation UpdateComment${name}($input: UpdateCommentInput!, $markdown: Boolean!, $document: Boolean!) {
          updateComment(input: $input) { comment { ...CommentFields } }
        }
        ${COMMENT_FIELDS}`,
      variables: (request) => ({
        ...formatVariables(request, "markdown"),
        input: { ...baseVariables(request), comment: request.params.commentId, ...updateInput(request.body) },
      }),
      status: 200,
      body: (data) => restComment(data.updateComment.comment),
    },
    {
      method: "DELETE",
      path: COMMENT,
      action: "comment.deleteOwn",
      document: /* GraphQL */ `
        mutation DeleteComment${name}($input: DeleteCommentInput!) { deleteComment(input: $input) { deletedCommentId } }`,
      variables: (request) => ({ input: { ...baseVariables(request), comment: request.params.commentId } }),
      status: 205,
    },
    {
      method: "GET",
      path: `${COMMENT}/replies`,
      action: "comment.read",
      query: { ...LIST_QUERY, ...FORMAT_QUERY },
      document: /* GraphQL */ `
        query ListCommentReplies${name}(${baseArgs}, $comment: ID!, $first: Int, $after: String, $markdown: Boolean!, $document: Boolean!) {
          ${onBase(`comment(id: $comment) {
            replies(first: $first, after: $after) {
              totalCount
              pageInfo { hasNextPage endCursor }
              nodes { ...CommentReplyFields }
            }
          }`)}
        }
        ${REPLY_FIELDS}`,
      variables: (request) => ({
        ...baseVariables(request),
        comment: request.params.commentId,
        ...pageVariables(request.query),
        ...formatVariables(request, "markdown"),
      }),
      status: 200,
      body: (data) => listBody(baseOf(data).comment.replies, restReply),
    },
    {
      method: "POST",
      path: `${COMMENT}/replies`,
      action: "comment.post",
      query: FORMAT_QUERY,
      document: /* GraphQL */ `
        mutation PostCommentReply${name}($input: PostCommentReplyInput!, $markdown: Boolean!, $document: Boolean!) {
          postCommentReply(input: $input) { reply { ...CommentReplyFields } }
        }
        ${REPLY_FIELDS}`,
      variables: (request) => ({
        ...formatVariables(request, "markdown"),
        input: { ...baseVariables(request), comment: request.params.commentId, body: markdownIn(request.body.body) },
      }),
      status: 200,
      body: (data) => restReply(data.postCommentReply.reply),
    },
    {
      method: "GET",
      path: REPLY,
      action: "comment.read",
      query: FORMAT_QUERY,
      document: /* GraphQL */ `
        query GetCommentReply${name}(${baseArgs}, $comment: ID!, $reply: ID!, $markdown: Boolean!, $document: Boolean!) {
          ${onBase(`comment(id: $comment) { reply(id: $reply) { ...CommentReplyFields } }`)}
        }
        ${REPLY_FIELDS}`,
      variables: (request) => ({
        ...baseVariables(request),
        comment: request.params.commentId,
        reply: request.params.commentReplyId,
        ...formatVariables(request, "markdown"),
      }),
      status: 200,
      body: (data) => restReply(baseOf(data).comment.reply),
    },
    {
      // On a change request, `resolved` resolves or reopens the comment replied to.
      method: "PUT",
      path: REPLY,
      action: "comment.editOwn",
      query: FORMAT_QUERY,
      document: /* GraphQL */ `
        mutation UpdateCommentReply${name}($input: UpdateCommentReplyInput!, $markdown: Boolean!, $document: Boolean!) {
          updateCommentReply(input: $input) { reply { ...CommentReplyFields } }
        }
        ${REPLY_FIELDS}`,
      variables: (request) => ({
        ...formatVariables(request, "markdown"),
        input: {
          ...baseVariables(request),
          comment: request.params.commentId,
          reply: request.params.commentReplyId,
          ...updateInput(request.body),
        },
      }),
      status: 200,
      body: (data) => restReply(data.updateCommentReply.reply),
    },
    {
      method: "DELETE",
      path: REPLY,
      action: "comment.deleteOwn",
      document: /* GraphQL */ `
        mutation DeleteCommentReply${name}($input: DeleteCommentReplyInput!) { deleteCommentReply(input: $input) { deletedCommentReplyId } }`,
      variables: (request) => ({
        input: { ...baseVariables(request), comment: request.params.commentId, reply: request.params.commentReplyId },
      }),
      status: 205,
    },
    {
      method: "GET",
      path: `${prefix}/commenters`,
      action: "comment.read",
      query: LIST_QUERY,
      document: /* GraphQL */ `
        query ListCommenters${name}(${baseArgs}, $first: Int, $after: String) {
          ${onBase(`commenters(first: $first, after: $after) {
            totalCount
            pageInfo { hasNextPage endCursor }
            nodes { ...MemberFields }
          }`)}
        }
        ${MEMBER_FIELDS}`,
      variables: (request) => ({ ...baseVariables(request), ...pageVariables(request.query) }),
      status: 200,
      body: (data) => listBody(baseOf(data).commenters, restMember),
    },
  ];
}

export const commentsRoutes: RestRoute[] = [
  ...commentRoutes("/v1/spaces/:spaceId", "space"),
  ...commentRoutes("/v1/spaces/:spaceId/change-requests/:changeRequestId", "change request"),
];
