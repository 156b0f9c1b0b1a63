// Computed content: a document, or a revision's pages, files and reusable contents, computed from
// a source (built-in or an installed integration's) and not stored. Rules in src/core/computed.
import { type ComputedPage, type ComputedRevision, computeDocument, computeRevision } from "../core/computed/index.ts";
import { builder } from "./builder.ts";
import { LAYOUT_DEFAULTS, PageLayoutRef } from "./content.ts";

const sourceDescription =
  "The source, as the published ComputedContentSource: { type: builtin:openapi | builtin:translation | integration:<integration>:<source>, props, dependencies }";
const seedDescription = "Seed of the ids of what is computed: the same seed computes the same ids (1 to 200 characters)";
const spaceDescription = "The space the content is computed for (its organization's specifications, translations and installations)";

const ComputedPageRef = builder.objectRef<ComputedPage>("ComputedPage").implement({
  description: "A page of a computed revision (not stored), flat with its parent",
  fields: (t) => ({
    id: t.exposeString("id", { description: "Id of the page, from the seed" }),
    kind: t.exposeString("kind", { description: "document, group or link" }),
    title: t.exposeString("title", { description: "Title of the page" }),
    slug: t.exposeString("slug", { description: "Slug of the page among its siblings" }),
    path: t.exposeString("path", { description: "Path of the page in the computed revision" }),
    parentId: t.exposeString("parentId", { nullable: true, description: "The parent page; null at the top level" }),
    description: t.exposeString("description", { nullable: true, description: "Description of the page" }),
    emoji: t.exposeString("emoji", { nullable: true, description: "Emoji of the page" }),
    markdown: t.exposeString("markdown", {
      nullable: true,
      description: "Body of a document, as markdown (null when the source gave a document tree)",
    }),
    document: t.field({
      type: "JSON",
      nullable: true,
      description: "Body of a document as the published JSONDocument, when the source gave a tree rather than markdown",
      resolve: (page) => page.document ?? null,
    }),
    href: t.exposeString("href", { nullable: true, description: "Target URL of a link" }),
    layout: t.field({
      type: PageLayoutRef,
      description: "How a document is shown: the defaults (a computed page has no settings)",
      resolve: () => LAYOUT_DEFAULTS,
    }),
  }),
});

const ComputedFileRef = builder.simpleObject("ComputedFile", {
  description: "A file of a computed revision",
  fields: (t) => ({
    id: t.string({ description: "Id of the file" }),
    name: t.string({ description: "File name" }),
    contentType: t.string({ description: "Media type" }),
    size: t.int({ description: "Size in bytes" }),
    downloadURL: t.string({ description: "Where its bytes are downloaded" }),
  }),
});

const ComputedReusableContentRef = builder.simpleObject("ComputedReusableContent", {
  description: "A reusable content of a computed revision",
  fields: (t) => ({
    id: t.string({ description: "Id of the reusable content" }),
    title: t.string({ description: "Title of the reusable content" }),
    documentId: t.string({ nullable: true, description: "Id of its body's document" }),
  }),
});

const ComputedRevisionRef = builder.objectRef<ComputedRevision>("ComputedRevision").implement({
  description: "Pages, files and reusable contents computed from a source, not stored",
  fields: (t) => ({
    pages: t.field({
      type: [ComputedPageRef],
      description: "Every page, depth first in tree order",
      resolve: (revision) => revision.pages,
    }),
    files: t.field({ type: [ComputedFileRef], description: "The files", resolve: (revision) => revision.files }),
    reusableContents: t.field({
      type: [ComputedReusableContentRef],
      description: "The reusable contents",
      resolve: (revision) => revision.reusableContents,
    }),
  }),
});

builder.queryFields((t) => ({
  computedDocument: t.field({
    type: "JSON",
    description: "A document (the published JSONDocument) computed from a source, for a reader of the space; nothing is stored",
    args: {
      space: t.arg.id({ required: true, description: spaceDescription }),
      source: t.arg({ type: "JSON", required: true, description: sourceDescription }),
      seed: t.arg.string({ required: true, description: seedDescription }),
    },
    resolve: (_root, { space, source, seed }, { core }) => computeDocument(core, String(space), { source, seed }),
  }),
  computedRevision: t.field({
    type: ComputedRevisionRef,
    description: "Pages, files and reusable contents computed from a source, for a reader of the space; nothing is stored",
    args: {
      space: t.arg.id({ required: true, description: spaceDescription }),
      source: t.arg({ type: "JSON", required: true, description: sourceDescription }),
      seed: t.arg.string({ required: true, description: seedDescription }),
    },
    resolve: (_root, { space, source, seed }, { core }) => computeRevision(core, String(space), { source, seed }),
  }),
}));
