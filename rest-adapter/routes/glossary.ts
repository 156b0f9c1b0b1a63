// /v1/orgs/{organizationId}/translations-glossary routes: the published glossary operations (list,
// a batch of changes answering 204, one entry). Rules in src/core/translations/glossary.ts.
import { graphql, type FragmentOf } from "../graphql.ts";
import { listBody, ListInfo, pageVariables, RestInputError, type RestRequest, type RestRoute, typedRoute } from "../route.ts";

const GlossaryEntryFields = graphql(`
  fragment GlossaryEntryFields on GlossaryEntry {
    id
    translations
    createdAt
    updatedAt
    location
  }
`);

const restEntry = (entry: FragmentOf<typeof GlossaryEntryFields>) => ({
  object: "glossary-entry" as const,
  id: entry.id,
  translations: entry.translations,
  createdAt: entry.createdAt,
  updatedAt: entry.updatedAt,
  urls: { location: entry.location },
});

/** The body's operations, their types checked here (so the message names the field), rules in the core. */
function operationsOf(body: RestRequest["body"]) {
  if (body.operations == null) throw new RestInputError("operations is required");
  if (!Array.isArray(body.operations)) throw new RestInputError("operations must be a list of { type: insert | update | delete, … }");
  return body.operations.map((operation: unknown, index) => {
    const field = `operations[${index}]`;
    if (typeof operation !== "object" || operation === null || Array.isArray(operation))
      throw new RestInputError(`${field} must be an object`);
    const { type, id, translations } = operation as Record<string, unknown>;
    if (typeof type !== "string") throw new RestInputError(`${field}.type must be one of insert, update, delete`);
    if (id != null && typeof id !== "string") throw new RestInputError(`${field}.id must be the id of a glossary entry`);
    return { type, ...(id != null ? { id } : {}), ...(translations !== undefined ? { translations } : {}) };
  });
}

export const glossaryRoutes: RestRoute[] = [
  typedRoute({
    method: "GET",
    path: "/v1/orgs/:organizationId/translations-glossary",
    action: "translation.read",
    query: { page: "string", limit: "limit", orderBy: "string" },
    document: graphql(
      `query ListGlossaryEntries($id: ID!, $orderBy: String, $first: Int, $after: String) {
        organization(id: $id) {
          translationGlossary(orderBy: $orderBy, first: $first, after: $after) {
            totalCount
            pageInfo { ...ListInfo }
            nodes { ...GlossaryEntryFields }
          }
        }
      }`,
      [GlossaryEntryFields, ListInfo],
    ),
    variables: ({ params, query }) => ({
      id: params.organizationId,
      orderBy: (query.orderBy as string | undefined) ?? null,
      ...pageVariables(query),
    }),
    status: 200,
    body: (data) => listBody(data.organization.translationGlossary, restEntry),
  }),
  typedRoute({
    method: "PUT",
    path: "/v1/orgs/:organizationId/translations-glossary",
    action: "translation.manage",
    document: graphql(`
      mutation UpdateTranslationGlossary($organization: ID!, $operations: [GlossaryOperationInput!]!) {
        updateTranslationGlossary(organization: $organization, operations: $operations) { organizationId }
      }
    `),
    variables: (request) => ({ organization: request.params.organizationId, operations: operationsOf(request.body) }),
    status: 204,
  }),
  typedRoute({
    method: "GET",
    path: "/v1/orgs/:organizationId/translations-glossary/:glossaryEntryId",
    action: "translation.read",
    document: graphql(
      `query GetGlossaryEntry($id: ID!, $entry: ID!) {
        organization(id: $id) { translationGlossaryEntry(id: $entry) { ...GlossaryEntryFields } }
      }`,
      [GlossaryEntryFields],
    ),
    variables: ({ params }) => ({ id: params.organizationId, entry: params.glossaryEntryId }),
    status: 200,
    body: (data) => restEntry(data.organization.translationGlossaryEntry),
  }),
];
