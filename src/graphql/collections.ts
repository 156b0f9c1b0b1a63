// Collections: types, queries and mutations.
import type { Collection } from "../generated/prisma/client.ts";
import { collectionPermissions } from "../core/auth/permissions.ts";
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
import { visibleParent } from "../core/collections/parents.ts";
import { builder } from "./builder.ts";
import { ContentPositionInput, MemberRole, ownProperty, toConnection, payloadDescription } from "./common.ts";
import { OrganizationRef, nullMeansUnchanged } from "./organizations.ts";

const CollectionPermissions = builder.simpleObject("CollectionPermissions", {
  description: "What the caller may do with a collection",
  fields: (t) => ({
    view: t.boolean({ description: "Whether the caller may read the collection" }),
    admin: t.boolean({ description: "Whether the caller administers the collection (grants, deletion)" }),
    viewInviteLinks: t.boolean({ description: "Whether the caller may see the collection's invite links" }),
    create: t.boolean({ description: "Whether the caller may create spaces and collections in it" }),
  }),
});

export const CollectionRef = builder.loadableNode("Collection", {
  description: "A folder of an organization that holds spaces and other collections; access granted on it reaches what it holds",
  id: { resolve: ownProperty<Collection> },
  load: async (ids: string[], { core }) => {
    const rows = await loadVisibleCollections(core, ids);
    return rows.map((row, index) => row ?? notFound("collection", ids[index]));
  },
  fields: (t) => ({
    title: t.exposeString("title", { description: "Title of the collection" }),
    description: t.exposeString("description", { description: "Longer description of the collection; null when none", nullable: true }),
    organization: t.field({
      description: "The organization the collection belongs to",
      type: OrganizationRef,
      resolve: (c) => c.organizationId,
    }),
    defaultLevel: t.field({
      type: MemberRole,
      nullable: true,
      description: "Level of access of the organization's members; null inherits from the parent",
      resolve: ownProperty,
    }),
    urls: t.field({
      description: "Addresses of the collection in the REST API and the app",
      type: builder.simpleObject("CollectionUrls", {
        description: "Addresses of a collection",
        fields: (u) => ({
          location: u.string({ description: "URL of the collection in the REST API" }),
          app: u.string({ description: "URL of the collection in the app" }),
        }),
      }),
      resolve: (c, _args, { core }) => ({
        location: core.urls.api(`/collections/${c.id}`),
        app: core.urls.app(`/o/${c.organizationId}/c/${c.id}`),
      }),
    }),
    permissions: t.field({
      description: "What the caller may do with the collection",
      type: CollectionPermissions,
      resolve: async (c, _args, { core }) => collectionPermissions(await core.access.roleOnCollection(c)),
    }),
  }),
});

export const CollectionConnection = builder.connectionObject(
  { type: CollectionRef, name: "CollectionConnection" },
  { name: "CollectionEdge" },
);

// Fields that refer back to Collection are added once the type exists.
builder.objectFields(CollectionRef, (t) => ({
  parent: t.field({
    type: CollectionRef,
    nullable: true,
    description: "null at the top level, or when the caller cannot read the parent",
    resolve: (c, _args, { core }) => visibleParent(core, c.parentId),
  }),
  collections: t.connection(
    {
      type: CollectionRef,
      description: "Collections directly inside this one, in their order",
      resolve: async (c, args, { core }) => toConnection(await listChildCollections(core, c, args)),
    },
    CollectionConnection,
  ),
}));

builder.objectField(OrganizationRef, "collections", (t) =>
  t.connection(
    {
      description: "The organization's top-level collections, in their order",
      type: CollectionRef,
      args: { nested: t.arg.boolean({ defaultValue: true, description: "Include collections inside collections" }) },
      resolve: async (o, args, { core }) => toConnection(await listOrganizationCollections(core, o.id, args)),
    },
    CollectionConnection,
  ),
);

builder.queryField("collection", (t) =>
  t.field({
    description: "A collection by id; not found when the caller cannot read it",
    type: CollectionRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, { id }, { core }) => (await readCollection(core, id)).collection,
  }),
);

const CollectionPayload = (name: string) =>
  builder.simpleObject(name, {
    description: payloadDescription(name),
    fields: (t) => ({ collection: t.field({ description: "The collection, as it stands after the change", type: CollectionRef }) }),
  });

builder.mutationFields((t) => ({
  createCollection: t.field({
    description: "Creates a collection in an organization (or in a collection)",
    type: CollectionPayload("CreateCollectionPayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("CreateCollectionInput", {
          description: "Input of the createCollection mutation",
          fields: (f) => ({
            organization: f.id({ description: "Id of the organization", required: true }),
            title: f.string({ description: "Title of the new collection" }),
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
    description: "Changes a collection's title, description or default level",
    type: CollectionPayload("UpdateCollectionPayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UpdateCollectionInput", {
          description: "Input of the updateCollection mutation",
          fields: (f) => ({
            id: f.id({ description: "Id of the collection", required: true }),
            title: f.string({ description: "New title; absent: unchanged" }),
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
    description: "Deletes an empty collection",
    type: builder.simpleObject("DeleteCollectionPayload", {
      description: "Result of the deleteCollection mutation",
      fields: (p) => ({ deletedCollectionId: p.id({ description: "Id of the collection deleted" }) }),
    }),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("DeleteCollectionInput", {
          description: "Input of the deleteCollection mutation",
          fields: (f) => ({ id: f.id({ description: "Id of the collection", required: true }) }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => {
      await deleteCollection(core, input.id);
      return { deletedCollectionId: input.id };
    },
  }),
  moveCollection: t.field({
    description: "Moves a collection under another collection or to the top level, or among its siblings",
    type: CollectionPayload("MoveCollectionPayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("MoveCollectionInput", {
          description: "Input of the moveCollection mutation",
          fields: (f) => ({
            id: f.id({ description: "Id of the collection", required: true }),
            parent: f.id({ description: "New parent collection; null for the top level; absent keeps it" }),
            position: f.field({ description: "Where to put it among its new siblings; default: last", type: ContentPositionInput }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      collection: await moveCollection(core, input.id, { parent: input.parent, position: input.position }),
    }),
  }),
  transferCollection: t.field({
    description: "Moves a collection, with everything in it, to another organization",
    type: CollectionPayload("TransferCollectionPayload"),
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("TransferCollectionInput", {
          description: "Input of the transferCollection mutation",
          fields: (f) => ({
            id: f.id({ description: "Id of the collection", required: true }),
            organization: f.id({ description: "Id of the organization to move the collection to", required: true }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      collection: await transferCollection(core, input.id, input.organization),
    }),
  }),
}));
