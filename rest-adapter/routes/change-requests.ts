// /v1/spaces/:spaceId/change-requests…: change requests, their update and merge, and their
// content: the space content rows (content.ts, links.ts, import.ts) made on the change request's
// head by `onChangeRequest`. `changeRequestId` is the id or the number.
import { graphql } from "../graphql.ts";
import {
  CHANGE_REQUEST_FINDING_FILTERS,
  CHANGE_REQUEST_ORDERS,
  CHANGE_REQUEST_STATUSES,
  SETTABLE_STATUSES,
} from "../../src/core/change-requests/index.ts";
import {
  graphqlEnum,
  listBody,
  ListInfo,
  pageVariables,
  present,
  RestInputError,
  type RestRequest,
  type RestRoute,
  stringOf,
  typedRoute,
} from "../route.ts";
import { ChangeRequestFields, restChangeRequest } from "./change-request-fields.ts";
import { contentRoutes, FileFields, onChangeRequest, restFile } from "./content.ts";
import { contentReusableContentRoutes } from "./revisions.ts";
import { importRoutes } from "./import.ts";
import { contentLinkRoutes, LIST_QUERY } from "./links.ts";
import { quote } from "../../src/core/errors.ts";

const CR = "/v1/spaces/:spaceId/change-requests/:changeRequestId";

/** The published `orderBy` values and their GraphQL names. */
const ORDER_BY: Record<(typeof CHANGE_REQUEST_ORDERS)[number], string> = { updatedAt: "UPDATED_AT", createdAt: "CREATED_AT" };

const isOrderBy = (value: unknown): value is (typeof CHANGE_REQUEST_ORDERS)[number] =>
  (CHANGE_REQUEST_ORDERS as readonly unknown[]).includes(value);

function checkOrderBy(value: unknown): (typeof CHANGE_REQUEST_ORDERS)[number] {
  if (isOrderBy(value)) return value;
  throw new RestInputError(`orderBy must be one of ${CHANGE_REQUEST_ORDERS.join(", ")} (got ${quote(value)})`);
}

const target = ({ params }: RestRequest) => ({ space: params.spaceId, changeRequest: params.changeRequestId });

const changeRequestRoutes: RestRoute[] = [
  typedRoute({
    method: "GET",
    path: "/v1/spaces/:spaceId/change-requests",
    action: "changeRequest.read",
    query: {
      ...LIST_QUERY,
      status: "string",
      contributor: "string",
      creator: "string",
      requestedReviewer: "string",
      topic: "string",
      orderBy: "string",
    },
    document: graphql(
      `query ListChangeRequests(
        $id: ID!, $first: Int, $after: String, $status: ChangeRequestStatus, $contributor: ID, $creator: ID, $requestedReviewer: ID,
        $topic: String, $orderBy: ChangeRequestOrderBy
      ) {
        space(id: $id) {
          changeRequests(
            first: $first, after: $after, status: $status, contributor: $contributor, creator: $creator,
            requestedReviewer: $requestedReviewer, topic: $topic, orderBy: $orderBy
          ) {
            totalCount pageInfo { ...ListInfo } nodes { ...ChangeRequestFields }
          }
        }
      }`,
      [ChangeRequestFields, ListInfo],
    ),
    // Absent parameters stay absent: the arguments' defaults (status open, orderBy updatedAt) apply.
    variables: ({ params, query }) => ({
      id: params.spaceId,
      ...pageVariables(query),
      status: query.status === undefined ? undefined : graphqlEnum("status", query.status, CHANGE_REQUEST_STATUSES),
      contributor: query.contributor,
      creator: query.creator,
      requestedReviewer: query.requestedReviewer,
      topic: query.topic,
      orderBy: query.orderBy === undefined ? undefined : ORDER_BY[checkOrderBy(query.orderBy)],
    }),
    status: 200,
    body: (data) => listBody(data.space.changeRequests, restChangeRequest),
  }),
  typedRoute({
    method: "POST",
    path: "/v1/spaces/:spaceId/change-requests",
    action: "changeRequest.create",
    document: graphql(
      `mutation CreateChangeRequest($input: CreateChangeRequestInput!) {
        createChangeRequest(input: $input) { changeRequest { ...ChangeRequestFields } }
      }`,
      [ChangeRequestFields],
    ),
    variables: ({ params, body }) => ({
      input: { space: params.spaceId, subject: stringOf(body.subject), agentTaskId: stringOf(body.agentTaskId) },
    }),
    status: 201,
    body: (data) => restChangeRequest(data.createChangeRequest.changeRequest),
  }),
  typedRoute({
    method: "GET",
    path: CR,
    action: "changeRequest.read",
    document: graphql(
      `query GetChangeRequest($space: ID!, $changeRequest: ID!) {
        space(id: $space) { changeRequest(id: $changeRequest) { ...ChangeRequestFields } }
      }`,
      [ChangeRequestFields],
    ),
    variables: target,
    status: 200,
    body: (data) => restChangeRequest(data.space.changeRequest),
  }),
  typedRoute({
    method: "PATCH",
    path: CR,
    action: "changeRequest.update",
    document: graphql(
      `mutation UpdateChangeRequest($input: UpdateChangeRequestInput!) {
        updateChangeRequest(input: $input) { changeRequest { ...ChangeRequestFields } }
      }`,
      [ChangeRequestFields],
    ),
    variables: (request) => {
      const patch = present(request.body, ["subject", "status"]);
      return {
        input: {
          ...target(request),
          ...("subject" in patch ? { subject: stringOf(patch.subject) } : {}),
          ...("status" in patch ? { status: graphqlEnum("status", patch.status, SETTABLE_STATUSES) } : {}),
        },
      };
    },
    status: 200,
    body: (data) => restChangeRequest(data.updateChangeRequest.changeRequest),
  }),
  typedRoute({
    method: "POST",
    path: `${CR}/merge`,
    action: "changeRequest.merge",
    document: graphql(
      `mutation MergeChangeRequest($input: MergeChangeRequestInput!) { mergeChangeRequest(input: $input) { revision { id } } }`,
    ),
    variables: (request) => ({ input: target(request) }),
    status: 200,
    body: (data) => ({ revision: data.mergeChangeRequest.revision.id, result: "merge" }),
  }),
  typedRoute({
    method: "POST",
    path: `${CR}/update`,
    action: "changeRequest.updateFromSpace",
    document: graphql(`mutation UpdateChangeRequestFromSpace($input: UpdateChangeRequestFromSpaceInput!) {
        updateChangeRequestFromSpace(input: $input) { revision { id } }
      }`),
    variables: (request) => ({ input: target(request) }),
    status: 200,
    body: (data) => ({ revision: data.updateChangeRequestFromSpace.revision.id, result: "update" }),
  }),
];

/** More statuses than this in `status` are refused before GraphQL (the core's bound, checked early). */
const STATUS_LIST_MAX = 10;

/** Change requests across the organization's spaces the caller may read. */
const organizationChangeRequestRoutes: RestRoute[] = [
  typedRoute({
    method: "GET",
    path: "/v1/orgs/:organizationId/change-requests",
    action: "organization.read",
    query: {
      ...LIST_QUERY,
      status: "string[]",
      creator: "string",
      contributor: "string",
      requestedReviewer: "string",
      site: "string",
      space: "string",
      topic: "string",
      styleguideRun: "string",
      finding: "string",
      orderBy: "string",
    },
    document: graphql(
      `query ListOrganizationChangeRequests(
        $id: ID!, $first: Int, $after: String, $status: [ChangeRequestStatus!], $contributor: ID, $creator: ID,
        $requestedReviewer: ID, $site: ID, $space: ID, $topic: String, $styleguideRun: String,
        $finding: ChangeRequestFindingFilter, $orderBy: ChangeRequestOrderBy
      ) {
        organization(id: $id) {
          changeRequests(
            first: $first, after: $after, status: $status, contributor: $contributor, creator: $creator,
            requestedReviewer: $requestedReviewer, site: $site, space: $space, topic: $topic,
            styleguideRun: $styleguideRun, finding: $finding, orderBy: $orderBy
          ) {
            totalCount pageInfo { ...ListInfo } nodes { ...ChangeRequestFields }
          }
        }
      }`,
      [ChangeRequestFields, ListInfo],
    ),
    // Absent parameters stay absent: the arguments' defaults (status open, finding none, orderBy updatedAt) apply.
    variables: ({ params, query }) => {
      const statuses = query.status as string[] | undefined;
      if (statuses && statuses.length > STATUS_LIST_MAX) {
        throw new RestInputError(`status must list at most ${STATUS_LIST_MAX} statuses (got ${statuses.length})`);
      }
      return {
        id: params.organizationId,
        ...pageVariables(query),
        status: statuses?.map((status) => graphqlEnum("status", status, CHANGE_REQUEST_STATUSES)),
        contributor: query.contributor,
        creator: query.creator,
        requestedReviewer: query.requestedReviewer,
        site: query.site,
        space: query.space,
        topic: query.topic,
        styleguideRun: query.styleguideRun,
        finding: query.finding === undefined ? undefined : graphqlEnum("finding", query.finding, CHANGE_REQUEST_FINDING_FILTERS),
        orderBy: query.orderBy === undefined ? undefined : ORDER_BY[checkOrderBy(query.orderBy)],
      };
    },
    status: 200,
    body: (data) => listBody(data.organization.changeRequests, restChangeRequest),
  }),
];

/** POST …/content: a batch of content changes (the published updateChangeRequestContent); `compat` picks the answer's shape. */
const changeRequestContentRoute = typedRoute({
  method: "POST",
  path: `${CR}/content`,
  action: "changeRequest.editContent",
  query: { compat: "boolean" },
  document: graphql(
    `mutation UpdateChangeRequestContent($input: UpdateChangeRequestContentInput!, $outcomes: Boolean!) {
      updateChangeRequestContent(input: $input) {
        changeRequest { ...ChangeRequestFields }
        changes @include(if: $outcomes) { object page ref location }
        insertedFiles @include(if: $outcomes) { ...ContentFileFields }
      }
    }`,
    [ChangeRequestFields, FileFields],
  ),
  variables: (request) => {
    if (!Array.isArray(request.body.changes)) throw new RestInputError("changes is required (a list of changes)");
    // compat=true (the published default): the change request alone; false: with the pages and files the batch touched.
    return { input: { ...target(request), changes: request.body.changes }, outcomes: request.query.compat === false };
  },
  status: 200,
  body: (data) => {
    const result = data.updateChangeRequestContent;
    const changeRequest = restChangeRequest(result.changeRequest);
    if (!result.changes || !result.insertedFiles) return changeRequest;
    return {
      changeRequest,
      changes: result.changes.map((change) =>
        change.object === "deleted_page"
          ? { object: "deleted_page", page: change.page }
          : {
              object: change.object,
              ...(change.ref ? { ref: change.ref } : {}),
              page: { object: "page", id: change.page, urls: { location: change.location ?? "" } },
            },
      ),
      insertedFiles: result.insertedFiles.map(restFile),
    };
  },
});

export const changeRequestsRoutes: RestRoute[] = [
  ...changeRequestRoutes,
  changeRequestContentRoute,
  ...organizationChangeRequestRoutes,
  ...[...contentRoutes, ...contentReusableContentRoutes, ...contentLinkRoutes, ...importRoutes].map(onChangeRequest),
];
