// Test-only: `npx tsx test/bench/tail.ts <space|list|page> [seconds]`: the bench's "p99 at half of
// the maximum rate" row for one read, alone: the maximum rate (autocannon, 10 connections), then
// requests evenly spaced at half of it (paced.ts). BENCH_NODE_FLAGS passes V8/Node flags to the
// service child (e.g. --trace-gc, whose lines then interleave with the slowest requests' times).
import autocannon from "autocannon";
import { describeTail, paced, type Watched } from "./paced.ts";
import { startBenchService } from "./start.ts";

const [name = "space", seconds = "6"] = process.argv.slice(2);

async function main() {
  const s = await startBenchService();
  const { child } = s;
  const request = s.requests[name as "space" | "list" | "page"];
  const max = await autocannon({ url: s.url, connections: 10, duration: 3, requests: [request] });
  const rate = Math.max(1, Math.floor(Number(process.env.RATE ?? max.requests.average / 2)));
  console.log(`${s.kind} ${name}: maximum ${max.requests.average.toFixed(0)} req/s; paced at ${rate} req/s for ${seconds} s`);
  if (process.env.HEAP_SAMPLE) await child.ask({ type: "heap-sampling" });
  for (let round = 0; round < Number(process.env.ROUNDS ?? 1); round++) {
    await child.ask({ type: "watch" });
    const x = await paced(s.url, request, { rate, seconds: Number(seconds), connections: 10, trace: !!process.env.TRACE });
    const watched = await child.ask<Watched>({ type: "watched" });
    // TRACE=1: the requests slower than 3 × p50 and the client's own stalls, with their times
    // (ms since the epoch) to set beside the service's BENCH_STALLS lines and --trace-gc.
    for (const r of x.trace?.filter((r) => r.ms > 3 * x.p50) ?? [])
      console.log(`slow request sent at epoch ${r.at.toFixed(0)} (${r.late.toFixed(1)} ms late): ${r.ms.toFixed(1)} ms`);
    for (const stall of x.clientStalls ?? []) console.log(`client stall ${stall.ms.toFixed(0)} ms at epoch ${stall.at.toFixed(0)}`);
    console.log(
      `${s.kind} ${name} at ${rate} req/s: p50 ${x.p50} ms, p99 ${x.p99} ms, max ${x.max} ms (p99/p50 ${(x.p99 / x.p50).toFixed(1)})`,
    );
    console.log(`  ${describeTail(x, watched, x.rps * Number(seconds))}`);
  }
  if (process.env.HEAP_SAMPLE) await child.ask({ type: "heap-sampling-stop", file: process.env.HEAP_SAMPLE });
  await s.stop();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
