// /v1/orgs/{organizationId}/sites/{siteId}/redirects routes: the published site-redirects
// operations (list, create, bulk upsert with PUT, update, delete answering 205/204, and the
// redirect a source path follows). Rules are in src/core/sites/redirects.ts; types are checked
// here so that a message names the field.
import { graphql, type FragmentOf } from "../graphql.ts";
import { compact, listBody, ListInfo, pageVariables, RestInputError, type RestRequest, type RestRoute, typedRoute } from "../route.ts";

const prefix = "/v1/orgs/:organizationId/sites/:siteId";
const site = (params: Record<string, string>) => ({ organization: params.organizationId, site: params.siteId });

const SiteRedirectFields = graphql(`
  fragment SiteRedirectFields on SiteRedirect {
    id
    source
    draft
    captureWildcard
    permanent
    destination {
      kind
      siteSectionId
      siteSpaceId
      pageId
      url
    }
    createdAt
    updatedAt
  }
`);

export const restRedirect = (redirect: FragmentOf<typeof SiteRedirectFields>) => ({
  object: "site-redirect",
  id: redirect.id,
  source: redirect.source,
  draft: redirect.draft,
  captureWildcard: redirect.captureWildcard,
  permanent: redirect.permanent,
  destination: compact(redirect.destination),
  createdAt: redirect.createdAt,
  ...compact({ updatedAt: redirect.updatedAt }),
});

const DESTINATION_KEYS = ["kind", "siteSectionId", "siteSpaceId", "pageId", "url", "spaceId", "path"] as const;

/** A destination of the body: an object of strings (the core checks kinds and ids). */
function destinationOf(value: unknown, field: string): Record<string, string> {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new RestInputError(`${field} must be an object { kind, … }`);
  const raw = value as Record<string, unknown>;
  const destination: Record<string, string> = {};
  for (const key of DESTINATION_KEYS) {
    if (raw[key] == null) continue;
    if (typeof raw[key] !== "string") throw new RestInputError(`${field}.${key} must be a string`);
    destination[key] = raw[key];
  }
  if (!destination.kind) throw new RestInputError(`${field}.kind is required`);
  return destination;
}

function booleanOf(body: Record<string, unknown>, key: string, field = key): boolean | undefined {
  if (body[key] == null) return undefined;
  if (typeof body[key] !== "boolean") throw new RestInputError(`${field} must be a boolean`);
  return body[key];
}

function sourceOf(value: unknown, field: string, required: boolean): string | undefined {
  if (value == null && !required) return undefined;
  if (typeof value !== "string") throw new RestInputError(`${field} is required (a path of the site, starting with /)`);
  return value;
}

/** The fields of a create or update body, typed. */
function redirectOf(body: RestRequest["body"], creating: boolean) {
  if (creating && body.destination == null) throw new RestInputError("destination is required");
  return {
    ...compact({
      source: sourceOf(body.source, "source", creating),
      captureWildcard: booleanOf(body, "captureWildcard"),
      draft: booleanOf(body, "draft"),
      permanent: booleanOf(body, "permanent"),
    }),
    ...(body.destination != null ? { destination: destinationOf(body.destination, "destination") } : {}),
  };
}

/** The items of a bulk upsert, typed; `destination: null` (delete) kept apart from absent. */
function bulkItemsOf(body: RestRequest["body"]) {
  if (!Array.isArray(body.redirects)) throw new RestInputError("redirects is required (a list of 1 to 500 redirects)");
  if (body.redirects.length < 1 || body.redirects.length > 500)
    throw new RestInputError(`redirects: 1 to 500 items (got ${body.redirects.length})`);
  return body.redirects.map((item: unknown, index) => {
    const field = `redirects[${index}]`;
    if (typeof item !== "object" || item === null || Array.isArray(item))
      throw new RestInputError(`${field} must be an object { source, … }`);
    const raw = item as Record<string, unknown>;
    if (raw.intent != null && typeof raw.intent !== "string") throw new RestInputError(`${field}.intent must be live, draft or publish`);
    const intent = (raw.intent as string | undefined) ?? "live";
    if (intent !== "publish" && !("destination" in raw))
      throw new RestInputError(`${field}.destination is required (null deletes the redirect)`);
    return {
      source: sourceOf(raw.source, `${field}.source`, true)!,
      intent,
      ...compact({
        captureWildcard: booleanOf(raw, "captureWildcard", `${field}.captureWildcard`),
        permanent: booleanOf(raw, "permanent", `${field}.permanent`),
      }),
      destination: intent === "publish" || raw.destination === null ? null : destinationOf(raw.destination, `${field}.destination`),
    };
  });
}

const ORDERS = ["createdAt", "updatedAt", "source"];

export const siteRedirectRoutes: RestRoute[] = [
  typedRoute({
    method: "GET",
    path: `${prefix}/redirects`,
    action: "site.read",
    query: { page: "string", limit: "limit", search: "string", draft: "boolean", orderBy: "string" },
    document: graphql(
      `
        query ListSiteRedirects(
          $site: ID!
          $organization: ID
          $first: Int
          $after: String
          $search: String
          $draft: Boolean
          $orderBy: String
        ) {
          site(id: $site, organization: $organization) {
            redirects(first: $first, after: $after, search: $search, draft: $draft, orderBy: $orderBy) {
              totalCount
              pageInfo {
                ...ListInfo
              }
              nodes {
                ...SiteRedirectFields
              }
            }
          }
        }
      `,
      [SiteRedirectFields, ListInfo],
    ),
    variables: ({ params, query }) => {
      if (query.orderBy !== undefined && !ORDERS.includes(String(query.orderBy)))
        throw new RestInputError(`orderBy must be one of ${ORDERS.join(", ")}`);
      return { ...site(params), ...pageVariables(query), search: query.search, draft: query.draft, orderBy: query.orderBy };
    },
    status: 200,
    body: (data) => listBody(data.site.redirects, restRedirect),
  }),
  typedRoute({
    method: "POST",
    path: `${prefix}/redirects`,
    action: "site.configure",
    document: graphql(
      `
        mutation CreateSiteRedirect($input: CreateSiteRedirectInput!) {
          createSiteRedirect(input: $input) {
            redirect {
              ...SiteRedirectFields
            }
          }
        }
      `,
      [SiteRedirectFields],
    ),
    variables: ({ params, body }) => ({
      input: { ...site(params), ...(redirectOf(body, true) as Required<ReturnType<typeof redirectOf>>) },
    }),
    status: 201,
    body: (data) => restRedirect(data.createSiteRedirect.redirect),
    location: (redirect, { params }) => `/orgs/${params.organizationId}/sites/${params.siteId}/redirects/${redirect.id}`,
  }),
  typedRoute({
    method: "PUT",
    path: `${prefix}/redirects`,
    action: "site.configure",
    document: graphql(`
      mutation BulkUpsertSiteRedirects($input: BulkUpsertSiteRedirectsInput!) {
        bulkUpsertSiteRedirects(input: $input) {
          results {
            status
            source
            draft
            id
            error
          }
        }
      }
    `),
    variables: ({ params, body }) => ({ input: { ...site(params), redirects: bulkItemsOf(body) } }),
    status: 200,
    body: (data) => ({ results: data.bulkUpsertSiteRedirects.results.map((result) => compact(result)) }),
  }),
  typedRoute({
    method: "PATCH",
    path: `${prefix}/redirects/:siteRedirectId`,
    action: "site.configure",
    document: graphql(
      `
        mutation UpdateSiteRedirect($input: UpdateSiteRedirectInput!) {
          updateSiteRedirect(input: $input) {
            redirect {
              ...SiteRedirectFields
            }
          }
        }
      `,
      [SiteRedirectFields],
    ),
    variables: ({ params, body }) => ({ input: { ...site(params), id: params.siteRedirectId, ...redirectOf(body, false) } }),
    status: 200,
    body: (data) => restRedirect(data.updateSiteRedirect.redirect),
  }),
  typedRoute({
    method: "DELETE",
    path: `${prefix}/redirects/:siteRedirectId`,
    action: "site.configure",
    document: graphql(`
      mutation DeleteSiteRedirect($input: DeleteSiteRedirectInput!) {
        deleteSiteRedirect(input: $input) {
          existed
        }
      }
    `),
    variables: ({ params }) => ({ input: { ...site(params), id: params.siteRedirectId } }),
    status: 205,
    statusOf: (data) => (data.deleteSiteRedirect.existed ? 205 : 204),
  }),
  typedRoute({
    method: "GET",
    path: `${prefix}/redirect`,
    action: "site.read",
    query: { source: "string", shareKey: "string" },
    document: graphql(
      `
        query GetSiteRedirectBySource($site: ID!, $organization: ID, $shareKey: String, $source: String!) {
          site(id: $site, organization: $organization, shareKey: $shareKey) {
            redirect(source: $source) {
              redirect {
                ...SiteRedirectFields
              }
              target
            }
          }
        }
      `,
      [SiteRedirectFields],
    ),
    variables: ({ params, query }) => {
      if (typeof query.source !== "string") throw new RestInputError("source is required (a path of the site, starting with /)");
      return { ...site(params), shareKey: query.shareKey, source: query.source };
    },
    status: 200,
    body: (data) => ({ redirect: restRedirect(data.site.redirect.redirect), target: data.site.redirect.target }),
  }),
  typedRoute({
    method: "POST",
    path: `${prefix}/search/prewarm`,
    action: "site.read",
    document: graphql(`
      mutation PrewarmSiteSearch($input: PrewarmSiteSearchInput!) {
        prewarmSiteSearch(input: $input) {
          siteId
        }
      }
    `),
    variables: ({ params }) => ({ input: site(params) }),
    status: 204,
  }),
];
