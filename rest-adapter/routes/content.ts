// /v1/spaces/:spaceId/content…: the current revision, its pages (by id, by path, as a tree) and
// its files. Read-only: content is edited through GraphQL. Every row here, in links.ts and in
// import.ts runs on a content target, so change-requests.ts makes the same rows on a change
// request's content with `onChangeRequest`.
//
// Flags: `metadata=false` leaves out the revision's `git` metadata (there is none until git sync
// exists). `computed` is accepted and changes nothing: no page is computed content. `evaluated`
// is accepted and changes nothing: markdown bodies hold no expressions to evaluate. `dereferenced`
// is accepted and changes nothing: a page body includes no other content (reusable contents are
// not embedded in pages here) to expand. `format.markdown.refs` (relative, the default, or
// stable) writes the references of a single page's markdown (src/core/links/refs.ts); the
// revision and page-list rows give the markdown as stored.
//
// Every document page carries its body, as the published schema's `Document` union requires:
// `markdown` in lists and revisions; for a single page `document` (the parsed tree) unless
// `format=markdown`. Page trees of any depth are read flat (`allPages`, `descendants`, each with
// its `parentId`) and nested here, so the operation documents need no fixed depth.
import { ChangeRequestFields, restChangeRequest } from "./change-request-fields.ts";
import { graphql, type ResultOf } from "../graphql.ts";
import { MARKDOWN_REFS } from "../../src/core/links/refs.ts";
import { quote } from "../../src/core/errors.ts";
import {
  compact,
  formatVariables,
  ListInfo,
  listBody,
  pageVariables,
  RestInputError,
  restEnum,
  type RestRequest,
  type RestRoute,
  typedRoute,
} from "../route.ts";

export const PageFields = graphql(`
  fragment ContentPageFields on Page {
    id title emoji icon createdAt updatedAt type slug path parentId description href documentId
    urls { app }
    hidden noIndex noRobotsIndex variables
    layout { width cover coverSize coverMask title description tableOfContents outline pagination metadata tags actions anchors }
    cover { ref { kind file } refDark { kind file } yPos }
    markdown(refs: $refs) @include(if: $markdown)
    document @include(if: $document)
  }`);
type PageData = ResultOf<typeof PageFields>;

export const FileFields = graphql(`
  fragment ContentFileFields on File { id name contentType size dimensions { width height } downloadURL }`);

export const RevisionFields = graphql(
  `fragment ContentRevisionFields on Revision {
    id parents type createdAt variables
    urls { app published public }
    git @include(if: $metadata) { oid message createdByService url ref }
    allPages { ...ContentPageFields }
    files { ...ContentFileFields }
    reusableContents { id title documentId }
    mergedFrom { ...ChangeRequestFields }
  }`,
  [PageFields, FileFields, ChangeRequestFields],
);

export function restFile(f: ResultOf<typeof FileFields>) {
  // Object.assign, not properties after a spread (slow on Node 20, issue 15): the same keys, dimensions last.
  return Object.assign(compact(Object.assign({}, f, { dimensions: undefined })), compact({ dimensions: f.dimensions }));
}

/** A page of the published shape (document, group or link) with its nested `pages`. */
export function restPage(p: PageData, childrenOf: (id: string) => PageData[]): Record<string, unknown> {
  const type = restEnum(p.type);
  const common = {
    id: p.id,
    title: p.title,
    ...compact({ emoji: p.emoji, icon: p.icon }),
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
  };
  const pages = () => childrenOf(p.id).map((child) => restPage(child, childrenOf));
  if (type === "link") {
    return {
      ...common,
      kind: "link",
      type: "link",
      target: { kind: "url", url: p.href ?? "" },
      ...compact({ href: p.href }),
      hidden: p.hidden,
    };
  }
  if (type === "group") {
    return {
      ...common,
      kind: "group",
      type: "group",
      slug: p.slug,
      path: p.path,
      hidden: p.hidden,
      noIndex: p.noIndex,
      noRobotsIndex: p.noRobotsIndex,
      pages: pages(),
    };
  }
  const cover = p.cover ? { ...compact({ ref: p.cover.ref, refDark: p.cover.refDark }), yPos: p.cover.yPos } : undefined;
  return {
    ...common,
    kind: "sheet",
    type: "document",
    urls: p.urls,
    slug: p.slug,
    path: p.path,
    ...compact({ description: p.description }),
    pages: pages(),
    layout: p.layout,
    ...compact({ cover }),
    variables: p.variables ?? {},
    hidden: p.hidden,
    noIndex: p.noIndex,
    noRobotsIndex: p.noRobotsIndex,
    tags: [],
    ...compact({ documentId: p.documentId, markdown: p.markdown, document: p.document }),
  };
}

export const MetaLinksFields = graphql(`
  fragment PageMetaLinksFields on PageMetaLinks {
    canonical { kind page url }
    alternates { kind page url }
  }`);

type MetaLinkTargetData = NonNullable<ResultOf<typeof MetaLinksFields>["canonical"]>;
const restMetaLinkTarget = (target: MetaLinkTargetData) =>
  target.kind === "page" ? { kind: "page", page: target.page ?? "" } : { kind: "url", url: target.url ?? "" };

/** The published RevisionPageMetaLinks. */
export const restMetaLinks = (links: ResultOf<typeof MetaLinksFields>) => ({
  ...compact({ canonical: links.canonical ? restMetaLinkTarget(links.canonical) : undefined }),
  alternates: links.alternates.map(restMetaLinkTarget),
});

/** Children by parent id, from a flat depth-first list of pages with their `parentId`. */
function childIndex(pages: PageData[]) {
  const children = new Map<string | null, PageData[]>();
  for (const page of pages) {
    const siblings = children.get(page.parentId ?? null);
    if (siblings) siblings.push(page);
    else children.set(page.parentId ?? null, [page]);
  }
  return (id: string | null) => children.get(id) ?? [];
}

/** The nested tree of a flat page list. */
export function restPageTree(pages: PageData[]) {
  const childrenOf = childIndex(pages);
  return childrenOf(null).map((page) => restPage(page, childrenOf));
}

export function restRevision(r: ResultOf<typeof RevisionFields>) {
  return {
    object: "revision",
    id: r.id,
    parents: r.parents,
    type: r.type,
    createdAt: r.createdAt,
    pages: restPageTree(r.allPages),
    files: r.files.map(restFile),
    // `document` is the id of the body (its content hash), as the published schema has it.
    reusableContents: r.reusableContents.map((rc) => ({ id: rc.id, title: rc.title, document: rc.documentId })),
    // Tags do not exist in this service: always empty.
    tags: [],
    variables: r.variables ?? {},
    urls: compact(r.urls),
    ...compact({ git: r.git ? compact(r.git) : undefined, mergedFrom: r.mergedFrom ? restChangeRequest(r.mergedFrom) : undefined }),
  };
}

export const FLAGS = { metadata: "boolean", computed: "boolean" } as const;
export const PAGE_QUERY = {
  format: "string",
  "format.markdown.refs": "string",
  evaluated: "string",
  dereferenced: "string",
  ...FLAGS,
} as const;

const DEREFERENCED = ["true", "false", "reusable-contents"];

/** `dereferenced` checked (nothing to expand, see above). */
function checkDereferenced({ query: { dereferenced } }: RestRequest) {
  if (dereferenced !== undefined && !DEREFERENCED.includes(String(dereferenced))) {
    throw new RestInputError(`dereferenced must be one of ${DEREFERENCED.join(", ")} (got ${quote(dereferenced)})`);
  }
}

const EVALUATED = ["true", "false", "deterministic-only"];

/** The flags of a document route (`evaluated`, `dereferenced`), checked; neither changes the answer (see above). */
export function checkDocumentFlags(request: RestRequest) {
  checkDereferenced(request);
  const { evaluated } = request.query;
  if (evaluated !== undefined && !EVALUATED.includes(String(evaluated))) {
    throw new RestInputError(`evaluated must be one of ${EVALUATED.join(", ")} (got ${quote(evaluated)})`);
  }
}

/**
 * The variables of a single page's format: `format` (document unless markdown), `evaluated`,
 * `dereferenced` (checked; nothing to do, see above) and `format.markdown.refs` (relative unless
 * stable; checked even where ignored, without format=markdown).
 */
export function pageFormatVariables(request: RestRequest) {
  checkDereferenced(request);
  const refs = request.query["format.markdown.refs"] ?? "relative";
  if (typeof refs !== "string" || !(MARKDOWN_REFS as readonly string[]).includes(refs)) {
    throw new RestInputError(`format.markdown.refs must be one of ${MARKDOWN_REFS.join(", ")} (got ${quote(refs)})`);
  }
  return { ...formatVariables(request, "document"), refs: refs.toUpperCase() };
}

/** A page and its subtree, nested. */
export function singlePage(page: PageData & { descendants: PageData[] }) {
  return restPage(page, childIndex(page.descendants));
}

/** The variables naming a content target: the space, and the change request on its routes. */
export const targetVariables = ({ params }: RestRequest) => ({ space: params.spaceId, changeRequest: params.changeRequestId ?? null });

// The operations of content rows read `contentTarget`, so one row serves both kinds of head.
const SPACE_PREFIX = "/v1/spaces/:spaceId";
const CHANGE_REQUEST_PREFIX = "/v1/spaces/:spaceId/change-requests/:changeRequestId";
const ON_CHANGE_REQUEST: Partial<Record<RestRoute["action"], RestRoute["action"]>> = {
  "space.read": "changeRequest.read",
  "space.editContent": "changeRequest.editContent",
};

/** The row of a space content route on a change request's content: its path and permission. */
export function onChangeRequest(route: RestRoute): RestRoute {
  const action = ON_CHANGE_REQUEST[route.action];
  if (!route.path.startsWith(`${SPACE_PREFIX}/`) || !action) throw new Error(`${route.method} ${route.path} is not a space content route`);
  return { ...route, path: CHANGE_REQUEST_PREFIX + route.path.slice(SPACE_PREFIX.length), action };
}

export const contentRoutes: RestRoute[] = [
  typedRoute({
    method: "GET",
    path: "/v1/spaces/:spaceId/content",
    action: "space.read",
    query: FLAGS,
    document: graphql(
      `query GetContent($space: ID!, $changeRequest: ID, $metadata: Boolean!, $markdown: Boolean!, $document: Boolean!, $refs: MarkdownRefs) {
        contentTarget(space: $space, changeRequest: $changeRequest) { content { ...ContentRevisionFields } }
      }`,
      [RevisionFields],
    ),
    variables: (request) => ({ ...targetVariables(request), metadata: request.query.metadata !== false, markdown: true, document: false }),
    status: 200,
    body: (data) => restRevision(data.contentTarget.content),
  }),
  typedRoute({
    method: "GET",
    path: "/v1/spaces/:spaceId/content/pages",
    action: "space.read",
    query: FLAGS,
    document: graphql(
      `query ListPages($space: ID!, $changeRequest: ID, $markdown: Boolean!, $document: Boolean!, $refs: MarkdownRefs) {
        contentTarget(space: $space, changeRequest: $changeRequest) { content { allPages { ...ContentPageFields } } }
      }`,
      [PageFields],
    ),
    variables: (request) => ({ ...targetVariables(request), markdown: true, document: false }),
    status: 200,
    body: (data) => ({ pages: restPageTree(data.contentTarget.content.allPages) }),
  }),
  typedRoute({
    method: "GET",
    path: "/v1/spaces/:spaceId/content/page/:pageId",
    action: "space.read",
    query: PAGE_QUERY,
    document: graphql(
      `query GetPage($space: ID!, $changeRequest: ID, $page: ID!, $markdown: Boolean!, $document: Boolean!, $refs: MarkdownRefs) {
        contentTarget(space: $space, changeRequest: $changeRequest) { page(id: $page) { ...ContentPageFields descendants { ...ContentPageFields } } }
      }`,
      [PageFields],
    ),
    variables: (request) => ({ ...targetVariables(request), page: request.params.pageId, ...pageFormatVariables(request) }),
    status: 200,
    body: (data) => singlePage(data.contentTarget.page),
  }),
  typedRoute({
    // Beyond the contract, as the published API has it (getPageByPath, getPageInChangeRequestByPath).
    method: "GET",
    path: "/v1/spaces/:spaceId/content/path/*",
    action: "space.read",
    query: { ...PAGE_QUERY, cachedMetadata: "boolean" },
    document: graphql(
      `query GetPageByPath($space: ID!, $changeRequest: ID, $path: String!, $markdown: Boolean!, $document: Boolean!, $refs: MarkdownRefs) {
        contentTarget(space: $space, changeRequest: $changeRequest) { page(path: $path) { ...ContentPageFields descendants { ...ContentPageFields } } }
      }`,
      [PageFields],
    ),
    variables: (request) => ({ ...targetVariables(request), path: request.params["*"] ?? "", ...pageFormatVariables(request) }),
    status: 200,
    body: (data) => singlePage(data.contentTarget.page),
  }),
  typedRoute({
    method: "GET",
    path: "/v1/spaces/:spaceId/content/page/:pageId/meta-links",
    action: "space.read",
    document: graphql(
      `query ListPageMetaLinks($space: ID!, $changeRequest: ID, $page: ID!) {
        contentTarget(space: $space, changeRequest: $changeRequest) { page(id: $page) { metaLinks { ...PageMetaLinksFields } } }
      }`,
      [MetaLinksFields],
    ),
    variables: (request) => ({ ...targetVariables(request), page: request.params.pageId }),
    status: 200,
    body: (data) => restMetaLinks(data.contentTarget.page.metaLinks),
  }),
  typedRoute({
    method: "GET",
    path: "/v1/spaces/:spaceId/content/files",
    action: "space.read",
    query: { page: "string", limit: "limit", ...FLAGS },
    document: graphql(
      `query ListFiles($space: ID!, $changeRequest: ID, $first: Int, $after: String) {
        contentTarget(space: $space, changeRequest: $changeRequest) {
          files(first: $first, after: $after) { totalCount pageInfo { ...ListInfo } nodes { ...ContentFileFields } }
        }
      }`,
      [FileFields, ListInfo],
    ),
    variables: (request) => ({ ...targetVariables(request), ...pageVariables(request.query) }),
    status: 200,
    body: (data) => listBody(data.contentTarget.files, restFile),
  }),
  typedRoute({
    method: "GET",
    path: "/v1/spaces/:spaceId/content/files/:fileId",
    action: "space.read",
    query: FLAGS,
    document: graphql(
      `query GetFile($space: ID!, $changeRequest: ID, $file: ID!) {
        contentTarget(space: $space, changeRequest: $changeRequest) { file(id: $file) { ...ContentFileFields } }
      }`,
      [FileFields],
    ),
    variables: (request) => ({ ...targetVariables(request), file: request.params.fileId }),
    status: 200,
    body: (data) => restFile(data.contentTarget.file),
  }),
];
