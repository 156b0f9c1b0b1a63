// /v1/urls routes: a URL resolved to what it names (src/core/url-lookup).
import { graphql, type ResultOf } from "../graphql.ts";
import { compact, typedRoute, type RestRoute } from "../route.ts";
import { ChangeRequestFields, restChangeRequest } from "./change-request-fields.ts";
import { CollectionFields, restCollection } from "./collections.ts";
import { PageFields, singlePage } from "./content.ts";
import { restSpace, SpaceFields } from "./spaces.ts";

/** The `url` query parameter as given: the core checks it (required, absolute http(s), bounded). */
const urlOf = (query: Record<string, unknown>) => (typeof query.url === "string" ? query.url : "");

const EmbedDocument = graphql(`
  query GetEmbedByUrl($url: String!, $space: ID) { embedByUrl(url: $url, space: $space) { type title site icon html } }
`);

/** The published Embed: `html` only on a rich one, `icon` only when there is one. */
const restEmbed = ({
  embedByUrl: e,
}: {
  embedByUrl: { type: string; title: string; site: string; icon: string | null; html: string | null };
}) => ({
  type: e.type,
  title: e.title,
  site: e.site,
  ...compact({ icon: e.icon, html: e.html }),
});

const PublishedDocument = graphql(`
  query GetPublishedContentByUrl($url: String!, $visitor: SiteVisitorInput, $redirectOnError: Boolean) {
    publishedContentByUrl(url: $url, visitor: $visitor, redirectOnError: $redirectOnError) {
      content {
        site siteSection siteSpace space revision organization pathname basePath siteBasePath canonicalUrl complete shareKey contextId preview
      }
      redirect { target site redirect }
    }
  }
`);

type PublishedLookup = ResultOf<typeof PublishedDocument>["publishedContentByUrl"];

/**
 * The published PublishedSiteContentLookup: the content, or a redirect (an external one names its
 * site). `apiToken` is required by the published schema; no content-scoped token is issued here
 * (docs/decisions.md), so it is empty: the caller reads the space with its own token.
 */
function restPublished({ publishedContentByUrl: found }: { publishedContentByUrl: PublishedLookup }) {
  const redirect = found.redirect;
  if (redirect)
    return redirect.target === "external"
      ? { target: "external", site: redirect.site, redirect: redirect.redirect }
      : { target: redirect.target, redirect: redirect.redirect };
  const c = found.content!;
  return {
    site: c.site,
    ...compact({ siteSection: c.siteSection }),
    siteSpace: c.siteSpace,
    space: c.space,
    revision: c.revision,
    pathname: c.pathname,
    basePath: c.basePath,
    siteBasePath: c.siteBasePath,
    apiToken: "",
    organization: c.organization,
    ...compact({ shareKey: c.shareKey, contextId: c.contextId }),
    complete: c.complete,
    canonicalUrl: c.canonicalUrl,
    preview: c.preview,
  };
}

export const urlLookupRoutes: RestRoute[] = [
  typedRoute({
    method: "GET",
    path: "/v1/urls/published",
    action: "viewer",
    query: { url: "string", visitorAuthToken: "string", redirectOnError: "boolean" },
    document: PublishedDocument,
    variables: ({ query }) => ({
      url: urlOf(query),
      visitor: typeof query.visitorAuthToken === "string" ? { jwtToken: query.visitorAuthToken } : null,
      redirectOnError: query.redirectOnError === true,
    }),
    status: 200,
    body: restPublished,
  }),
  typedRoute({
    method: "POST",
    path: "/v1/urls/published",
    action: "viewer",
    document: PublishedDocument,
    variables: ({ body }) => ({ url: body.url, visitor: body.visitor ?? null, redirectOnError: body.redirectOnError ?? null }),
    status: 200,
    body: restPublished,
  }),
  typedRoute({
    method: "GET",
    path: "/v1/urls/embed",
    action: "viewer",
    query: { url: "string" },
    document: EmbedDocument,
    variables: ({ query }) => ({ url: urlOf(query) }),
    status: 200,
    body: restEmbed,
  }),
  typedRoute({
    method: "GET",
    path: "/v1/spaces/:spaceId/embed",
    action: "space.read",
    query: { url: "string" },
    document: EmbedDocument,
    variables: ({ query, params }) => ({ url: urlOf(query), space: params.spaceId }),
    status: 200,
    body: restEmbed,
  }),
  typedRoute({
    method: "GET",
    path: "/v1/urls/content",
    // A collection's URL is read with collection.read, which every role that has space.read holds.
    action: "space.read",
    query: { url: "string" },
    document: graphql(
      `query GetContentByUrl($url: String!, $markdown: Boolean!, $document: Boolean!, $refs: MarkdownRefs) {
        contentByUrl(url: $url) {
          collection { ...CollectionFields }
          space { ...SpaceFields }
          changeRequest { ...ChangeRequestFields }
          page { ...ContentPageFields descendants { ...ContentPageFields } }
        }
      }`,
      [CollectionFields, SpaceFields, ChangeRequestFields, PageFields],
    ),
    variables: ({ query }) => ({ url: urlOf(query), markdown: true, document: false, refs: "RELATIVE" }),
    status: 200,
    body: ({ contentByUrl: found }) =>
      found.collection
        ? { collection: restCollection(found.collection) }
        : {
            space: restSpace(found.space!),
            ...compact({
              changeRequest: found.changeRequest ? restChangeRequest(found.changeRequest) : null,
              page: found.page ? singlePage(found.page) : null,
            }),
          },
  }),
];
