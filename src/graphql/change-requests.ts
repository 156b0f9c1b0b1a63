// Change requests: the node type, a space's list, and the mutations that open, change, update
// and merge them. Their content reads like a space's (`content`, `page`, `file`, `files`), and is
// edited with the content mutations given `changeRequest` (content-editing.ts, files.ts, import.ts).
import { changeRequestStatusOf } from "../core/storage-types.ts";
import type { ChangeRequest } from "../generated/prisma/client.ts";
import {
  CHANGE_REQUEST_FINDING_FILTERS,
  CHANGE_REQUEST_ORDERS,
  CHANGE_REQUEST_STATUSES,
  CHANGE_REQUEST_SUBJECT_MAX,
  createChangeRequest,
  isOutdated,
  listChangeRequests,
  listOrganizationChangeRequests,
  mergeChangeRequest,
  readChangeRequest,
  updateChangeRequest,
  updateChangeRequestFromSpace,
} from "../core/change-requests/index.ts";
import { notFound } from "../core/errors.ts";
import { builder } from "./builder.ts";
import { enumName, toConnection, payloadDescription } from "./common.ts";
import { ContentTargetRef, FileRef, headContentFields, RevisionRef } from "./content.ts";
import { CHANGES_MAX, type ContentBatchResult, updateChangeRequestContent } from "../core/change-requests/content.ts";
import { revisionAt } from "../core/content/target.ts";
import { OrganizationRef, UserRef } from "./organizations.ts";
import { SpaceRef } from "./spaces.ts";

export const ChangeRequestStatus = builder.enumType("ChangeRequestStatus", {
  description: "draft: being prepared; open: ready for review; archived: closed without merging; merged: its edits are in the space",
  values: Object.fromEntries(CHANGE_REQUEST_STATUSES.map((status) => [enumName(status), { value: status }])) as Record<
    Uppercase<(typeof CHANGE_REQUEST_STATUSES)[number]>,
    { value: (typeof CHANGE_REQUEST_STATUSES)[number] }
  >,
});

export const ChangeRequestOrderBy = builder.enumType("ChangeRequestOrderBy", {
  description: "What a list of change requests is sorted by, newest first",
  values: { UPDATED_AT: { value: "updatedAt" }, CREATED_AT: { value: "createdAt" } } satisfies Record<
    string,
    { value: (typeof CHANGE_REQUEST_ORDERS)[number] }
  >,
});

const ChangeRequestUrls = builder.simpleObject("ChangeRequestUrls", {
  description: "Addresses of a change request",
  fields: (t) => ({
    app: t.string({ description: "URL of the change request in the app" }),
    location: t.string({ description: "URL of the change request in the REST API" }),
  }),
});

export const ChangeRequestRef = builder.loadableNode("ChangeRequest", {
  description: "A proposal of content changes in a space, with its own head revision",
  id: { resolve: (changeRequest: ChangeRequest) => changeRequest.id },
  // Found only when the caller can read the change request's space (404 otherwise, like any node).
  load: (ids: string[], { core }) =>
    Promise.all(
      ids.map(async (id) => {
        const changeRequest = await core.loaders.changeRequest.load(id);
        if (!changeRequest) return notFound("change request", id);
        return readChangeRequest(core, changeRequest.spaceId, id).then(
          (found) => found.changeRequest,
          () => notFound("change request", id),
        );
      }),
    ),
  fields: (t) => ({
    number: t.exposeInt("number", { description: "1, 2, 3 … within the space" }),
    status: t.field({
      description: "DRAFT, OPEN, MERGED or ARCHIVED",
      type: ChangeRequestStatus,
      resolve: (c) => changeRequestStatusOf(c.status),
    }),
    subject: t.exposeString("subject", { description: "Short summary of the change; empty when not given" }),
    createdBy: t.field({ description: "Who opened the change request", type: UserRef, resolve: (c) => c.createdById }),
    createdAt: t.expose("createdAt", { description: "When the change request was opened", type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { description: "When the change request or its content last changed", type: "DateTime" }),
    mergedBy: t.field({
      description: "Who merged the change request; null unless merged",
      type: UserRef,
      nullable: true,
      resolve: (c) => c.mergedById,
    }),
    mergedAt: t.expose("mergedAt", {
      description: "When the change request was merged; null unless merged",
      type: "DateTime",
      nullable: true,
    }),
    space: t.field({ description: "The space the change request belongs to", type: SpaceRef, resolve: (c) => c.spaceId }),
    revision: t.id({ description: "Id of the change request's head revision", resolve: (c) => c.revisionId }),
    revisionInitial: t.id({ description: "Id of the space revision it was opened from", resolve: (c) => c.revisionInitialId }),
    revisionMergedAncestor: t.id({
      nullable: true,
      description: "Id of the space revision it was last updated from (null: never updated)",
      resolve: (c) => c.revisionMergedAncestorId,
    }),
    revisionMerged: t.id({ nullable: true, description: "Id of the space revision its merge made", resolve: (c) => c.revisionMergedId }),
    outdated: t.boolean({
      description: "True when the space's content moved since the content this change request is based on (never once merged)",
      resolve: async (c, _args, { core }) => {
        const space = await core.loaders.space.load(c.spaceId);
        return space ? isOutdated(c, space.revisionId) : false;
      },
    }),
    openCommentCount: t.int({
      description: "Open comments on the change request (replies not counted)",
      resolve: (c, _args, { core }) => core.loaders.openCommentCount.load(`cr:${c.id}`),
    }),
    urls: t.field({
      description: "Addresses of the change request in the REST API and the app",
      type: ChangeRequestUrls,
      resolve: (c, _args, { core }) => ({
        app: core.urls.app(`/s/${c.spaceId}/~/changes/${c.number}`),
        location: core.urls.api(`/spaces/${c.spaceId}/change-requests/${c.id}`),
      }),
    }),
  }),
});

builder.objectFields(ChangeRequestRef, (t) =>
  headContentFields(t, (changeRequest, core) => revisionAt(core, changeRequest), "change request's"),
);

builder.objectField(ContentTargetRef, "changeRequest", (t) =>
  t.field({
    type: ChangeRequestRef,
    nullable: true,
    description: "Null for the space's own content",
    resolve: (head) => head.changeRequest,
  }),
);

// A merge revision names the change request it merged.
builder.objectField(RevisionRef, "mergedFrom", (t) =>
  t.field({
    type: ChangeRequestRef,
    nullable: true,
    description: "For a merge revision: the change request it merged",
    resolve: async (r, _args, { core }) => (r.type === "merge" ? core.loaders.changeRequestMergedInto.load(r.id) : null),
  }),
);

const ChangeRequestConnection = builder.connectionObject(
  { type: ChangeRequestRef, name: "ChangeRequestConnection" },
  { name: "ChangeRequestEdge" },
);

builder.objectFields(SpaceRef, (t) => ({
  changeRequests: t.connection(
    {
      type: ChangeRequestRef,
      description: "Change requests of the space, newest first",
      args: {
        status: t.arg({ type: ChangeRequestStatus, defaultValue: "open", description: "Only those in this status (default: open)" }),
        contributor: t.arg.id({ description: "Only those a user opened or edited (a user id)" }),
        creator: t.arg.id({ description: "Only those a user opened (a user id)" }),
        requestedReviewer: t.arg.id({ description: "Only those a user is asked to review (a user id)" }),
        topic: t.arg.string({ description: "Only those linked to this site topic (there are no site topics here: none)" }),
        orderBy: t.arg({ type: ChangeRequestOrderBy, defaultValue: "updatedAt", description: "Newest first by (default: UPDATED_AT)" }),
      },
      resolve: async (s, args, { core }) =>
        toConnection(
          await listChangeRequests(
            core,
            s.id,
            {
              status: args.status,
              contributor: args.contributor,
              creator: args.creator,
              requestedReviewer: args.requestedReviewer,
              topic: args.topic,
              orderBy: args.orderBy,
            },
            args,
          ),
        ),
    },
    ChangeRequestConnection,
  ),
  changeRequest: t.field({
    type: ChangeRequestRef,
    description: "A change request of the space by id or by number",
    args: { id: t.arg.id({ required: true, description: "The change request's id, or its number in the space" }) },
    resolve: async (s, { id }, { core }) => (await readChangeRequest(core, s.id, id)).changeRequest,
  }),
}));

const ChangeRequestFindingFilter = builder.enumType("ChangeRequestFindingFilter", {
  description: "Whether change requests opened from triage findings are listed (none here are: both list the same)",
  values: { NONE: { value: "none" }, ALL: { value: "all" } } satisfies Record<
    string,
    { value: (typeof CHANGE_REQUEST_FINDING_FILTERS)[number] }
  >,
});

builder.objectFields(OrganizationRef, (t) => ({
  changeRequests: t.connection(
    {
      type: ChangeRequestRef,
      description: "Change requests across the organization's spaces the caller may read (deleted spaces left out), newest first",
      args: {
        status: t.arg({
          type: [ChangeRequestStatus],
          defaultValue: ["open"],
          description: "Only those in one of these statuses (default: open)",
        }),
        contributor: t.arg.id({ description: "Only those a user opened or edited (a user id)" }),
        creator: t.arg.id({ description: "Only those a user opened (a user id)" }),
        requestedReviewer: t.arg.id({ description: "Only those a user is asked to review (a user id)" }),
        site: t.arg.id({ description: "Only those of the spaces this site publishes (a site id)" }),
        space: t.arg.id({ description: "Only those of this space (a space id)" }),
        topic: t.arg.string({ description: "Only those linked to this site topic (there are no site topics here: none)" }),
        styleguideRun: t.arg.string({ description: "Only those a style guide check run opened (there are none here: none)" }),
        finding: t.arg({
          type: ChangeRequestFindingFilter,
          defaultValue: "none",
          description: "Include triage change requests (none here)",
        }),
        orderBy: t.arg({ type: ChangeRequestOrderBy, defaultValue: "updatedAt", description: "Newest first by (default: UPDATED_AT)" }),
      },
      resolve: async (organization, args, { core }) =>
        toConnection(
          await listOrganizationChangeRequests(
            core,
            organization.id,
            {
              status: args.status,
              contributor: args.contributor,
              creator: args.creator,
              requestedReviewer: args.requestedReviewer,
              site: args.site,
              space: args.space,
              topic: args.topic,
              styleguideRun: args.styleguideRun,
              finding: args.finding,
              orderBy: args.orderBy,
            },
            args,
          ),
        ),
    },
    ChangeRequestConnection,
  ),
}));

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;
const changeRequestTarget = (f: PothosSchemaTypes.InputFieldBuilder<Types, "InputObject">) => ({
  space: f.id({ description: "Id of the space", required: true }),
  changeRequest: f.id({ required: true, description: "The change request's id, or its number in the space" }),
});

const ChangeRequestPayload = (name: string) =>
  builder.simpleObject(name, {
    description: payloadDescription(name),
    fields: (p) => ({
      changeRequest: p.field({ description: "The change request, as it stands after the change", type: ChangeRequestRef }),
    }),
  });

const RevisionPayload = (name: string, revision: string) =>
  builder.simpleObject(name, {
    description: payloadDescription(name),
    fields: (p) => ({
      revision: p.field({ type: RevisionRef, description: revision }),
      changeRequest: p.field({ description: "The change request, as it stands after the change", type: ChangeRequestRef }),
    }),
  });

builder.mutationFields((t) => ({
  createChangeRequest: t.field({
    type: ChangeRequestPayload("CreateChangeRequestPayload"),
    description: "Opens a change request (status draft) on the space's current content",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("CreateChangeRequestInput", {
          description: "Input of the createChangeRequest mutation",
          fields: (f) => ({
            space: f.id({ description: "Id of the space", required: true }),
            subject: f.string({ description: `At most ${CHANGE_REQUEST_SUBJECT_MAX} characters` }),
            agentTaskId: f.string({ description: "The agent task the change request implements" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({ changeRequest: await createChangeRequest(core, input.space, input) }),
  }),
  updateChangeRequest: t.field({
    type: ChangeRequestPayload("UpdateChangeRequestPayload"),
    description: "Changes a change request's subject or status (merged is reached by merging only)",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UpdateChangeRequestInput", {
          description: "Input of the updateChangeRequest mutation",
          fields: (f) => ({
            ...changeRequestTarget(f),
            subject: f.string({ description: `At most ${CHANGE_REQUEST_SUBJECT_MAX} characters; null leaves it` }),
            status: f.field({ type: ChangeRequestStatus, description: "draft, open or archived; null leaves it" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      changeRequest: await updateChangeRequest(core, input.space, input.changeRequest, { subject: input.subject, status: input.status }),
    }),
  }),
  updateChangeRequestFromSpace: t.field({
    type: RevisionPayload(
      "UpdateChangeRequestFromSpacePayload",
      "The change request's head after the update (unchanged when the space had not moved)",
    ),
    description:
      "Brings the space's newest content into the change request: a three-way merge against the content it is based on. " +
      "Conflicting edits refuse it with 409 (extensions.conflicts names them) and change nothing.",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UpdateChangeRequestFromSpaceInput", {
          description: "Input of the updateChangeRequestFromSpace mutation",
          fields: changeRequestTarget,
        }),
      }),
    },
    resolve: (_root, { input }, { core }) => updateChangeRequestFromSpace(core, input.space, input.changeRequest),
  }),
  mergeChangeRequest: t.field({
    type: RevisionPayload("MergeChangeRequestPayload", "The space's new head: the merge"),
    description:
      "Puts the change request's edits onto the space (needs review): a three-way merge against the content it is based on. " +
      "Conflicting edits refuse it with 409 (extensions.conflicts names them) and change nothing.",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("MergeChangeRequestInput", {
          description: "Input of the mergeChangeRequest mutation",
          fields: changeRequestTarget,
        }),
      }),
    },
    resolve: (_root, { input }, { core }) => mergeChangeRequest(core, input.space, input.changeRequest),
  }),
}));

const ContentChangeOutcome = builder.simpleObject("ChangeRequestContentOutcome", {
  description: "A page a batch of content changes touched, once, in the order the batch first touched it",
  fields: (t) => ({
    object: t.string({ description: "created_page, updated_page or deleted_page" }),
    page: t.id({ description: "Id of the page" }),
    ref: t.string({ nullable: true, description: "The batch-local ref its insert_page gave, if any" }),
    location: t.string({ nullable: true, description: "API URL of the page's content (null for a deleted page)" }),
  }),
});

const ContentBatchPayload = builder.objectRef<ContentBatchResult>("UpdateChangeRequestContentPayload").implement({
  description: payloadDescription("UpdateChangeRequestContentPayload"),
  fields: (t) => ({
    changeRequest: t.field({
      type: ChangeRequestRef,
      description: "The change request after the batch",
      resolve: (result) => result.changeRequest,
    }),
    changes: t.field({
      type: [ContentChangeOutcome],
      description: "The pages the batch created, updated or deleted",
      resolve: (result) => result.changes.map((change) => ({ ref: null, location: null, ...change })),
    }),
    insertedFiles: t.field({
      type: [FileRef],
      description: "The files its insert_files changes uploaded, in order",
      resolve: async (result, _args, { core }) => {
        const revision = await revisionAt(core, result.changeRequest);
        return result.insertedFiles.map((file) => ({ file, revision }));
      },
    }),
  }),
});

builder.mutationField("updateChangeRequestContent", (t) =>
  t.field({
    type: ContentBatchPayload,
    description: `Applies up to ${CHANGES_MAX} content changes (insert_page, update_page, delete_page, revert_page, insert_files, as the published ChangeRequestContentChange) to a change request, in order, as one revision: all or nothing`,
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("UpdateChangeRequestContentInput", {
          description: "Input of the updateChangeRequestContent mutation",
          fields: (f) => ({
            ...changeRequestTarget(f),
            changes: f.field({
              type: "JSON",
              required: true,
              description: "The published ChangeRequestContentChange list, each with its operation",
            }),
          }),
        }),
      }),
    },
    resolve: (_root, { input }, { core }) =>
      updateChangeRequestContent(core, String(input.space), String(input.changeRequest), input.changes),
  }),
);
