// The realtime rows of `npm run bench` (issue 29): subscriptions over Server-Sent Events on
// /graphql (the `channel` subscription), from this process to the service child on loopback.
// - Fan-out: N subscribers on one channel, one write at a time (REST PATCH of the space): the time
//   from the commit (its first row reaching the service's realtime bus) to the last subscriber's
//   event, p50/p99 over the writes; beside it, from sending the write (the write's own time added).
// - Rate: N subscriptions spread over S channels (N/S each), 100 writes a second for a few
//   seconds, each on the next channel: the same times per write, p99.
// - RSS of the service per 1,000 idle subscriptions (after a GC), and a canary request (REST GET of
//   another space at a steady rate) whose p99 with the subscriptions open and events flowing is
//   compared with its p99 before any was opened.
// - Beside them: the write alone (no subscription open), and the CPU the service and this process
//   (reading the 1,000 streams, on the same machine) spend per fan-out write.
// Its own service child, on in-memory PGlite or a scratch PostgreSQL database. `--fan-out`: only
// the fan-out phase (and RSS, the canary); `--cpu-prof`: the service's CPU profile per phase.
import { mkdirSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { request } from "node:http";
import { resolve } from "node:path";
import { availableParallelism } from "node:os";
import autocannon from "autocannon";
import { startChild, type Child } from "./protocol.ts";

export const FANOUT_SUBSCRIBERS = 1000;
export const FANOUT_P99_MS = 100;
export const RSS_PER_1000_MB = 50;
export const CANARY_FACTOR = 3;
const RATE_CHANNELS = 100;
const RATE_PER_SECOND = 100;
const CANARY_RATE = 20;
/** `--cpu-prof`: a V8 CPU profile of the service child during the fan-out and the rate phases, in ./bench-profiles. */
const PROFILE = process.argv.includes("--cpu-prof");
/** `--fan-out`: only the fan-out phase (with RSS and the canary), not the rate one. */
const FANOUT_ONLY = process.argv.includes("--fan-out");

interface Row {
  pass: boolean;
  text: string;
}

interface Ready {
  url: string;
  organizationId: string;
  token: string;
  spaceId: string;
  contentSpaceId: string;
}

const QUERY = "subscription($channel: ChannelInput!) { channel(channel: $channel) { channel at } }";

/**
 * One SSE subscription whose events' arrival times are kept (parsing: counting `event: next` lines).
 * Read with node:http, not fetch: 1,000 fetch streams (web streams, a text decoder each) cost this
 * process about 120 ms of CPU per fan-out write on the cores the service runs on, which the
 * figure then counted as the service's latency; node:http's chunks cost about a quarter of that.
 */
interface Stream {
  arrivals: number[];
  close(): void;
}

function open(url: string, token: string, space: string): Promise<Stream> {
  const body = JSON.stringify({ query: QUERY, variables: { channel: { channel: "space", space } } });
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/graphql`,
      {
        method: "POST",
        // A connection of its own, as each browser has.
        agent: false,
        headers: { accept: "text/event-stream", authorization: `Bearer ${token}`, "content-type": "application/json" },
      },
      (res) => {
        res.setEncoding("latin1");
        if (res.statusCode !== 200) {
          let text = "";
          res.on("data", (chunk: string) => (text += chunk));
          res.on("end", () => reject(new Error(`subscribe answered ${res.statusCode}: ${text}`)));
          return;
        }
        const arrivals: number[] = [];
        let tail = "";
        res.on("data", (chunk: string) => {
          const text = tail + chunk;
          const now = performance.now();
          let at = text.indexOf("event: next");
          while (at >= 0) {
            if (text.includes('"errors"')) process.stderr.write(`bench: a subscription answered an error: ${text.slice(0, 300)}\n`);
            arrivals.push(now);
            at = text.indexOf("event: next", at + 1);
          }
          // A line split over two chunks is found with the next one (10 characters cannot hold a whole one again).
          tail = text.slice(-10);
        });
        res.on("error", () => {});
        resolve({ arrivals, close: () => req.destroy() });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

const canary = (url: string, path: string, token: string, duration: number) =>
  autocannon({
    url,
    connections: 2,
    overallRate: CANARY_RATE,
    duration,
    requests: [{ method: "GET", path, headers: { authorization: `Bearer ${token}` } }],
  });

async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return true;
}

/** `databaseUrl`: a scratch PostgreSQL database; absent, in-memory PGlite. `writes`: of the fan-out row. */
export async function realtimeTargets(
  writes: number,
  progress: (text: string) => void,
  databaseUrl?: string,
): Promise<{ rows: Row[]; notes: string[] }> {
  const kind = databaseUrl ? "postgres" : "pglite";
  progress(`starting the realtime bench service (${kind})`);
  const child: Child = await startChild(new URL("./service.ts", import.meta.url).pathname, {
    BENCH_DATABASE_URL: databaseUrl ?? "",
    BENCH_REALTIME: "1",
  });
  const ready = await child.next<Ready>();
  const headers = { authorization: `Bearer ${ready.token}`, "content-type": "application/json" };
  const cpu = async () => {
    const { cpu: used } = await child.ask<{ cpu: NodeJS.CpuUsage }>({ type: "usage" });
    return (used.user + used.system) / 1000;
  };
  const rss = async () => ((await child.ask<{ rss: number }>({ type: "usage" })).rss as number) / 2 ** 20;
  /** The service's commits since the last call: when each reached its bus (ms since the epoch) and the channels it reached. */
  const published = async () => (await child.ask<{ published: { at: number; channels: string[] }[] }>({ type: "published" })).published;
  /** This process's clock as ms since the epoch, comparable with the service's. */
  const epoch = (now: number) => performance.timeOrigin + now;
  const streams: Stream[] = [];
  const notes: string[] = [];
  const rename = async (space: string, title: string, attempt = 1): Promise<void> => {
    const response = await fetch(`${ready.url}/v1/spaces/${space}`, { method: "PATCH", headers, body: JSON.stringify({ title }) }).catch(
      (error: Error) => {
        // A keep-alive socket the server closed as it was reused ("other side closed"): the PATCH is idempotent.
        if (attempt >= 3) throw error;
        return null;
      },
    );
    if (!response) return rename(space, title, attempt + 1);
    if (response.status !== 200) throw new Error(`PATCH space answered ${response.status}: ${await response.text()}`);
  };
  const canaryPath = `/v1/spaces/${ready.contentSpaceId}`;
  try {
    progress(`canary GET ${canaryPath} at ${CANARY_RATE} req/s, no subscription open`);
    const before = await canary(ready.url, canaryPath, ready.token, 4);
    const idleRss = await rss();
    // The write alone, with no subscription open: the part of the fan-out figure that is not fan-out.
    const alone: number[] = [];
    for (let k = 0; k < 20; k++) {
      const sent = performance.now();
      await rename(ready.spaceId, `alone ${k}`);
      alone.push(performance.now() - sent);
    }

    // Fan-out: N subscribers on one channel.
    progress(`opening ${FANOUT_SUBSCRIBERS} subscriptions on one channel`);
    const space = ready.spaceId;
    for (let i = 0; i < FANOUT_SUBSCRIBERS; i += 50) {
      streams.push(...(await Promise.all(Array.from({ length: 50 }, () => open(ready.url, ready.token, space)))));
    }
    // Opened on the server: a first write reaches all of them (not measured).
    await rename(space, "warm");
    if (!(await waitUntil(() => streams.every((s) => s.arrivals.length >= 1), 30_000)))
      throw new Error("the warm-up event did not reach every subscriber");
    const openRss = await rss();
    const fanout: number[] = [];
    const fanoutFromCommit: number[] = [];
    await published();
    const load = canary(ready.url, canaryPath, ready.token, 600);
    progress(`fan-out: ${writes} writes, one at a time, each to ${FANOUT_SUBSCRIBERS} subscribers`);
    const profiled = async (phase: string) => {
      if (!PROFILE) return;
      mkdirSync("bench-profiles", { recursive: true });
      const file = resolve("bench-profiles", `realtime-${kind}-${phase}.cpuprofile`);
      await child.ask({ type: "profile-stop", file });
      progress(`CPU profile of the ${phase}: ${file}`);
    };
    if (PROFILE) await child.ask({ type: "profile" });
    const cpuBefore = await cpu();
    const clientBefore = process.cpuUsage();
    for (let k = 2; k <= writes + 1; k++) {
      const sent = performance.now();
      await rename(space, `write ${k}`);
      if (!(await waitUntil(() => streams.every((s) => s.arrivals.length >= k), 10_000)))
        throw new Error(`write ${k} did not reach every subscriber within 10 s`);
      const last = Math.max(...streams.map((s) => s.arrivals[k - 1]!));
      fanout.push(last - sent);
      const commits = (await published()).filter((commit) => commit.channels.includes(`space|${space}`));
      if (commits.length !== 1) throw new Error(`write ${k} was published ${commits.length} times`);
      fanoutFromCommit.push(epoch(last) - commits[0]!.at);
    }
    const cpuPerWrite = ((await cpu()) - cpuBefore) / writes;
    const clientUsed = process.cpuUsage(clientBefore);
    const clientPerWrite = (clientUsed.user + clientUsed.system) / 1000 / writes;
    await profiled("fan-out");
    (load as unknown as { stop(): void }).stop();
    const during = await load;
    for (const stream of streams.splice(0)) stream.close();

    // Rate: N subscriptions over RATE_CHANNELS channels, RATE_PER_SECOND writes a second.
    const ratePhase = async () => {
      const listed = (await (
        await fetch(`${ready.url}/v1/orgs/${ready.organizationId}/spaces?limit=${RATE_CHANNELS + 10}`, { headers })
      ).json()) as { items: { id: string }[] };
      const spaces = listed.items
        .map((item) => item.id)
        .filter((id) => id !== ready.contentSpaceId)
        .slice(0, RATE_CHANNELS);
      const per = FANOUT_SUBSCRIBERS / spaces.length;
      progress(`rate: ${FANOUT_SUBSCRIBERS} subscriptions over ${spaces.length} channels, ${RATE_PER_SECOND} writes/s`);
      const bySpace = new Map<string, Stream[]>();
      for (const id of spaces) {
        bySpace.set(id, await Promise.all(Array.from({ length: per }, () => open(ready.url, ready.token, id))));
      }
      for (const id of spaces) await rename(id, "warm");
      const all = [...bySpace.values()].flat();
      streams.push(...all);
      if (!(await waitUntil(() => all.every((s) => s.arrivals.length >= 1), 30_000)))
        throw new Error("the warm-up events did not reach every subscriber");
      await published();
      const rateWrites = RATE_PER_SECOND * 5;
      const sentAt: { space: string; k: number; at: number }[] = [];
      const rateLoad = canary(ready.url, canaryPath, ready.token, 600);
      const pending: Promise<void>[] = [];
      if (PROFILE) await child.ask({ type: "profile" });
      const start = performance.now();
      for (let i = 0; i < rateWrites; i++) {
        const due = start + (i * 1000) / RATE_PER_SECOND;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        const id = spaces[i % spaces.length]!;
        sentAt.push({ space: id, k: Math.floor(i / spaces.length) + 2, at: performance.now() });
        pending.push(rename(id, `rate ${i}`));
      }
      await Promise.all(pending);
      const reached = await waitUntil(
        () => sentAt.every(({ space: id, k }) => bySpace.get(id)!.every((s) => s.arrivals.length >= k)),
        30_000,
      );
      await profiled("rate");
      (rateLoad as unknown as { stop(): void }).stop();
      const rateCanary = await rateLoad;
      if (!reached) throw new Error("the rate writes did not all reach their subscribers within 30 s");
      const rate = sentAt.map(({ space: id, k, at }) => Math.max(...bySpace.get(id)!.map((s) => s.arrivals[k - 1]!)) - at);
      // The k-th commit of each space's channel is its k-th write (one a second per space, in order).
      const commits = await published();
      const commitsOf = (id: string) => commits.filter((commit) => commit.channels.includes(`space|${id}`));
      const rateFromCommit = sentAt.map(({ space: id, k }) => {
        const commit = commitsOf(id)[k - 2];
        if (!commit) throw new Error(`a rate write to ${id} was not published`);
        return epoch(Math.max(...bySpace.get(id)!.map((s) => s.arrivals[k - 1]!))) - commit.at;
      });
      const elapsed = (performance.now() - start) / 1000;
      return { rate, rateFromCommit, elapsed, rateCanary, per, channels: spaces.length, rateWrites };
    };
    const measured = FANOUT_ONLY ? undefined : await ratePhase();

    const loadAverage = await readFile("/proc/loadavg", "utf8").then(
      (text) => `; load average ${text.split(" ")[0]} on ${availableParallelism()} cores`,
      () => "",
    );
    const perThousand = ((openRss - idleRss) * 1000) / FANOUT_SUBSCRIBERS;
    const canaryTarget = CANARY_FACTOR * Math.max(1, before.latency.p99);
    const rateCanary = measured?.rateCanary;
    const failures = during.non2xx + during.errors + (rateCanary ? rateCanary.non2xx + rateCanary.errors : 0);
    notes.push(
      `${kind} realtime: the write alone (no subscription open) p50 ${percentile(alone, 50).toFixed(1)} ms, p99 ${percentile(alone, 99).toFixed(1)} ms; ` +
        `fan-out to ${FANOUT_SUBSCRIBERS} over ${writes} writes, commit → last event: p50 ${percentile(fanoutFromCommit, 50).toFixed(1)} ms, max ${Math.max(...fanoutFromCommit).toFixed(1)} ms; ` +
        `write sent → last event: p50 ${percentile(fanout, 50).toFixed(1)} ms, p99 ${percentile(fanout, 99).toFixed(1)} ms; ` +
        `service CPU ${cpuPerWrite.toFixed(1)} ms per write (its fan-out and the canary's share), the bench's own ${clientPerWrite.toFixed(1)} ms (reading the 1,000 streams); ` +
        (measured
          ? `rate: ${measured.rateWrites} writes in ${measured.elapsed.toFixed(1)} s to ${measured.per} subscribers each, commit → last event p50 ${percentile(measured.rateFromCommit, 50).toFixed(1)} ms; write sent → last event p50 ${percentile(measured.rate, 50).toFixed(1)} ms, p99 ${percentile(measured.rate, 99).toFixed(1)} ms; `
          : "") +
        `RSS ${idleRss.toFixed(0)} MB before, ${openRss.toFixed(0)} MB with ${FANOUT_SUBSCRIBERS} open; canary p50 ${before.latency.p50} ms before, ${during.latency.p50} ms during the fan-out` +
        (rateCanary ? `, ${rateCanary.latency.p50} ms during the rate` : "") +
        ` (${during.requests.total + (rateCanary?.requests.total ?? 0)} requests, ${failures} failures)${loadAverage}`,
    );
    const fanoutP99 = percentile(fanoutFromCommit, 99);
    const canaryP99 = Math.max(during.latency.p99, rateCanary?.latency.p99 ?? 0);
    const rows: Row[] = [
      {
        pass: fanoutP99 <= FANOUT_P99_MS,
        text: `${kind}: realtime fan-out, one write to ${FANOUT_SUBSCRIBERS} subscribers of one channel (SSE), commit → last event: p99 ${fanoutP99.toFixed(1)} ms (target ≤ ${FANOUT_P99_MS} ms)`,
      },
    ];
    if (measured) {
      const rateP99 = percentile(measured.rateFromCommit, 99);
      rows.push({
        pass: rateP99 <= FANOUT_P99_MS,
        text: `${kind}: realtime at ${RATE_PER_SECOND} writes/s, ${FANOUT_SUBSCRIBERS} subscriptions over ${measured.channels} channels, commit → last event: p99 ${rateP99.toFixed(1)} ms (target ≤ ${FANOUT_P99_MS} ms)`,
      });
    }
    rows.push(
      {
        pass: perThousand <= RSS_PER_1000_MB,
        text: `${kind}: realtime RSS per 1,000 idle subscriptions (SSE): ${perThousand.toFixed(1)} MB (target ≤ ${RSS_PER_1000_MB} MB)`,
      },
      {
        pass: canaryP99 <= canaryTarget && failures === 0,
        text:
          `${kind}: canary REST GET /v1/spaces/{id} at ${CANARY_RATE} req/s: p99 ${during.latency.p99} ms during the fan-out` +
          (rateCanary ? `, ${rateCanary.latency.p99} ms during the rate` : "") +
          `, ${before.latency.p99} ms before (target ≤ ${CANARY_FACTOR} ×: ≤ ${canaryTarget} ms)`,
      },
    );
    return { notes, rows };
  } finally {
    for (const stream of streams) stream.close();
    child.process.kill();
  }
}

/** `tsx test/bench/realtime.ts [--short] [--fan-out] [--cpu-prof] [--postgres <scratch database URL>]`: these rows alone. */
if (import.meta.url === `file://${process.argv[1]}`) {
  const short = process.argv.includes("--short");
  const postgres = process.argv.includes("--postgres") ? process.argv[process.argv.indexOf("--postgres") + 1] : undefined;
  realtimeTargets(short ? 20 : 100, (text) => process.stderr.write(`bench: ${text}\n`), postgres).then(({ rows, notes }) => {
    for (const note of notes) console.log(`  note: ${note}`);
    for (const row of rows) console.log(`  ${row.pass ? "PASS" : "FAIL"}  ${row.text}`);
    process.exit(rows.some((row) => !row.pass) ? 1 : 0);
  });
}
