// Reviews of change requests, requested reviewers, contributors and changes (on ChangeRequest),
// the mutations that review and ask for reviews, and the merge rules of organizations and spaces.
import { reviewStatusOf } from "../core/storage-types.ts";
import type { ChangeRequestReviewer } from "../generated/prisma/client.ts";
import { downloadUrlOf } from "../core/content/files.ts";
import { readCommentOrReply } from "../core/comments/index.ts";
import {
  CHANGE_TYPES,
  CONTRIBUTION_KINDS,
  REVIEW_STATUSES,
  changeRequestChanges,
  getReview,
  listContributors,
  listRequestedReviewers,
  listReviews,
  removeRequestedReviewer,
  requestReviewers,
  revisionSemanticChanges,
  submitReview,
  type ChangedPage,
  type Contributor,
  type Review,
  type SemanticChange,
} from "../core/reviews/index.ts";
import type { FileEntry } from "../core/content/tree.ts";
import { builder } from "./builder.ts";
import { ChangeRequestRef } from "./change-requests.ts";
import { RevisionRef } from "./content.ts";
import { CommentRef, shownUser } from "./comments.ts";
import { enumName, toConnection } from "./common.ts";
import { UserRef } from "./organizations.ts";

function enumOf<T extends string>(name: string, description: string, values: readonly T[]) {
  return builder.enumType(name, {
    description,
    values: Object.fromEntries(values.map((value) => [enumName(value), { value }])) as Record<Uppercase<T>, { value: T }>,
  });
}

const ReviewStatus = enumOf("ChangeRequestReviewStatus", "approved, or changes-requested", REVIEW_STATUSES);
const ContributionKind = enumOf(
  "ChangeRequestContributionKind",
  "edit: made revisions in it; comment: commented or replied on it",
  CONTRIBUTION_KINDS,
);
const ChangeType = enumOf("RevisionChangeType", "What a change did", CHANGE_TYPES);

const ReviewUrls = builder.simpleObject("ChangeRequestReviewUrls", {
  description: "Addresses of a review",
  fields: (t) => ({ location: t.string({ description: "URL of the review in the REST API" }) }),
});

const ReviewRef = builder.objectRef<Review>("ChangeRequestReview").implement({
  description: "A review of a change request as it was at `revision`",
  fields: (t) => ({
    id: t.id({ description: "Id of the review", resolve: (r) => r.row.id }),
    status: t.field({
      description: "The reviewer's decision: APPROVED or CHANGES_REQUESTED",
      type: ReviewStatus,
      resolve: (r) => reviewStatusOf(r.row.status),
    }),
    outdated: t.boolean({
      description: "True once the change request moved on from `revision` or the reviewer reviewed again",
      resolve: (r) => r.outdated,
    }),
    revision: t.id({ description: "The change request's head revision that was reviewed", resolve: (r) => r.row.revisionId }),
    reviewer: t.field({ description: "Who reviewed", type: UserRef, resolve: (r, _args, { core }) => shownUser(core, r.row.reviewerId) }),
    requestedBy: t.field({
      type: UserRef,
      nullable: true,
      description: "Who had asked the reviewer (null: reviewed unasked)",
      resolve: (r, _args, { core }) => (r.row.requestedById ? shownUser(core, r.row.requestedById) : null),
    }),
    comment: t.field({
      type: CommentRef,
      nullable: true,
      description: "The comment posted with the review (null once deleted)",
      resolve: (r, _args, { core }) => (r.row.commentId ? readCommentOrReply(core, r.row.commentId, "comment").catch(() => null) : null),
    }),
    createdAt: t.field({ description: "When the review was submitted", type: "DateTime", resolve: (r) => r.row.createdAt }),
    updatedAt: t.field({ description: "When the review last changed", type: "DateTime", resolve: (r) => r.row.updatedAt }),
    urls: t.field({
      description: "Addresses of the review",
      type: ReviewUrls,
      resolve: async (r, _args, { core }) => {
        const changeRequest = await core.loaders.changeRequest.load(r.row.changeRequestId);
        return {
          location: core.urls.api(`/spaces/${changeRequest!.spaceId}/change-requests/${r.row.changeRequestId}/reviews/${r.row.id}`),
        };
      },
    }),
  }),
});

const RequestedReviewerRef = builder.objectRef<ChangeRequestReviewer>("ChangeRequestRequestedReviewer").implement({
  description: "A member asked to review a change request",
  fields: (t) => ({
    user: t.field({ description: "The reviewer asked", type: UserRef, resolve: (r, _args, { core }) => shownUser(core, r.userId) }),
    requestedBy: t.field({
      description: "Who requested the review",
      type: UserRef,
      resolve: (r, _args, { core }) => shownUser(core, r.requestedById),
    }),
    revision: t.id({ description: "The change request's head when asked", resolve: (r) => r.revisionId }),
    createdAt: t.expose("createdAt", { description: "When the review was requested", type: "DateTime" }),
  }),
});

const ContributorRef = builder.objectRef<Contributor>("ChangeRequestContributor").implement({
  description: "What one user contributed to a change request, of one kind",
  fields: (t) => ({
    user: t.field({ description: "The contributor", type: UserRef, resolve: (c, _args, { core }) => shownUser(core, c.userId) }),
    kind: t.field({
      description: "How the user contributed: edit (opened or edited it) or comment",
      type: ContributionKind,
      resolve: (c) => c.kind,
    }),
    count: t.int({ description: "Revisions made (edit) or comments and replies posted (comment)", resolve: (c) => c.count }),
    updatedAt: t.field({ type: "DateTime", description: "The latest of them", resolve: (c) => c.updatedAt }),
  }),
});

const ChangedPageRef = builder.objectRef<ChangedPage>("ChangedPage").implement({
  description: "A page as it stands on the side of a change where it exists",
  fields: (t) => ({
    id: t.id({ description: "Id of the page", resolve: (p) => p.id }),
    kind: t.string({ description: "DOCUMENT, GROUP or LINK", resolve: (p) => p.kind }),
    title: t.string({ description: "Title of the page", resolve: (p) => p.title }),
    path: t.string({ description: "Path of the page in its space (slugs joined by /)", resolve: (p) => p.path }),
  }),
});

const ChangedFileRef = builder.objectRef<FileEntry>("ChangedFile").implement({
  description: "A file as it stands on the side of a change where it exists",
  fields: (t) => ({
    id: t.id({ description: "Id of the file", resolve: (f) => f.id }),
    name: t.string({ description: "File name", resolve: (f) => f.name }),
    contentType: t.string({ description: "Media type of the file", resolve: (f) => f.contentType }),
    downloadURL: t.string({
      description: "Signed URL of the file's bytes, valid for a limited time",
      resolve: (f, _args, { core }) => downloadUrlOf(core, f),
    }),
  }),
});

const ChangedReusableContentRef = builder.simpleObject("ChangedReusableContent", {
  description: "A reusable content as it stands on the side of a change where it exists",
  fields: (t) => ({
    id: t.id({ description: "Id of the reusable content" }),
    title: t.string({ description: "Title of the reusable content" }),
    document: t.string({ description: "The body's id (its hash)" }),
  }),
});

const field = <K extends string>(change: SemanticChange, key: K) => (key in change ? (change as Record<K, any>)[key] : null);

export const RevisionChangeRef = builder.objectRef<SemanticChange>("RevisionChange").implement({
  description: "One change of content: the fields that apply to its type are set",
  fields: (t) => ({
    type: t.field({
      description: "What changed: a page, file or reusable content created, edited, moved or deleted, or the variables edited",
      type: ChangeType,
      resolve: (c) => c.type,
    }),
    page: t.field({
      description: "The page changed, for a page change",
      type: ChangedPageRef,
      nullable: true,
      resolve: (c) => field(c, "page"),
    }),
    parentBefore: t.field({
      type: ChangedPageRef,
      nullable: true,
      description: "page_moved: the parent before (null: the top level)",
      resolve: (c) => field(c, "parent")?.before ?? null,
    }),
    parentAfter: t.field({
      type: ChangedPageRef,
      nullable: true,
      description: "page_moved: the parent after (null: the top level)",
      resolve: (c) => field(c, "parent")?.after ?? null,
    }),
    file: t.field({
      description: "The file changed, for a file change",
      type: ChangedFileRef,
      nullable: true,
      resolve: (c) => field(c, "file"),
    }),
    reusableContent: t.field({
      description: "The reusable content changed, for a reusable content change",
      type: ChangedReusableContentRef,
      nullable: true,
      resolve: (c) => field(c, "reusableContent"),
    }),
    attributes: t.field({
      type: "JSON",
      nullable: true,
      description:
        "*_edited: each changed attribute as { before, after } (a side absent when the value was), named as in the published API",
      resolve: (c) => field(c, "attributes"),
    }),
    variables: t.field({
      type: "JSON",
      nullable: true,
      description: "variables_edited: each changed variable as { before, after }",
      resolve: (c) => field(c, "variables"),
    }),
  }),
});

const ChangesRef = builder.simpleObject("ChangeRequestChanges", {
  description: "What a change request changes against the space: pages, files and reusable contents created, edited or removed",
  fields: (t) => ({
    changes: t.field({ description: "One entry per page, file or reusable content created, edited or removed", type: [RevisionChangeRef] }),
    more: t.int({ description: "How many changes were left out beyond the limit" }),
  }),
});

const ReviewConnection = builder.connectionObject(
  { type: ReviewRef, name: "ChangeRequestReviewConnection" },
  { name: "ChangeRequestReviewEdge" },
);
const RequestedReviewerConnection = builder.connectionObject(
  { type: RequestedReviewerRef, name: "ChangeRequestRequestedReviewerConnection" },
  { name: "ChangeRequestRequestedReviewerEdge" },
);
const ContributorConnection = builder.connectionObject(
  { type: ContributorRef, name: "ChangeRequestContributorConnection" },
  { name: "ChangeRequestContributorEdge" },
);

builder.objectFields(ChangeRequestRef, (t) => ({
  reviews: t.connection(
    {
      type: ReviewRef,
      description: "Reviews, oldest first",
      args: { outdated: t.arg.boolean({ description: "Only outdated (true) or only current (false) reviews" }) },
      resolve: async (c, args, { core }) => toConnection(await listReviews(core, c.spaceId, c.id, { outdated: args.outdated }, args)),
    },
    ReviewConnection,
  ),
  review: t.field({
    description: "The review summary: the latest decision of each reviewer",
    type: ReviewRef,
    args: { id: t.arg.id({ required: true }) },
    resolve: (c, { id }, { core }) => getReview(core, c.spaceId, c.id, id),
  }),
  requestedReviewers: t.connection(
    {
      type: RequestedReviewerRef,
      description: "Members asked to review it, in the order they were asked",
      resolve: async (c, args, { core }) => toConnection(await listRequestedReviewers(core, c.spaceId, c.id, args)),
    },
    RequestedReviewerConnection,
  ),
  contributors: t.connection(
    {
      type: ContributorRef,
      description: "Who edited or commented, one entry per user and kind, latest first",
      resolve: async (c, args, { core }) => toConnection(await listContributors(core, c.spaceId, c.id, args)),
    },
    ContributorConnection,
  ),
  changes: t.field({
    type: ChangesRef,
    description: "What it changes against the space content it is based on: pages (tree order), files, reusable contents, variables",
    args: { limit: t.arg.int({ description: "At most this many changes (default 10, at most 1000)" }) },
    resolve: (c, { limit }, { core }) => changeRequestChanges(core, c, limit),
  }),
}));

builder.objectField(RevisionRef, "changes", (t) =>
  t.field({
    type: ChangesRef,
    description:
      "What the revision changed against its first parent (none: every page is created): pages (tree order), files, reusable contents, variables",
    args: { limit: t.arg.int({ description: "At most this many changes (default 10, at most 1000)" }) },
    resolve: (r, { limit }, { core }) => revisionSemanticChanges(core, r.spaceId, r.id, limit),
  }),
);

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never;
const changeRequestTarget = (f: PothosSchemaTypes.InputFieldBuilder<Types, "InputObject">) => ({
  space: f.id({ description: "Id of the space", required: true }),
  changeRequest: f.id({ required: true, description: "The change request's id, or its number in the space" }),
});

builder.mutationFields((t) => ({
  submitChangeRequestReview: t.field({
    type: builder.simpleObject("SubmitChangeRequestReviewPayload", {
      description: "Result of the submitChangeRequestReview mutation",
      fields: (p) => ({ review: p.field({ description: "The review submitted", type: ReviewRef }) }),
    }),
    description: "Reviews the change request as it is now (needs review on the space; not your own change request)",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("SubmitChangeRequestReviewInput", {
          description: "Input of the submitChangeRequestReview mutation",
          fields: (f) => ({
            ...changeRequestTarget(f),
            status: f.field({ description: "The decision: APPROVED or CHANGES_REQUESTED", type: ReviewStatus, required: true }),
            comment: f.string({ description: "Markdown of a comment posted on the change request with the review" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      review: await submitReview(core, input.space, input.changeRequest, { status: input.status, comment: input.comment }),
    }),
  }),
  requestChangeRequestReviewers: t.field({
    type: builder.simpleObject("RequestChangeRequestReviewersPayload", {
      description: "Result of the requestChangeRequestReviewers mutation",
      fields: (p) => ({ requestedReviewers: p.field({ type: [RequestedReviewerRef], description: "The requests to the users named" }) }),
    }),
    description: "Asks members who can review the space to review the change request (all or nothing)",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("RequestChangeRequestReviewersInput", {
          description: "Input of the requestChangeRequestReviewers mutation",
          fields: (f) => ({
            ...changeRequestTarget(f),
            users: f.idList({ required: true, description: "User ids, at most 50" }),
            subject: f.string({ description: "Also sets the change request's subject" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      requestedReviewers: await requestReviewers(core, input.space, input.changeRequest, { users: input.users, subject: input.subject }),
    }),
  }),
  removeChangeRequestRequestedReviewer: t.field({
    type: builder.simpleObject("RemoveChangeRequestRequestedReviewerPayload", {
      description: "Result of the removeChangeRequestRequestedReviewer mutation",
      fields: (p) => ({ removed: p.boolean({ description: "False when the user had not been asked" }) }),
    }),
    description: "Withdraws the request to a member to review the change request",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("RemoveChangeRequestRequestedReviewerInput", {
          description: "Input of the removeChangeRequestRequestedReviewer mutation",
          fields: (f) => ({ ...changeRequestTarget(f), user: f.id({ description: "Id of the user", required: true }) }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      removed: await removeRequestedReviewer(core, input.space, input.changeRequest, input.user),
    }),
  }),
}));
