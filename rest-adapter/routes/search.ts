// Search routes: a space's content and an organization's content.
import { listBody, pageVariables, type RestRoute } from "../route.ts";

export const SEARCH_PAGE_FIELDS = /* GraphQL */ `
  fragment SearchPageFields on SearchPage {
    id title description path ancestors score rank
    sections { id title path body score urls { app } }
    urls { app }
  }`;

export const restSearchPage = (page: any) => ({
  ...page,
  ancestors: page.ancestors.map((title: string) => ({ title })),
  resultType: "section",
  sections: page.sections.map((section: any) => ({ ...section, resultType: "section" })),
});

export const searchRoutes: RestRoute[] = [
  {
    method: "GET",
    path: "/v1/spaces/:spaceId/search",
    action: "space.read",
    query: { query: "string", page: "string", limit: "limit" },
    document: /* GraphQL */ `
      query SearchSpace($id: ID!, $query: String!, $first: Int, $after: String) {
        space(id: $id) {
          search(query: $query, first: $first, after: $after) {
            totalCount
            pageInfo { hasNextPage endCursor }
            nodes { ...SearchPageFields }
          }
        }
      }
      ${SEARCH_PAGE_FIELDS}`,
    variables: ({ params, query }) => ({ id: params.spaceId, query: query.query, ...pageVariables(query) }),
    status: 200,
    body: (data) => listBody(data.space.search, restSearchPage),
  },
  {
    method: "GET",
    path: "/v1/orgs/:organizationId/search",
    action: "organization.read",
    query: { query: "string", page: "string", limit: "limit" },
    document: /* GraphQL */ `
      query SearchOrganization($id: ID!, $query: String!, $first: Int, $after: String) {
        organization(id: $id) {
          search(query: $query, first: $first, after: $after) {
            totalCount
            pageInfo { hasNextPage endCursor }
            nodes { id title score pages { ...SearchPageFields } }
          }
        }
      }
      ${SEARCH_PAGE_FIELDS}`,
    variables: ({ params, query }) => ({ id: params.organizationId, query: query.query, ...pageVariables(query) }),
    status: 200,
    body: (data) =>
      listBody(data.organization.search, (space: any) => ({ type: "space", ...space, pages: space.pages.map(restSearchPage) })),
  },
];
