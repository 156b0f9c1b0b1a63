// Collections: types, queries and mutations.
import type { Collection } from "../generated/prisma/client.ts";
import { collectionPermissions } from "../auth/permissions.ts";
import { notFound } from "../core/errors.ts";
import {
  createCollection,
  deleteCollection,
  listChildCollections,
  listOrganizationCollections,
  loadVisibleCollections,
  moveCollection,
  readCollection,
  transferCollection,
  updateCollection,
} from "../core/collections/index.ts";
import { builder, type GraphQLContext } from "./builder.ts";
import { ContentPositionInput, MemberRole, toConnection } from "./common.ts";
import { OrganizationRef, nullMeansUnchanged } from "./organizations.ts";

const CollectionPermissions = builder.simpleObject("CollectionPermissions", {
  fields: (t) => ({
    view: t.boolean(),
    admin: t.boolean(),
    viewInviteLinks: t.boolean(),
    create: t.boolean(),
  }),
});

export const CollectionRef = builder.loadableNode("Collection", {
  id: { resolve: (collection: Collection) => collection.id },
  load: async (ids: string[], { core }) => {
    const rows = await loadVisibleCollections(core, ids);
    return rows.map((row, index) => row ?? notFound("collection", ids[index]));
  },
  fields: (t) => ({
    title: t.exposeString("title"),
    description: t.exposeString("description", { nullable: true }),
    organization: t.field({ type: OrganizationRef, resolve: (c) => c.organizationId }),
    defaultLevel: t.field({
      type: MemberRole,
      nullable: true,
      description: "Level of access of the organization's members; null inherits from the parent",
      resolve: (c) => c.defaultLevel as never,
    }),
    urls: t.field({
      type: builder.simpleObject("CollectionUrls", { fields: (u) => ({ location: u.string(), app: u.string() }) }),
      resolve: (c, _args, { core }) => ({
        location: core.urls.api(`/collections/${c.id}`),
        app: core.urls.app(`/o/${c.organizationId}/c/${c.id}`),
      }),
    }),
    permissions: t.field({
      type: CollectionPermissions,
      resolve: async (c, _args, { core }) => collectionPermissions(await core.access.roleOnCollection(c)),
    }),
  }),
});

export const CollectionConnection = builder.connectionObject(
  { type: CollectionRef, name: "CollectionConnection" },
  { name: "CollectionEdge" },
);

/** A parent collection the caller may not read shows as no parent rather than as an error. */
export async function visibleParent(core: GraphQLContext["core"], parentId: string | null) {
  return parentId ? (await loadVisibleCollections(core, [parentId]))[0] : null;
}

// Fields that refer back to Collection are added once the type exists.
builder.objectFields(CollectionRef, (t) => ({
  parent: t.field({
    type: CollectionRef,
    nullable: true,
    description: "null at the top level, or when the caller cannot read the parent",
    resolve: (c, _args, { core }) => visibleParent(core, c.parentId),
  }),
  collections: t.connection({
    type: CollectionRef,
    description: "Collections directly inside this one, in their order",
    resolve: async (c, args, { core }) => toConnection(await listChildCollections(core, c, args)),
  }, CollectionConnection),
}));

builder.objectField(OrganizationRef, "collections", (t) =>
  t.connection({
    type: CollectionRef,
    args: { nested: t.arg.boolean({ defaultValue: true, description: "Include collections inside collections" }) },
    resolve: async (o, args, { core }) => toConnection(await listOrganizationCollections(core, o.id, args)),
  }, CollectionConnection),
);

builder.queryField("collection", (t) =>
  t.field({
    type: CollectionRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, { id }, { core }) => (await readCollection(core, id)).collection,
  }),
);

const CollectionPayload = (name: string) =>
  builder.simpleObject(name, { fields: (t) => ({ collection: t.field({ type: CollectionRef }) }) });

builder.mutationFields((t) => ({
  createCollection: t.field({
    type: CollectionPayload("CreateCollectionPayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("CreateCollectionInput", {
          fields: (f) => ({
            organization: f.id({ required: true }),
            title: f.string(),
            parent: f.id({ description: "Parent collection" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      collection: await createCollection(core, { organizationId: input.organization, title: input.title, parent: input.parent }),
    }),
  }),
  updateCollection: t.field({
    type: CollectionPayload("UpdateCollectionPayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UpdateCollectionInput", {
          fields: (f) => ({
            id: f.id({ required: true }),
            title: f.string(),
            description: f.string({ description: "null removes it" }),
            defaultLevel: f.field({ type: MemberRole, description: "null inherits from the parent" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input: { id, ...patch } }, { core }) => ({
      collection: await updateCollection(core, id, nullMeansUnchanged(patch, ["title"])),
    }),
  }),
  deleteCollection: t.field({
    type: builder.simpleObject("DeleteCollectionPayload", { fields: (p) => ({ deletedCollectionId: p.id() }) }),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("DeleteCollectionInput", { fields: (f) => ({ id: f.id({ required: true }) }) }),
      }),
    },
    resolve: async (_root, { input }, { core }) => {
      await deleteCollection(core, input.id);
      return { deletedCollectionId: input.id };
    },
  }),
  moveCollection: t.field({
    type: CollectionPayload("MoveCollectionPayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("MoveCollectionInput", {
          fields: (f) => ({
            id: f.id({ required: true }),
            parent: f.id({ description: "New parent collection; null for the top level; absent keeps it" }),
            position: f.field({ type: ContentPositionInput }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      collection: await moveCollection(core, input.id, { parent: input.parent, position: input.position }),
    }),
  }),
  transferCollection: t.field({
    type: CollectionPayload("TransferCollectionPayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("TransferCollectionInput", {
          fields: (f) => ({ id: f.id({ required: true }), organization: f.id({ required: true }) }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      collection: await transferCollection(core, input.id, input.organization),
    }),
  }),
}));
