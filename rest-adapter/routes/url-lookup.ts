// /v1/urls routes: a URL resolved to what it names (src/core/url-lookup).
import { graphql } from "../graphql.ts";
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

export const urlLookupRoutes: RestRoute[] = [
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
