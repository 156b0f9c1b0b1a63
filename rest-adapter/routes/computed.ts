// POST /v1/spaces/{spaceId}/content/computed/document and …/computed/revision: a document, or a
// revision's pages, files and reusable contents, computed from a source and not stored (the
// published getComputedDocument and getComputedRevision). Rules in src/core/computed.
import { graphql, type ResultOf } from "../graphql.ts";
import { quote } from "../../src/core/errors.ts";
import { compact, RestInputError, type RestRequest, type RestRoute, typedRoute } from "../route.ts";

const SCHEMAS = ["current", "next"];

/** The body as the operation's variables: its shape checked here (the message names the field), its values in the core. */
function computeVariables({ params, body, query }: RestRequest) {
  // Documents are written in one schema here: both versions the published API names get it.
  if (query.schema !== undefined && !SCHEMAS.includes(String(query.schema)))
    throw new RestInputError(`schema must be one of ${SCHEMAS.join(", ")} (got ${quote(query.schema)})`);
  if (body.source === undefined || body.source === null) throw new RestInputError("source is required");
  if (typeof body.seed !== "string") throw new RestInputError("seed is required (a string)");
  return { space: params.spaceId, source: body.source, seed: body.seed };
}

const ComputedRevisionQuery = graphql(`
  query ComputedRevision($space: ID!, $source: JSON!, $seed: String!) {
    space(id: $space) { urls { app } }
    computedRevision(space: $space, source: $source, seed: $seed) {
      pages {
        id kind title slug path parentId description emoji markdown document href
        layout { width cover coverSize coverMask title description tableOfContents outline pagination metadata tags actions anchors }
      }
      files { id name contentType size downloadURL }
      reusableContents { id title documentId }
    }
  }
`);
type Computed = ResultOf<typeof ComputedRevisionQuery>;
type ComputedPage = Computed["computedRevision"]["pages"][number];

/** The published RevisionPage tree of flat computed pages; `app` is the space's (computed pages have no place of their own in the app). */
function restComputedPages(pages: ComputedPage[], app: string) {
  const children = new Map<string | null, ComputedPage[]>();
  for (const page of pages) children.set(page.parentId ?? null, [...(children.get(page.parentId ?? null) ?? []), page]);
  const shape = (page: ComputedPage): Record<string, unknown> => {
    const common = { id: page.id, title: page.title, ...compact({ emoji: page.emoji }) };
    const nested = () => (children.get(page.id) ?? []).map(shape);
    if (page.kind === "link")
      return { ...common, kind: "link", type: "link", target: { kind: "url", url: page.href ?? "" }, ...compact({ href: page.href }) };
    if (page.kind === "group") return { ...common, kind: "group", type: "group", slug: page.slug, path: page.path, pages: nested() };
    return {
      ...common,
      kind: "sheet",
      type: "document",
      urls: { app },
      slug: page.slug,
      path: page.path,
      ...compact({ description: page.description }),
      pages: nested(),
      layout: page.layout,
      tags: [],
      ...(page.document ? { document: page.document } : { markdown: page.markdown ?? "" }),
    };
  };
  return (children.get(null) ?? []).map(shape);
}

export const computedRoutes: RestRoute[] = [
  typedRoute({
    method: "POST",
    path: "/v1/spaces/:spaceId/content/computed/document",
    action: "space.read",
    query: { schema: "string" },
    document: graphql(`
      query ComputedDocument($space: ID!, $source: JSON!, $seed: String!) {
        computedDocument(space: $space, source: $source, seed: $seed)
      }
    `),
    variables: computeVariables,
    status: 200,
    body: (data) => data.computedDocument,
  }),
  typedRoute({
    method: "POST",
    path: "/v1/spaces/:spaceId/content/computed/revision",
    action: "space.read",
    document: ComputedRevisionQuery,
    variables: computeVariables,
    status: 200,
    body: (data) => ({
      pages: restComputedPages(data.computedRevision.pages, data.space.urls.app),
      files: data.computedRevision.files,
      reusableContents: data.computedRevision.reusableContents.map((entry) => ({
        id: entry.id,
        title: entry.title,
        ...compact({ document: entry.documentId }),
      })),
    }),
  }),
];
