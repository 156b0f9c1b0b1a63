// Ask's vectors: an LSA model per site (src/core/ask/lsa.ts), trained on the sections the search
// index holds for the site's spaces, in the background (a job of the queue, keyed per site so that
// changes coalesce), stored as one row per site (AskVectorModel) and kept in memory per instance
// while it is current (src/core/ask/vector-models.ts). Retrieval projects the question and ranks the site's sections by cosine,
// only among the spaces the asker may read; Ask fuses that ranking with the lexical one
// (src/core/ask/retrieval.ts). Until a site has a model, Ask is lexical only.
import { Prisma } from "../../generated/prisma/client.ts";
import type { PrismaClient } from "../../generated/prisma/client.ts";
import type { Transaction } from "../../db/transaction.ts";
import type { Services } from "../context.ts";
import { vectorOf, type LsaModel, type TermCounts } from "./lsa.ts";
import { sameRevisions, type Revisions } from "./vector-models.ts";

export const TRAIN_JOB = "ask.vectors.train";

/** Sections read per statement while training (each read is short: requests interleave), sent to the thread as read. */
const READ_CHUNK = 250;

const base64 = (array: Float32Array | undefined) =>
  array ? Buffer.from(array.buffer, array.byteOffset, array.byteLength).toString("base64") : "";

/** A question's terms as the search index stems them (PostgreSQL's English configuration). */
async function termsOfQuestion(prisma: PrismaClient, question: string): Promise<TermCounts> {
  const rows = await prisma.$queryRaw<{ term: string; count: number }[]>`
    SELECT lexeme AS term, coalesce(array_length(positions, 1), 1)::int AS count FROM unnest(to_tsvector('english', ${question}))`;
  return { terms: rows.map((row) => row.term), counts: rows.map((row) => row.count) };
}

/**
 * The ids of the sections of `spaces` (what the asker may read) nearest to `question` in the
 * site's model, best first, at most `limit`, each at least `similarityMin` similar. Empty when the
 * site has no model. A space the model is stale for (its head moved, or it was not trained on)
 * asks for a training (once per instance for the same heads); its sections are still ranked as
 * they were trained.
 */
export async function nearestSections(
  ctx: Pick<Services, "prisma" | "jobs" | "clock" | "askVectors">,
  siteId: string,
  spaces: { id: string; revisionId: string }[],
  question: string,
  limit: number,
): Promise<string[]> {
  if (!spaces.length) return [];
  const { revisions, model } = await ctx.askVectors.modelOf(ctx.prisma, siteId);
  const stale = spaces.filter((space) => revisions?.[space.id] !== space.revisionId);
  // Once per instance for the same heads: a burst of questions makes one statement, not one each.
  if (stale.length && ctx.askVectors.askTraining(siteId, stale, ctx.clock.now().getTime())) {
    try {
      await enqueueTraining(ctx, ctx.prisma, siteId);
    } catch (error) {
      ctx.askVectors.unask(siteId, stale);
      throw error;
    }
  }
  if (!model) return [];
  const query = vectorOf(model, model.column, await termsOfQuestion(ctx.prisma, question));
  if (!query.some((value) => value !== 0)) return [];
  const allowed = new Uint8Array(model.spaces.length);
  const readable = new Set(spaces.map((space) => space.id));
  model.spaces.forEach((space, index) => {
    allowed[index] = readable.has(space) ? 1 : 0;
  });
  const best: { index: number; score: number }[] = [];
  const dimensions = model.dimensions;
  for (let index = 0; index < model.sectionIds.length; index++) {
    if (!allowed[model.sectionSpace[index]!]) continue;
    let score = 0;
    const offset = index * dimensions;
    for (let d = 0; d < dimensions; d++) score += query[d]! * model.vectors[offset + d]!;
    if (score < ctx.askVectors.limits.similarityMin || (best.length === limit && score <= best.at(-1)!.score)) continue;
    let at = best.length;
    while (at > 0 && best[at - 1]!.score < score) at--;
    best.splice(at, 0, { index, score });
    if (best.length > limit) best.pop();
  }
  return best.map(({ index }) => model.sectionIds[index]!);
}

/** Asks for the site's model to be trained (again) after the delay; a waiting request is reused. */
export async function enqueueTraining(
  ctx: Pick<Services, "jobs" | "clock" | "askVectors">,
  db: Transaction | PrismaClient,
  siteId: string,
): Promise<void> {
  const runAt = new Date(ctx.clock.now().getTime() + ctx.askVectors.limits.delayMs);
  await ctx.jobs.enqueue(TRAIN_JOB, { siteId }, { key: `ask-vectors:${siteId}`, runAt, maxAttempts: 3 }, db);
}

/** The sites showing `spaceId` get their models trained again (its indexed content changed). */
export async function spaceContentChanged(
  ctx: Pick<Services, "jobs" | "clock" | "askVectors">,
  tx: Transaction,
  spaceId: string,
): Promise<void> {
  const sites = await tx.siteSpace.findMany({
    where: { spaceId, site: { published: true } },
    distinct: ["siteId"],
    select: { siteId: true },
  });
  for (const { siteId } of sites) await enqueueTraining(ctx, tx, siteId);
}

/** Registers the training job; the worker runs it. */
export function registerAskVectorJobs(services: Services): void {
  services.jobs.register(TRAIN_JOB, async (payload: { siteId: string }, { signal, stillClaimed }) =>
    trainSite(services, payload.siteId, signal, stillClaimed),
  );
}

/**
 * Trains the site's model on the sections of its spaces' heads (at most `sectionsMax`), unless the
 * stored one was trained on those heads already. The arithmetic runs in a worker thread
 * (`askTrainer`); this reads the sections into it and writes the model. Past `timeoutMs`, or past
 * the thread's memory bound, it stores that the site has no model for these heads (Ask stays
 * lexical until they change); stopped by shutdown, it throws so that the queue hands the job on.
 */
export async function trainSite(
  services: Pick<Services, "prisma" | "clock" | "askVectors" | "askTrainer" | "logger">,
  siteId: string,
  jobSignal: AbortSignal,
  stillClaimed: (tx: Transaction) => Promise<boolean>,
): Promise<void> {
  const { prisma, clock } = services;
  const limits = services.askVectors.limits;
  const started = performance.now();
  const site = await prisma.site.findUnique({ where: { id: siteId }, select: { published: true } });
  if (!site) return;
  const siteSpaces = site.published ? await prisma.siteSpace.findMany({ where: { siteId }, select: { spaceId: true } }) : [];
  const spaces = await prisma.space.findMany({
    where: { id: { in: siteSpaces.map((siteSpace) => siteSpace.spaceId) }, deletedAt: null },
    select: { id: true, revisionId: true },
    orderBy: { id: "asc" },
  });
  // Read before the sections: should a head move meanwhile, the model is stale and trained again.
  const revisions: Revisions = Object.fromEntries(spaces.map((space) => [space.id, space.revisionId]));
  const current = await prisma.askVectorModel.findUnique({ where: { siteId }, select: { revisions: true } });
  if (current && sameRevisions(current.revisions as Revisions, revisions)) return;

  const timeout = AbortSignal.timeout(limits.timeoutMs);
  const stop = AbortSignal.any([jobSignal, timeout]);
  const training = await services.askTrainer.open({ dimensions: limits.dimensions, termsMax: limits.termsMax }, stop);
  let outcome: { model: LsaModel | null; sectionIds: string[]; sectionsTotal: number } | { reason: string };
  try {
    const spaceIds = spaces.map((space) => space.id);
    const sectionIds: string[] = [];
    let after = "";
    while (training && !stop.aborted && sectionIds.length < limits.sectionsMax) {
      // The chunk's ids first: ordered with their vectors, every section of the spaces had its vector
      // converted before the sort kept the chunk's. The vectors as text, taken apart in the thread.
      const rows = await prisma.$queryRaw<{ id: string; vector: string | null }[]>(Prisma.sql`
        SELECT s.id, s.weighted::text AS vector FROM "SearchSection" s
        WHERE s.id IN (SELECT id FROM "SearchSection" WHERE "spaceId" = ANY(${spaceIds}) AND id > ${after}
                       ORDER BY id LIMIT ${Math.min(READ_CHUNK, limits.sectionsMax - sectionIds.length)})
        ORDER BY s.id`);
      training.add(rows.map((row) => row.vector ?? ""));
      for (const row of rows) sectionIds.push(row.id);
      if (rows.length < READ_CHUNK) break;
      after = rows.at(-1)!.id;
    }
    const [{ total }] = spaceIds.length
      ? await prisma.$queryRaw<{ total: number }[]>`SELECT count(*)::int AS total FROM "SearchSection" WHERE "spaceId" = ANY(${spaceIds})`
      : [{ total: 0 }];
    const trained = training ? await training.train() : { stopped: "signal" as const, message: "" };
    if ("model" in trained) outcome = { model: trained.model, sectionIds, sectionsTotal: total };
    else if (jobSignal.aborted) throw jobSignal.reason;
    else {
      const reason = trained.stopped === "memory" ? trained.message : `training passed its time bound (${limits.timeoutMs} ms)`;
      services.logger.warn({ siteId, reason }, "Ask's vector model of a site was not trained");
      outcome = { reason };
    }
  } finally {
    training?.close();
  }
  const model = "model" in outcome ? outcome.model : null;
  const reason = "reason" in outcome ? outcome.reason : model ? null : "too little content";
  // Packed as text (base64, lines), decoded by PostgreSQL: binding 15 MB of bytes, or a text[]
  // of 50,000 elements, took tens of seconds through the driver; one string each does not. Sent in
  // parts of at most 1 MB a statement: Prisma's pipeline holds the event loop about 50 ms per MB
  // of a statement's values.
  const packed = {
    terms: partsOf(model?.terms.join("\n") ?? ""),
    idf: partsOf(base64(model?.idf)),
    projection: partsOf(base64(model?.projection)),
    sectionIds: partsOf(model && "sectionIds" in outcome ? outcome.sectionIds.join("\n") : ""),
    vectors: partsOf(base64(model?.vectors)),
  };
  const sectionsTotal = "sectionsTotal" in outcome ? outcome.sectionsTotal : 0;
  const trainingMs = Math.round(performance.now() - started);
  await prisma.$transaction(
    async (tx) => {
      // A run whose claim passed to another worker leaves the result to that one; a site deleted meanwhile has none.
      if (!(await stillClaimed(tx)) || !(await tx.site.count({ where: { id: siteId } }))) return;
      // The parts as rows first (appending them to the model's columns rewrote each column whole
      // at every part), then the model in one statement that joins them.
      await tx.$executeRaw`CREATE TEMP TABLE ask_model_parts ("column" text, n int, part text) ON COMMIT DROP`;
      for (const [column, parts] of Object.entries(packed))
        for (const [n, part] of parts.entries()) await tx.$executeRaw`INSERT INTO ask_model_parts VALUES (${column}, ${n}, ${part})`;
      const joined = (column: keyof typeof packed) =>
        Prisma.sql`coalesce((SELECT string_agg(part, '' ORDER BY n) FROM ask_model_parts WHERE "column" = ${column}), '')`;
      await tx.$executeRaw`
      INSERT INTO "AskVectorModel" ("siteId", revisions, "trainedAt", dimensions, reason, terms, idf, projection, "sectionIds", vectors, "sectionsTotal", "trainingMs")
      VALUES (${siteId}, ${JSON.stringify(revisions)}::jsonb, ${clock.now().toISOString()}::timestamp, ${model?.dimensions ?? 0}, ${reason},
              ${joined("terms")}, decode(${joined("idf")}, 'base64'), decode(${joined("projection")}, 'base64'), ${joined("sectionIds")},
              decode(${joined("vectors")}, 'base64'), ${sectionsTotal}, ${trainingMs})
      ON CONFLICT ("siteId") DO UPDATE SET revisions = EXCLUDED.revisions, "trainedAt" = EXCLUDED."trainedAt",
        dimensions = EXCLUDED.dimensions, reason = EXCLUDED.reason, terms = EXCLUDED.terms, idf = EXCLUDED.idf,
        projection = EXCLUDED.projection, "sectionIds" = EXCLUDED."sectionIds", vectors = EXCLUDED.vectors,
        "sectionsTotal" = EXCLUDED."sectionsTotal", "trainingMs" = EXCLUDED."trainingMs"`;
    },
    // The parts of 50,000 sections' model take longer than a transaction's default 5 s.
    { timeout: WRITE_TIMEOUT_MS },
  );
}

/** Time bound of the transaction that writes a model. */
const WRITE_TIMEOUT_MS = 60_000;
/** Characters of a packed column sent per statement. */
const PART_CHARS = 1 << 20;

function partsOf(text: string): string[] {
  const parts: string[] = [];
  for (let start = 0; start < text.length; start += PART_CHARS) parts.push(text.slice(start, start + PART_CHARS));
  return parts;
}
