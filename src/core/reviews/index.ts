// Reviews of change requests, the reviewers asked for one, and who contributed. A review is of
// the change request as it was then (its head revision): it is outdated once the change request
// moves on (an edit or an update makes a new head) or the same reviewer reviews again. Reviewing
// needs `review` on the space and is refused on your own change request; asking someone to review
// needs `edit`, and the one asked must be able to review the space.
import type { ChangeRequest, ChangeRequestReviewer, Space } from "../../generated/prisma/client.ts";
import { atLeast } from "../auth/roles.ts";
import type { CoreContext } from "../context.ts";
import { badInput, forbidden, notFound, quote } from "../errors.ts";
import { newId } from "../ids.ts";
import { memberKey } from "../members/loaders.ts";
import { memberRoleOnSpace } from "../members/index.ts";
import { pageInMemory, type Page, type PageArgs } from "../pagination.ts";
import { checkChangeRequestActive, readChangeRequest, requireChangeRequest, updateChangeRequest } from "../change-requests/index.ts";
import { postComment } from "../comments/index.ts";
import { checkOneOf } from "../validate.ts";
import { reviewsOf, type Review } from "./merge-rules.ts";

export * from "./changes.ts";
export * from "./merge-rules.ts";

export const REVIEW_STATUSES = ["approved", "changes-requested"] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];
/** Users asked in one request. */
export const REVIEWERS_MAX = 50;

export async function listReviews(
  ctx: CoreContext,
  spaceId: string,
  changeRequestId: string,
  filter: { outdated?: boolean | null },
  page: PageArgs,
): Promise<Page<Review>> {
  const { changeRequest } = await readChangeRequest(ctx, spaceId, changeRequestId);
  const reviews = (await reviewsOf(ctx.prisma, changeRequest)).filter(
    (review) => filter.outdated == null || review.outdated === filter.outdated,
  );
  return pageInMemory(reviews, page, (review) => review.row.id);
}

export async function getReview(ctx: CoreContext, spaceId: string, changeRequestId: string, reviewId: string): Promise<Review> {
  const { changeRequest } = await readChangeRequest(ctx, spaceId, changeRequestId);
  const review = (await reviewsOf(ctx.prisma, changeRequest)).find((candidate) => candidate.row.id === reviewId);
  if (!review) throw notFound("review", reviewId);
  return review;
}

/**
 * Reviews the change request as it is now. The request that asked the reviewer, if any, is
 * named by the review (`requestedBy`). A comment is posted on the change request with it.
 */
export async function submitReview(
  ctx: CoreContext,
  spaceId: string,
  changeRequestId: string,
  input: { status: string; comment?: string | null },
): Promise<Review> {
  const status = checkOneOf("status", input.status, REVIEW_STATUSES);
  const { changeRequest } = await requireChangeRequest(ctx, spaceId, changeRequestId, "changeRequest.review");
  if (changeRequest.createdById === ctx.viewer.userId)
    throw forbidden(`You cannot review your own change request (#${changeRequest.number})`);
  checkChangeRequestActive(changeRequest, "be reviewed");
  const comment =
    input.comment != null ? await postComment(ctx, { spaceId, changeRequestId: changeRequest.id }, { body: input.comment }) : null;
  const request = await ctx.prisma.changeRequestReviewer.findUnique({
    where: { changeRequestId_userId: { changeRequestId: changeRequest.id, userId: ctx.viewer.userId } },
  });
  const now = ctx.clock.now();
  const row = await ctx.prisma.changeRequestReview.create({
    data: {
      id: newId("ChangeRequestReview"),
      changeRequestId: changeRequest.id,
      reviewerId: ctx.viewer.userId,
      requestedById: request?.requestedById ?? null,
      status,
      revisionId: changeRequest.revisionId,
      commentId: comment?.id ?? null,
      createdAt: now,
      updatedAt: now,
    },
  });
  return { row, outdated: false };
}

export async function listRequestedReviewers(
  ctx: CoreContext,
  spaceId: string,
  changeRequestId: string,
  page: PageArgs,
): Promise<Page<ChangeRequestReviewer>> {
  const { changeRequest } = await readChangeRequest(ctx, spaceId, changeRequestId);
  const rows = await ctx.prisma.changeRequestReviewer.findMany({
    where: { changeRequestId: changeRequest.id },
    orderBy: [{ createdAt: "asc" }, { userId: "asc" }],
  });
  return pageInMemory(rows, page, (row) => row.userId);
}

/** Refuses (400 naming the entry) a user who is not a member able to review the space, or the author. */
async function checkReviewer(ctx: CoreContext, space: Space, changeRequest: ChangeRequest, userId: string, field: string) {
  const member = await ctx.loaders.member.load(memberKey(space.organizationId, userId));
  if (!member || member.disabled) throw badInput(`${field}: ${quote(userId)} is not a member of this organization`);
  if (userId === changeRequest.createdById) throw badInput(`${field}: ${quote(userId)} opened the change request and cannot review it`);
  if (!atLeast(await memberRoleOnSpace(ctx, userId, space), "review")) {
    throw badInput(`${field}: ${quote(userId)} cannot review this space (reviewing needs the review role on it)`);
  }
}

/**
 * Asks members to review the change request (asking again keeps the first request), and sets
 * its subject when given. All or nothing: one user who cannot review refuses the whole request.
 */
export async function requestReviewers(
  ctx: CoreContext,
  spaceId: string,
  changeRequestId: string,
  input: { users: string[]; subject?: string | null },
): Promise<ChangeRequestReviewer[]> {
  const { space, changeRequest } = await requireChangeRequest(ctx, spaceId, changeRequestId, "changeRequest.requestReview");
  if (input.users.length === 0 || input.users.length > REVIEWERS_MAX) {
    throw badInput(`users must list between 1 and ${REVIEWERS_MAX} user ids (got ${input.users.length})`);
  }
  checkChangeRequestActive(changeRequest, "get reviewers");
  const users = [...new Set(input.users)];
  for (const [index, userId] of input.users.entries()) await checkReviewer(ctx, space, changeRequest, userId, `users[${index}]`);
  const current =
    input.subject != null ? await updateChangeRequest(ctx, spaceId, changeRequest.id, { subject: input.subject }) : changeRequest;
  const now = ctx.clock.now();
  await ctx.prisma.changeRequestReviewer.createMany({
    data: users.map((userId) => ({
      changeRequestId: current.id,
      userId,
      requestedById: ctx.viewer.userId,
      revisionId: current.revisionId,
      createdAt: now,
    })),
    skipDuplicates: true,
  });
  return ctx.prisma.changeRequestReviewer.findMany({
    where: { changeRequestId: current.id, userId: { in: users } },
    orderBy: { userId: "asc" },
  });
}

/** Withdraws the request to `userId`; answers whether there was one. */
export async function removeRequestedReviewer(
  ctx: CoreContext,
  spaceId: string,
  changeRequestId: string,
  userId: string,
): Promise<boolean> {
  const { changeRequest } = await requireChangeRequest(ctx, spaceId, changeRequestId, "changeRequest.requestReview");
  const { count } = await ctx.prisma.changeRequestReviewer.deleteMany({ where: { changeRequestId: changeRequest.id, userId } });
  return count > 0;
}

export const CONTRIBUTION_KINDS = ["edit", "comment"] as const;

export interface Contributor {
  userId: string;
  kind: (typeof CONTRIBUTION_KINDS)[number];
  /** Revisions made (edit) or comments and replies posted (comment). */
  count: number;
  updatedAt: Date;
}

/**
 * Who contributed to the change request: one entry per user and kind, edits (the revisions they
 * made in it, updates from the space included) and comments (comments and replies), latest first.
 */
export async function listContributors(
  ctx: CoreContext,
  spaceId: string,
  changeRequestId: string,
  page: PageArgs,
): Promise<Page<Contributor>> {
  const { changeRequest } = await readChangeRequest(ctx, spaceId, changeRequestId);
  const [edits, comments] = await Promise.all([
    ctx.prisma.revision.groupBy({
      by: ["createdById"],
      where: { changeRequestId: changeRequest.id, createdById: { not: null } },
      _count: { _all: true },
      _max: { createdAt: true },
    }),
    ctx.prisma.comment.groupBy({
      by: ["postedById"],
      where: { changeRequestId: changeRequest.id },
      _count: { _all: true },
      _max: { postedAt: true },
    }),
  ]);
  const contributors: Contributor[] = [
    ...edits.map((row) => ({ userId: row.createdById!, kind: "edit" as const, count: row._count._all, updatedAt: row._max.createdAt! })),
    ...comments.map((row) => ({ userId: row.postedById, kind: "comment" as const, count: row._count._all, updatedAt: row._max.postedAt! })),
  ].sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime() || (a.userId < b.userId ? -1 : 1));
  return pageInMemory(contributors, page, (contributor) => `${contributor.kind}:${contributor.userId}`);
}
