// Search routes: a space's content and an organization's content.
import { graphql, type FragmentOf } from "../graphql.ts";
import { listBody, ListInfo, pageVariables, type RestRoute, typedRoute } from "../route.ts";

export const SearchPageFields = graphql(`
  fragment SearchPageFields on SearchPage {
    id title description path ancestors score rank
    sections { id title path body score urls { app } }
    urls { app }
  }`);

// Object.assign rather than properties after a spread (`{ ...page, x }`), same object: V8 builds
// those slowly (~1.3 us each on Node 20), and these run per item of a list (issue 15).
export const restSearchPage = (page: FragmentOf<typeof SearchPageFields>) =>
  Object.assign({}, page, {
    ancestors: page.ancestors.map((title) => ({ title })),
    resultType: "section",
    sections: page.sections.map((section) => Object.assign({}, section, { resultType: "section" })),
  });

export const searchRoutes: RestRoute[] = [
  typedRoute({
    method: "GET",
    path: "/v1/spaces/:spaceId/search",
    action: "space.read",
    query: { query: "string", page: "string", limit: "limit" },
    document: graphql(
      `query SearchSpace($id: ID!, $query: String!, $first: Int, $after: String) {
        space(id: $id) {
          search(query: $query, first: $first, after: $after) { totalCount pageInfo { ...ListInfo } nodes { ...SearchPageFields } }
        }
      }`,
      [SearchPageFields, ListInfo],
    ),
    variables: ({ params, query }) => ({ id: params.spaceId, query: query.query, ...pageVariables(query) }),
    status: 200,
    body: (data) => listBody(data.space.search, restSearchPage),
  }),
  typedRoute({
    method: "GET",
    path: "/v1/orgs/:organizationId/search",
    action: "organization.read",
    query: { query: "string", page: "string", limit: "limit" },
    document: graphql(
      `query SearchOrganization($id: ID!, $query: String!, $first: Int, $after: String) {
        organization(id: $id) {
          search(query: $query, first: $first, after: $after) {
            totalCount pageInfo { ...ListInfo } nodes { id title score pages { ...SearchPageFields } }
          }
        }
      }`,
      [SearchPageFields, ListInfo],
    ),
    variables: ({ params, query }) => ({ id: params.organizationId, query: query.query, ...pageVariables(query) }),
    status: 200,
    body: (data) => listBody(data.organization.search, (space) => ({ type: "space", ...space, pages: space.pages.map(restSearchPage) })),
  }),
];
