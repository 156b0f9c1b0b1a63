// Import runs (the published ContentImportRun): a website import (index.ts) started in the
// background as a job of the queue (src/core/jobs), with its status and progress in a row.
//
// - Start checks everything a caller can get wrong (the source, the target space, change request
//   and page, the caller's right to edit it) before answering 201 with a pending run; the job
//   then runs the import as the caller, within the import's own bounds (pages, bytes, time).
// - Progress: after each page and image, the run's row gets the pages read so far (pending) and
//   counters; once the revision is written, in the same transaction, the run is completed with
//   every page of the tree (folders: levels the site had no page for).
// - Cancel: a pending or in-progress run becomes cancelled at once. The job stops at its next
//   checkpoint (the next page or image read), and the transaction that would write the revision
//   completes the run only if it is still in progress: a cancelled run never writes a revision.
// - A run whose job is gone, or failed for good (its instance died), without the run recording
//   its end is failed: reads mark it so first, as the published API describes.
import type { Transaction } from "../../db/transaction.ts";
import type { ImportRun, Prisma } from "../../generated/prisma/client.ts";
import { createCoreContext, type CoreContext, type Services } from "../context.ts";
import { DomainError, badInput, notFound, quote, tooMany } from "../errors.ts";
import { newId } from "../ids.ts";
import { contentOf } from "../content/index.ts";
import { findPage } from "../content/tree.ts";
import { headRevision, requireEditableTarget } from "../content/target.ts";
import { requireOrganization } from "../organizations/read.ts";
import { type PageArgs, paginate } from "../pagination.ts";
import { requireSpace } from "../spaces/read.ts";
import { checkImportInput, importContent, IMPORT_SOURCES } from "./index.ts";
import type { ImportedPageEntry, ImportProgress } from "./progress.ts";

export const IMPORT_RUN_JOB = "import-run";
export const IMPORT_RUN_STATUSES = ["pending", "in-progress", "completed", "failed", "cancelled"] as const;
export type ImportRunStatus = (typeof IMPORT_RUN_STATUSES)[number];
const ACTIVE: ImportRunStatus[] = ["pending", "in-progress"];
/** The list filter's values: a status, or `active` for pending and in-progress. */
export const IMPORT_RUN_FILTERS = ["active", ...IMPORT_RUN_STATUSES] as const;
/** Runs of one organization pending or in progress at a time: more answer 429. */
export const ACTIVE_IMPORT_RUNS_MAX = 5;

const ABANDONED = "The import stopped without reporting back (its server stopped): start it again";

/** Thrown at a checkpoint of a run that was cancelled meanwhile: the run writes nothing more. */
class RunCancelled extends Error {}

export interface StartImportRunInput {
  source: unknown;
  target: unknown;
  site?: unknown;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

function checkStartInput(input: StartImportRunInput) {
  if (!isObject(input.source)) throw badInput("source must be an object { type: website, url }");
  const { type, url } = input.source;
  if (typeof type !== "string" || !(IMPORT_SOURCES as readonly string[]).includes(type))
    throw badInput(`source.type must be one of ${IMPORT_SOURCES.join(", ")} (got ${quote(type ?? null)})`);
  if (type !== "website") throw badInput(`source.type ${type} is not supported yet: only website is`);
  let checked: URL;
  try {
    checked = checkImportInput({ url, source: type }).url;
  } catch (error) {
    if (error instanceof DomainError) throw badInput(`source.${error.message}`);
    throw error;
  }
  if (!isObject(input.target)) throw badInput("target must be an object { space, changeRequest?, page? }");
  const { space, changeRequest, page } = input.target;
  if (typeof space !== "string" || space === "") throw badInput("target.space is required: the id of a space");
  for (const [field, value] of [
    ["changeRequest", changeRequest],
    ["page", page],
  ] as const)
    if (value != null && typeof value !== "string") throw badInput(`target.${field} must be an id`);
  if (input.site != null && typeof input.site !== "string") throw badInput("site must be the id of a site");
  return {
    url: checked,
    space,
    changeRequest: (changeRequest as string | null | undefined) ?? null,
    page: (page as string | null | undefined) ?? null,
    site: (input.site as string | null | undefined) ?? null,
  };
}

/**
 * Starts a website import into a space (or a change request, or below a page) as a pending run;
 * the job queue runs it. Needs the edit role on the target.
 */
export async function startImportRun(ctx: CoreContext, organizationId: string, input: StartImportRunInput): Promise<ImportRun> {
  await requireOrganization(ctx, organizationId, "organization.read");
  const checked = checkStartInput(input);
  const head = await requireEditableTarget(ctx, { spaceId: checked.space, changeRequest: checked.changeRequest });
  // Another organization's space is unknown here, as its id would be anywhere else.
  if (head.space.organizationId !== organizationId) throw notFound("space", checked.space);
  if (checked.page != null && !findPage(contentOf(await headRevision(ctx, head)).pages, checked.page))
    throw badInput(`target.page: no page ${quote(checked.page)} in the target's content`);
  const siteId = await siteOf(ctx, organizationId, head.space.id, checked.site);
  const now = ctx.clock.now();
  const id = newId("ImportRun");
  const run = await ctx.prisma.$transaction(async (tx) => {
    // One organization's runs are counted one starter at a time, so two cannot both pass the bound.
    await tx.$queryRaw`SELECT pg_advisory_xact_lock(hashtext(${`import-runs:${organizationId}`}))::text`;
    await markAbandoned(tx, { organizationId }, now);
    const active = await tx.importRun.count({ where: { organizationId, status: { in: ACTIVE } } });
    if (active >= ACTIVE_IMPORT_RUNS_MAX)
      throw tooMany(
        `The organization has ${active} import runs pending or in progress: at most ${ACTIVE_IMPORT_RUNS_MAX}; wait for one to end`,
      );
    const jobId = await ctx.jobs.enqueue(IMPORT_RUN_JOB, { runId: id }, { maxAttempts: 1 }, tx);
    return tx.importRun.create({
      data: {
        id,
        organizationId,
        spaceId: head.space.id,
        changeRequestId: head.changeRequest?.id ?? null,
        pageId: checked.page,
        siteId,
        sourceType: "website",
        sourceUrl: checked.url.toString(),
        status: "pending",
        jobId,
        createdById: ctx.viewer.userId,
        createdByTokenId: ctx.viewer.tokenId,
        createdAt: now,
        updatedAt: now,
      },
    });
  });
  ctx.jobs.wake();
  return run;
}

/** The site given (which must be the organization's), else the one site the space is on, if exactly one. */
async function siteOf(ctx: CoreContext, organizationId: string, spaceId: string, given: string | null): Promise<string | null> {
  if (given != null) {
    const site = await ctx.prisma.site.findFirst({ where: { id: given, organizationId }, select: { id: true } });
    if (!site) throw notFound("site", given);
    return site.id;
  }
  const sites = await ctx.prisma.siteSpace.findMany({ where: { spaceId }, select: { siteId: true }, distinct: ["siteId"], take: 2 });
  return sites.length === 1 ? sites[0].siteId : null;
}

/**
 * Fails the active runs whose job is gone or failed for good: their import will never report
 * back. One statement, before each read.
 */
async function markAbandoned(db: Transaction | CoreContext["prisma"], where: { organizationId: string }, now: Date) {
  await db.$executeRaw`
    UPDATE "ImportRun" r SET "status" = 'failed', "reason" = ${ABANDONED}, "updatedAt" = ${now}
    WHERE r."organizationId" = ${where.organizationId} AND r."status" IN ('pending', 'in-progress')
      AND NOT EXISTS (SELECT 1 FROM "Job" j WHERE j."id" = r."jobId" AND j."failedAt" IS NULL)`;
}

export interface ImportRunFilter {
  space?: string | null;
  changeRequest?: string | null;
  site?: string | null;
  status?: string | null;
}

/** The organization's runs, most recent first (members with a role of read or more). */
export async function listImportRuns(ctx: CoreContext, organizationId: string, filter: ImportRunFilter, page: PageArgs) {
  await requireOrganization(ctx, organizationId, "importRun.read");
  if (filter.status != null && !(IMPORT_RUN_FILTERS as readonly string[]).includes(filter.status))
    throw badInput(`status must be one of ${IMPORT_RUN_FILTERS.join(", ")} (got ${quote(filter.status)})`);
  await markAbandoned(ctx.prisma, { organizationId }, ctx.clock.now());
  const where: Prisma.ImportRunWhereInput = {
    organizationId,
    ...(filter.space != null ? { spaceId: filter.space } : {}),
    ...(filter.changeRequest != null ? { changeRequestId: filter.changeRequest } : {}),
    ...(filter.site != null ? { siteId: filter.site } : {}),
    ...(filter.status === "active" ? { status: { in: ACTIVE } } : filter.status != null ? { status: filter.status } : {}),
  };
  return paginate<ImportRun, Prisma.ImportRunWhereInput>(page, {
    sortField: "createdAt",
    sortKind: "date",
    direction: "desc",
    where,
    rows: ctx.prisma.importRun,
  });
}

/** One run of the organization (another organization's answers as unknown). */
export async function readImportRun(ctx: CoreContext, organizationId: string, id: string): Promise<ImportRun> {
  await requireOrganization(ctx, organizationId, "importRun.read");
  await markAbandoned(ctx.prisma, { organizationId }, ctx.clock.now());
  const run = await ctx.prisma.importRun.findFirst({ where: { id, organizationId } });
  if (!run) throw notFound("import run", id);
  return run;
}

/**
 * Cancels a pending or in-progress run (needs the edit role on its space): it is cancelled at
 * once, and its import writes nothing more. A run that ended answers 400.
 */
export async function cancelImportRun(ctx: CoreContext, organizationId: string, id: string): Promise<ImportRun> {
  // Whoever may edit its space may cancel it (a guest with a grant on the space included).
  await requireOrganization(ctx, organizationId, "organization.read");
  const run = await ctx.prisma.importRun.findFirst({ where: { id, organizationId } });
  if (!run) throw notFound("import run", id);
  await requireSpace(ctx, run.spaceId, "space.editContent", { allowDeleted: true });
  const now = ctx.clock.now();
  const cancelled = await ctx.prisma.importRun.updateMany({
    where: { id, status: { in: ACTIVE } },
    data: { status: "cancelled", updatedAt: now, completedAt: now },
  });
  if (cancelled.count !== 1) {
    const current = await ctx.prisma.importRun.findUniqueOrThrow({ where: { id } });
    throw badInput(`The import run is ${current.status}: only a pending or in-progress run can be cancelled`);
  }
  // A job not claimed yet need not run at all (a claimed one stops at its next checkpoint).
  if (run.jobId) await ctx.prisma.job.deleteMany({ where: { id: run.jobId, lockedBy: null } });
  return ctx.prisma.importRun.findUniqueOrThrow({ where: { id } });
}

/** The published progress of a run: the pages read so far, or all of them once completed. */
export const pagesOf = (run: ImportRun) => run.pages as unknown as ImportedPageEntry[];
export const progressOf = (run: ImportRun) =>
  run.progress as unknown as Partial<Pick<ImportProgress, "phase" | "pagesFetched" | "queued" | "found">>;

/** Runs each job of an import run: the import, as the user who started it. */
export function registerImportRunJobs(services: Services): void {
  services.jobs.register(IMPORT_RUN_JOB, async (payload: { runId: string }, job) => {
    const { prisma, clock } = services;
    const run = await prisma.importRun.findUnique({ where: { id: payload.runId } });
    // Cancelled before it ran, or its organization is gone. In progress: its last run stopped
    // with the instance (the queue hands the job back), so it starts again from the top.
    if (!run || !ACTIVE.includes(run.status as ImportRunStatus)) return;
    const started = await prisma.importRun.updateMany({
      where: { id: run.id, status: { in: ACTIVE } },
      data: { status: "in-progress", startedAt: clock.now(), updatedAt: clock.now(), pages: [], progress: {} },
    });
    if (started.count !== 1) return;
    const ctx = createCoreContext(services, { userId: run.createdById, tokenId: run.createdByTokenId });
    try {
      await importContent(
        ctx,
        run.spaceId,
        { url: run.sourceUrl, source: run.sourceType, changeRequest: run.changeRequestId, parent: run.pageId },
        {
          signal: job.signal,
          checkpoint: async (progress) => {
            const { phase, pagesFetched, queued, found, pages } = progress;
            const written = await prisma.importRun.updateMany({
              where: { id: run.id, status: "in-progress" },
              data: {
                progress: { phase, pagesFetched, queued, found },
                pages: pages as unknown as Prisma.InputJsonValue,
                updatedAt: clock.now(),
              },
            });
            if (written.count !== 1) throw new RunCancelled();
          },
          beforeCommit: async (tx, revision, pages) => {
            const completed = await tx.importRun.updateMany({
              where: { id: run.id, status: "in-progress" },
              data: {
                status: "completed",
                revisionId: revision.id,
                pages: pages as unknown as Prisma.InputJsonValue,
                progress: { phase: "saving", pagesFetched: pages.filter((page) => page.type === "page").length, queued: 0 },
                completedAt: clock.now(),
                updatedAt: clock.now(),
              },
            });
            if (completed.count !== 1) throw new RunCancelled();
          },
        },
      );
    } catch (error) {
      if (error instanceof RunCancelled) return;
      // Its time bound, or the instance stopping, ends it too: the run fails (start it again).
      const reason = error instanceof DomainError ? error.message : "The import failed on an unexpected error";
      if (!(error instanceof DomainError)) ctx.logger.error({ err: error, importRun: run.id }, "import run failed");
      await prisma.importRun.updateMany({
        where: { id: run.id, status: "in-progress" },
        data: { status: "failed", reason, updatedAt: clock.now() },
      });
    }
  });
}
