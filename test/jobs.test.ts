// The durable job queue (src/core/jobs) on the database under test: PGlite in a data directory
// that is closed and opened again, or a PostgreSQL database shared by several "instances".
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../src/core/clock.ts";
import { JobQueue } from "../src/core/jobs/index.ts";
import { openDatabase, type Database } from "../src/db/client.ts";
import { createScratchDatabase, migratedPGlite } from "./support/database.ts";

const serverUrl = process.env.DATABASE_URL;

/** One database that outlives the handles opened on it (a restart opens a new handle). */
async function durableDatabase(): Promise<{ open(): Promise<Database>; dispose(): Promise<void> }> {
  if (serverUrl) {
    const scratch = await createScratchDatabase(serverUrl);
    return { open: () => openDatabase({ databaseUrl: scratch.url }), dispose: () => scratch.drop() };
  }
  const dir = mkdtempSync(join(tmpdir(), "jobs-"));
  // The first open starts the directory from the migrated dump (initdb and the migrations take seconds).
  return {
    open: async () => openDatabase({ dataDir: dir, pgliteDataDir: await migratedPGlite() }),
    dispose: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function setup() {
  const durable = await durableDatabase();
  cleanups.push(durable.dispose);
  const database = await durable.open();
  cleanups.push(() => database.close());
  const clock = new ManualClock(new Date("2026-01-15T10:00:00Z"));
  return { durable, database, clock };
}

const deferred = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
};

describe("job queue", () => {
  it("runs an enqueued job once with its payload, then deletes it", async () => {
    const { database, clock } = await setup();
    const queue = new JobQueue(database.prisma, { clock });
    const seen: unknown[] = [];
    queue.register("greet", async (payload, { attempt }) => void seen.push({ payload, attempt }));
    await queue.enqueue("greet", { name: "Ada" });
    expect(await queue.runDue()).toBe(1);
    expect(await queue.runDue()).toBe(0);
    expect(seen).toEqual([{ payload: { name: "Ada" }, attempt: 1 }]);
    expect(await database.prisma.job.count()).toBe(0);
  });

  it("the worker loop picks up a job enqueued on the same instance at once, and stops on stop()", async () => {
    const { database, clock } = await setup();
    const queue = new JobQueue(database.prisma, { clock, pollIntervalMs: 60_000 });
    const done = deferred();
    queue.register("ping", async () => done.resolve());
    queue.start();
    await queue.enqueue("ping", {});
    await done.promise; // would wait a minute for the poll if enqueue did not wake the worker
    await queue.stop();
    await queue.enqueue("ping", {});
    await new Promise((r) => setTimeout(r, 50));
    expect(await database.prisma.job.count()).toBe(1);
  });

  it("does not run a job before its runAt", async () => {
    const { database, clock } = await setup();
    const queue = new JobQueue(database.prisma, { clock });
    let runs = 0;
    queue.register("later", async () => void runs++);
    await queue.enqueue("later", {}, { runAt: new Date(clock.now().getTime() + 60_000) });
    expect(await queue.runDue()).toBe(0);
    clock.advance(60_000);
    expect(await queue.runDue()).toBe(1);
    expect(runs).toBe(1);
  });

  it("a job enqueued in a transaction that rolls back does not exist", async () => {
    const { database, clock } = await setup();
    const queue = new JobQueue(database.prisma, { clock });
    await expect(
      database.prisma.$transaction(async (tx) => {
        await queue.enqueue("any", {}, {}, tx);
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect(await database.prisma.job.count()).toBe(0);
  });

  it("keeps one waiting job per key: enqueueing again moves it earlier and replaces the payload", async () => {
    const { database, clock } = await setup();
    const queue = new JobQueue(database.prisma, { clock });
    const later = new Date(clock.now().getTime() + 86_400_000);
    const first = await queue.enqueue("refresh", { n: 1 }, { key: "spec-1", runAt: later });
    const second = await queue.enqueue("refresh", { n: 2 }, { key: "spec-1" });
    expect(second).toBe(first);
    const third = await queue.enqueue("refresh", { n: 3 }, { key: "spec-1", runAt: later });
    expect(third).toBe(first);
    const jobs = await database.prisma.job.findMany();
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.runAt).toEqual(clock.now());
    expect(jobs[0]!.payload).toEqual({ n: 3 });
  });

  it("retries a failing job with growing backoff, then keeps it as failed with the error", async () => {
    const { database, clock } = await setup();
    const queue = new JobQueue(database.prisma, { clock, backoffMs: (attempt) => attempt * 1000 });
    let runs = 0;
    queue.register("flaky", async () => {
      runs++;
      throw new Error(`boom ${runs}`);
    });
    await queue.enqueue("flaky", {}, { maxAttempts: 3 });
    expect(await queue.runDue()).toBe(1);
    let job = await database.prisma.job.findFirstOrThrow();
    expect(job).toMatchObject({ attempts: 1, lastError: "boom 1", failedAt: null, lockedBy: null });
    expect(job.runAt.getTime() - clock.now().getTime()).toBe(1000);
    expect(await queue.runDue()).toBe(0); // not yet due
    clock.advance(1000);
    expect(await queue.runDue()).toBe(1);
    job = await database.prisma.job.findFirstOrThrow();
    expect(job.runAt.getTime() - clock.now().getTime()).toBe(2000);
    clock.advance(2000);
    expect(await queue.runDue()).toBe(1);
    job = await database.prisma.job.findFirstOrThrow();
    expect(job).toMatchObject({ attempts: 3, lastError: "boom 3" });
    expect(job.failedAt).toEqual(clock.now());
    clock.advance(86_400_000);
    expect(await queue.runDue()).toBe(0);
    expect(runs).toBe(3);
  });

  it("succeeds on a retry after a failure", async () => {
    const { database, clock } = await setup();
    const queue = new JobQueue(database.prisma, { clock, backoffMs: () => 10 });
    let runs = 0;
    queue.register("second-time-lucky", async () => {
      if (++runs === 1) throw new Error("first");
    });
    await queue.enqueue("second-time-lucky", {});
    await queue.runDue();
    clock.advance(10);
    await queue.runDue();
    expect(runs).toBe(2);
    expect(await database.prisma.job.count()).toBe(0);
  });

  it("survives a restart: a pending job runs after the database is opened again", async () => {
    const { durable, database, clock } = await setup();
    await new JobQueue(database.prisma, { clock }).enqueue("durable", { value: 42 });
    await database.close();
    const reopened = await durable.open();
    cleanups.push(() => reopened.close());
    const queue = new JobQueue(reopened.prisma, { clock });
    const seen: unknown[] = [];
    queue.register("durable", async (payload) => void seen.push(payload));
    expect(await queue.runDue()).toBe(1);
    expect(seen).toEqual([{ value: 42 }]);
  });

  it("a job whose instance died mid-run is taken by another once its claim expires, and finishes once", async () => {
    const { database, clock } = await setup();
    const dying = new JobQueue(database.prisma, { clock, timeoutMs: 60_000 });
    const started = deferred();
    const never = deferred();
    dying.register("work", async () => {
      started.resolve();
      await never.promise; // the instance "dies" here: no answer, no release
    });
    await dying.enqueue("work", { n: 1 });
    const abandoned = dying.runDue(1);
    await started.promise;

    const survivor = new JobQueue(database.prisma, { clock, timeoutMs: 60_000 });
    let completions = 0;
    survivor.register("work", async () => void completions++);
    expect(await survivor.runDue()).toBe(0); // still claimed
    clock.advance(60_000 + 30_000);
    expect(await survivor.runDue()).toBe(1);
    expect(completions).toBe(1);
    expect(await database.prisma.job.count()).toBe(0);

    // The dead claim coming back late neither deletes nor reruns anything.
    await survivor.enqueue("work", { n: 2 });
    never.resolve();
    await abandoned;
    expect(await database.prisma.job.count()).toBe(1);
    expect(await survivor.runDue()).toBe(1);
    expect(completions).toBe(2);
  });

  it("stop() signals the running handler and releases its job for the next start", async () => {
    const { database, clock } = await setup();
    const queue = new JobQueue(database.prisma, { clock });
    const started = deferred();
    queue.register("long", async (_payload, { signal }) => {
      started.resolve();
      await new Promise((_, reject) => signal.addEventListener("abort", () => reject(new Error("aborted"))));
    });
    queue.start();
    await queue.enqueue("long", {});
    await started.promise;
    await queue.stop();
    const job = await database.prisma.job.findFirstOrThrow();
    expect(job).toMatchObject({ attempts: 0, lockedBy: null, lockedUntil: null, failedAt: null, lastError: null });

    const next = new JobQueue(database.prisma, { clock });
    let ran = 0;
    next.register("long", async () => void ran++);
    expect(await next.runDue()).toBe(1);
    expect(ran).toBe(1);
  });

  it("the handler's signal fires at its time bound and the run counts as a failure", async () => {
    const { database, clock } = await setup();
    const queue = new JobQueue(database.prisma, { clock, timeoutMs: 50 });
    queue.register(
      "slow",
      (_payload, { signal }) => new Promise((_, reject) => signal.addEventListener("abort", () => reject(new Error("timed out")))),
    );
    await queue.enqueue("slow", {}, { maxAttempts: 1 });
    await queue.runDue();
    const job = await database.prisma.job.findFirstOrThrow();
    expect(job.failedAt).not.toBeNull();
    expect(job.lastError).toBe("timed out");
  });

  it("with several workers (and on PostgreSQL several connections) each job runs exactly once", async () => {
    const { durable, database, clock } = await setup();
    const handles = [database];
    if (serverUrl) {
      for (let i = 0; i < 2; i++) {
        const other = await durable.open();
        cleanups.push(() => other.close());
        handles.push(other);
      }
    }
    const runs = new Map<number, number>();
    const queues = handles.flatMap((handle) =>
      [0, 1].map(() => {
        const queue = new JobQueue(handle.prisma, { clock });
        queue.register("count", async ({ n }) => {
          await new Promise((r) => setTimeout(r, Math.random() * 5));
          runs.set(n, (runs.get(n) ?? 0) + 1);
        });
        return queue;
      }),
    );
    for (let n = 0; n < 40; n++) await queues[0]!.enqueue("count", { n });
    const ran = await Promise.all(queues.map((queue) => queue.runDue()));
    expect(ran.reduce((a, b) => a + b, 0)).toBe(40);
    expect([...runs.values()].every((count) => count === 1)).toBe(true);
    expect(runs.size).toBe(40);
    expect(await database.prisma.job.count()).toBe(0);
  });

  it("claims only the kinds it has handlers for", async () => {
    const { database, clock } = await setup();
    const queue = new JobQueue(database.prisma, { clock });
    queue.register("mine", async () => {});
    await queue.enqueue("theirs", {});
    await queue.enqueue("mine", {});
    expect(await queue.runDue()).toBe(1);
    expect((await database.prisma.job.findMany()).map((job) => job.kind)).toEqual(["theirs"]);
  });
});
