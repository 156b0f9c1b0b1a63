// /v1/spaces/:spaceId/change-requests/:changeRequestId/{reviews, requested-reviewers,
// contributors, changes}: reviews and who is asked for one, who contributed, and what the change
// request changes. A review's `comment` is taken as `{ markdown }`, like comment bodies, and is
// answered in `format` (markdown by default). Removing a requested reviewer answers 205, or 204
// when that user had not been asked (the published statuses).
import { REVIEW_STATUSES } from "../../src/core/reviews/index.ts";
import { graphql, type FragmentOf } from "../graphql.ts";
import {
  compact,
  formatVariables,
  graphqlEnum,
  listBody,
  ListInfo,
  pageVariables,
  restEnum,
  RestInputError,
  type RestRequest,
  type RestRoute,
  typedRoute,
} from "../route.ts";
import { CommentFields, markdownIn, restComment } from "./comments.ts";
import { restUser, UserFields } from "./members.ts";
import { ChangeRequestFields, restChangeRequest } from "./change-request-fields.ts";

const CR = "/v1/spaces/:spaceId/change-requests/:changeRequestId";
const LIST_QUERY = { page: "string", limit: "limit" } as const;
const target = ({ params }: RestRequest) => ({ space: params.spaceId, changeRequest: params.changeRequestId });

const ReviewFields = graphql(
  `fragment ReviewFields on ChangeRequestReview {
    id status outdated revision createdAt updatedAt
    reviewer { ...UserFields }
    requestedBy { ...UserFields }
    comment { ...CommentFields }
    urls { location }
  }`,
  [UserFields, CommentFields],
);

function restReview(r: FragmentOf<typeof ReviewFields>) {
  return {
    object: "change-request-review",
    id: r.id,
    revision: r.revision,
    reviewer: restUser(r.reviewer),
    ...(r.requestedBy ? { requestedBy: restUser(r.requestedBy) } : {}),
    status: restEnum(r.status),
    outdated: r.outdated,
    ...(r.comment ? { comment: restComment(r.comment) } : {}),
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    urls: r.urls,
  };
}

const RequestedReviewerFields = graphql(
  `fragment RequestedReviewerFields on ChangeRequestRequestedReviewer {
    revision createdAt
    user { ...UserFields }
    requestedBy { ...UserFields }
  }`,
  [UserFields],
);

const restRequestedReviewer = (r: FragmentOf<typeof RequestedReviewerFields>) => ({
  object: "change-request-requested-reviewer",
  revision: r.revision,
  requestedBy: restUser(r.requestedBy),
  createdAt: r.createdAt,
  kind: "user",
  user: restUser(r.user),
});

const ChangedPageFields = graphql(`fragment ChangedPageFields on ChangedPage { id kind title path }`);
const ChangeFields = graphql(
  `fragment ChangeFields on RevisionChange {
    type attributes variables
    page { ...ChangedPageFields }
    parentBefore { ...ChangedPageFields }
    parentAfter { ...ChangedPageFields }
    file { id name contentType downloadURL }
    reusableContent { id title document }
  }`,
  [ChangedPageFields],
);

const restPage = (p: FragmentOf<typeof ChangedPageFields> | null) =>
  p ? { id: p.id, type: p.kind, title: p.title, path: p.path } : undefined;

function restChange(c: FragmentOf<typeof ChangeFields>) {
  const type = c.type.toLowerCase();
  return {
    type,
    ...compact({
      page: restPage(c.page),
      file: c.file,
      reusableContent: c.reusableContent,
      attributes: c.attributes,
      variables: c.variables,
    }),
    ...(type === "page_moved" ? { parent: compact({ before: restPage(c.parentBefore), after: restPage(c.parentAfter) }) } : {}),
  };
}

/** A list of user ids in a body. */
function userIds(value: unknown): string[] {
  if (!Array.isArray(value) || value.some((item) => typeof item !== "string")) throw new RestInputError("users must be a list of user ids");
  return value as string[];
}

export const reviewRoutes: RestRoute[] = [
  typedRoute({
    method: "GET",
    path: "/v1/spaces/:spaceId/revisions/:revisionId/changes",
    action: "space.read",
    // metadata and computed change nothing here (no computed content; the changes carry no metadata).
    query: { limit: "limit", metadata: "boolean", computed: "boolean" },
    document: graphql(
      `query RevisionChanges($space: ID!, $revision: ID!, $limit: Int) {
        space(id: $space) {
          revisionById(id: $revision) { changes(limit: $limit) { changes { ...ChangeFields } more } mergedFrom { ...ChangeRequestFields } }
        }
      }`,
      [ChangeFields, ChangeRequestFields],
    ),
    variables: ({ params, query }) => ({ space: params.spaceId, revision: params.revisionId, limit: query.limit }),
    status: 200,
    body: (data) => {
      const {
        changes: { changes, more },
        mergedFrom,
      } = data.space.revisionById;
      return {
        ...(mergedFrom ? { mergedFrom: restChangeRequest(mergedFrom) } : {}),
        changes: changes.map(restChange),
        ...(more ? { more } : {}),
      };
    },
  }),
  typedRoute({
    method: "GET",
    path: `${CR}/reviews`,
    action: "changeRequest.read",
    query: { ...LIST_QUERY, format: "string", outdated: "boolean" },
    document: graphql(
      `query ListChangeRequestReviews($space: ID!, $changeRequest: ID!, $first: Int, $after: String, $outdated: Boolean, $markdown: Boolean!, $document: Boolean!) {
        space(id: $space) {
          changeRequest(id: $changeRequest) {
            reviews(first: $first, after: $after, outdated: $outdated) { totalCount pageInfo { ...ListInfo } nodes { ...ReviewFields } }
          }
        }
      }`,
      [ReviewFields, ListInfo],
    ),
    variables: (request) => ({
      ...target(request),
      ...pageVariables(request.query),
      ...formatVariables(request, "markdown"),
      outdated: request.query.outdated,
    }),
    status: 200,
    body: (data) => listBody(data.space.changeRequest.reviews, restReview),
  }),
  typedRoute({
    method: "POST",
    path: `${CR}/reviews`,
    action: "changeRequest.review",
    query: { format: "string" },
    document: graphql(
      `mutation SubmitChangeRequestReview($input: SubmitChangeRequestReviewInput!, $markdown: Boolean!, $document: Boolean!) {
        submitChangeRequestReview(input: $input) { review { ...ReviewFields } }
      }`,
      [ReviewFields],
    ),
    variables: (request) => {
      if (request.body.status === undefined) throw new RestInputError(`status is required: one of ${REVIEW_STATUSES.join(", ")}`);
      return {
        ...formatVariables(request, "markdown"),
        input: {
          ...target(request),
          status: graphqlEnum("status", request.body.status, REVIEW_STATUSES),
          ...(request.body.comment != null ? { comment: markdownIn(request.body.comment, "comment") } : {}),
        },
      };
    },
    status: 201,
    body: (data) => restReview(data.submitChangeRequestReview.review),
  }),
  typedRoute({
    method: "GET",
    path: `${CR}/reviews/:reviewId`,
    action: "changeRequest.read",
    query: { format: "string" },
    document: graphql(
      `query GetChangeRequestReview($space: ID!, $changeRequest: ID!, $review: ID!, $markdown: Boolean!, $document: Boolean!) {
        space(id: $space) { changeRequest(id: $changeRequest) { review(id: $review) { ...ReviewFields } } }
      }`,
      [ReviewFields],
    ),
    variables: (request) => ({ ...target(request), review: request.params.reviewId, ...formatVariables(request, "markdown") }),
    status: 200,
    body: (data) => restReview(data.space.changeRequest.review),
  }),
  typedRoute({
    method: "GET",
    path: `${CR}/requested-reviewers`,
    action: "changeRequest.read",
    query: LIST_QUERY,
    document: graphql(
      `query ListRequestedReviewers($space: ID!, $changeRequest: ID!, $first: Int, $after: String) {
        space(id: $space) {
          changeRequest(id: $changeRequest) {
            requestedReviewers(first: $first, after: $after) { totalCount pageInfo { ...ListInfo } nodes { ...RequestedReviewerFields } }
          }
        }
      }`,
      [RequestedReviewerFields, ListInfo],
    ),
    variables: (request) => ({ ...target(request), ...pageVariables(request.query) }),
    status: 200,
    body: (data) => listBody(data.space.changeRequest.requestedReviewers, restRequestedReviewer),
  }),
  typedRoute({
    method: "POST",
    path: `${CR}/requested-reviewers`,
    action: "changeRequest.requestReview",
    document: graphql(
      `mutation RequestReviewers($input: RequestChangeRequestReviewersInput!) {
        requestChangeRequestReviewers(input: $input) { requestedReviewers { ...RequestedReviewerFields } }
      }`,
      [RequestedReviewerFields],
    ),
    variables: (request) => {
      // Change requests have no description here: refused rather than dropped.
      if (request.body.description != null)
        throw new RestInputError("description is not supported: change requests have no description in this service");
      const subject = request.body.subject;
      if (subject != null && typeof subject !== "string") throw new RestInputError("subject must be a string");
      return { input: { ...target(request), users: userIds(request.body.users), ...(subject != null ? { subject } : {}) } };
    },
    status: 200,
    body: (data) => ({ users: data.requestChangeRequestReviewers.requestedReviewers.map(restRequestedReviewer) }),
  }),
  typedRoute({
    method: "DELETE",
    path: `${CR}/requested-reviewers/:userId`,
    action: "changeRequest.requestReview",
    document: graphql(`mutation RemoveRequestedReviewer($input: RemoveChangeRequestRequestedReviewerInput!) {
        removeChangeRequestRequestedReviewer(input: $input) { removed }
      }`),
    variables: (request) => ({ input: { ...target(request), user: request.params.userId } }),
    status: 205,
    statusOf: (data) => (data.removeChangeRequestRequestedReviewer.removed ? 205 : 204),
  }),
  typedRoute({
    method: "GET",
    path: `${CR}/contributors`,
    action: "changeRequest.read",
    query: LIST_QUERY,
    document: graphql(
      `query ListChangeRequestContributors($space: ID!, $changeRequest: ID!, $first: Int, $after: String) {
        space(id: $space) {
          changeRequest(id: $changeRequest) {
            contributors(first: $first, after: $after) {
              totalCount pageInfo { ...ListInfo } nodes { kind count updatedAt user { ...UserFields } }
            }
          }
        }
      }`,
      [UserFields, ListInfo],
    ),
    variables: (request) => ({ ...target(request), ...pageVariables(request.query) }),
    status: 200,
    body: (data) =>
      listBody(data.space.changeRequest.contributors, (c) => ({
        updatedAt: c.updatedAt,
        count: c.count,
        user: restUser(c.user),
        actionType: restEnum(c.kind),
      })),
  }),
  typedRoute({
    method: "GET",
    path: `${CR}/changes`,
    action: "changeRequest.read",
    query: { limit: "limit" },
    document: graphql(
      `query ChangeRequestChanges($space: ID!, $changeRequest: ID!, $limit: Int) {
        space(id: $space) { changeRequest(id: $changeRequest) { changes(limit: $limit) { changes { ...ChangeFields } more } } }
      }`,
      [ChangeFields],
    ),
    variables: (request) => ({ ...target(request), limit: request.query.limit }),
    status: 200,
    body: (data) => {
      const { changes, more } = data.space.changeRequest.changes;
      return { changes: changes.map(restChange), ...(more ? { more } : {}) };
    },
  }),
];
