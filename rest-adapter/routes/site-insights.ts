// /v1/orgs/{organizationId}/sites/{siteId}/insights routes: the published site-insights operations
// (track events, aggregate them, list visitor segments). Rules are in src/core/insights/; bodies
// go to the core as they came, so its messages name the published fields.
import { graphql } from "../graphql.ts";
import { compact, RestInputError, type RestRoute, typedRoute } from "../route.ts";

const prefix = "/v1/orgs/:organizationId/sites/:siteId/insights";
const site = (params: Record<string, string>) => ({ organization: params.organizationId, site: params.siteId });

export const siteInsightsRoutes: RestRoute[] = [
  typedRoute({
    method: "POST",
    path: `${prefix}/events`,
    action: "site.trackInsights",
    document: graphql(`
      mutation TrackSiteInsightEvents($input: TrackSiteInsightEventsInput!) {
        trackSiteInsightEvents(input: $input) {
          tracked
        }
      }
    `),
    variables: ({ params, body }) => {
      if (!Array.isArray(body.events)) throw new RestInputError("events is required (a list of events)");
      return { input: { ...site(params), events: body.events } };
    },
    status: 204,
  }),
  typedRoute({
    method: "POST",
    path: `${prefix}/events/aggregate`,
    action: "site.readInsights",
    document: graphql(`
      query AggregateSiteEvents($site: ID!, $organization: ID, $query: JSON!) {
        site(id: $site, organization: $organization) {
          insightsAggregation(query: $query) {
            column
            claim
            values
          }
        }
      }
    `),
    variables: ({ params, body }) => ({ ...site(params), query: body }),
    status: 200,
    body: (data) => ({ columns: data.site.insightsAggregation.map((column) => compact(column)) }),
  }),
  typedRoute({
    method: "GET",
    path: `${prefix}/visitor-segments`,
    action: "site.readInsights",
    document: graphql(`
      query ListSiteVisitorSegments($site: ID!, $organization: ID) {
        site(id: $site, organization: $organization) {
          insightsVisitorSegments {
            items {
              title
              claims
              events
              visitors
              sessions
            }
            count
          }
        }
      }
    `),
    variables: ({ params }) => site(params),
    status: 200,
    body: (data) => data.site.insightsVisitorSegments,
  }),
];
