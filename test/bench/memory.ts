// Test-only: `npx tsx test/bench/memory.ts [seconds]` starts the service child (test/bench/service.ts),
// loads each read of the bench in turn with autocannon and prints the process's memory after each
// (after a full GC): RSS and its parts (V8 heap used/total, external, ArrayBuffers). Without
// DATABASE_URL on PGlite, with it on a scratch PostgreSQL database (start.ts).
import { readFileSync } from "node:fs";
import autocannon from "autocannon";
import { startBenchService } from "./start.ts";

const seconds = Number(process.argv[2] ?? 3);
const MB = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)}`.padStart(5);

/** The process's largest mappings by resident size (Linux): what RSS is made of beyond V8's counters. */
function smaps(pid: number) {
  const text = readFileSync(`/proc/${pid}/smaps`, "utf8");
  const maps: { name: string; rss: number; size: number }[] = [];
  let current: { name: string; rss: number; size: number } | undefined;
  for (const line of text.split("\n")) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) maps.push((current = { name: head[1] || "[anon]", rss: 0, size: 0 }));
    else if (current && line.startsWith("Rss:")) current.rss = Number(line.split(/\s+/)[1]) * 1024;
    else if (current && line.startsWith("Size:")) current.size = Number(line.split(/\s+/)[1]) * 1024;
  }
  const byName = new Map<string, { rss: number; count: number }>();
  for (const map of maps) {
    const key =
      map.name === "[anon]"
        ? `[anon ${map.size >= 2 ** 30 ? "≥1G" : map.size >= 64 * 2 ** 20 ? "≥64M" : map.size >= 2 ** 20 ? "≥1M" : "<1M"}]`
        : map.name;
    const entry = byName.get(key) ?? { rss: 0, count: 0 };
    entry.rss += map.rss;
    entry.count++;
    byName.set(key, entry);
  }
  return [...byName]
    .sort((a, b) => b[1].rss - a[1].rss)
    .slice(0, 12)
    .map(([name, { rss, count }]) => `    ${MB(rss)} MB  ${count} × ${name}`)
    .join("\n");
}

async function main() {
  const s = await startBenchService();
  const { child, requests } = s;
  const show = async (label: string, requestsServed = 0) => {
    const { memory } = await child.ask<{ memory: NodeJS.MemoryUsage }>({ type: "usage" });
    console.log(
      `${s.kind} ${label.padEnd(22)} rss ${MB(memory.rss)} MB  heapUsed ${MB(memory.heapUsed)}  heapTotal ${MB(memory.heapTotal)}  external ${MB(memory.external)}  arrayBuffers ${MB(memory.arrayBuffers)}${requestsServed ? `  (${requestsServed} requests)` : ""}`,
    );
  };
  await show("idle after start");
  const only = process.argv[3]?.split(",");
  const rounds = Number(process.env.ROUNDS ?? 1);
  for (let round = 1; round <= rounds; round++) {
    for (const [name, request] of Object.entries(requests)) {
      if (only && !only.includes(name)) continue;
      const result = await autocannon({ url: s.url, connections: 10, duration: seconds, requests: [request] });
      await show(`${round}: after ${name}`, result.requests.total);
    }
    if (process.env.SMAPS) console.log(smaps(child.process.pid!));
    if (process.env.SNAPSHOTS) {
      const { file } = await child.ask<{ file: string }>({
        type: "heap-snapshot",
        file: `${process.env.SNAPSHOTS}/round-${round}.heapsnapshot`,
      });
      console.log(`heap snapshot: ${file}`);
    }
  }
  await s.stop();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
