// A durable job queue in the database (table "Job"), for work that outlives a request.
//
// - `enqueue(kind, payload, { runAt, key, maxAttempts })` writes a row (inside the caller's
//   transaction when one is given, so the job exists exactly when the change that needs it does).
//   A `key` keeps at most one waiting job per key: enqueueing again moves it earlier and replaces
//   its payload. The key is cleared when the job is claimed, so work asked for while a job runs
//   gets a job of its own.
// - Workers claim one due job at a time with `FOR UPDATE SKIP LOCKED`: with several instances on
//   one PostgreSQL, each job is run by one of them. A claim holds the job until `lockedUntil`
//   (the handler's time bound plus a grace): if the instance dies, the job is taken again after
//   that, so it survives restarts and crashes. A finished job's row is deleted only by the claim
//   that ran it (a fencing token in `lockedBy`).
// - A handler that throws is retried with exponential backoff until `maxAttempts`; then the row
//   stays with `failedAt` and `lastError`. Handlers receive an AbortSignal that fires at their
//   time bound and on shutdown; a job stopped by shutdown is released at once, not counted.
// - Times come from the app's clock (tests move it); the worker polls, and `enqueue` on the same
//   instance wakes it at once.
import { randomBytes } from "node:crypto";
import type { PrismaClient } from "../../generated/prisma/client.ts";
import type { Prisma } from "../../generated/prisma/client.ts";
import type { Clock } from "../clock.ts";
import type { Transaction } from "../../db/transaction.ts";
import { outsideStatementScope } from "../../db/statement-scope.ts";

export interface JobContext {
  jobId: string;
  /** 1 for the first run. */
  attempt: number;
  /** Fires when the handler's time is up or the worker stops. */
  signal: AbortSignal;
  /**
   * Whether this run still holds the job (its claim did not expire and pass to another worker).
   * Check it inside the transaction that writes the job's result, so a run that lost its claim
   * writes nothing.
   */
  stillClaimed(db?: Transaction | PrismaClient): Promise<boolean>;
}

export type JobHandler = (payload: any, context: JobContext) => Promise<void>;

export interface EnqueueOptions {
  /** Not before this time (default: now). */
  runAt?: Date;
  /** At most one waiting job per key. */
  key?: string;
  /** Runs before the job is marked failed (default 5). */
  maxAttempts?: number;
}

export interface JobQueueOptions {
  clock: Clock;
  /** How often an idle worker looks for due jobs (default 1000 ms). */
  pollIntervalMs?: number;
  /** Jobs run at the same time by this instance (default 2). */
  concurrency?: number;
  /** Time bound of one run; the signal fires then (default 2 minutes). */
  timeoutMs?: number;
  /** Wait before retry n (1, 2, …) after a failure (default 1 s · 4^(n-1), at most 1 hour). */
  backoffMs?: (attempt: number) => number;
}

/** Extra time a claim is held beyond the handler's bound, so a slow abort is not run twice. */
const LEASE_GRACE_MS = 30_000;

interface ClaimedJob {
  id: string;
  kind: string;
  payload: unknown;
  attempts: number;
  maxAttempts: number;
  lockedBy: string;
}

export class JobQueue {
  private readonly handlers = new Map<string, JobHandler>();
  private readonly clock: Clock;
  private readonly pollIntervalMs: number;
  private readonly concurrency: number;
  private readonly timeoutMs: number;
  private readonly backoffMs: (attempt: number) => number;
  private readonly instance = randomBytes(6).toString("hex");
  private readonly stopping = new AbortController();
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private slots = 0;
  private lookAgain = false;
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(
    private readonly prisma: PrismaClient,
    options: JobQueueOptions,
  ) {
    this.clock = options.clock;
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.concurrency = options.concurrency ?? 2;
    this.timeoutMs = options.timeoutMs ?? 120_000;
    this.backoffMs = options.backoffMs ?? ((attempt) => Math.min(1000 * 4 ** (attempt - 1), 3_600_000));
  }

  /** Registers the handler of a kind (once per kind). Only registered kinds are claimed. */
  register(kind: string, handler: JobHandler): void {
    if (this.handlers.has(kind)) throw new Error(`A handler for job kind ${kind} is already registered`);
    this.handlers.set(kind, handler);
  }

  /** Adds a job; returns its id. Pass `db` to write it inside a transaction. */
  async enqueue(
    kind: string,
    payload: Prisma.InputJsonValue,
    options: EnqueueOptions = {},
    db: Transaction | PrismaClient = this.prisma,
  ): Promise<string> {
    const now = this.clock.now();
    const runAt = options.runAt ?? now;
    const maxAttempts = options.maxAttempts ?? 5;
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new Error("maxAttempts must be a positive integer");
    const id = `job_${randomBytes(12).toString("base64url")}`;
    const rows = await db.$queryRawUnsafe<{ id: string }[]>(
      `INSERT INTO "Job" ("id", "kind", "key", "payload", "runAt", "maxAttempts", "createdAt")
       VALUES ($1, $2, $3, $4::jsonb, $5::timestamp, $6, $7::timestamp)
       ON CONFLICT ("key") DO UPDATE SET "runAt" = LEAST("Job"."runAt", EXCLUDED."runAt"),
         "payload" = EXCLUDED."payload", "kind" = EXCLUDED."kind", "maxAttempts" = EXCLUDED."maxAttempts"
       RETURNING "id"`,
      id,
      kind,
      options.key ?? null,
      JSON.stringify(payload),
      runAt.toISOString(),
      maxAttempts,
      now.toISOString(),
    );
    // Inside a transaction the row is not visible to the worker before the commit: the caller
    // wakes the worker after it (`wake()`), else the next poll runs the job.
    if (db === this.prisma && runAt.getTime() <= now.getTime()) this.wake();
    return rows[0]!.id;
  }

  /** Tells this instance's worker that a job is due now (after committing a transaction that enqueued one). */
  wake(): void {
    // Outside the scope of the operation that enqueued the job: the worker's statements are not
    // that operation's, and must not be stopped with it (src/db/statement-scope.ts).
    if (this.running) outsideStatementScope(() => setImmediate(() => this.fill()));
  }

  /** Starts the worker loop (idempotent). */
  start(): void {
    if (this.running || this.stopping.signal.aborted) return;
    this.running = true;
    this.fill();
  }

  /**
   * Stops the worker: no new claims; running handlers are signalled and awaited, and their jobs
   * released so that the next instance runs them at once.
   */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    this.stopping.abort();
    await Promise.allSettled([...this.inFlight]);
  }

  /**
   * Claims and runs due jobs until none is left (or `max` ran); returns how many ran. The worker
   * loop uses it; tests call it to run what is due now.
   */
  async runDue(max = Infinity): Promise<number> {
    let ran = 0;
    while (ran < max && !this.stopping.signal.aborted) {
      const job = await this.claim();
      if (!job) break;
      // A claim already under way when stop() came (PGlite yields before each statement).
      if (this.stopping.signal.aborted) {
        await this.handBack(job);
        break;
      }
      await this.run(job);
      ran++;
    }
    return ran;
  }

  /** Keeps `concurrency` loops claiming while there is work, then sleeps until the next poll. */
  private fill(): void {
    if (!this.running) return;
    clearTimeout(this.timer);
    // A loop about to finish may already have looked for work: make it look once more.
    if (this.slots >= this.concurrency) this.lookAgain = true;
    while (this.slots < this.concurrency) {
      this.slots++;
      const loop = this.runDue()
        .catch((error) => console.error("Job worker:", error instanceof Error ? error.message : error))
        .finally(() => {
          this.slots--;
          this.inFlight.delete(loop);
          if (!this.running) return;
          if (this.lookAgain) {
            this.lookAgain = false;
            this.fill();
          } else if (this.slots === 0) this.timer = setTimeout(() => this.fill(), this.pollIntervalMs).unref();
        });
      this.inFlight.add(loop);
    }
  }

  private async claim(): Promise<ClaimedJob | undefined> {
    const kinds = [...this.handlers.keys()];
    if (kinds.length === 0) return undefined;
    const now = this.clock.now();
    const token = `${this.instance}:${randomBytes(6).toString("hex")}`;
    const rows = await this.prisma.$queryRawUnsafe<ClaimedJob[]>(
      `UPDATE "Job" SET "lockedBy" = $1, "lockedUntil" = $2::timestamp, "attempts" = "attempts" + 1, "key" = NULL
       WHERE "id" = (
         SELECT "id" FROM "Job"
         WHERE "failedAt" IS NULL AND "runAt" <= $3::timestamp
           AND ("lockedUntil" IS NULL OR "lockedUntil" <= $3::timestamp) AND "kind" = ANY($4::text[])
         ORDER BY "runAt", "id" LIMIT 1 FOR UPDATE SKIP LOCKED)
       RETURNING "id", "kind", "payload", "attempts", "maxAttempts", "lockedBy"`,
      token,
      new Date(now.getTime() + this.timeoutMs + LEASE_GRACE_MS).toISOString(),
      now.toISOString(),
      kinds,
    );
    return rows[0];
  }

  /** Shutdown, not the job's fault: the job goes back untouched, for the next instance at once. */
  private async handBack(job: ClaimedJob): Promise<void> {
    await this.prisma.job
      .updateMany({
        where: { id: job.id, lockedBy: job.lockedBy },
        data: { lockedBy: null, lockedUntil: null, attempts: job.attempts - 1 },
      })
      .catch(() => {});
  }

  private async run(job: ClaimedJob): Promise<void> {
    const mine = { id: job.id, lockedBy: job.lockedBy };
    if (job.attempts > job.maxAttempts) {
      // Its last claim ended without an answer (the instance died): give up rather than loop.
      await this.prisma.job.updateMany({
        where: mine,
        data: {
          failedAt: this.clock.now(),
          lockedBy: null,
          lockedUntil: null,
          lastError: "the last attempt did not finish (instance stopped)",
        },
      });
      return;
    }
    const signal = AbortSignal.any([this.stopping.signal, AbortSignal.timeout(this.timeoutMs)]);
    try {
      const stillClaimed = async (db: Transaction | PrismaClient = this.prisma) => (await db.job.count({ where: mine })) === 1;
      await this.handlers.get(job.kind)!(job.payload, { jobId: job.id, attempt: job.attempts, signal, stillClaimed });
      await this.prisma.job.deleteMany({ where: mine });
    } catch (error) {
      if (this.stopping.signal.aborted) {
        await this.handBack(job);
        return;
      }
      const message = error instanceof Error ? error.message : String(error);
      const now = this.clock.now();
      const last = job.attempts >= job.maxAttempts;
      if (last) console.error(`Job ${job.kind} ${job.id} failed after ${job.attempts} attempts:`, message);
      await this.prisma.job.updateMany({
        where: mine,
        data: {
          lockedBy: null,
          lockedUntil: null,
          lastError: message.slice(0, 2000),
          ...(last ? { failedAt: now } : { runAt: new Date(now.getTime() + this.backoffMs(job.attempts)) }),
        },
      });
    }
  }
}
