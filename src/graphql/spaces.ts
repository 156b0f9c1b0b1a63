// Spaces: types, queries and mutations.
import type { Collection, Organization, Space } from "../generated/prisma/client.ts";
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
import { visibleOrganizationNow } from "../core/organizations/index.ts";
import type { CoreContext } from "../core/context.ts";
import type { SpaceCounters } from "../core/loader-kit.ts";
import { presentedSpaceUrl, presentSpaceShareKey } from "../core/sites/share-links.ts";
import { builder, type GraphQLContext } from "./builder.ts";
import { CollectionRef, visibleParent } from "./collections.ts";
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
import { ScopeSlot } from "../core/request-scope.ts";
import { isThenable } from "../core/thenable.ts";

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

/**
 * What the fields of a listed space read, loaded for the whole page before its items resolve
 * (issue 15): with it, `organization`, `parent`, the counters and `permissions` answer at once
 * instead of each creating promises per item (a REST list of 100 spaces made 47 promises per
 * space, and on Node 20 the AsyncLocalStorage hooks make each one dearer). Loaded through the
 * same loaders, memos and statements as a single space's fields (the counters read afresh, as
 * their loaders do after a write's clear()), so the values and the statements are the same; only
 * the selected fields are prepared, and a field whose value was not (a single space) takes its
 * own path.
 */
class PreparedSpace {
  // Every field set at creation, whichever are prepared and in whatever order the loads end: one
  // shape for all entries, so the resolvers reading them stay monomorphic.
  organization: Organization | undefined = undefined;
  /** null: no parent, or one the caller cannot read. */
  parent: Collection | null | undefined = undefined;
  permissions: ReturnType<typeof spacePermissions> | undefined = undefined;
  changeRequests: Record<string, number> | undefined = undefined;
  openComments: number | undefined = undefined;
}

/** The listed spaces' prepared values, by row; they go when the operation ends (use-loader-release.ts). */
const PREPARED_SPACES = new ScopeSlot("prepared values of listed spaces, by row", () => new Map<Space, PreparedSpace>(), true);

const preparedOf = (core: CoreContext, space: Space): PreparedSpace | undefined => core.scope.peek(PREPARED_SPACES)?.get(space);

const COUNTER_FIELDS = ["openCommentCount", "changeRequestCount", "openChangeRequestCount", "draftChangeRequestCount"];

/**
 * Loads what the selected `fields` of `spaces` read, all at once (see PreparedSpace); `counted`:
 * their counters, when the statement that read the spaces read those too. What the request already
 * holds (a space's view, a list's organization and parents, the caller's role) is set without a
 * promise, and nothing is returned when nothing was left to load (issue 15).
 */
function prepareSpaces(
  context: GraphQLContext,
  spaces: Space[],
  fields: Set<string>,
  counted?: SpaceCounters[],
): Promise<void> | undefined {
  if (spaces.length === 0) return undefined;
  const { core } = context;
  const prepared = core.scope.get(PREPARED_SPACES);
  const entries = spaces.map((space) => {
    const entry = new PreparedSpace();
    prepared.set(space, entry);
    return entry;
  });
  const loads: Promise<void>[] = [];
  if (
    fields.has("organization") &&
    !prepareNow(entries, spaces, (space) => visibleOrganizationNow(core, space.organizationId), "organization")
  ) {
    const organizationIds = [...new Set(spaces.map((space) => space.organizationId))];
    loads.push(
      OrganizationRef.getDataloader(context)
        .loadMany(organizationIds)
        .then((organizations) => {
          const byId = new Map(organizationIds.map((id, index) => [id, organizations[index]]));
          spaces.forEach((space, index) => {
            const organization = byId.get(space.organizationId);
            if (organization && !(organization instanceof Error)) entries[index].organization = organization as Organization;
          });
        }),
    );
  }
  if (fields.has("parent") && !prepareNow(entries, spaces, (space) => visibleParent(core, space.parentId), "parent")) {
    // A loop, not flatMap: no array per space (issue 15).
    const parentSet = new Set<string>();
    for (const space of spaces) if (space.parentId) parentSet.add(space.parentId);
    const parentIds = [...parentSet];
    loads.push(
      Promise.all(parentIds.map((id) => visibleParent(core, id))).then((parents) => {
        const byId = new Map(parentIds.map((id, index) => [id, parents[index]]));
        spaces.forEach((space, index) => {
          entries[index].parent = space.parentId ? byId.get(space.parentId) : null;
        });
      }),
    );
  }
  const roles = fields.has("permissions") ? core.access.rolesOnSpacesNow(spaces) : undefined;
  if (roles) roles.forEach((role, index) => (entries[index].permissions = spacePermissions(role)));
  else if (fields.has("permissions")) {
    loads.push(
      core.access.rolesOnSpaces(spaces).then((roles) => {
        roles.forEach((role, index) => {
          entries[index].permissions = spacePermissions(role);
        });
      }),
    );
  }
  const setCounters = (counters: SpaceCounters[]) =>
    counters.forEach((counter, index) => {
      entries[index].changeRequests = counter.changeRequests;
      entries[index].openComments = counter.openComments;
    });
  if (counted) setCounters(counted);
  else if (COUNTER_FIELDS.some((field) => fields.has(field))) {
    loads.push(core.loaders.spaceCounters(spaces.map((space) => space.id)).then(setCounters));
  }
  return loads.length ? Promise.all(loads).then(() => undefined) : undefined;
}

/**
 * Sets `field` of every entry from `valueOf` its space, when each is known now (null: none; the
 * organization's null is one the caller cannot see, left unset as a load leaves it); false, and
 * nothing set, when one of them is still to load.
 */
function prepareNow<F extends "organization" | "parent">(
  entries: PreparedSpace[],
  spaces: Space[],
  valueOf: (space: Space) => PreparedSpace[F] | null | PromiseLike<unknown>,
  field: F,
): boolean {
  const values: (PreparedSpace[F] | null)[] = [];
  for (const space of spaces) {
    const value = valueOf(space);
    if (value === undefined || isThenable(value)) return false;
    values.push(value as PreparedSpace[F] | null);
  }
  values.forEach((value, index) => {
    if (value !== null || field === "parent") entries[index][field] = value as PreparedSpace[F];
  });
  return true;
}

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
        const prepared = prepareSpaces(context, page.items, fields, page.counters);
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
        const prepared = prepareSpaces(context, page.items, fields, page.counters);
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
      const prepared = prepareSpaces(context, [space], fields, counted?.counters && [counted.counters]);
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
