// /v1/spaces/:spaceId/revisions/:revisionId…: any revision of a space by id (GraphQL
// `Space.revisionById`), read with the same fragments and shapes as the head's content rows
// (content.ts): the revision, its pages (nested), its files (a list in pages), a page by id or
// path, a page's document, and its reusable contents and their documents. The reusable contents of
// the head (`/content/reusable-contents/:id`) are content rows, made on change requests too.
//
// A revision of another space, or one the caller cannot read, is not found (404), as an unknown
// id is. The flags (`metadata`, `computed`, `format`, `format.markdown.refs`, `evaluated`,
// `dereferenced`) mean what they mean on the head's rows.
import { graphql, type ResultOf } from "../graphql.ts";
import { compact, listBody, ListInfo, pageVariables, RestInputError, type RestRequest, type RestRoute, typedRoute } from "../route.ts";
import { quote } from "../../src/core/errors.ts";
import {
  checkDocumentFlags,
  FileFields,
  FLAGS,
  MetaLinksFields,
  PAGE_QUERY,
  PageFields,
  pageFormatVariables,
  restFile,
  restMetaLinks,
  restPageTree,
  restRevision,
  RevisionFields,
  singlePage,
  targetVariables,
} from "./content.ts";

const ReusableContentFields = graphql(`fragment RevisionReusableContentFields on ReusableContent { id title documentId }`);

/** The published RevisionReusableContent: `document` is the id (content hash) of its body. */
export const restReusableContent = (rc: ResultOf<typeof ReusableContentFields>) =>
  compact({ id: rc.id, title: rc.title, document: rc.documentId });

const PREFIX = "/v1/spaces/:spaceId/revisions/:revisionId";
const revisionVariables = ({ params }: RestRequest) => ({ space: params.spaceId, revision: params.revisionId });
const DOCUMENT_QUERY = { evaluated: "string", dereferenced: "string" } as const;

/** The published `schema` of a document read: this service has one document schema, `current`. */
const DOCUMENT_SCHEMAS = ["current", "next"];

export const revisionRoutes: RestRoute[] = [
  typedRoute({
    method: "GET",
    path: "/v1/spaces/:spaceId/documents/:documentId",
    action: "space.read",
    query: { schema: "string" },
    document: graphql(`query GetSpaceDocument($space: ID!, $id: ID!) { space(id: $space) { document(id: $id) } }`),
    variables: ({ params, query }) => {
      if (query.schema !== undefined && !DOCUMENT_SCHEMAS.includes(String(query.schema))) {
        throw new RestInputError(`schema must be one of ${DOCUMENT_SCHEMAS.join(", ")} (got ${quote(query.schema)})`);
      }
      return { space: params.spaceId, id: params.documentId };
    },
    status: 200,
    body: (data) => data.space.document,
  }),
  typedRoute({
    method: "GET",
    path: PREFIX,
    action: "space.read",
    query: FLAGS,
    document: graphql(
      `query GetRevision($space: ID!, $revision: ID!, $metadata: Boolean!, $markdown: Boolean!, $document: Boolean!, $refs: MarkdownRefs) {
        space(id: $space) { revisionById(id: $revision) { ...ContentRevisionFields } }
      }`,
      [RevisionFields],
    ),
    variables: (request) => ({
      ...revisionVariables(request),
      metadata: request.query.metadata !== false,
      markdown: true,
      document: false,
    }),
    status: 200,
    body: (data) => restRevision(data.space.revisionById),
  }),
  typedRoute({
    method: "GET",
    path: `${PREFIX}/pages`,
    action: "space.read",
    query: FLAGS,
    document: graphql(
      `query ListRevisionPages($space: ID!, $revision: ID!, $markdown: Boolean!, $document: Boolean!, $refs: MarkdownRefs) {
        space(id: $space) { revisionById(id: $revision) { allPages { ...ContentPageFields } } }
      }`,
      [PageFields],
    ),
    variables: (request) => ({ ...revisionVariables(request), markdown: true, document: false }),
    status: 200,
    body: (data) => ({ pages: restPageTree(data.space.revisionById.allPages) }),
  }),
  typedRoute({
    method: "GET",
    path: `${PREFIX}/files`,
    action: "space.read",
    query: { page: "string", limit: "limit", ...FLAGS },
    document: graphql(
      `query ListRevisionFiles($space: ID!, $revision: ID!, $first: Int, $after: String) {
        space(id: $space) {
          revisionById(id: $revision) {
            fileConnection(first: $first, after: $after) { totalCount pageInfo { ...ListInfo } nodes { ...ContentFileFields } }
          }
        }
      }`,
      [FileFields, ListInfo],
    ),
    variables: (request) => ({ ...revisionVariables(request), ...pageVariables(request.query) }),
    status: 200,
    body: (data) => listBody(data.space.revisionById.fileConnection, restFile),
  }),
  typedRoute({
    method: "GET",
    path: `${PREFIX}/files/:fileId`,
    action: "space.read",
    query: FLAGS,
    document: graphql(
      `query GetRevisionFile($space: ID!, $revision: ID!, $file: ID!) {
        space(id: $space) { revisionById(id: $revision) { file(id: $file) { ...ContentFileFields } } }
      }`,
      [FileFields],
    ),
    variables: (request) => ({ ...revisionVariables(request), file: request.params.fileId }),
    status: 200,
    body: (data) => restFile(data.space.revisionById.file),
  }),
  typedRoute({
    method: "GET",
    path: `${PREFIX}/page/:pageId`,
    action: "space.read",
    query: PAGE_QUERY,
    document: graphql(
      `query GetRevisionPage($space: ID!, $revision: ID!, $page: ID!, $markdown: Boolean!, $document: Boolean!, $refs: MarkdownRefs) {
        space(id: $space) {
          revisionById(id: $revision) { page(id: $page) { ...ContentPageFields descendants { ...ContentPageFields } } }
        }
      }`,
      [PageFields],
    ),
    variables: (request) => ({ ...revisionVariables(request), page: request.params.pageId, ...pageFormatVariables(request) }),
    status: 200,
    body: (data) => singlePage(data.space.revisionById.page),
  }),
  typedRoute({
    method: "GET",
    path: `${PREFIX}/page/:pageId/document`,
    action: "space.read",
    query: DOCUMENT_QUERY,
    document: graphql(
      `query GetRevisionPageDocument($space: ID!, $revision: ID!, $page: ID!) {
        space(id: $space) { revisionById(id: $revision) { pageDocument(id: $page) } }
      }`,
    ),
    variables: (request) => {
      checkDocumentFlags(request);
      return { ...revisionVariables(request), page: request.params.pageId };
    },
    status: 200,
    body: (data) => data.space.revisionById.pageDocument,
  }),
  typedRoute({
    method: "GET",
    path: `${PREFIX}/page/:pageId/meta-links`,
    action: "space.read",
    document: graphql(
      `query ListRevisionPageMetaLinks($space: ID!, $revision: ID!, $page: ID!) {
        space(id: $space) { revisionById(id: $revision) { page(id: $page) { metaLinks { ...PageMetaLinksFields } } } }
      }`,
      [MetaLinksFields],
    ),
    variables: (request) => ({ ...revisionVariables(request), page: request.params.pageId }),
    status: 200,
    body: (data) => restMetaLinks(data.space.revisionById.page.metaLinks),
  }),
  typedRoute({
    method: "GET",
    path: `${PREFIX}/path/*`,
    action: "space.read",
    query: { ...PAGE_QUERY, cachedMetadata: "boolean" },
    document: graphql(
      `query GetRevisionPageByPath($space: ID!, $revision: ID!, $path: String!, $markdown: Boolean!, $document: Boolean!, $refs: MarkdownRefs) {
        space(id: $space) {
          revisionById(id: $revision) { page(path: $path) { ...ContentPageFields descendants { ...ContentPageFields } } }
        }
      }`,
      [PageFields],
    ),
    variables: (request) => ({ ...revisionVariables(request), path: request.params["*"] ?? "", ...pageFormatVariables(request) }),
    status: 200,
    body: (data) => singlePage(data.space.revisionById.page),
  }),
  typedRoute({
    method: "GET",
    path: `${PREFIX}/reusable-contents/:reusableContentId`,
    action: "space.read",
    query: FLAGS,
    document: graphql(
      `query GetRevisionReusableContent($space: ID!, $revision: ID!, $id: ID!) {
        space(id: $space) { revisionById(id: $revision) { reusableContent(id: $id) { ...RevisionReusableContentFields } } }
      }`,
      [ReusableContentFields],
    ),
    variables: (request) => ({ ...revisionVariables(request), id: request.params.reusableContentId }),
    status: 200,
    body: (data) => restReusableContent(data.space.revisionById.reusableContent),
  }),
  typedRoute({
    method: "GET",
    path: `${PREFIX}/reusable-contents/:reusableContentId/document`,
    action: "space.read",
    query: DOCUMENT_QUERY,
    document: graphql(
      `query GetRevisionReusableContentDocument($space: ID!, $revision: ID!, $id: ID!) {
        space(id: $space) { revisionById(id: $revision) { reusableContent(id: $id) { document } } }
      }`,
    ),
    variables: (request) => {
      checkDocumentFlags(request);
      return { ...revisionVariables(request), id: request.params.reusableContentId };
    },
    status: 200,
    body: (data) => data.space.revisionById.reusableContent.document,
  }),
];

/** A reusable content of a head's content (change-requests.ts makes it on change requests too). */
export const contentReusableContentRoutes: RestRoute[] = [
  typedRoute({
    method: "GET",
    path: "/v1/spaces/:spaceId/content/reusable-contents/:reusableContentId",
    action: "space.read",
    query: FLAGS,
    document: graphql(
      `query GetReusableContent($space: ID!, $changeRequest: ID, $id: ID!) {
        contentTarget(space: $space, changeRequest: $changeRequest) { content { reusableContent(id: $id) { ...RevisionReusableContentFields } } }
      }`,
      [ReusableContentFields],
    ),
    variables: (request) => ({ ...targetVariables(request), id: request.params.reusableContentId }),
    status: 200,
    body: (data) => restReusableContent(data.contentTarget.content.reusableContent),
  }),
];
