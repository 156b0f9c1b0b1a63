// /v1/spaces/:spaceId/change-requests…: change requests, their update and merge, and their
// content, which mirrors the space content routes (content.ts, links.ts, import.ts) on the change
// request's head. `changeRequestId` is the id or the number.
import { CHANGE_REQUEST_STATUSES, SETTABLE_STATUSES } from "../../src/core/change-requests/index.ts";
import { graphqlEnum, listBody, pageVariables, present, stringOf, type RestRequest, type RestRoute } from "../route.ts";
import { CHANGE_REQUEST_FIELDS, restChangeRequest } from "./change-request-fields.ts";
import { FILE_FIELDS, FLAGS, PAGE_FIELDS, PAGE_QUERY, REVISION_FIELDS, formatVariables, restFile, restPageTree, restRevision, singlePage } from "./content.ts";
import { BACKLINK_FIELDS, LINK_FIELDS, LIST_QUERY, linkVariables, restBacklinks, restLinkList } from "./links.ts";
import { ORGANIZATION_FIELDS } from "./organizations.ts";
import { SPACE_FIELDS } from "./spaces.ts";

const CR = "/v1/spaces/:spaceId/change-requests/:changeRequestId";

const target = ({ params }: RestRequest) => ({ space: params.spaceId, changeRequest: params.changeRequestId });

const changeRequestRoutes: RestRoute[] = [
  {
    method: "GET",
    path: "/v1/spaces/:spaceId/change-requests",
    action: "changeRequest.read",
    query: { ...LIST_QUERY, status: "string", contributor: "string" },
    document: /* GraphQL */ `
      query ListChangeRequests($id: ID!, $first: Int, $after: String, $status: ChangeRequestStatus, $contributor: ID) {
        space(id: $id) {
          changeRequests(first: $first, after: $after, status: $status, contributor: $contributor) {
            totalCount
            pageInfo { hasNextPage endCursor }
            nodes { ...ChangeRequestFields }
          }
        }
      }
      ${CHANGE_REQUEST_FIELDS}`,
    variables: ({ params, query }) => ({
      id: params.spaceId,
      ...pageVariables(query),
      status: graphqlEnum("status", query.status ?? "open", CHANGE_REQUEST_STATUSES),
      contributor: query.contributor,
    }),
    status: 200,
    body: (data) => listBody(data.space.changeRequests, restChangeRequest),
  },
  {
    method: "POST",
    path: "/v1/spaces/:spaceId/change-requests",
    action: "changeRequest.create",
    document: /* GraphQL */ `
      mutation CreateChangeRequest($input: CreateChangeRequestInput!) {
        createChangeRequest(input: $input) { changeRequest { ...ChangeRequestFields } }
      }
      ${CHANGE_REQUEST_FIELDS}`,
    variables: ({ params, body }) => ({
      input: { space: params.spaceId, subject: stringOf(body.subject), agentTaskId: stringOf(body.agentTaskId) },
    }),
    status: 201,
    body: (data) => restChangeRequest(data.createChangeRequest.changeRequest),
  },
  {
    method: "GET",
    path: CR,
    action: "changeRequest.read",
    document: /* GraphQL */ `
      query GetChangeRequest($space: ID!, $changeRequest: ID!) {
        space(id: $space) { changeRequest(id: $changeRequest) { ...ChangeRequestFields } }
      }
      ${CHANGE_REQUEST_FIELDS}`,
    variables: target,
    status: 200,
    body: (data) => restChangeRequest(data.space.changeRequest),
  },
  {
    method: "PATCH",
    path: CR,
    action: "changeRequest.update",
    document: /* GraphQL */ `
      mutation UpdateChangeRequest($input: UpdateChangeRequestInput!) {
        updateChangeRequest(input: $input) { changeRequest { ...ChangeRequestFields } }
      }
      ${CHANGE_REQUEST_FIELDS}`,
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
  },
  {
    method: "POST",
    path: `${CR}/merge`,
    action: "changeRequest.merge",
    document: /* GraphQL */ `
      mutation MergeChangeRequest($input: MergeChangeRequestInput!) { mergeChangeRequest(input: $input) { revision { id } } }`,
    variables: (request) => ({ input: target(request) }),
    status: 200,
    body: (data) => ({ revision: data.mergeChangeRequest.revision.id, result: "merge" }),
  },
  {
    method: "POST",
    path: `${CR}/update`,
    action: "changeRequest.updateFromSpace",
    document: /* GraphQL */ `
      mutation UpdateChangeRequestFromSpace($input: UpdateChangeRequestFromSpaceInput!) {
        updateChangeRequestFromSpace(input: $input) { revision { id } }
      }`,
    variables: (request) => ({ input: target(request) }),
    status: 200,
    body: (data) => ({ revision: data.updateChangeRequestFromSpace.revision.id, result: "update" }),
  },
];

/** The body of an import request as the operation's input (the core checks the values). */
const importInput = (request: RestRequest, parent?: string) => ({
  input: {
    ...target(request),
    url: stringOf(request.body.url) ?? "",
    source: stringOf(request.body.source) ?? "",
    ...(parent ? { parent } : {}),
  },
});

const IMPORT_DOCUMENT = /* GraphQL */ `
  mutation ImportChangeRequestContent($input: ImportContentInput!) {
    importContent(input: $input) { revision { id } importedResources totalResources }
  }`;

const importBody = (data: any) => ({
  revision: data.importContent.revision.id,
  importedResources: data.importContent.importedResources,
  totalResources: data.importContent.totalResources,
});

const changeRequestContentRoutes: RestRoute[] = [
  {
    method: "GET",
    path: `${CR}/content`,
    action: "changeRequest.read",
    query: FLAGS,
    document: /* GraphQL */ `
      query GetChangeRequestContent($space: ID!, $changeRequest: ID!, $metadata: Boolean!, $markdown: Boolean!, $document: Boolean!) {
        space(id: $space) { changeRequest(id: $changeRequest) { content { ...ContentRevisionFields } } }
      }
      ${REVISION_FIELDS}`,
    variables: (request) => ({ ...target(request), metadata: request.query.metadata !== false, markdown: true, document: false }),
    status: 200,
    body: (data) => restRevision(data.space.changeRequest.content),
  },
  {
    method: "GET",
    path: `${CR}/content/pages`,
    action: "changeRequest.read",
    query: FLAGS,
    document: /* GraphQL */ `
      query ListChangeRequestPages($space: ID!, $changeRequest: ID!, $markdown: Boolean!, $document: Boolean!) {
        space(id: $space) { changeRequest(id: $changeRequest) { content { allPages { ...ContentPageFields } } } }
      }
      ${PAGE_FIELDS}`,
    variables: (request) => ({ ...target(request), markdown: true, document: false }),
    status: 200,
    body: (data) => ({ pages: restPageTree(data.space.changeRequest.content.allPages) }),
  },
  {
    method: "GET",
    path: `${CR}/content/page/:pageId`,
    action: "changeRequest.read",
    query: PAGE_QUERY,
    document: /* GraphQL */ `
      query GetChangeRequestPage($space: ID!, $changeRequest: ID!, $page: ID!, $markdown: Boolean!, $document: Boolean!) {
        space(id: $space) {
          changeRequest(id: $changeRequest) { page(id: $page) { ...ContentPageFields descendants { ...ContentPageFields } } }
        }
      }
      ${PAGE_FIELDS}`,
    variables: (request) => ({ ...target(request), page: request.params.pageId, ...formatVariables(request) }),
    status: 200,
    body: (data) => singlePage(data.space.changeRequest.page),
  },
  {
    // The published API's getPageInChangeRequestByPath.
    method: "GET",
    path: `${CR}/content/path/*`,
    action: "changeRequest.read",
    query: PAGE_QUERY,
    document: /* GraphQL */ `
      query GetChangeRequestPageByPath($space: ID!, $changeRequest: ID!, $path: String!, $markdown: Boolean!, $document: Boolean!) {
        space(id: $space) {
          changeRequest(id: $changeRequest) { page(path: $path) { ...ContentPageFields descendants { ...ContentPageFields } } }
        }
      }
      ${PAGE_FIELDS}`,
    variables: (request) => ({ ...target(request), path: request.params["*"] ?? "", ...formatVariables(request) }),
    status: 200,
    body: (data) => singlePage(data.space.changeRequest.page),
  },
  {
    method: "GET",
    path: `${CR}/content/files`,
    action: "changeRequest.read",
    query: { ...LIST_QUERY, ...FLAGS },
    document: /* GraphQL */ `
      query ListChangeRequestFiles($space: ID!, $changeRequest: ID!, $first: Int, $after: String) {
        space(id: $space) {
          changeRequest(id: $changeRequest) {
            files(first: $first, after: $after) {
              totalCount
              pageInfo { hasNextPage endCursor }
              nodes { ...ContentFileFields }
            }
          }
        }
      }
      ${FILE_FIELDS}`,
    variables: (request) => ({ ...target(request), ...pageVariables(request.query) }),
    status: 200,
    body: (data) => listBody(data.space.changeRequest.files, restFile),
  },
  {
    method: "GET",
    path: `${CR}/content/files/:fileId`,
    action: "changeRequest.read",
    query: FLAGS,
    document: /* GraphQL */ `
      query GetChangeRequestFile($space: ID!, $changeRequest: ID!, $file: ID!) {
        space(id: $space) { changeRequest(id: $changeRequest) { file(id: $file) { ...ContentFileFields } } }
      }
      ${FILE_FIELDS}`,
    variables: (request) => ({ ...target(request), file: request.params.fileId }),
    status: 200,
    body: (data) => restFile(data.space.changeRequest.file),
  },
  {
    method: "GET",
    path: `${CR}/content/files/:fileId/backlinks`,
    action: "changeRequest.read",
    query: LIST_QUERY,
    document: /* GraphQL */ `
      query ListChangeRequestFileBacklinks($space: ID!, $changeRequest: ID!, $file: ID!, $first: Int, $after: String) {
        space(id: $space) {
          ...SpaceFields
          organization { ...OrganizationFields }
          changeRequest(id: $changeRequest) { file(id: $file) { backlinks(first: $first, after: $after) { ...BacklinkListFields } } }
        }
      }
      ${SPACE_FIELDS}
      ${ORGANIZATION_FIELDS}
      ${BACKLINK_FIELDS}`,
    variables: (request) => ({ ...target(request), file: request.params.fileId, ...pageVariables(request.query) }),
    status: 200,
    body: (data) => restBacklinks(data.space, data.space.changeRequest.file.backlinks),
  },
  {
    method: "GET",
    path: `${CR}/content/page/:pageId/links`,
    action: "changeRequest.read",
    query: { ...LIST_QUERY, status: "string" },
    document: /* GraphQL */ `
      query ListChangeRequestPageLinks($space: ID!, $changeRequest: ID!, $page: ID!, $first: Int, $after: String, $status: LinkStatus) {
        space(id: $space) {
          changeRequest(id: $changeRequest) { page(id: $page) { links(first: $first, after: $after, status: $status) { ...LinkListFields } } }
        }
      }
      ${LINK_FIELDS}`,
    variables: (request) => ({ ...target(request), page: request.params.pageId, ...linkVariables(request.query) }),
    status: 200,
    body: (data) => restLinkList(data.space.changeRequest.page.links),
  },
  {
    method: "GET",
    path: `${CR}/content/page/:pageId/backlinks`,
    action: "changeRequest.read",
    query: LIST_QUERY,
    document: /* GraphQL */ `
      query ListChangeRequestPageBacklinks($space: ID!, $changeRequest: ID!, $page: ID!, $first: Int, $after: String) {
        space(id: $space) {
          ...SpaceFields
          organization { ...OrganizationFields }
          changeRequest(id: $changeRequest) { page(id: $page) { backlinks(first: $first, after: $after) { ...BacklinkListFields } } }
        }
      }
      ${SPACE_FIELDS}
      ${ORGANIZATION_FIELDS}
      ${BACKLINK_FIELDS}`,
    variables: (request) => ({ ...target(request), page: request.params.pageId, ...pageVariables(request.query) }),
    status: 200,
    body: (data) => restBacklinks(data.space, data.space.changeRequest.page.backlinks),
  },
  {
    method: "POST",
    path: `${CR}/content/import`,
    action: "changeRequest.editContent",
    document: IMPORT_DOCUMENT,
    variables: (request) => importInput(request),
    status: 201,
    body: importBody,
  },
  {
    // The site's top pages become children of the page.
    method: "POST",
    path: `${CR}/content/page/:pageId/import`,
    action: "changeRequest.editContent",
    document: IMPORT_DOCUMENT,
    variables: (request) => importInput(request, request.params.pageId),
    status: 201,
    body: importBody,
  },
];

export const changeRequestsRoutes: RestRoute[] = [...changeRequestRoutes, ...changeRequestContentRoutes];
