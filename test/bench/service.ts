// Test-only: the real service in a child process of `npm run bench`, on a fresh seeded database
// (BENCH_DATABASE_URL = PostgreSQL, else in-memory PGlite). Its own process, so that the bench
// measures its CPU time and RSS alone and `--cpu-prof` profiles only the service.
// It can record the SQL statements a request sends (through pg, so on PostgreSQL only), grouped
// in the stages the service awaits them in: the bare handler (bare.ts) replays exactly those.
// BENCH_SEED=0: no seeding, a second process on a database another one seeded, whose caches are
// all empty (run.ts records an uncached page read there).
import { writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { Session } from "node:inspector/promises";
import { constants as perfConstants, monitorEventLoopDelay, PerformanceObserver, type IntervalHistogram } from "node:perf_hooks";
import { writeHeapSnapshot } from "node:v8";
import type { AddressInfo } from "node:net";
import { generateKeyBetween } from "fractional-indexing";
import pg from "pg";
import { createApp } from "../../src/app.ts";
import { bootstrapOrganization } from "../../src/core/bootstrap/index.ts";
import { newId } from "../../src/core/ids.ts";
import { openDatabase } from "../../src/db/client.ts";
import { COLLECTIONS, CONTENT_PAGES, SPACES, type Statement } from "./protocol.ts";

// Recording: every statement pg sends while `recording` is set, with the stage it belongs to
// (a statement issued while no recorded one is in flight starts a new stage).
let recording: Statement[][] | null = null;
let inFlight = 0;
function recorded(query: (...args: unknown[]) => unknown) {
  return function (this: unknown, ...args: unknown[]) {
    const config = args[0] as { text?: string; values?: unknown[]; rowMode?: string; name?: string } | string;
    const result = query.apply(this, args);
    // Pool.query calls Client.query with a callback (no promise): each statement counts once.
    if (!recording || !(result instanceof Promise)) return result;
    const statement =
      typeof config === "string"
        ? { text: config, values: args[1] as unknown[] | undefined }
        : { text: config.text!, values: config.values, rowMode: config.rowMode, ...(config.name ? { name: config.name } : {}) };
    // The rate limiter's counters are synced once a second in the background (on "RateLimiterFlexible"),
    // not per request: a sync that happens to fall within a recording is not the request's.
    if (statement.text.includes('"RateLimiterFlexible"')) return result;
    if (inFlight === 0) recording.push([]);
    recording[recording.length - 1].push(statement);
    inFlight++;
    return result.finally(() => inFlight--);
  } as never;
}
pg.Pool.prototype.query = recorded(pg.Pool.prototype.query as never);
pg.Client.prototype.query = recorded(pg.Client.prototype.query as never);

async function seed(prisma: Awaited<ReturnType<typeof openDatabase>>["prisma"]) {
  const { organizationId, token } = await bootstrapOrganization(prisma, {
    organizationTitle: "Bench",
    email: `bench-${Date.now()}@example.com`,
  });
  let key: string | null = null;
  const collections = Array.from({ length: COLLECTIONS }, () => ({
    id: newId("Collection"),
    organizationId,
    title: "Collection",
    sortKey: (key = generateKeyBetween(key, null)),
  }));
  await prisma.collection.createMany({ data: collections });
  const spaces = Array.from({ length: SPACES }, (_, index) => ({
    id: newId("Space"),
    organizationId,
    parentId: collections[index % COLLECTIONS].id,
    title: `Space ${index}`,
    sortKey: (key = generateKeyBetween(key, null)),
    revisionId: newId("Revision"),
  }));
  // One transaction: a space's head revision key is checked at commit.
  await prisma.$transaction([
    prisma.space.createMany({ data: spaces }),
    prisma.revision.createMany({ data: spaces.map((space) => ({ id: space.revisionId, spaceId: space.id })) }),
  ]);
  return { organizationId, token, spaceId: spaces[0].id };
}

/** A space of CONTENT_PAGES pages with some markdown each, made through GraphQL like a client would. */
async function seedContent(url: string, token: string, organizationId: string) {
  const graphql = async (query: string, variables: Record<string, unknown>) => {
    const response = await fetch(`${url}/graphql`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ query, variables }),
    });
    const result = (await response.json()) as { data?: any; errors?: { message: string }[] };
    if (result.errors?.length) throw new Error(result.errors[0].message);
    return result.data;
  };
  const space = (
    await graphql(`mutation($input: CreateSpaceInput!) { createSpace(input: $input) { space { id } } }`, {
      input: { organization: organizationId, title: "Content bench" },
    })
  ).createSpace.space.id;
  const markdown = (i: number) =>
    `# Page ${i}\n\nSome **bold** text and a [link](https://example.com/${i}).\n\n## Steps\n\n1. One\n2. Two with \`code\`\n\n` +
    "```js\nconsole.log(1);\n```\n\n> A quote.\n\n| a | b |\n| - | - |\n| 1 | 2 |\n";
  const created = await graphql(`mutation($input: EditContentInput!) { editContent(input: $input) { createdPages { id } } }`, {
    input: {
      space,
      edits: Array.from({ length: CONTENT_PAGES }, (_, i) => ({ createPage: { title: `Page ${i}`, markdown: markdown(i) } })),
    },
  });
  const pageId = created.editContent.createdPages[Math.floor(CONTENT_PAGES / 2)].id as string;
  // A published site showing the space: readers' repeated views of the page are measured.
  const site = (
    await graphql(`mutation($input: CreateSiteInput!) { createSite(input: $input) { site { id } } }`, {
      input: { organization: organizationId, title: "Bench site", spaces: [space] },
    })
  ).createSite.site.id as string;
  await graphql(`mutation($input: PublishSiteInput!) { publishSite(input: $input) { site { id } } }`, { input: { site } });
  const page = (await (
    await fetch(`${url}/v1/spaces/${space}/content/page/${pageId}`, { headers: { authorization: `Bearer ${token}` } })
  ).json()) as { path: string };
  return { contentSpaceId: space as string, pageId, sitePagePath: `/sites/${site}/${page.path}` };
}

async function main() {
  const databaseUrl = process.env.BENCH_DATABASE_URL || undefined;
  const database = await openDatabase({ databaseUrl, dataDir: "memory://" });
  const seeded = process.env.BENCH_SEED === "0" ? undefined : await seed(database.prisma);
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The rate limiter runs (its cost is part of a request) but with limits no bench run reaches.
  const rateLimits = { perToken: 1e9, perAddress: 1e9, windowSeconds: 60 };
  // BENCH_JOBS=1 (the OpenAPI processing bench): the job worker runs, and specs are fetched from
  // the bench's own server on 127.0.0.1.
  const jobs = process.env.BENCH_JOBS === "1";
  const app = createApp({
    database,
    // Seeding writes 330 pages in one operation: on a loaded machine that outlasts the default
    // execution deadline (5 s), which no measured request comes near.
    config: {
      // BENCH_PUBLIC_URL: a second process answers with the first one's URLs (the same bytes).
      publicUrl: process.env.BENCH_PUBLIC_URL || url,
      rateLimits,
      graphqlLimits: { executionTimeoutMs: 120_000 },
      // As loadConfig sets them (src/config.ts): off under NODE_ENV=production, which the bench's
      // children run with (protocol.ts). No bench request introspects.
      graphiqlEnabled: process.env.NODE_ENV !== "production",
      introspectionEnabled: process.env.NODE_ENV !== "production",
      ...(jobs ? { importAllowPrivateHosts: true } : {}),
      // BENCH_REALTIME=1 (the realtime fan-out rows): one token holds all the bench's subscriptions.
      ...(process.env.BENCH_REALTIME === "1" ? { realtime: { maxPerToken: 100_000, maxPerInstance: 100_000 } } : {}),
    },
    startJobs: jobs,
  });
  const { yoga } = app;
  server.on("request", (req, res) => void yoga(req, res));
  const content = seeded ? await seedContent(url, seeded.token, seeded.organizationId) : undefined;

  // BENCH_STALLS=<ms>: logs every time the event loop was blocked longer than that, with the
  // process's CPU time over the stall (close to the stall: our work; far below: the scheduler ran
  // other processes) and the time since start (comparable with --trace-gc's).
  if (process.env.BENCH_STALLS) {
    const threshold = Number(process.env.BENCH_STALLS);
    let last = performance.now();
    let cpu = process.cpuUsage();
    // --trace-gc counts ms from about the process's start: its time origin places its lines too.
    console.log(`stalls: time origin ${performance.timeOrigin.toFixed(0)} ms since the epoch`);
    setInterval(() => {
      const now = performance.now();
      const used = process.cpuUsage(cpu);
      if (now - last - 5 > threshold)
        console.log(
          `stall ${(now - last - 5).toFixed(0)} ms at ${now.toFixed(0)} ms, CPU ${((used.user + used.system) / 1000).toFixed(0)} ms (epoch ${(performance.timeOrigin + now).toFixed(0)})`,
        );
      last = now;
      cpu = process.cpuUsage();
    }, 5).unref();
  }

  // "watch" … "watched" (the bench's paced rows): what the process did while a latency was measured:
  // its GC pauses (scavenges, major GCs) from V8's own performance entries, its event-loop delay
  // (Node's histogram, no timer of ours) and its CPU time.
  let watching:
    | { gcs: { kind: number; ms: number }[]; observer: PerformanceObserver; delay: IntervalHistogram; cpu: NodeJS.CpuUsage }
    | undefined;

  // The realtime rows: when each transaction's first row reached the bus (ms since the epoch,
  // comparable with the bench's clock) and the channels it reached, until asked for.
  let published: { at: number; channels: string[] }[] = [];
  app.services.realtime.onPublish = ({ events, receivedAt, channels }) => {
    if (events > 0) published.push({ at: performance.timeOrigin + receivedAt, channels });
  };

  let profiler: Session | undefined;
  process.on("message", async (message: { type: string }) => {
    switch (message.type) {
      case "published":
        process.send!({ type: "published", published });
        published = [];
        break;
      case "record":
        recording = [];
        inFlight = 0;
        process.send!({ type: "recording", statementCount: database.statementCount });
        break;
      case "stop":
        process.send!({ type: "recorded", stages: recording, statementCount: database.statementCount });
        recording = null;
        break;
      case "usage":
        globalThis.gc?.();
        {
          // rss and its parts: V8's heap, memory outside it (Buffers, ArrayBuffers: PGlite's WebAssembly memory is one).
          const memory = process.memoryUsage();
          process.send!({ type: "usage", rss: memory.rss, memory, cpu: process.cpuUsage() });
        }
        break;
      case "watch": {
        const gcs: { kind: number; ms: number }[] = [];
        const observer = new PerformanceObserver((list) => {
          for (const entry of list.getEntries())
            gcs.push({ kind: (entry as unknown as { detail: { kind: number } }).detail.kind, ms: entry.duration });
        });
        observer.observe({ entryTypes: ["gc"] });
        const delay = monitorEventLoopDelay({ resolution: 5 });
        delay.enable();
        watching = { gcs, observer, delay, cpu: process.cpuUsage() };
        process.send!({ type: "watching" });
        break;
      }
      case "watched": {
        const { gcs, observer, delay, cpu } = watching!;
        watching = undefined;
        observer.disconnect();
        delay.disable();
        const used = process.cpuUsage(cpu);
        const minor = gcs.filter((gc) => gc.kind === perfConstants.NODE_PERFORMANCE_GC_MINOR).map((gc) => gc.ms);
        const major = gcs.filter((gc) => gc.kind !== perfConstants.NODE_PERFORMANCE_GC_MINOR).map((gc) => gc.ms);
        const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
        process.send!({
          type: "watched",
          scavenges: minor.length,
          scavengeMs: sum(minor),
          scavengeMax: Math.max(0, ...minor),
          majors: major.length,
          majorMs: sum(major),
          majorMax: Math.max(0, ...major),
          delayMax: delay.max / 1e6,
          delayP99: delay.percentile(99) / 1e6,
          cpuMs: (used.user + used.system) / 1000,
        });
        break;
      }
      case "profile":
        // A V8 CPU profile of what follows, until "profile-stop" (test/bench/profile.ts).
        profiler = new Session();
        profiler.connect();
        await profiler.post("Profiler.enable");
        await profiler.post("Profiler.start");
        process.send!({ type: "profiling" });
        break;
      case "profile-stop": {
        const { profile } = await profiler!.post("Profiler.stop");
        const file = (message as { type: string; file: string }).file;
        writeFileSync(file, JSON.stringify(profile));
        profiler!.disconnect();
        profiler = undefined;
        process.send!({ type: "profiled", file });
        break;
      }
      case "heap-snapshot": {
        // A V8 heap snapshot (test/bench/memory.ts --snapshot): what the heap holds after the load.
        globalThis.gc?.();
        const file = writeHeapSnapshot((message as { type: string; file: string }).file);
        process.send!({ type: "heap-snapshot", file });
        break;
      }
      case "heap-sampling":
        // V8's sampling heap profiler, counting also what a GC freed since (major: promoted, then dead).
        profiler = new Session();
        profiler.connect();
        await profiler.post("HeapProfiler.enable");
        await profiler.post("HeapProfiler.startSampling", {
          samplingInterval: 16384,
          includeObjectsCollectedByMajorGC: process.env.BENCH_SAMPLE_MAJOR === "1",
          includeObjectsCollectedByMinorGC: process.env.BENCH_SAMPLE_MINOR === "1",
        } as never);
        process.send!({ type: "heap-sampling" });
        break;
      case "heap-sampling-stop": {
        // After a full GC: without BENCH_SAMPLE_MAJOR what remains is what lives on; with it, also
        // what was promoted to the old generation and died there (what major GCs collect).
        globalThis.gc?.();
        const { profile } = await profiler!.post("HeapProfiler.stopSampling");
        const file = (message as { type: string; file: string }).file;
        writeFileSync(file, JSON.stringify(profile));
        profiler!.disconnect();
        profiler = undefined;
        process.send!({ type: "heap-sampled", file });
        break;
      }
      case "sandboxes":
        // Resident memory of each warm integration sandbox (a workerd process), bytes.
        process.send!({ type: "sandboxes", rss: app.services.integrations.sandboxes.memory() });
        break;
      case "exit":
        await app.close();
        server.closeAllConnections();
        server.close();
        await database.close();
        process.exit(0);
    }
  });
  process.send!({ type: "ready", url, kind: database.kind, ...seeded, ...content });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
