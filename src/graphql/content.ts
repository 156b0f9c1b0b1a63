// Space content, read side: revisions (nodes), their page trees and files, a space's head content,
// a page by id or path, and the files of a space as a connection. A revision is one row holding
// its whole tree, so a tree of any size reads in the same few statements; page bodies load only
// when `markdown` or `document` is asked for, all of them in one batched statement.
import type { Revision } from "../generated/prisma/client.ts";
import type { CoreContext } from "../core/context.ts";
import { markdownToDocument } from "../core/content/document.ts";
import { formatMarkdownRefs, type MarkdownRefs } from "../core/links/refs.ts";
import { downloadUrlOf } from "../core/content/files.ts";
import {
  contentOf,
  documentInSpace,
  documentOf,
  fileOf,
  markdownOf,
  pageAtPath,
  pageMetaLinks,
  pageOf,
  readRevision,
  reusableContentOf,
} from "../core/content/index.ts";
import type { MetaLinkTarget } from "../core/content/meta-links.ts";
import {
  childPath,
  headRevision,
  publishedUrls,
  readTarget,
  revisionAppPath,
  revisionAt,
  type ContentHead,
} from "../core/content/target.ts";
import { PAGE_KINDS, type FileEntry, type PageLayout, type PageNode, type ReusableContentEntry } from "../core/content/tree.ts";
import { badInput, DomainError, notFound, quote } from "../core/errors.ts";
import { pageInMemory } from "../core/pagination.ts";
import { builder } from "./builder.ts";
import { enumName, toConnection } from "./common.ts";
import { SpaceRef } from "./spaces.ts";

/** A page where it stands: its revision, path, parent and the app URL prefix of its revision. */
export interface PageItem {
  page: PageNode;
  path: string;
  parentId: string | null;
  revision: Revision;
  appBase: string;
}

export interface FileItem {
  file: FileEntry;
  revision: Revision;
}

function childrenOf(item: Pick<PageItem, "revision" | "appBase" | "path">, pages: PageNode[], parentId: string | null): PageItem[] {
  return pages.map((page) => ({ page, path: childPath(item.path, page), parentId, revision: item.revision, appBase: item.appBase }));
}

/** Every page below `items`, depth first in tree order. */
function descendantsOf(items: PageItem[]): PageItem[] {
  return items.flatMap((item) => {
    const children = childrenOf(item, item.page.pages, item.page.id);
    return [...children, ...descendantsOf(children)];
  });
}

async function topPages(core: CoreContext, revision: Revision): Promise<PageItem[]> {
  const appBase = await revisionAppPath(core, revision);
  return childrenOf({ revision, appBase, path: "" }, contentOf(revision).pages, null);
}

export async function locatedItem(
  core: CoreContext,
  revision: Revision,
  located: { page: PageNode; path: string; parentId: string | null },
) {
  return { ...located, revision, appBase: await revisionAppPath(core, revision) };
}

const filesOf = (revision: Revision): FileItem[] => contentOf(revision).files.map((file) => ({ file, revision }));

// --- Types -------------------------------------------------------------------------------------

const RevisionUrls = builder.simpleObject("RevisionUrls", {
  description: "Addresses of a revision",
  fields: (t) => ({
    app: t.string({ description: "URL of the revision in the app" }),
    published: t.string({ nullable: true, description: "Only when the space is not private" }),
    public: t.string({ nullable: true, description: "Only when the space is public" }),
  }),
});

const RevisionGit = builder.simpleObject("RevisionGit", {
  description: "The git commit a revision comes from (none until git sync exists)",
  fields: (t) => ({
    oid: t.string({ description: "The commit id" }),
    message: t.string({ description: "The commit message" }),
    createdByService: t.boolean({ description: "Whether the commit was made by this service (an export) rather than imported" }),
    url: t.string({ description: "URL of the commit; null when unknown", nullable: true }),
    ref: t.string({ description: "The Git reference (branch); null when unknown", nullable: true }),
  }),
});

const PageUrls = builder.simpleObject("PageUrls", {
  description: "Addresses of a page",
  fields: (t) => ({ app: t.string({ description: "URL of the page in the app" }) }),
});

/** The effective layout: stored settings over the defaults. */
export const LAYOUT_DEFAULTS = {
  width: "default",
  cover: true,
  coverSize: "hero",
  coverMask: "none",
  title: true,
  description: true,
  tableOfContents: true,
  outline: true,
  pagination: true,
  metadata: true,
  tags: true,
  actions: true,
  anchors: true,
};

export const PageLayoutRef = builder.objectRef<typeof LAYOUT_DEFAULTS>("PageLayout").implement({
  description: "How a document page is shown: each setting as stored, else its default",
  fields: (t) => ({
    width: t.exposeString("width", { description: "default or wide" }),
    cover: t.exposeBoolean("cover", { description: "Whether the cover is shown" }),
    coverSize: t.exposeString("coverSize", { description: "hero, full or background" }),
    coverMask: t.exposeString("coverMask", { description: "none or radial" }),
    title: t.exposeBoolean("title", { description: "Whether the title is shown" }),
    description: t.exposeBoolean("description", { description: "Whether the description is shown" }),
    tableOfContents: t.exposeBoolean("tableOfContents", { description: "Whether the table of contents is shown" }),
    outline: t.exposeBoolean("outline", { description: "Whether the outline of headings is shown" }),
    pagination: t.exposeBoolean("pagination", { description: "Whether links to the previous and next pages are shown" }),
    metadata: t.exposeBoolean("metadata", { description: "Whether metadata (last update, authors) is shown" }),
    tags: t.exposeBoolean("tags", { description: "Whether tags are shown" }),
    actions: t.exposeBoolean("actions", { description: "Whether page actions are shown" }),
    anchors: t.exposeBoolean("anchors", { description: "Whether heading anchors are shown" }),
  }),
});

const FileReference = builder.simpleObject("FileReference", {
  description: "A file of the revision",
  fields: (t) => ({ kind: t.string({ description: "Always file" }), file: t.id({ description: "Id of the file in the same content" }) }),
});

const PageCoverRef = builder.simpleObject("PageCover", {
  description: "The cover image of a page",
  fields: (t) => ({
    ref: t.field({ description: "The cover image: a file of the content", type: FileReference, nullable: true }),
    refDark: t.field({ description: "The cover image in dark mode; null: the same as ref", type: FileReference, nullable: true }),
    yPos: t.float({ description: "Vertical position of the image in the cover, in pixels" }),
  }),
});

const MetaLinkTargetRef = builder.objectRef<MetaLinkTarget>("MetaLinkTarget").implement({
  description: "Where a meta link points: a page of the same content, or an external URL",
  fields: (t) => ({
    kind: t.string({ description: "page or url", resolve: (target) => target.kind }),
    page: t.id({
      nullable: true,
      description: "Id of the page (kind page)",
      resolve: (target) => (target.kind === "page" ? target.page : null),
    }),
    url: t.string({
      nullable: true,
      description: "The absolute http(s) URL (kind url)",
      resolve: (target) => (target.kind === "url" ? target.url : null),
    }),
  }),
});

const PageMetaLinksRef = builder.simpleObject("PageMetaLinks", {
  description: "The canonical and alternate versions a document page declares (none for groups and links)",
  fields: (t) => ({
    canonical: t.field({ type: MetaLinkTargetRef, nullable: true, description: "The canonical version of the page; null when none" }),
    alternates: t.field({ type: [MetaLinkTargetRef], description: "Alternate versions of the page, in the order they were set" }),
  }),
});

const FileDimensions = builder.simpleObject("FileDimensions", {
  description: "Width and height of an image, in pixels",
  fields: (t) => ({ width: t.int({ description: "Width in pixels" }), height: t.int({ description: "Height in pixels" }) }),
});

const MarkdownRefsEnum = builder.enumType("MarkdownRefs", {
  description: "How a page's markdown writes its references to content (the published format.markdown.refs)",
  values: { RELATIVE: { value: "relative" }, STABLE: { value: "stable" } } satisfies Record<string, { value: MarkdownRefs }>,
});

export const PageKind = builder.enumType("PageKind", {
  description: "document: a page with markdown; group: a section of the navigation (no path segment); link: a link to a URL",
  values: Object.fromEntries(PAGE_KINDS.map((kind) => [enumName(kind), { value: kind }])) as Record<
    Uppercase<(typeof PAGE_KINDS)[number]>,
    { value: (typeof PAGE_KINDS)[number] }
  >,
});

export const PageRef = builder.objectRef<PageItem>("Page");
PageRef.implement({
  description:
    "A page of a revision. Page ids are stable across revisions, so a page is not a node: reach it through its space or revision.",
  fields: (t) => ({
    id: t.id({ description: "Id of the page, stable across revisions", resolve: (p) => p.page.id }),
    title: t.string({ description: "Title of the page", resolve: (p) => p.page.title }),
    emoji: t.string({
      description: "Emoji of the page (Unicode code point in hex); null when none",
      nullable: true,
      resolve: (p) => p.page.emoji ?? null,
    }),
    icon: t.string({ description: "Icon of the page; null when none", nullable: true, resolve: (p) => p.page.icon ?? null }),
    createdAt: t.field({ description: "When the page was created", type: "DateTime", resolve: (p) => new Date(p.page.createdAt) }),
    updatedAt: t.field({ description: "When the page last changed", type: "DateTime", resolve: (p) => new Date(p.page.updatedAt) }),
    type: t.field({ description: "DOCUMENT, GROUP or LINK", type: PageKind, resolve: (p) => p.page.kind }),
    slug: t.string({ description: "The page's path segment, unique among its siblings", resolve: (p) => p.page.slug }),
    path: t.string({ description: "Slugs from the top, joined by /; groups add no segment", resolve: (p) => p.path }),
    parentId: t.id({ nullable: true, description: "The parent page; null at the top level", resolve: (p) => p.parentId }),
    description: t.string({
      description: "Short description of the page; null when none",
      nullable: true,
      resolve: (p) => p.page.description ?? null,
    }),
    href: t.string({ nullable: true, description: "Target URL of a link page", resolve: (p) => p.page.href ?? null }),
    documentId: t.id({
      nullable: true,
      description: "Id of the page body (its content hash); null for groups and links",
      resolve: (p) => p.page.body ?? null,
    }),
    urls: t.field({
      description: "Addresses of the page",
      type: PageUrls,
      resolve: (p, _args, { core }) => ({ app: core.urls.app(`${p.appBase}/${p.path}`) }),
    }),
    hidden: t.boolean({ description: "Whether the page is left out of the published navigation", resolve: (p) => p.page.hidden }),
    noIndex: t.boolean({ description: "Whether search engines and the site search leave the page out", resolve: (p) => p.page.noIndex }),
    noRobotsIndex: t.boolean({
      description: "Whether search engines are asked not to index the page",
      resolve: (p) => p.page.noRobotsIndex,
    }),
    variables: t.field({ type: "JSON", description: "Map of variable name to string value", resolve: (p) => p.page.variables ?? {} }),
    layout: t.field({
      description: "Which parts of the page are shown when published",
      type: PageLayoutRef,
      resolve: (p) => ({ ...LAYOUT_DEFAULTS, ...(p.page.layout as Partial<PageLayout> | undefined) }) as typeof LAYOUT_DEFAULTS,
    }),
    cover: t.field({
      description: "The page's cover image; null when none",
      type: PageCoverRef,
      nullable: true,
      resolve: ({ page: { cover } }) =>
        cover
          ? {
              ref: cover.file ? { kind: "file", file: cover.file } : null,
              refDark: cover.fileDark ? { kind: "file", file: cover.fileDark } : null,
              yPos: cover.yPos ?? 0,
            }
          : null,
    }),
    metaLinks: t.field({
      type: PageMetaLinksRef,
      description: "The canonical and alternate versions the page declares; a link to a page this revision no longer holds is left out",
      resolve: (p) => pageMetaLinks(p.revision, p.page.id),
    }),
    markdown: t.string({
      nullable: true,
      description: "The page body (documents only); loaded only when asked for, in one statement for all pages of a request",
      args: {
        refs: t.arg({
          type: MarkdownRefsEnum,
          description:
            "How references to content are written: RELATIVE (root-absolute page links become relative to the page), " +
            "STABLE (page://, file://, space:// with ids); absent: as stored",
        }),
      },
      resolve: async (p, { refs }, { core }) => {
        const markdown = await markdownOf(core, p.page);
        return markdown !== null && refs ? formatMarkdownRefs(markdown, p.revision, p.page.id, refs, core.urls.publicUrl) : markdown;
      },
    }),
    document: t.field({
      type: "JSON",
      nullable: true,
      description: "The page body parsed into a document tree (documents only)",
      resolve: (p, _args, { core }) => documentOf(core, p.page),
    }),
    pages: t.field({
      type: [PageRef],
      description: "Child pages, in order",
      resolve: (p) => childrenOf(p, p.page.pages, p.page.id),
    }),
    descendants: t.field({
      type: [PageRef],
      description: "Every page below this one, depth first in tree order (each with its parentId)",
      resolve: (p) => descendantsOf([p]),
    }),
  }),
});

export const FileRef = builder.objectRef<FileItem>("File");
FileRef.implement({
  description: "A file of a revision (stable id across revisions)",
  fields: (t) => ({
    id: t.id({ description: "Id of the file", resolve: (f) => f.file.id }),
    name: t.string({ description: "File name", resolve: (f) => f.file.name }),
    contentType: t.string({ description: "Media type of the file", resolve: (f) => f.file.contentType }),
    size: t.int({ description: "Bytes", resolve: (f) => f.file.size }),
    dimensions: t.field({
      type: FileDimensions,
      nullable: true,
      description: "Images only",
      resolve: (f) => (f.file.width != null && f.file.height != null ? { width: f.file.width, height: f.file.height } : null),
    }),
    downloadURL: t.string({
      description: "Signed URL of the file's bytes, valid for a limited time (no token needed)",
      resolve: (f, _args, { core }) => downloadUrlOf(core, f.file),
    }),
  }),
});

export const ReusableContentRef = builder.objectRef<ReusableContentEntry>("ReusableContent");
ReusableContentRef.implement({
  description: "A block of markdown shared by the pages of a space (stable id across revisions)",
  fields: (t) => ({
    id: t.exposeID("id", { description: "Id of the reusable content (`rc_…`), stable across revisions" }),
    title: t.exposeString("title", { description: "Title of the reusable content" }),
    createdAt: t.field({ description: "When the reusable content was created", type: "DateTime", resolve: (r) => new Date(r.createdAt) }),
    updatedAt: t.field({ description: "When the reusable content last changed", type: "DateTime", resolve: (r) => new Date(r.updatedAt) }),
    documentId: t.id({ description: "Id of the body (its content hash)", resolve: (r) => r.body }),
    markdown: t.string({
      description: "The body; loaded only when asked for, in one statement for all of a request",
      resolve: async (r, _args, { core }) => (await markdownOf(core, r)) ?? "",
    }),
    document: t.field({
      type: "JSON",
      description: "The body parsed into a document tree",
      resolve: async (r, _args, { core }) => (await documentOf(core, r)) ?? markdownToDocument(""),
    }),
  }),
});

export const FileConnection = builder.connectionObject({ type: FileRef, name: "FileConnection" }, { name: "FileEdge" });

export const RevisionRef = builder.loadableNode("Revision", {
  description: "An immutable state of a space's content: the page tree and the files",
  id: { resolve: (revision: Revision) => revision.id },
  // Found only when the caller can read the revision's space (404 otherwise, like any node).
  load: (ids: string[], { core }) =>
    Promise.all(
      ids.map(async (id) => {
        const revision = await core.loaders.revision.load(id);
        return revision ? readRevision(core, revision.spaceId, id).catch(() => notFound("revision", id)) : notFound("revision", id);
      }),
    ),
  fields: (t) => ({
    parents: t.idList({ description: "Ids of the parent revisions", resolve: (r) => r.parentIds }),
    type: t.string({ description: "How the revision was made: edits, merge, update …", resolve: (r) => r.type }),
    createdAt: t.expose("createdAt", { description: "When the revision was made", type: "DateTime" }),
    space: t.field({ description: "The space of the revision", type: SpaceRef, resolve: (r) => r.spaceId }),
    pages: t.field({
      type: [PageRef],
      description: "Top-level pages; each has its child `pages`",
      resolve: (r, _args, { core }) => topPages(core, r),
    }),
    allPages: t.field({
      type: [PageRef],
      description: "Every page, depth first in tree order, each with its parentId (a flat tree of any depth)",
      resolve: async (r, _args, { core }) => {
        const top = await topPages(core, r);
        return top.flatMap((item) => [item, ...descendantsOf([item])]);
      },
    }),
    page: t.field({
      type: PageRef,
      description: "A page by id or by path (exactly one); not found when missing",
      args: { id: t.arg.id(), path: t.arg.string() },
      resolve: (r, args, { core }) => pageIn(core, r, args),
    }),
    files: t.field({ description: "Every file of the revision", type: [FileRef], resolve: (r) => filesOf(r) }),
    file: t.field({
      description: "A file of the revision by id",
      type: FileRef,
      args: { id: t.arg.id({ required: true }) },
      resolve: (r, { id }) => fileIn(r, id),
    }),
    reusableContents: t.field({
      type: [ReusableContentRef],
      description: "Reusable contents, in order of creation",
      resolve: (r) => contentOf(r).reusableContents ?? [],
    }),
    reusableContent: t.field({
      type: ReusableContentRef,
      description: "A reusable content of the revision by id; not found when missing",
      args: { id: t.arg.id({ required: true }) },
      resolve: (r, { id }) => reusableContentOf(r, id),
    }),
    fileConnection: t.connection(
      {
        type: FileRef,
        description: "The files of the revision as a list in pages, in order",
        resolve: (r, args) => toConnection(pageInMemory(filesOf(r), args, (item) => item.file.id)),
      },
      FileConnection,
    ),
    pageDocument: t.field({
      type: "JSON",
      description:
        "The body of a document page parsed into a document tree (an empty document when the page has no body); not found when the page is missing or is a group or a link",
      args: { id: t.arg.id({ required: true }) },
      resolve: async (r, { id }, { core }) => {
        const { page } = pageOf(r, id);
        if (page.kind !== "document") throw new DomainError("NOT_FOUND", `Page ${quote(id)} is a ${page.kind}: it has no document`);
        return (await documentOf(core, page)) ?? markdownToDocument("");
      },
    }),
    variables: t.field({ type: "JSON", description: "Map of variable name to string value", resolve: (r) => r.variables ?? {} }),
    git: t.field({
      type: RevisionGit,
      nullable: true,
      description: "Git metadata of the revision: always null (no git sync)",
      resolve: () => null,
    }),
    urls: t.field({
      description: "Addresses of the revision",
      type: RevisionUrls,
      resolve: async (r, _args, { core }) => {
        const space = await core.loaders.space.load(r.spaceId);
        return {
          app: core.urls.app(`/s/${r.spaceId}/~/revisions/${r.id}`),
          ...(space ? publishedUrls(core.urls, space) : { published: null, public: null }),
        };
      },
    }),
  }),
});

async function pageIn(core: CoreContext, revision: Revision, args: { id?: string | null; path?: string | null }) {
  if ((args.id == null) === (args.path == null)) throw badInput("Give exactly one of id and path");
  const located = args.id != null ? pageOf(revision, args.id) : pageAtPath(revision, args.path!);
  return locatedItem(core, revision, located);
}

const fileIn = (revision: Revision, id: string): FileItem => ({ file: fileOf(revision, id), revision });

type ObjectFieldBuilder<Parent> = PothosSchemaTypes.ObjectFieldBuilder<
  typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never,
  Parent
>;

/**
 * The fields that read a head's content (`content`, `page`, `file`, `files`): the same on a space
 * and on a change request, each with its own head revision.
 */
export function headContentFields<Parent>(
  t: ObjectFieldBuilder<Parent>,
  head: (parent: Parent, core: CoreContext) => Promise<Revision>,
  whose: string,
) {
  return {
    content: t.field({
      type: RevisionRef,
      description: `The head revision: the ${whose} current content`,
      resolve: (parent, _args, { core }) => head(parent, core),
    }),
    page: t.field({
      type: PageRef,
      description: `A page of the ${whose} current content by id or by path (exactly one); not found when missing`,
      args: { id: t.arg.id(), path: t.arg.string() },
      resolve: async (parent, args, { core }) => pageIn(core, await head(parent, core), args),
    }),
    file: t.field({
      type: FileRef,
      description: `A file of the ${whose} current content; not found when missing`,
      args: { id: t.arg.id({ required: true }) },
      resolve: async (parent, { id }, { core }) => fileIn(await head(parent, core), id),
    }),
    files: t.connection(
      {
        type: FileRef,
        description: `Files of the ${whose} current content, in order`,
        resolve: async (parent, args, { core }) =>
          toConnection(pageInMemory(filesOf(await head(parent, core)), args, (item) => item.file.id)),
      },
      FileConnection,
    ),
  };
}

builder.objectFields(SpaceRef, (t) => ({
  ...headContentFields(t, (space, core) => revisionAt(core, space), "space's"),
  revisionById: t.field({
    type: RevisionRef,
    description: "A revision of this space (not found when it is another space's)",
    args: { id: t.arg.id({ required: true }) },
    resolve: (s, { id }, { core }) => readRevision(core, s.id, id),
  }),
  document: t.field({
    type: "JSON",
    description:
      "A document of the space by id (the content hash of a page's or reusable content's body in any of its revisions), parsed into a document tree; not found when no revision of the space holds it",
    args: { id: t.arg.id({ required: true }) },
    resolve: (s, { id }, { core }) => documentInSpace(core, s.id, id),
  }),
}));

export const ContentTargetRef = builder.objectRef<ContentHead>("ContentTarget");
ContentTargetRef.implement({
  description: "A space's own content, or one of its change requests': the head that reads and edits apply to",
  fields: (t) => ({
    space: t.field({ description: "The space whose content this is", type: SpaceRef, resolve: (head) => head.space }),
    ...headContentFields(t, (head, core) => headRevision(core, head), "target's"),
  }),
});

builder.queryField("contentTarget", (t) =>
  t.field({
    type: ContentTargetRef,
    description: "The content of a space, or of one of its change requests when `changeRequest` is given; not found unless readable",
    args: {
      space: t.arg.id({ required: true }),
      changeRequest: t.arg.id({ description: "A change request of the space: its id or its number" }),
    },
    resolve: (_root, args, { core }) => readTarget(core, { spaceId: args.space, changeRequest: args.changeRequest }),
  }),
);
