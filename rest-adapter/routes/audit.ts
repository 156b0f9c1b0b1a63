// /v1/orgs/{organizationId}/audit-event-actions and /audit-events routes: the published audit log
// operations (the actions list, the events newest first with their filters, one event with its
// payload). Rules are in src/core/audit; organization admins read them.
import { graphql, type FragmentOf } from "../graphql.ts";
import { compact, listBody, ListInfo, pageVariables, RestInputError, typedRoute, type RestRoute } from "../route.ts";
import { AUDIT_PAGE_MAX } from "../../src/core/audit/index.ts";

const AuditEventFields = graphql(`
  fragment AuditEventFields on AuditEvent {
    id
    occurredAt
    action
    actor {
      type
      id
      tokenId
    }
    source
    target {
      type
      id
      label
    }
    location
  }
`);

const restAuditEvent = (event: FragmentOf<typeof AuditEventFields>) => ({
  object: "audit-event",
  id: event.id,
  occurredAt: event.occurredAt,
  action: event.action,
  actor: { type: event.actor.type, id: event.actor.id },
  source: event.source,
  target: compact({ type: event.target.type, id: event.target.id, label: event.target.label }),
  urls: { location: event.location },
});

export const auditRoutes: RestRoute[] = [
  typedRoute({
    method: "GET",
    path: "/v1/orgs/:organizationId/audit-event-actions",
    action: "audit.read",
    document: graphql(`
      query ListAuditEventActions($organization: ID!) {
        organization(id: $organization) {
          auditEventActions {
            id
            label
          }
        }
      }
    `),
    variables: ({ params }) => ({ organization: params.organizationId }),
    status: 200,
    body: (data) => ({
      items: data.organization.auditEventActions.map((action) => ({ object: "audit-event-action", id: action.id, label: action.label })),
    }),
  }),
  typedRoute({
    method: "GET",
    path: "/v1/orgs/:organizationId/audit-events",
    action: "audit.read",
    query: { page: "string", limit: "limit", from: "string", to: "string", action: "string", actor: "string", target: "string" },
    document: graphql(
      `
        query ListAuditEvents(
          $organization: ID!
          $first: Int
          $after: String
          $from: String
          $to: String
          $action: String
          $actor: String
          $target: String
        ) {
          organization(id: $organization) {
            auditEvents(first: $first, after: $after, from: $from, to: $to, action: $action, actor: $actor, target: $target) {
              totalCount
              pageInfo {
                ...ListInfo
              }
              nodes {
                ...AuditEventFields
              }
            }
          }
        }
      `,
      [AuditEventFields, ListInfo],
    ),
    variables: ({ params, query }) => {
      // The published limit is at most 100, below the adapter's general bound.
      if (typeof query.limit === "number" && query.limit > AUDIT_PAGE_MAX) {
        throw new RestInputError(`limit must be an integer between 1 and ${AUDIT_PAGE_MAX} (got ${query.limit})`);
      }
      return {
        organization: params.organizationId,
        ...pageVariables(query),
        from: query.from,
        to: query.to,
        action: query.action,
        actor: query.actor,
        target: query.target,
      };
    },
    status: 200,
    body: (data) => listBody(data.organization.auditEvents, restAuditEvent),
  }),
  typedRoute({
    method: "GET",
    path: "/v1/orgs/:organizationId/audit-events/:auditEventId",
    action: "audit.read",
    document: graphql(
      `
        query GetAuditEvent($organization: ID!, $id: String!) {
          organization(id: $organization) {
            auditEvent(id: $id) {
              ...AuditEventFields
              payload
            }
          }
        }
      `,
      [AuditEventFields],
    ),
    variables: ({ params }) => ({ organization: params.organizationId, id: params.auditEventId }),
    status: 200,
    body: (data) => {
      const event = data.organization.auditEvent;
      return {
        ...restAuditEvent(event),
        schemaVersion: 1,
        // The token the write came with is a detail of the event, beside what the action changed.
        payload: { ...(event.payload as Record<string, unknown>), ...compact({ token: event.actor.tokenId }) },
      };
    },
  }),
];
