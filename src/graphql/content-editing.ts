// Content editing: page mutations. Each mutation, and each `editContent` batch, makes exactly one
// new revision whose parent is the previous head (src/core/content: `editContent`). Files are
// added and deleted by the multipart mutations of files.ts.
import type { Revision } from "../generated/prisma/client.ts";
import type { CoreContext } from "../core/context.ts";
import { contentOf, editContent, pageOf } from "../core/content/index.ts";
import { REVISION_MESSAGE_MAX, revisionAppPath, type ContentTarget } from "../core/content/target.ts";
import type { MetaLinkTarget, PageMetaLinks } from "../core/content/meta-links.ts";
import { type ContentEdit, type PageCover, type PageFields, type PageLayout } from "../core/content/tree.ts";
import { DomainError, badInput } from "../core/errors.ts";
import { newId } from "../core/ids.ts";
import { builder } from "./builder.ts";
import { payloadDescription } from "./common.ts";
import { PageKind, PageRef, ReusableContentRef, RevisionRef, type PageItem } from "./content.ts";
import { nullMeansUnchanged } from "./organizations.ts";
import { SpaceRef } from "./spaces.ts";

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;
type Fields = PothosSchemaTypes.InputFieldBuilder<Types, "InputObject">;

const PageCoverSize = builder.enumType("PageCoverSize", {
  description: "How wide a page's cover is shown",
  values: { HERO: { value: "hero" as const }, FULL: { value: "full" as const } },
});

const PageLayoutInput = builder.inputType("PageLayoutInput", {
  description: "The whole layout of a page: on update it replaces the current one (null removes it)",
  fields: (f) => ({
    cover: f.boolean({ description: "Show the cover" }),
    coverSize: f.field({ description: "How wide the cover is shown", type: PageCoverSize }),
    title: f.boolean({ description: "Show the title" }),
    description: f.boolean({ description: "Show the description" }),
    tableOfContents: f.boolean({ description: "Show the table of contents" }),
    outline: f.boolean({ description: "Show the outline of headings" }),
    pagination: f.boolean({ description: "Show links to the previous and next pages" }),
  }),
});

const PageCoverInput = builder.inputType("PageCoverInput", {
  description: "A cover image: files of the space's content",
  fields: (f) => ({
    file: f.id({ description: "File id (light theme)" }),
    fileDark: f.id({ description: "File id (dark theme)" }),
    yPos: f.float({ description: "Vertical position of the image" }),
  }),
});

const MetaLinkTargetInput = builder.inputType("MetaLinkTargetInput", {
  description: "Where a meta link points: exactly one of page and url",
  isOneOf: true,
  fields: (f) => ({
    page: f.id({ description: "A page of the same content" }),
    url: f.string({ description: "An absolute http(s) URL, at most 2048 characters" }),
  }),
});

const PageMetaLinksInput = builder.inputType("PageMetaLinksInput", {
  description: "The whole meta links of a document page: on update they replace the current ones (null removes them)",
  fields: (f) => ({
    canonical: f.field({ type: MetaLinkTargetInput, description: "The canonical version of the page; absent or null: none" }),
    alternates: f.field({ type: [MetaLinkTargetInput], description: "Alternate versions, at most 20; absent or null: none" }),
  }),
});

const MARKDOWN_DESCRIPTION = "Body of a document page, at most 1 MiB (UTF-8) (413 above)";

/** Fields of a page that create and update share. */
const pageFields = (f: Fields) => ({
  emoji: f.string({ description: "Emoji of the page (Unicode code point in hex); null removes it" }),
  icon: f.string({ description: "Icon of the page; null removes it" }),
  description: f.string({ description: "At most 1000 characters" }),
  slug: f.string({
    description:
      "Lowercase letters and digits separated by single hyphens, at most 100 characters; made unique among the pages of the same path with -2, -3, …",
  }),
  hidden: f.boolean({ description: "Leave the page out of the published navigation" }),
  noIndex: f.boolean({ description: "Leave the page out of search engines and the site search" }),
  noRobotsIndex: f.boolean({ description: "Ask search engines not to index the page" }),
  layout: f.field({ description: "Which parts of the page are shown when published", type: PageLayoutInput }),
  cover: f.field({ description: "The cover image (a file of the content); null removes it", type: PageCoverInput }),
  markdown: f.string({ description: MARKDOWN_DESCRIPTION }),
  href: f.string({ description: "Target URL (link pages only)" }),
  metaLinks: f.field({
    description: "Canonical and alternate versions of the page (documents only); null removes them",
    type: PageMetaLinksInput,
  }),
});

const createFields = (f: Fields) => ({
  title: f.string({ required: true, description: "1 to 100 characters" }),
  kind: f.field({ description: "DOCUMENT (default), GROUP or LINK", type: PageKind, defaultValue: "document" }),
  ...pageFields(f),
  parent: f.id({ description: "Parent page; absent or null: the top level" }),
  before: f.id({ description: "Sibling to insert before (default: last)" }),
  after: f.id({ description: "Sibling to insert after (default: last)" }),
});

const updateFields = (f: Fields) => ({
  page: f.id({ description: "Id of the page", required: true }),
  title: f.string({ description: "1 to 100 characters; null leaves it" }),
  ...pageFields(f),
});

const moveFields = (f: Fields) => ({
  page: f.id({ description: "Id of the page", required: true }),
  parent: f.id({ description: "New parent page; null: the top level; absent keeps the current parent" }),
  before: f.id({ description: "Sibling (in the target parent) to move before" }),
  after: f.id({ description: "Sibling (in the target parent) to move after" }),
});

/** Whose content a mutation edits: the space's own, or one of its change requests'. */
export const targetFields = (f: Fields) => ({
  space: f.id({ description: "Id of the space", required: true }),
  changeRequest: f.id({
    description: "Edit this change request's content (its id or number) instead of the space's own; its head moves, the space's does not",
  }),
});

/** The core's content target of an input made with `targetFields`. */
export const targetOf = (input: { space: string; changeRequest?: string | null }): ContentTarget => ({
  spaceId: input.space,
  changeRequest: input.changeRequest,
});

const CreatePageEditInput = builder.inputType("CreatePageEditInput", {
  description: "The createPage edit of an editContent batch",
  fields: (f) => createFields(f),
});
const UpdatePageEditInput = builder.inputType("UpdatePageEditInput", {
  description: "The updatePage edit of an editContent batch",
  fields: (f) => updateFields(f),
});
const MovePageEditInput = builder.inputType("MovePageEditInput", {
  description: "The movePage edit of an editContent batch",
  fields: (f) => moveFields(f),
});
const DeletePageEditInput = builder.inputType("DeletePageEditInput", {
  description: "The deletePage edit of an editContent batch",
  fields: (f) => ({ page: f.id({ description: "Id of the page", required: true }) }),
});

const REUSABLE_MARKDOWN_DESCRIPTION = "Body of the reusable content, at most 1 MiB (UTF-8) (413 above)";

const createReusableFields = (f: Fields) => ({
  title: f.string({ required: true, description: "1 to 100 characters" }),
  markdown: f.string({ description: `${REUSABLE_MARKDOWN_DESCRIPTION}; absent: empty` }),
});
const updateReusableFields = (f: Fields) => ({
  reusableContent: f.id({ description: "Id of the reusable content (`rc_…`)", required: true }),
  title: f.string({ description: "1 to 100 characters; null leaves it" }),
  markdown: f.string({ description: `${REUSABLE_MARKDOWN_DESCRIPTION}; null leaves it` }),
});
const variablesFields = (f: Fields) => ({
  variables: f.field({
    type: "JSON",
    required: true,
    description:
      "The revision's whole variable map (it replaces the current one): at most 100 names of letters, digits and underscores (not starting with a digit), each a string of at most 10000 characters",
  }),
});

const CreateReusableContentEditInput = builder.inputType("CreateReusableContentEditInput", {
  description: "The createReusableContent edit of an editContent batch",
  fields: (f) => createReusableFields(f),
});
const UpdateReusableContentEditInput = builder.inputType("UpdateReusableContentEditInput", {
  description: "The updateReusableContent edit of an editContent batch",
  fields: (f) => updateReusableFields(f),
});
const DeleteReusableContentEditInput = builder.inputType("DeleteReusableContentEditInput", {
  description: "The deleteReusableContent edit of an editContent batch",
  fields: (f) => ({ reusableContent: f.id({ description: "Id of the reusable content (`rc_…`)", required: true }) }),
});
const SetVariablesEditInput = builder.inputType("SetVariablesEditInput", {
  description: "The setVariables edit of an editContent batch",
  fields: (f) => variablesFields(f),
});

const ContentEditInput = builder.inputType("ContentEditInput", {
  description: "One edit of a batch: exactly one of the fields",
  isOneOf: true,
  fields: (f) => ({
    createPage: f.field({ description: "Creates a page", type: CreatePageEditInput }),
    updatePage: f.field({ description: "Changes a page's fields or body", type: UpdatePageEditInput }),
    movePage: f.field({ description: "Moves a page (under another parent, or among its siblings)", type: MovePageEditInput }),
    deletePage: f.field({ description: "Deletes a page and the pages below it", type: DeletePageEditInput }),
    createReusableContent: f.field({ description: "Creates a reusable content", type: CreateReusableContentEditInput }),
    updateReusableContent: f.field({ description: "Changes a reusable content's title or body", type: UpdateReusableContentEditInput }),
    deleteReusableContent: f.field({ description: "Deletes a reusable content", type: DeleteReusableContentEditInput }),
    setVariables: f.field({ description: "Replaces the content's variables", type: SetVariablesEditInput }),
  }),
});

// ---------------------------------------------------------------------------------------------
// Input → core edit

type CreateInput = typeof CreatePageEditInput.$inferInput;
type UpdateInput = typeof UpdatePageEditInput.$inferInput;
type MoveInput = typeof MovePageEditInput.$inferInput;

const orUndefined = <T>(value: T | null | undefined) => value ?? undefined;

function layoutOf(layout: typeof PageLayoutInput.$inferInput | null | undefined): PageLayout | null | undefined {
  if (!layout) return layout;
  return Object.fromEntries(Object.entries(layout).filter(([, value]) => value != null)) as PageLayout;
}

function coverOf(cover: typeof PageCoverInput.$inferInput | null | undefined): PageCover | null | undefined {
  if (!cover) return cover;
  return Object.fromEntries(Object.entries(cover).filter(([, value]) => value != null)) as PageCover;
}

function metaLinkTarget(input: typeof MetaLinkTargetInput.$inferInput): MetaLinkTarget {
  // The schema (@oneOf) admits exactly one field.
  return input.page != null ? { kind: "page", page: input.page } : { kind: "url", url: input.url ?? "" };
}

function metaLinksOf(input: typeof PageMetaLinksInput.$inferInput | null | undefined): PageMetaLinks | null | undefined {
  if (!input) return input;
  return {
    ...(input.canonical ? { canonical: metaLinkTarget(input.canonical) } : {}),
    alternates: (input.alternates ?? []).map(metaLinkTarget),
  };
}

function createEdit(input: CreateInput): ContentEdit & { op: "createPage" } {
  const fields: PageFields = {
    title: input.title,
    emoji: orUndefined(input.emoji),
    icon: orUndefined(input.icon),
    description: orUndefined(input.description),
    slug: orUndefined(input.slug),
    hidden: orUndefined(input.hidden),
    noIndex: orUndefined(input.noIndex),
    noRobotsIndex: orUndefined(input.noRobotsIndex),
    layout: orUndefined(layoutOf(input.layout)),
    cover: orUndefined(coverOf(input.cover)),
    href: orUndefined(input.href),
    metaLinks: orUndefined(metaLinksOf(input.metaLinks)),
  };
  return {
    op: "createPage",
    id: newId("Page"),
    kind: input.kind ?? "document",
    fields: dropUndefined(fields),
    body: orUndefined(input.markdown),
    position: { parent: input.parent ?? null, before: input.before ?? null, after: input.after ?? null },
  };
}

function updateEdit(input: UpdateInput): ContentEdit & { op: "updatePage" } {
  const { page, markdown, layout, cover, metaLinks, ...rest } = input;
  const fields: PageFields = {
    ...nullMeansUnchanged(rest, ["title", "slug", "hidden", "noIndex", "noRobotsIndex"]),
    ...(layout !== undefined ? { layout: layoutOf(layout) } : {}),
    ...(cover !== undefined ? { cover: coverOf(cover) } : {}),
    ...(metaLinks !== undefined ? { metaLinks: metaLinksOf(metaLinks) } : {}),
  };
  const edit = { op: "updatePage" as const, id: page, fields: dropUndefined(fields), body: orUndefined(markdown) };
  if (Object.keys(edit.fields).length === 0 && edit.body === undefined) {
    throw badInput("updatePage: give at least one field to change");
  }
  return edit;
}

function moveEdit(input: MoveInput): ContentEdit & { op: "movePage" } {
  return {
    op: "movePage",
    id: input.page,
    // Absent keeps the parent; null is the top level.
    position: { ...(input.parent !== undefined ? { parent: input.parent } : {}), before: input.before ?? null, after: input.after ?? null },
  };
}

function createReusableEdit(input: typeof CreateReusableContentEditInput.$inferInput): ContentEdit & { op: "createReusableContent" } {
  return { op: "createReusableContent", id: newId("ReusableContent"), title: input.title, body: input.markdown ?? "" };
}

function updateReusableEdit(input: typeof UpdateReusableContentEditInput.$inferInput): ContentEdit & { op: "updateReusableContent" } {
  const edit = {
    op: "updateReusableContent" as const,
    id: input.reusableContent,
    title: orUndefined(input.title),
    body: orUndefined(input.markdown),
  };
  if (edit.title === undefined && edit.body === undefined) throw badInput("updateReusableContent: give title or markdown");
  return dropUndefined(edit);
}

function setVariablesEdit(input: { variables?: unknown }): ContentEdit & { op: "setVariables" } {
  const { variables } = input;
  if (variables === null || typeof variables !== "object" || Array.isArray(variables)) {
    throw badInput("variables must be an object mapping variable names to string values");
  }
  return { op: "setVariables", variables: variables as Record<string, string> };
}

function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}

// ---------------------------------------------------------------------------------------------
// Mutations

/** A page of a revision as the Page type of content.ts shows it. */
async function pageItem(core: CoreContext, revision: Revision, pageId: string): Promise<PageItem> {
  return { ...pageOf(revision, pageId), revision, appBase: await revisionAppPath(core, revision) };
}

/** A reusable content as it stands in `revision`. */
function reusableContentIn(revision: Revision, id: string) {
  const entry = contentOf(revision).reusableContents?.find((item) => item.id === id);
  if (!entry) throw new Error(`Reusable content ${id} is missing from revision ${revision.id}`);
  return entry;
}

const REVISION_DESCRIPTION = "The new revision (the new head of the space, or of the change request); its parent is the previous head";

const ReusableContentPayload = (name: string) =>
  builder.simpleObject(name, {
    description: payloadDescription(name),
    fields: (t) => ({
      revision: t.field({ type: RevisionRef, description: REVISION_DESCRIPTION }),
      reusableContent: t.field({ type: ReusableContentRef, description: "The reusable content, as it stands in the new revision" }),
      space: t.field({ description: "The space, as it stands after the change", type: SpaceRef }),
    }),
  });

const PagePayload = (name: string) =>
  builder.simpleObject(name, {
    description: payloadDescription(name),
    fields: (t) => ({
      revision: t.field({ type: RevisionRef, description: REVISION_DESCRIPTION }),
      page: t.field({ type: PageRef, description: "The page, as it stands in the new revision" }),
      space: t.field({ description: "The space, as it stands after the change", type: SpaceRef }),
    }),
  });

builder.mutationFields((t) => ({
  createPage: t.field({
    type: PagePayload("CreatePagePayload"),
    description: "Creates a page: one new revision",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("CreatePageInput", {
          description: "Input of the createPage mutation",
          fields: (f) => ({ ...targetFields(f), ...createFields(f) }),
        }),
      }),
    },
    resolve: async (_root, { input: { space, changeRequest, ...input } }, { core }) => {
      const edit = createEdit(input);
      const revision = await editContent(core, { target: { spaceId: space, changeRequest }, edits: [edit] });
      return { revision, page: await pageItem(core, revision, edit.id), space };
    },
  }),
  updatePage: t.field({
    type: PagePayload("UpdatePagePayload"),
    description: "Changes a page's fields or markdown: one new revision",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UpdatePageInput", {
          description: "Input of the updatePage mutation",
          fields: (f) => ({ ...targetFields(f), ...updateFields(f) }),
        }),
      }),
    },
    resolve: async (_root, { input: { space, changeRequest, ...input } }, { core }) => {
      const revision = await editContent(core, { target: { spaceId: space, changeRequest }, edits: [updateEdit(input)] });
      return { revision, page: await pageItem(core, revision, input.page), space };
    },
  }),
  movePage: t.field({
    type: PagePayload("MovePagePayload"),
    description: "Moves a page (with its subpages) to another parent or position: one new revision",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("MovePageInput", {
          description: "Input of the movePage mutation",
          fields: (f) => ({ ...targetFields(f), ...moveFields(f) }),
        }),
      }),
    },
    resolve: async (_root, { input: { space, changeRequest, ...input } }, { core }) => {
      const revision = await editContent(core, { target: { spaceId: space, changeRequest }, edits: [moveEdit(input)] });
      return { revision, page: await pageItem(core, revision, input.page), space };
    },
  }),
  deletePage: t.field({
    type: builder.simpleObject("DeletePagePayload", {
      description: "Result of the deletePage mutation",
      fields: (p) => ({
        revision: p.field({ type: RevisionRef, description: REVISION_DESCRIPTION }),
        deletedPageId: p.id({ description: "Id of the page deleted" }),
        space: p.field({ description: "The space, as it stands after the change", type: SpaceRef }),
      }),
    }),
    description: "Deletes a page and its subpages: one new revision",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("DeletePageInput", {
          description: "Input of the deletePage mutation",
          fields: (f) => ({ ...targetFields(f), page: f.id({ description: "Id of the page", required: true }) }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => {
      const revision = await editContent(core, { target: targetOf(input), edits: [{ op: "deletePage", id: input.page }] });
      return { revision, deletedPageId: input.page, space: input.space };
    },
  }),
  createReusableContent: t.field({
    type: ReusableContentPayload("CreateReusableContentPayload"),
    description: "Creates a reusable content: one new revision",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("CreateReusableContentInput", {
          description: "Input of the createReusableContent mutation",
          fields: (f) => ({ ...targetFields(f), ...createReusableFields(f) }),
        }),
      }),
    },
    resolve: async (_root, { input: { space, changeRequest, ...input } }, { core }) => {
      const edit = createReusableEdit(input);
      const revision = await editContent(core, { target: { spaceId: space, changeRequest }, edits: [edit] });
      return { revision, reusableContent: reusableContentIn(revision, edit.id), space };
    },
  }),
  updateReusableContent: t.field({
    type: ReusableContentPayload("UpdateReusableContentPayload"),
    description: "Changes a reusable content's title or markdown: one new revision",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UpdateReusableContentInput", {
          description: "Input of the updateReusableContent mutation",
          fields: (f) => ({ ...targetFields(f), ...updateReusableFields(f) }),
        }),
      }),
    },
    resolve: async (_root, { input: { space, changeRequest, ...input } }, { core }) => {
      const revision = await editContent(core, { target: { spaceId: space, changeRequest }, edits: [updateReusableEdit(input)] });
      return { revision, reusableContent: reusableContentIn(revision, input.reusableContent), space };
    },
  }),
  deleteReusableContent: t.field({
    type: builder.simpleObject("DeleteReusableContentPayload", {
      description: "Result of the deleteReusableContent mutation",
      fields: (p) => ({
        revision: p.field({ type: RevisionRef, description: REVISION_DESCRIPTION }),
        deletedReusableContentId: p.id({ description: "Id of the reusable content deleted" }),
        space: p.field({ description: "The space, as it stands after the change", type: SpaceRef }),
      }),
    }),
    description: "Deletes a reusable content: one new revision",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("DeleteReusableContentInput", {
          description: "Input of the deleteReusableContent mutation",
          fields: (f) => ({
            ...targetFields(f),
            reusableContent: f.id({ description: "Id of the reusable content (`rc_…`)", required: true }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => {
      const revision = await editContent(core, {
        target: targetOf(input),
        edits: [{ op: "deleteReusableContent", id: input.reusableContent }],
      });
      return { revision, deletedReusableContentId: input.reusableContent, space: input.space };
    },
  }),
  setRevisionVariables: t.field({
    type: builder.simpleObject("SetRevisionVariablesPayload", {
      description: "Result of the setRevisionVariables mutation",
      fields: (p) => ({
        revision: p.field({ type: RevisionRef, description: REVISION_DESCRIPTION }),
        space: p.field({ description: "The space, as it stands after the change", type: SpaceRef }),
      }),
    }),
    description: "Replaces the revision-level variables of the space's content: one new revision",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("SetRevisionVariablesInput", {
          description: "Input of the setRevisionVariables mutation",
          fields: (f) => ({ ...targetFields(f), ...variablesFields(f) }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => {
      const revision = await editContent(core, { target: targetOf(input), edits: [setVariablesEdit(input)] });
      return { revision, space: input.space };
    },
  }),
  editContent: t.field({
    type: builder.simpleObject("EditContentPayload", {
      description: "Result of the editContent mutation",
      fields: (p) => ({
        revision: p.field({ type: RevisionRef, description: REVISION_DESCRIPTION }),
        createdPages: p.field({ type: [PageRef], description: "The pages the batch's createPage edits made, in their order" }),
        createdReusableContents: p.field({
          type: [ReusableContentRef],
          description: "The reusable contents the batch's createReusableContent edits made, in their order",
        }),
        space: p.field({ description: "The space, as it stands after the change", type: SpaceRef }),
      }),
    }),
    description:
      "Applies a batch of content edits, in order, as one new revision; refused as a whole (nothing changes) when one edit is. " +
      "A page or reusable content created in the batch cannot be referred to by a later edit of the same batch.",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("EditContentInput", {
          description: "Input of the editContent mutation",
          fields: (f) => ({
            ...targetFields(f),
            message: f.string({ description: `Describes the revision, at most ${REVISION_MESSAGE_MAX} characters` }),
            edits: f.field({ type: [ContentEditInput], required: true, description: "1 to 1000 edits" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => {
      const edits = input.edits.map((edit, index): ContentEdit => {
        // The schema (@oneOf) admits exactly one field; this guards direct calls all the same.
        const given = Object.entries(edit).filter(([, value]) => value != null);
        if (given.length !== 1)
          throw badInput(
            `edits[${index}]: give exactly one of createPage, updatePage, movePage, deletePage, createReusableContent, updateReusableContent, deleteReusableContent, setVariables`,
          );
        try {
          if (edit.createPage) return createEdit(edit.createPage);
          if (edit.updatePage) return updateEdit(edit.updatePage);
          if (edit.movePage) return moveEdit(edit.movePage);
          if (edit.createReusableContent) return createReusableEdit(edit.createReusableContent);
          if (edit.updateReusableContent) return updateReusableEdit(edit.updateReusableContent);
          if (edit.deleteReusableContent) return { op: "deleteReusableContent", id: edit.deleteReusableContent.reusableContent };
          if (edit.setVariables) return setVariablesEdit(edit.setVariables);
          return { op: "deletePage", id: edit.deletePage!.page };
        } catch (error) {
          throw error instanceof DomainError ? new DomainError(error.code, `edits[${index}]: ${error.message}`) : error;
        }
      });
      const revision = await editContent(core, { target: targetOf(input), edits, message: input.message });
      const created = edits.flatMap((edit) => (edit.op === "createPage" ? [edit.id] : []));
      const createdReusable = edits.flatMap((edit) => (edit.op === "createReusableContent" ? [reusableContentIn(revision, edit.id)] : []));
      return {
        revision,
        createdPages: await Promise.all(created.map((id) => pageItem(core, revision, id))),
        createdReusableContents: createdReusable,
        space: input.space,
      };
    },
  }),
}));
