// Spaces: types, queries and mutations.
import type { Space } from "../generated/prisma/client.ts";
import { spacePermissions } from "../core/auth/permissions.ts";
import { notFound } from "../core/errors.ts";
import {
  createSpace,
  deleteSpace,
  duplicateSpace,
  listCollectionSpaces,
  listOrganizationSpaces,
  loadVisibleSpaces,
  moveSpace,
  readSpace,
  readSpaceNow,
  restoreSpace,
  transferSpace,
  updateSpace,
} from "../core/spaces/index.ts";
import { publishedUrls } from "../core/content/target.ts";
import { presentedSpaceUrl, presentSpaceShareKey } from "../core/sites/share-links.ts";
import { builder } from "./builder.ts";
import { CollectionRef } from "./collections.ts";
import { visibleParent } from "../core/collections/parents.ts";
import { COUNTER_FIELDS, prepareSpaces, preparedOf } from "../core/spaces/prepared.ts";
import {
  ContentPositionInput,
  ContentVisibility,
  MemberRole,
  ownProperty,
  SpaceEditMode,
  selectedFields,
  selectedNodeFields,
  toConnection,
  payloadDescription,
  inputDescription,
} from "./common.ts";
import { OrganizationRef, nullMeansUnchanged } from "./organizations.ts";

const SpacePermissions = builder.simpleObject("SpacePermissions", {
  description: "What the caller may do with a space",
  fields: (t) => ({
    view: t.boolean({ description: "Whether the caller may read the space" }),
    access: t.boolean({ description: "Whether the caller has any access" }),
    admin: t.boolean({ description: "Whether the caller administers the space (grants, deletion)" }),
    viewInviteLinks: t.boolean({ description: "Whether the caller may see the space's invite links" }),
    edit: t.boolean({ description: "Whether the caller may edit the content" }),
    triggerGitSync: t.boolean({ description: "Whether the caller may trigger a Git synchronization" }),
    comment: t.boolean({ description: "Whether the caller may comment" }),
    merge: t.boolean({ description: "Whether the caller may merge change requests" }),
    review: t.boolean({ description: "Whether the caller may review change requests" }),
    installIntegration: t.boolean({ description: "Whether the caller may install integrations on the space" }),
  }),
});

/** What a list of spaces reads with its page for the `fields` its items select. */
const listExtras = (fields: Set<string>) => ({
  counters: COUNTER_FIELDS.some((field) => fields.has(field)),
  parents: fields.has("parent"),
});

/** The total of a space's change requests by status. */
function countAll(counts: Record<string, number>): number {
  let total = 0;
  for (const status in counts) total += counts[status];
  return total;
}

const SpaceUrls = builder.simpleObject("SpaceUrls", {
  description: "Addresses of a space",
  fields: (t) => ({
    location: t.string({ description: "URL of the space in the REST API" }),
    app: t.string({ description: "URL of the space in the app" }),
    published: t.string({ nullable: true, description: "Only when the space is not private" }),
    public: t.string({ nullable: true, description: "Only when the space is public" }),
    icon: t.string({ description: "URL of the space's icon; null when none", nullable: true }),
  }),
});

export const SpaceRef = builder.loadableNode("Space", {
  description: "A space: one body of documentation (a tree of pages, files, reusable contents) with its revisions and change requests",
  id: { resolve: ownProperty<Space> },
  load: async (ids: string[], { core }) => {
    const rows = await loadVisibleSpaces(core, ids);
    return rows.map((row, index) => row ?? notFound("space", ids[index]));
  },
  fields: (t) => ({
    title: t.exposeString("title", { description: "Title of the space" }),
    emoji: t.exposeString("emoji", { description: "Emoji of the space (Unicode code point in hex); empty when none" }),
    visibility: t.field({
      description: "Who can read the space",
      type: ContentVisibility,
      resolve: ownProperty,
    }),
    createdAt: t.expose("createdAt", { description: "When the space was created", type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { description: "When the space or its content last changed", type: "DateTime" }),
    deletedAt: t.expose("deletedAt", {
      description: "When the space was deleted (it is restorable for 7 days); null unless deleted",
      type: "DateTime",
      nullable: true,
    }),
    editMode: t.field({
      description: "LIVE: direct edits allowed; LOCKED: edits only through change requests",
      type: SpaceEditMode,
      resolve: ownProperty,
    }),
    organization: t.field({
      description: "The organization the space belongs to",
      type: OrganizationRef,
      resolve: (s, _args, { core }) => preparedOf(core, s)?.organization ?? s.organizationId,
    }),
    parent: t.field({
      type: CollectionRef,
      nullable: true,
      description: "null at the top level, or when the caller cannot read the parent",
      resolve: (s, _args, { core }) => {
        const parent = preparedOf(core, s)?.parent;
        return parent !== undefined ? parent : visibleParent(core, s.parentId);
      },
    }),
    revision: t.id({ description: "Id of the head revision", resolve: (s) => s.revisionId }),
    mergeRules: t.expose("mergeRules", {
      type: "JSON",
      description:
        "What a change request needs to be merged: { type: inherit } (the organization's), { type: none } or { type: rules, rules }",
    }),
    defaultLevel: t.field({
      type: MemberRole,
      nullable: true,
      description: "Level of access of the organization's members; null inherits from the parent",
      resolve: ownProperty,
    }),
    openCommentCount: t.int({
      description: "Open comments on the space itself (not on its change requests; replies not counted)",
      resolve: (s, _args, { core }) => preparedOf(core, s)?.openComments ?? core.loaders.openCommentCount.load(`space:${s.id}`),
    }),
    changeRequestCount: t.int({
      description: "Change requests of the space, in any status",
      resolve: (s, _args, { core }) => {
        const counts = preparedOf(core, s)?.changeRequests;
        return counts ? countAll(counts) : core.loaders.changeRequestCounts.load(s.id).then(countAll);
      },
    }),
    openChangeRequestCount: t.int({
      description: "Number of open change requests",
      resolve: (s, _args, { core }) => {
        const counts = preparedOf(core, s)?.changeRequests;
        return counts ? (counts.open ?? 0) : core.loaders.changeRequestCounts.load(s.id).then((all) => all.open ?? 0);
      },
    }),
    draftChangeRequestCount: t.int({
      description: "Number of change requests still in draft",
      resolve: (s, _args, { core }) => {
        const counts = preparedOf(core, s)?.changeRequests;
        return counts ? (counts.draft ?? 0) : core.loaders.changeRequestCounts.load(s.id).then((all) => all.draft ?? 0);
      },
    }),
    urls: t.field({
      description: "Addresses of the space",
      type: SpaceUrls,
      // One object per space (issue 15: no spread of partial objects per item of a list).
      resolve: (s, _args, { core }) => {
        const { published, public: publicUrl } = publishedUrls(core.urls, s);
        return {
          location: core.urls.api(`/spaces/${s.id}`),
          app: core.urls.app(`/s/${s.id}`),
          // Through the share key the request presented for the space (`space(shareKey:)`), if any.
          published: presentedSpaceUrl(core, s.id) || published,
          public: publicUrl,
          icon: null,
        };
      },
    }),
    permissions: t.field({
      description: "What the caller may do with the space",
      type: SpacePermissions,
      resolve: (s, _args, { core }) => preparedOf(core, s)?.permissions ?? core.access.roleOnSpace(s).then(spacePermissions),
    }),
  }),
});

export const SpaceConnection = builder.connectionObject({ type: SpaceRef, name: "SpaceConnection" }, { name: "SpaceEdge" });

builder.objectField(OrganizationRef, "spaces", (t) =>
  t.connection(
    {
      type: SpaceRef,
      description: "Spaces of the organization the caller can read, deleted ones excepted",
      resolve: async (o, args, context, info) => {
        const fields = selectedNodeFields(info);
        const page = await listOrganizationSpaces(context.core, o.id, args, listExtras(fields));
        const prepared = prepareSpaces(context.core, page.items, fields, page.counters);
        if (prepared) await prepared;
        return toConnection(page);
      },
    },
    SpaceConnection,
  ),
);

builder.objectField(CollectionRef, "spaces", (t) =>
  t.connection(
    {
      type: SpaceRef,
      description: "Spaces directly inside the collection, in their order",
      resolve: async (c, args, context, info) => {
        const fields = selectedNodeFields(info);
        const page = await listCollectionSpaces(context.core, c, args, listExtras(fields));
        const prepared = prepareSpaces(context.core, page.items, fields, page.counters);
        if (prepared) await prepared;
        return toConnection(page);
      },
    },
    SpaceConnection,
  ),
);

builder.queryField("space", (t) =>
  t.field({
    description: "A space by id; not found when the caller cannot read it",
    type: SpaceRef,
    args: {
      id: t.arg.id({ required: true }),
      shareKey: t.arg.string({
        description: "The key of an active share link of a site showing the space: its published URL is then that site's, with the key",
      }),
    },
    resolve: async (_root, { id, shareKey }, context, info) => {
      const { core } = context;
      const fields = selectedFields(info);
      // The counters, when selected, in the statement that reads the space (issue 15): a space
      // read sends that one statement.
      const counted = COUNTER_FIELDS.some((field) => fields.has(field)) ? await core.loaders.spaceWithCounters.load(id) : null;
      // Without a promise when the view just read holds it all (issue 15).
      const { space } = readSpaceNow(core, id) ?? (await readSpace(core, id));
      if (shareKey != null) await presentSpaceShareKey(core, space, shareKey);
      const prepared = prepareSpaces(context.core, [space], fields, counted?.counters && [counted.counters]);
      if (prepared) await prepared;
      return space;
    },
  }),
);

const SpacePayload = (name: string) =>
  builder.simpleObject(name, {
    description: payloadDescription(name),
    fields: (t) => ({ space: t.field({ description: "The space, as it stands after the change", type: SpaceRef }) }),
  });
const SpaceIdInput = (name: string) =>
  builder.inputType(name, {
    description: inputDescription(name),
    fields: (f) => ({ id: f.id({ description: "Id of the space", required: true }) }),
  });

builder.mutationFields((t) => ({
  createSpace: t.field({
    description: "Creates a space in an organization (or in a collection), with an empty content",
    type: SpacePayload("CreateSpacePayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("CreateSpaceInput", {
          description: "Input of the createSpace mutation",
          fields: (f) => ({
            organization: f.id({ description: "Id of the organization", required: true }),
            title: f.string({ description: "Title of the new space" }),
            emoji: f.string({ description: "Emoji of the space (Unicode code point in hex)" }),
            parent: f.id({ description: "Parent collection" }),
            editMode: f.field({ description: "LIVE (default) or LOCKED", type: SpaceEditMode }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      space: await createSpace(core, { ...input, organizationId: input.organization }),
    }),
  }),
  updateSpace: t.field({
    description: "Changes a space's title, emoji, visibility or edit mode",
    type: SpacePayload("UpdateSpacePayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UpdateSpaceInput", {
          description: "Input of the updateSpace mutation",
          fields: (f) => ({
            id: f.id({ description: "Id of the space", required: true }),
            title: f.string({ description: "New title; absent: unchanged" }),
            emoji: f.string({ description: "null removes it" }),
            editMode: f.field({ description: "LIVE or LOCKED; absent: unchanged", type: SpaceEditMode }),
            defaultLevel: f.field({ type: MemberRole, description: "null inherits from the parent" }),
            mergeRules: f.field({
              type: "JSON",
              description: "{ type: inherit } (the organization's), { type: none } or { type: rules, rules: [...] }",
            }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input: { id, ...patch } }, { core }) => ({
      space: await updateSpace(core, id, nullMeansUnchanged(patch, ["title", "editMode", "mergeRules"])),
    }),
  }),
  deleteSpace: t.field({
    description: "Deletes a space; it can be restored for 7 days",
    type: builder.simpleObject("DeleteSpacePayload", {
      description: "Result of the deleteSpace mutation",
      fields: (p) => ({ deletedSpaceId: p.id({ description: "Id of the space deleted (it can be restored for 7 days)" }) }),
    }),
    args: { input: t.arg({ required: true, type: SpaceIdInput("DeleteSpaceInput") }) },
    resolve: async (_root, { input }, { core }) => {
      await deleteSpace(core, input.id);
      return { deletedSpaceId: input.id };
    },
  }),
  restoreSpace: t.field({
    description: "Restores a space deleted less than 7 days ago",
    type: SpacePayload("RestoreSpacePayload"),
    args: { input: t.arg({ required: true, type: SpaceIdInput("RestoreSpaceInput") }) },
    resolve: async (_root, { input }, { core }) => ({ space: await restoreSpace(core, input.id) }),
  }),
  duplicateSpace: t.field({
    description: "Copies a space (its head content, reusable contents and variables) into a new space beside it",
    type: SpacePayload("DuplicateSpacePayload"),
    args: { input: t.arg({ required: true, type: SpaceIdInput("DuplicateSpaceInput") }) },
    resolve: async (_root, { input }, { core }) => ({ space: await duplicateSpace(core, input.id) }),
  }),
  moveSpace: t.field({
    description: "Moves a space into another collection or to the top level, or among its siblings",
    type: SpacePayload("MoveSpacePayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("MoveSpaceInput", {
          description: "Input of the moveSpace mutation",
          fields: (f) => ({
            id: f.id({ description: "Id of the space", required: true }),
            parent: f.id({ description: "New parent collection; null for the top level; absent keeps it" }),
            position: f.field({ description: "Where to put it among its new siblings; default: last", type: ContentPositionInput }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      space: await moveSpace(core, input.id, { parent: input.parent, position: input.position }),
    }),
  }),
  transferSpace: t.field({
    description: "Moves a space to another organization",
    type: SpacePayload("TransferSpacePayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("TransferSpaceInput", {
          description: "Input of the transferSpace mutation",
          fields: (f) => ({
            id: f.id({ description: "Id of the space", required: true }),
            organization: f.id({ description: "Id of the organization to move the space to", required: true }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({ space: await transferSpace(core, input.id, input.organization) }),
  }),
}));
