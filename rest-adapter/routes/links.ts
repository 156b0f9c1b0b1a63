// Links and backlinks of a space's current content (GraphQL `Space.links`, `Page.links`,
// `Page.backlinks`, `File.backlinks`).
//
// A link item: `status`, `relation` (link | image), `targetReference` (a published `ContentRef`)
// and `locationReferences` (the pages it appears on, as `{ kind: 'page', page }`); link lists add
// `stats`. A backlink item is a published `ContentLocationPage`: `kind: 'page'`, the
// `organization`, the `space` and the linking `page` (without `versionContext`, which would
// repeat the whole revision in every item; it is optional in the published schema).
import { graphql, type FragmentOf } from "../graphql.ts";
import { LINK_STATUSES } from "../../src/core/links/index.ts";
import { compact, graphqlEnum, listBody, ListInfo, pageVariables, restEnum, type RestRoute, typedRoute } from "../route.ts";
import type { RestRequest } from "../route.ts";
import { restPage, targetVariables } from "./content.ts";
import { OrganizationFields, restOrganization } from "./organizations.ts";
import { SpaceFields, restSpace } from "./spaces.ts";

export const LinkListFields = graphql(
  `
  fragment LinkListFields on RevisionLinkConnection {
    totalCount
    pageInfo { ...ListInfo }
    stats { total broken { total changeRequest } }
    nodes {
      status relation
      targetReference { kind page anchor file space url }
      locationReferences { kind page }
    }
  }`,
  [ListInfo],
);

export const BacklinkListFields = graphql(
  `
  fragment BacklinkListFields on BacklinkConnection {
    totalCount
    pageInfo { ...ListInfo }
    nodes {
      id title emoji icon createdAt updatedAt type slug path parentId description href documentId
      urls { app }
      hidden noIndex noRobotsIndex variables
      layout { width cover coverSize coverMask title description tableOfContents outline pagination metadata tags actions anchors }
      cover { ref { kind file } refDark { kind file } yPos }
      markdown
    }
  }`,
  [ListInfo],
);

export function restLinkList(connection: FragmentOf<typeof LinkListFields>) {
  return {
    ...listBody(connection, (link) => ({
      status: restEnum(link.status),
      relation: link.relation,
      targetReference: compact(link.targetReference),
      locationReferences: link.locationReferences.map(compact),
    })),
    stats: connection.stats,
  };
}

export function restBacklinks(
  space: FragmentOf<typeof SpaceFields> & { organization: FragmentOf<typeof OrganizationFields> },
  connection: FragmentOf<typeof BacklinkListFields>,
) {
  const organization = restOrganization(space.organization);
  const restSpaceBody = restSpace(space);
  return listBody(connection, (page) => ({ kind: "page", organization, space: restSpaceBody, page: restPage(page, () => []) }));
}

export const linkVariables = (query: RestRequest["query"]) => ({
  ...pageVariables(query),
  status: query.status === undefined ? null : graphqlEnum("status", query.status, LINK_STATUSES),
});

export const LIST_QUERY = { page: "string", limit: "limit" } as const;

/** The space's own link rows. */
const spaceLinkRoutes: RestRoute[] = [
  typedRoute({
    method: "GET",
    path: "/v1/spaces/:spaceId/links",
    action: "space.read",
    query: { ...LIST_QUERY, status: "string" },
    document: graphql(
      `query ListSpaceLinks($id: ID!, $first: Int, $after: String, $status: LinkStatus) {
        space(id: $id) { links(first: $first, after: $after, status: $status) { ...LinkListFields } }
      }`,
      [LinkListFields],
    ),
    variables: ({ params, query }) => ({ id: params.spaceId, ...linkVariables(query) }),
    status: 200,
    body: (data) => restLinkList(data.space.links),
  }),
];

/** Link rows of a content target (change-requests.ts makes them on change requests too). */
export const contentLinkRoutes: RestRoute[] = [
  typedRoute({
    method: "GET",
    path: "/v1/spaces/:spaceId/content/page/:pageId/links",
    action: "space.read",
    query: { ...LIST_QUERY, status: "string" },
    document: graphql(
      `query ListPageLinks($space: ID!, $changeRequest: ID, $page: ID!, $first: Int, $after: String, $status: LinkStatus) {
        contentTarget(space: $space, changeRequest: $changeRequest) {
          page(id: $page) { links(first: $first, after: $after, status: $status) { ...LinkListFields } }
        }
      }`,
      [LinkListFields],
    ),
    variables: (request) => ({ ...targetVariables(request), page: request.params.pageId, ...linkVariables(request.query) }),
    status: 200,
    body: (data) => restLinkList(data.contentTarget.page.links),
  }),
  typedRoute({
    method: "GET",
    path: "/v1/spaces/:spaceId/content/files/:fileId/backlinks",
    action: "space.read",
    query: LIST_QUERY,
    document: graphql(
      `query ListFileBacklinks($space: ID!, $changeRequest: ID, $file: ID!, $first: Int, $after: String) {
        contentTarget(space: $space, changeRequest: $changeRequest) {
          space { ...SpaceFields organization { ...OrganizationFields } }
          file(id: $file) { backlinks(first: $first, after: $after) { ...BacklinkListFields } }
        }
      }`,
      [SpaceFields, OrganizationFields, BacklinkListFields],
    ),
    variables: (request) => ({ ...targetVariables(request), file: request.params.fileId, ...pageVariables(request.query) }),
    status: 200,
    body: (data) => restBacklinks(data.contentTarget.space, data.contentTarget.file.backlinks),
  }),
  typedRoute({
    // The contract lists page backlinks under change-request content; the space has them too.
    method: "GET",
    path: "/v1/spaces/:spaceId/content/page/:pageId/backlinks",
    action: "space.read",
    query: LIST_QUERY,
    document: graphql(
      `query ListPageBacklinks($space: ID!, $changeRequest: ID, $page: ID!, $first: Int, $after: String) {
        contentTarget(space: $space, changeRequest: $changeRequest) {
          space { ...SpaceFields organization { ...OrganizationFields } }
          page(id: $page) { backlinks(first: $first, after: $after) { ...BacklinkListFields } }
        }
      }`,
      [SpaceFields, OrganizationFields, BacklinkListFields],
    ),
    variables: (request) => ({ ...targetVariables(request), page: request.params.pageId, ...pageVariables(request.query) }),
    status: 200,
    body: (data) => restBacklinks(data.contentTarget.space, data.contentTarget.page.backlinks),
  }),
];

/** Every link row of the space: its own, then those of its content. */
export const linkRoutes: RestRoute[] = [...spaceLinkRoutes, ...contentLinkRoutes];
