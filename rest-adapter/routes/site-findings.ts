// /v1/orgs/{organizationId}/sites/{siteId}/findings and /stats/findings routes: the published
// findings reads (list, one by id, stats), served from the site's insights: searches and questions
// that found nothing, pages rated not helpful. Rules and filter checks are in
// src/core/insights/findings.ts, so a bad filter is named the same on both surfaces.
import { graphql, type FragmentOf } from "../graphql.ts";
import { listBody, ListInfo, pageVariables, type RestRequest, type RestRoute, typedRoute } from "../route.ts";

const prefix = "/v1/orgs/:organizationId/sites/:siteId";
const site = (params: Record<string, string>) => ({ organization: params.organizationId, site: params.siteId });

const SiteFindingFields = graphql(`
  fragment SiteFindingFields on SiteFinding {
    id
    scan
    topic
    title
    changeRequests
    pages
    records
    questions
    status
    type
    severity
    description
    autoFixable
    createdAt
    updatedAt
    urls {
      location
    }
  }
`);

const restFinding = (finding: FragmentOf<typeof SiteFindingFields>) => ({ object: "site-finding", ...finding });

const FILTER_QUERY = {
  topic: "string",
  question: "string",
  status: "string",
  type: "string[]",
  severity: "string",
  hasChangeRequests: "boolean",
  source: "string[]",
} as const;

const filters = (query: RestRequest["query"]) => ({
  topic: query.topic as string | undefined,
  question: query.question as string | undefined,
  status: query.status as string | undefined,
  type: query.type as string[] | undefined,
  severity: query.severity as string | undefined,
  hasChangeRequests: query.hasChangeRequests as boolean | undefined,
  source: query.source as string[] | undefined,
});

export const siteFindingRoutes: RestRoute[] = [
  typedRoute({
    method: "GET",
    path: `${prefix}/findings`,
    action: "site.readInsights",
    query: { page: "string", limit: "limit", ...FILTER_QUERY, updatedAfter: "string", updatedBefore: "string", orderBy: "string" },
    document: graphql(
      `
        query ListSiteFindings(
          $site: ID!
          $organization: ID
          $first: Int
          $after: String
          $topic: String
          $question: String
          $status: String
          $type: [String!]
          $severity: String
          $hasChangeRequests: Boolean
          $source: [String!]
          $updatedAfter: String
          $updatedBefore: String
          $orderBy: String
        ) {
          site(id: $site, organization: $organization) {
            findings(
              first: $first
              after: $after
              topic: $topic
              question: $question
              status: $status
              type: $type
              severity: $severity
              hasChangeRequests: $hasChangeRequests
              source: $source
              updatedAfter: $updatedAfter
              updatedBefore: $updatedBefore
              orderBy: $orderBy
            ) {
              totalCount
              pageInfo {
                ...ListInfo
              }
              nodes {
                ...SiteFindingFields
              }
            }
          }
        }
      `,
      [SiteFindingFields, ListInfo],
    ),
    variables: ({ params, query }) => ({
      ...site(params),
      ...pageVariables(query),
      ...filters(query),
      updatedAfter: query.updatedAfter as string | undefined,
      updatedBefore: query.updatedBefore as string | undefined,
      orderBy: query.orderBy as string | undefined,
    }),
    status: 200,
    body: (data) => listBody(data.site.findings, restFinding),
  }),
  typedRoute({
    method: "GET",
    path: `${prefix}/findings/:siteFindingId`,
    action: "site.readInsights",
    document: graphql(
      `
        query GetSiteFinding($site: ID!, $organization: ID, $id: ID!) {
          site(id: $site, organization: $organization) {
            finding(id: $id) {
              ...SiteFindingFields
            }
          }
        }
      `,
      [SiteFindingFields],
    ),
    variables: ({ params }) => ({ ...site(params), id: params.siteFindingId }),
    status: 200,
    body: (data) => restFinding(data.site.finding),
  }),
  typedRoute({
    method: "GET",
    path: `${prefix}/stats/findings`,
    action: "site.readInsights",
    query: FILTER_QUERY,
    document: graphql(`
      query GetSiteFindingStats(
        $site: ID!
        $organization: ID
        $topic: String
        $question: String
        $status: String
        $type: [String!]
        $severity: String
        $hasChangeRequests: Boolean
        $source: [String!]
      ) {
        site(id: $site, organization: $organization) {
          findingStats(
            topic: $topic
            question: $question
            status: $status
            type: $type
            severity: $severity
            hasChangeRequests: $hasChangeRequests
            source: $source
          ) {
            total
            statuses {
              open
              done
              canceled
            }
            severities {
              low
              medium
              high
            }
            connectors
            questions
            mergedChangeRequests
          }
        }
      }
    `),
    variables: ({ params, query }) => ({ ...site(params), ...filters(query) }),
    status: 200,
    body: (data) => data.site.findingStats,
  }),
];
