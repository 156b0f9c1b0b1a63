// Spaces: types, queries and mutations.
import type { Space } from "../generated/prisma/client.ts";
import { spacePermissions } from "../auth/permissions.ts";
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
  restoreSpace,
  transferSpace,
  updateSpace,
  type SPACE_EDIT_MODES,
  type SPACE_VISIBILITIES,
} from "../core/spaces/index.ts";
import { publishedUrls } from "../core/content/target.ts";
import { builder } from "./builder.ts";
import { CollectionRef, visibleParent } from "./collections.ts";
import { ContentPositionInput, ContentVisibility, MemberRole, SpaceEditMode, toConnection } from "./common.ts";
import { OrganizationRef, nullMeansUnchanged } from "./organizations.ts";

const SpacePermissions = builder.simpleObject("SpacePermissions", {
  fields: (t) => ({
    view: t.boolean(),
    access: t.boolean(),
    admin: t.boolean(),
    viewInviteLinks: t.boolean(),
    edit: t.boolean(),
    triggerGitSync: t.boolean(),
    comment: t.boolean(),
    merge: t.boolean(),
    review: t.boolean(),
    installIntegration: t.boolean(),
  }),
});

const SpaceUrls = builder.simpleObject("SpaceUrls", {
  fields: (t) => ({
    location: t.string(),
    app: t.string(),
    published: t.string({ nullable: true, description: "Only when the space is not private" }),
    public: t.string({ nullable: true, description: "Only when the space is public" }),
    icon: t.string({ nullable: true }),
  }),
});

export const SpaceRef = builder.loadableNode("Space", {
  id: { resolve: (space: Space) => space.id },
  load: async (ids: string[], { core }) => {
    const rows = await loadVisibleSpaces(core, ids);
    return rows.map((row, index) => row ?? notFound("space", ids[index]));
  },
  fields: (t) => ({
    title: t.exposeString("title"),
    emoji: t.exposeString("emoji"),
    visibility: t.field({ type: ContentVisibility, resolve: (s) => s.visibility as (typeof SPACE_VISIBILITIES)[number] }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
    deletedAt: t.expose("deletedAt", { type: "DateTime", nullable: true }),
    editMode: t.field({ type: SpaceEditMode, resolve: (s) => s.editMode as (typeof SPACE_EDIT_MODES)[number] }),
    organization: t.field({ type: OrganizationRef, resolve: (s) => s.organizationId }),
    parent: t.field({
      type: CollectionRef,
      nullable: true,
      description: "null at the top level, or when the caller cannot read the parent",
      resolve: (s, _args, { core }) => visibleParent(core, s.parentId),
    }),
    revision: t.id({ description: "Id of the head revision", resolve: (s) => s.revisionId }),
    mergeRules: t.field({
      type: "JSON",
      description: "What a change request needs to be merged: { type: inherit } (the organization's), { type: none } or { type: rules, rules }",
      resolve: (s) => s.mergeRules,
    }),
    defaultLevel: t.field({
      type: MemberRole,
      nullable: true,
      description: "Level of access of the organization's members; null inherits from the parent",
      resolve: (s) => s.defaultLevel as never,
    }),
    openCommentCount: t.int({
      description: "Open comments on the space itself (not on its change requests; replies not counted)",
      resolve: (s, _args, { core }) => core.loaders.openCommentCount.load(`space:${s.id}`),
    }),
    changeRequestCount: t.int({
      description: "Change requests of the space, in any status",
      resolve: async (s, _args, { core }) => Object.values(await core.loaders.changeRequestCounts.load(s.id)).reduce((a, b) => a + b, 0),
    }),
    openChangeRequestCount: t.int({ resolve: async (s, _args, { core }) => (await core.loaders.changeRequestCounts.load(s.id)).open ?? 0 }),
    draftChangeRequestCount: t.int({ resolve: async (s, _args, { core }) => (await core.loaders.changeRequestCounts.load(s.id)).draft ?? 0 }),
    urls: t.field({
      type: SpaceUrls,
      resolve: (s, _args, { core }) => ({
        location: core.urls.api(`/spaces/${s.id}`),
        app: core.urls.app(`/s/${s.id}`),
        ...publishedUrls(core.urls, s),
        icon: null,
      }),
    }),
    permissions: t.field({
      type: SpacePermissions,
      resolve: async (s, _args, { core }) => spacePermissions(await core.access.roleOnSpace(s)),
    }),
  }),
});

export const SpaceConnection = builder.connectionObject({ type: SpaceRef, name: "SpaceConnection" }, { name: "SpaceEdge" });

builder.objectField(OrganizationRef, "spaces", (t) =>
  t.connection({
    type: SpaceRef,
    description: "Spaces of the organization the caller can read, deleted ones excepted",
    resolve: async (o, args, { core }) => toConnection(await listOrganizationSpaces(core, o.id, args)),
  }, SpaceConnection),
);

builder.objectField(CollectionRef, "spaces", (t) =>
  t.connection({
    type: SpaceRef,
    description: "Spaces directly inside the collection, in their order",
    resolve: async (c, args, { core }) => toConnection(await listCollectionSpaces(core, c, args)),
  }, SpaceConnection),
);

builder.queryField("space", (t) =>
  t.field({
    type: SpaceRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, { id }, { core }) => (await readSpace(core, id)).space,
  }),
);

const SpacePayload = (name: string) => builder.simpleObject(name, { fields: (t) => ({ space: t.field({ type: SpaceRef }) }) });
const SpaceIdInput = (name: string) =>
  builder.inputType(name, { fields: (f) => ({ id: f.id({ required: true }) }) });

builder.mutationFields((t) => ({
  createSpace: t.field({
    type: SpacePayload("CreateSpacePayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("CreateSpaceInput", {
          fields: (f) => ({
            organization: f.id({ required: true }),
            title: f.string(),
            emoji: f.string(),
            parent: f.id({ description: "Parent collection" }),
            editMode: f.field({ type: SpaceEditMode }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      space: await createSpace(core, { ...input, organizationId: input.organization }),
    }),
  }),
  updateSpace: t.field({
    type: SpacePayload("UpdateSpacePayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UpdateSpaceInput", {
          fields: (f) => ({
            id: f.id({ required: true }),
            title: f.string(),
            emoji: f.string({ description: "null removes it" }),
            editMode: f.field({ type: SpaceEditMode }),
            defaultLevel: f.field({ type: MemberRole, description: "null inherits from the parent" }),
            mergeRules: f.field({ type: "JSON", description: "{ type: inherit } (the organization's), { type: none } or { type: rules, rules: [...] }" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input: { id, ...patch } }, { core }) => ({
      space: await updateSpace(core, id, nullMeansUnchanged(patch, ["title", "editMode", "mergeRules"])),
    }),
  }),
  deleteSpace: t.field({
    type: builder.simpleObject("DeleteSpacePayload", { fields: (p) => ({ deletedSpaceId: p.id() }) }),
    args: { input: t.arg({ required: true, type: SpaceIdInput("DeleteSpaceInput") }) },
    resolve: async (_root, { input }, { core }) => {
      await deleteSpace(core, input.id);
      return { deletedSpaceId: input.id };
    },
  }),
  restoreSpace: t.field({
    type: SpacePayload("RestoreSpacePayload"),
    args: { input: t.arg({ required: true, type: SpaceIdInput("RestoreSpaceInput") }) },
    resolve: async (_root, { input }, { core }) => ({ space: await restoreSpace(core, input.id) }),
  }),
  duplicateSpace: t.field({
    type: SpacePayload("DuplicateSpacePayload"),
    args: { input: t.arg({ required: true, type: SpaceIdInput("DuplicateSpaceInput") }) },
    resolve: async (_root, { input }, { core }) => ({ space: await duplicateSpace(core, input.id) }),
  }),
  moveSpace: t.field({
    type: SpacePayload("MoveSpacePayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("MoveSpaceInput", {
          fields: (f) => ({
            id: f.id({ required: true }),
            parent: f.id({ description: "New parent collection; null for the top level; absent keeps it" }),
            position: f.field({ type: ContentPositionInput }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      space: await moveSpace(core, input.id, { parent: input.parent, position: input.position }),
    }),
  }),
  transferSpace: t.field({
    type: SpacePayload("TransferSpacePayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("TransferSpaceInput", {
          fields: (f) => ({ id: f.id({ required: true }), organization: f.id({ required: true }) }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({ space: await transferSpace(core, input.id, input.organization) }),
  }),
}));
