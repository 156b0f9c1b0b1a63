// Change requests: a proposal of content changes with its own head revision, started from the
// space's head. "Update" brings the space's newer content in; "merge" puts the change request's
// edits onto the space. Both are three-way merges (./merge.ts) against the common base, the
// space revision the change request last took in (`revisionMergedAncestorId`, else
// `revisionInitialId`); a conflict refuses with 409 naming the pages, and nothing is written.
import { recordAuditEvent } from "../audit/index.ts";
import type { ChangeRequest, Prisma, Revision } from "../../generated/prisma/client.ts";
import type { CoreContext } from "../context.ts";
import { storeBlobs } from "../blobs.ts";
import { contentColumns, contentOf, sha256, TRANSACTION_OPTIONS } from "../content/index.ts";
import { contentLockKey } from "../content/target.ts";
import type { Content } from "../content/tree.ts";
import { DomainError, badInput, quote, characterCount } from "../errors.ts";
import { newId } from "../ids.ts";
import { pageInMemory, paginate, type PageArgs } from "../pagination.ts";
import { reindexSpace } from "../search/index.ts";
import { spaceContentChanged } from "../ask/vectors.ts";
import { readSpace, requireSpace } from "../spaces/index.ts";
import { readableContentFilter } from "../content-tree/index.ts";
import { getOrganization } from "../organizations/read.ts";
import { authorize } from "../auth/policy.ts";
import { CHANGE_REQUEST_STATUSES, checkChangeRequestActive, requireChangeRequest, type ChangeRequestStatus } from "./access.ts";
import { bodiesNeeded, mergeContent, type MergeConflict } from "./merge.ts";
import { checkMergeRulesMet, effectiveMergeRules, reviewsOf } from "../reviews/merge-rules.ts";

export * from "./access.ts";

export const CHANGE_REQUEST_SUBJECT_MAX = 100;
/** Statuses a change request can be given directly; `merged` is the result of a merge only. */
export const SETTABLE_STATUSES = ["draft", "open", "archived"] as const;

type Tx = Prisma.TransactionClient;

function checkSubject(subject: string): string {
  if (characterCount(subject) > CHANGE_REQUEST_SUBJECT_MAX) {
    throw badInput(`subject must be at most ${CHANGE_REQUEST_SUBJECT_MAX} characters (got ${characterCount(subject)})`);
  }
  return subject;
}

function checkStatus(status: string, allowed: readonly string[], field = "status"): ChangeRequestStatus {
  if (!allowed.includes(status)) throw badInput(`${field} must be one of ${allowed.join(", ")} (got ${quote(status)})`);
  return status as ChangeRequestStatus;
}

/** True when the space's head moved since the content the change request is based on. */
export function isOutdated(changeRequest: ChangeRequest, spaceRevisionId: string): boolean {
  if (changeRequest.status === "merged") return false;
  return spaceRevisionId !== (changeRequest.revisionMergedAncestorId ?? changeRequest.revisionInitialId);
}

/**
 * Opens a change request on the space's current head. Numbers come from a counter on the space
 * row, incremented in the same transaction: concurrent creations get distinct, consecutive numbers.
 */
export async function createChangeRequest(
  ctx: CoreContext,
  spaceId: string,
  input: { subject?: string | null; agentTaskId?: string | null },
): Promise<ChangeRequest> {
  await requireSpace(ctx, spaceId, "changeRequest.create");
  const subject = checkSubject(input.subject ?? "");
  const now = ctx.clock.now();
  const created = await ctx.prisma.$transaction(async (tx) => {
    const [space] = await tx.$queryRaw<{ number: number; revisionId: string }[]>`
      UPDATE "Space" SET "changeRequestNumber" = "changeRequestNumber" + 1
      WHERE id = ${spaceId} RETURNING "changeRequestNumber" AS number, "revisionId"`;
    return tx.changeRequest.create({
      data: {
        id: newId("ChangeRequest"),
        spaceId,
        number: space.number,
        subject,
        agentTaskId: input.agentTaskId ?? null,
        createdById: ctx.viewer.userId!,
        createdAt: now,
        updatedAt: now,
        revisionId: space.revisionId,
        revisionInitialId: space.revisionId,
      },
    });
  }, TRANSACTION_OPTIONS);
  remember(ctx, created);
  ctx.loaders.changeRequestCounts.clear(spaceId);
  return created;
}

/** What a list of change requests can be sorted by (newest first): the published `orderBy`. */
export const CHANGE_REQUEST_ORDERS = ["updatedAt", "createdAt"] as const;

export interface ChangeRequestFilter {
  status?: string | null;
  /** A user id: change requests the user opened or edited. */
  contributor?: string | null;
  /** A user id: change requests the user opened. */
  creator?: string | null;
  /** A user id: change requests the user is asked to review (and has not withdrawn from). */
  requestedReviewer?: string | null;
  /**
   * A site topic: change requests linked to it. This service has no site topics, so no change
   * request is linked to one: any topic lists none (and reads no rows).
   */
  topic?: string | null;
  /** updatedAt (default, the published one) or createdAt; newest first either way. */
  orderBy?: string | null;
}

/** A user-id filter: text the id column can hold, else 400 naming it. */
function checkUserFilter(field: string, value: string | null | undefined): string | undefined {
  if (value == null) return undefined;
  if (value.length === 0 || value.length > 200) throw badInput(`${field} must be a user id (got ${quote(value.slice(0, 100))})`);
  return value;
}

/**
 * Change requests of the space, newest first by `orderBy` (updatedAt unless createdAt, ties by
 * number); `status` defaults to open. Every filter is part of one query and its count.
 */
export async function listChangeRequests(ctx: CoreContext, spaceId: string, filter: ChangeRequestFilter, page: PageArgs) {
  const status = checkStatus(filter.status ?? "open", CHANGE_REQUEST_STATUSES);
  const orderBy = filter.orderBy ?? "updatedAt";
  if (!(CHANGE_REQUEST_ORDERS as readonly string[]).includes(orderBy)) {
    throw badInput(`orderBy must be one of ${CHANGE_REQUEST_ORDERS.join(", ")} (got ${quote(orderBy)})`);
  }
  const contributor = checkUserFilter("contributor", filter.contributor);
  const creator = checkUserFilter("creator", filter.creator);
  const requestedReviewer = checkUserFilter("requestedReviewer", filter.requestedReviewer);
  if (filter.topic != null && (filter.topic.length === 0 || filter.topic.length > 200)) {
    throw badInput(`topic must be a site topic id (got ${quote(filter.topic.slice(0, 100))})`);
  }
  const { space } = await readSpace(ctx, spaceId);
  await authorize(ctx, "changeRequest.read", { space });
  const where: Prisma.ChangeRequestWhereInput = {
    spaceId,
    status,
    ...(contributor ? { OR: [{ createdById: contributor }, { revisions: { some: { createdById: contributor } } }] } : {}),
    ...(creator ? { createdById: creator } : {}),
    ...(requestedReviewer ? { requestedReviewers: { some: { userId: requestedReviewer } } } : {}),
  };
  if (filter.topic != null) return pageInMemory<ChangeRequest>([], page, (changeRequest) => changeRequest.id);
  // createdAt order is number order: numbers are given in creation order, one by one.
  return paginate<ChangeRequest, Prisma.ChangeRequestWhereInput>(page, {
    sortField: orderBy === "createdAt" ? "number" : "updatedAt",
    sortKind: orderBy === "createdAt" ? "number" : "date",
    direction: "desc",
    ...(orderBy === "createdAt" ? {} : { idField: "number", idKind: "number" }),
    where,
    rows: ctx.prisma.changeRequest,
  });
}

/** The published `finding` values: whether change requests opened from triage findings are listed. */
export const CHANGE_REQUEST_FINDING_FILTERS = ["none", "all"] as const;
/** At most this many statuses in one filter (there are four; repeats are allowed, not unbounded). */
const STATUS_FILTER_MAX = 10;

export interface OrganizationChangeRequestFilter extends Omit<ChangeRequestFilter, "status"> {
  /** Any of these statuses (default: open). */
  status?: readonly string[] | null;
  /** A site id: change requests of the spaces the site publishes. */
  site?: string | null;
  /** A space id: change requests of this space only. */
  space?: string | null;
  /** A style guide check run: this service runs none, so any run lists none. */
  styleguideRun?: string | null;
  /** none (default) or all: this service opens no change request from triage, so both list the same. */
  finding?: string | null;
}

/** An id filter: text an id column can hold, else 400 naming it. */
function checkIdFilter(field: string, value: string | null | undefined, what: string): string | undefined {
  if (value == null) return undefined;
  if (value.length === 0 || value.length > 200) throw badInput(`${field} must be ${what} (got ${quote(value.slice(0, 100))})`);
  return value;
}

/**
 * Change requests across the organization's spaces that the caller may read (members with a role:
 * every space; guests: the spaces granted to them or beneath a granted collection), deleted spaces
 * left out, newest first by `orderBy` (ties by id). The filters are those of a space's list plus
 * `site` and `space`; a filter naming a space or site the caller cannot see (unknown, or another
 * organization's) matches nothing, as a filter on an unknown user does. Unknown organization or
 * not a member: 404.
 */
export async function listOrganizationChangeRequests(
  ctx: CoreContext,
  organizationId: string,
  filter: OrganizationChangeRequestFilter,
  page: PageArgs,
) {
  const statuses = filter.status == null || filter.status.length === 0 ? ["open"] : filter.status;
  if (statuses.length > STATUS_FILTER_MAX)
    throw badInput(`status must list at most ${STATUS_FILTER_MAX} statuses (got ${statuses.length})`);
  const status = [...new Set(statuses.map((one) => checkStatus(one, CHANGE_REQUEST_STATUSES)))];
  const orderBy = filter.orderBy ?? "updatedAt";
  if (!(CHANGE_REQUEST_ORDERS as readonly string[]).includes(orderBy)) {
    throw badInput(`orderBy must be one of ${CHANGE_REQUEST_ORDERS.join(", ")} (got ${quote(orderBy)})`);
  }
  const finding = filter.finding ?? "none";
  if (!(CHANGE_REQUEST_FINDING_FILTERS as readonly string[]).includes(finding)) {
    throw badInput(`finding must be one of ${CHANGE_REQUEST_FINDING_FILTERS.join(", ")} (got ${quote(finding)})`);
  }
  const contributor = checkUserFilter("contributor", filter.contributor);
  const creator = checkUserFilter("creator", filter.creator);
  const requestedReviewer = checkUserFilter("requestedReviewer", filter.requestedReviewer);
  const site = checkIdFilter("site", filter.site, "a site id");
  const space = checkIdFilter("space", filter.space, "a space id");
  checkIdFilter("topic", filter.topic, "a site topic id");
  checkIdFilter("styleguideRun", filter.styleguideRun, "a style guide check run id");
  await getOrganization(ctx, organizationId);
  const readable = await readableContentFilter(ctx, organizationId);
  if (filter.topic != null || filter.styleguideRun != null) {
    return pageInMemory<ChangeRequest>([], page, (changeRequest) => changeRequest.id);
  }
  const where: Prisma.ChangeRequestWhereInput = {
    space: {
      organizationId,
      deletedAt: null,
      AND: [
        readable.spaces,
        ...(space ? [{ id: space }] : []),
        ...(site ? [{ siteSpaces: { some: { site: { id: site, organizationId } } } }] : []),
      ],
    },
    status: { in: status },
    ...(contributor ? { OR: [{ createdById: contributor }, { revisions: { some: { createdById: contributor } } }] } : {}),
    ...(creator ? { createdById: creator } : {}),
    ...(requestedReviewer ? { requestedReviewers: { some: { userId: requestedReviewer } } } : {}),
  };
  return paginate<ChangeRequest, Prisma.ChangeRequestWhereInput>(page, {
    sortField: orderBy === "createdAt" ? "createdAt" : "updatedAt",
    sortKind: "date",
    direction: "desc",
    where,
    rows: ctx.prisma.changeRequest,
  });
}

/** Changes the subject or the status (draft, open, archived) of a change request. */
export async function updateChangeRequest(
  ctx: CoreContext,
  spaceId: string,
  idOrNumber: string,
  input: { subject?: string | null; status?: string | null },
): Promise<ChangeRequest> {
  const { changeRequest } = await requireChangeRequest(ctx, spaceId, idOrNumber, "changeRequest.update");
  const subject = input.subject != null ? checkSubject(input.subject) : undefined;
  const status = input.status != null ? checkStatus(input.status, SETTABLE_STATUSES) : undefined;
  if (status && changeRequest.status === "merged") {
    throw new DomainError("CONFLICT", `Change request #${changeRequest.number} is merged: its status cannot change`);
  }
  const updated = await ctx.prisma.changeRequest.update({
    where: { id: changeRequest.id },
    data: { subject, status, updatedAt: ctx.clock.now() },
  });
  remember(ctx, updated);
  ctx.loaders.changeRequestCounts.clear(spaceId);
  return updated;
}

/** The markdown of the bodies a merge needs, read inside the merge's transaction. */
async function markdownOfBodies(tx: Tx, hashes: string[]): Promise<Map<string, string>> {
  if (hashes.length === 0) return new Map();
  const rows = await tx.blob.findMany({ where: { hash: { in: hashes } } });
  return new Map(rows.map((row) => [row.hash, Buffer.from(row.data).toString("utf8")]));
}

function conflictError(changeRequest: ChangeRequest, doing: string, conflicts: MergeConflict[]): DomainError {
  const names = conflicts.map((c) => `${c.kind} ${c.title ? `"${c.title}"` : c.id}${c.path ? ` (${c.path})` : ""}: ${c.reason}`);
  return new DomainError(
    "CONFLICT",
    `Cannot ${doing} change request #${changeRequest.number}: ${conflicts.length} conflict${conflicts.length === 1 ? "" : "s"}; nothing was changed. ${names.join("; ")}`,
    { conflicts },
  );
}

/**
 * Three-way merge of `theirs` onto `ours` against `base`, as a new revision of the space with
 * the given parents. Throws the 409 conflict error when the sides overlap.
 */
async function mergedRevision(
  ctx: CoreContext,
  tx: Tx,
  changeRequest: ChangeRequest,
  doing: string,
  sides: { base: Revision; ours: Revision; theirs: Revision },
  revision: { type: "merge" | "update"; changeRequestId: string | null; message: string },
): Promise<{ revision: Revision; content: Content }> {
  const [base, ours, theirs] = [contentOf(sides.base), contentOf(sides.ours), contentOf(sides.theirs)];
  const markdown = await markdownOfBodies(tx, bodiesNeeded(base, ours, theirs));
  const now = ctx.clock.now();
  const result = mergeContent(
    base,
    ours,
    theirs,
    (hash) => {
      const text = markdown.get(hash);
      if (text === undefined) throw new Error(`Body ${hash} is missing`);
      return text;
    },
    (text) => sha256(Buffer.from(text, "utf8")),
    now.toISOString(),
  );
  if (!result.ok) throw conflictError(changeRequest, doing, result.conflicts);
  if (result.newBodies.length) {
    const rows = result.newBodies.map((text) => Buffer.from(text, "utf8")).map((data) => ({ hash: sha256(data), data, size: data.length }));
    await storeBlobs(tx, "revision", rows);
  }
  const created = await tx.revision.create({
    data: {
      id: newId("Revision"),
      spaceId: changeRequest.spaceId,
      changeRequestId: revision.changeRequestId,
      parentIds: [sides.ours.id, sides.theirs.id],
      type: revision.type,
      ...contentColumns(result.content),
      message: revision.message,
      createdById: ctx.viewer.userId,
      createdAt: now,
    },
  });
  return { revision: created, content: result.content };
}

/** Replaces what this request's loaders hold of a change request that just changed. */
function remember(ctx: CoreContext, changeRequest: ChangeRequest) {
  ctx.loaders.changeRequest.clear(changeRequest.id).prime(changeRequest.id, changeRequest);
  ctx.loaders.changeRequestByNumber.clear(`${changeRequest.spaceId}:${changeRequest.number}`);
}

const revisionIn = (tx: Tx, id: string) => tx.revision.findUniqueOrThrow({ where: { id } });

/**
 * Brings the space's newest content into the change request (a three-way merge onto the change
 * request's head). When the space has not moved since the base, nothing changes.
 */
export async function updateChangeRequestFromSpace(
  ctx: CoreContext,
  spaceId: string,
  idOrNumber: string,
): Promise<{ revision: Revision; changeRequest: ChangeRequest }> {
  const { changeRequest: found } = await requireChangeRequest(ctx, spaceId, idOrNumber, "changeRequest.updateFromSpace");
  checkChangeRequestActive(found, "be updated");
  const result = await ctx.prisma.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT pg_advisory_xact_lock(hashtext(${contentLockKey(found.id)}))::text`;
    const changeRequest = await tx.changeRequest.findUniqueOrThrow({ where: { id: found.id } });
    checkChangeRequestActive(changeRequest, "be updated");
    const space = await tx.space.findUniqueOrThrow({ where: { id: spaceId } });
    const baseId = changeRequest.revisionMergedAncestorId ?? changeRequest.revisionInitialId;
    if (space.revisionId === baseId) return { revision: await revisionIn(tx, changeRequest.revisionId), changeRequest };
    const { revision } = await mergedRevision(
      ctx,
      tx,
      changeRequest,
      "update",
      {
        base: await revisionIn(tx, baseId),
        ours: await revisionIn(tx, changeRequest.revisionId),
        theirs: await revisionIn(tx, space.revisionId),
      },
      { type: "update", changeRequestId: changeRequest.id, message: `Update from the space's revision ${space.revisionId}` },
    );
    const updated = await tx.changeRequest.update({
      where: { id: changeRequest.id },
      data: { revisionId: revision.id, revisionMergedAncestorId: space.revisionId, updatedAt: revision.createdAt },
    });
    return { revision, changeRequest: updated };
  }, TRANSACTION_OPTIONS);
  remember(ctx, result.changeRequest);
  ctx.loaders.revision.prime(result.revision.id, result.revision);
  return result;
}

/**
 * Merges the change request into the space: the space's head moves to the merge of both sides
 * (search follows in the same transaction), and the change request becomes `merged`. Needs
 * `review` on the space, and the merge rules of the space (or its organization) met: 409 naming
 * the rules that are not. A locked space takes merges: that is how its content changes.
 */
export async function mergeChangeRequest(
  ctx: CoreContext,
  spaceId: string,
  idOrNumber: string,
): Promise<{ revision: Revision; changeRequest: ChangeRequest }> {
  const { changeRequest: found } = await requireChangeRequest(ctx, spaceId, idOrNumber, "changeRequest.merge");
  checkChangeRequestActive(found, "be merged");
  const result = await ctx.prisma.$transaction(async (tx) => {
    // Space first, then the change request: editContent and update take one of the two only.
    await tx.$queryRaw`SELECT pg_advisory_xact_lock(hashtext(${contentLockKey(spaceId)}))::text`;
    await tx.$queryRaw`SELECT pg_advisory_xact_lock(hashtext(${contentLockKey(found.id)}))::text`;
    const changeRequest = await tx.changeRequest.findUniqueOrThrow({ where: { id: found.id } });
    checkChangeRequestActive(changeRequest, "be merged");
    const space = await tx.space.findUniqueOrThrow({ where: { id: spaceId }, include: { organization: true } });
    const baseId = changeRequest.revisionMergedAncestorId ?? changeRequest.revisionInitialId;
    // Under both locks, so that no edit lands between the check of the approvals and the merge.
    checkMergeRulesMet(effectiveMergeRules(space, space.organization), {
      changeRequest,
      reviews: await reviewsOf(tx, changeRequest),
      actorId: ctx.viewer.userId,
      upToDate: space.revisionId === baseId,
    });
    const { revision, content } = await mergedRevision(
      ctx,
      tx,
      changeRequest,
      "merge",
      {
        base: await revisionIn(tx, baseId),
        ours: await revisionIn(tx, space.revisionId),
        theirs: await revisionIn(tx, changeRequest.revisionId),
      },
      {
        type: "merge",
        changeRequestId: null,
        message: `Merge of change request #${changeRequest.number}${changeRequest.subject ? `: ${changeRequest.subject}` : ""}`,
      },
    );
    await tx.space.update({ where: { id: spaceId }, data: { revisionId: revision.id, updatedAt: revision.createdAt } });
    if (await reindexSpace(tx, spaceId, content.pages)) await spaceContentChanged(ctx, tx, spaceId);
    await ctx.integrations.contentUpdated(tx, spaceId, revision.id, ctx.viewer.userId);
    const merged = await tx.changeRequest.update({
      where: { id: changeRequest.id },
      data: {
        status: "merged",
        revisionMergedId: revision.id,
        mergedById: ctx.viewer.userId,
        mergedAt: revision.createdAt,
        updatedAt: revision.createdAt,
      },
    });
    await recordAuditEvent(ctx, tx, {
      organizationId: space.organizationId,
      action: "space.change-request.merged",
      target: { type: "change-request", id: merged.id, label: merged.subject || `#${merged.number}` },
      payload: { space: spaceId, number: merged.number, revision: revision.id },
    });
    return { revision, changeRequest: merged };
  }, TRANSACTION_OPTIONS);
  ctx.jobs.wake(); // space_content_updated for installed integrations
  ctx.loaders.space.clear(spaceId);
  ctx.loaders.changeRequestCounts.clear(spaceId);
  remember(ctx, result.changeRequest);
  ctx.loaders.revision.prime(result.revision.id, result.revision);
  return result;
}
