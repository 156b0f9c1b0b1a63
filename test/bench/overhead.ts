// Test-only: `npx tsx test/bench/overhead.ts [rounds] [requests]` measures what /graphql spends
// beyond REST for the same operation (issue 35): the service child (start.ts: compiled, under
// NODE_ENV=production, on PGlite or with DATABASE_URL a scratch PostgreSQL database) answers a
// fixed number of each request in turn, /graphql (the route's document sent as text, as a
// frontend sends it) and REST interleaved row by row, round after round; CPU time of the service
// per request, medians over the rounds. Within one run, so a busy machine slows both doors alike.
import autocannon from "autocannon";
import { startBenchService, type BenchRequest } from "./start.ts";

const [rounds = "5", amount = "2000"] = process.argv.slice(2);
const ROWS = [
  ["one space", "graphql-space", "space"],
  ["list of 100", "graphql-list", "list"],
  ["page + document", "graphql-page", "page"],
] as const;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main() {
  const s = await startBenchService();
  const cpuPerRequest = async (request: BenchRequest, requests: number) => {
    const before = await s.child.ask<{ cpu: NodeJS.CpuUsage }>({ type: "usage" });
    const result = await autocannon({ url: s.url, connections: 4, amount: requests, requests: [request] });
    const after = await s.child.ask<{ cpu: NodeJS.CpuUsage }>({ type: "usage" });
    if (result.non2xx + result.errors > 0) throw new Error(`${request.method} ${request.path}: ${result.non2xx + result.errors} failures`);
    return (after.cpu.user + after.cpu.system - before.cpu.user - before.cpu.system) / 1000 / result.requests.total;
  };
  for (const [, graphql, rest] of ROWS) {
    for (const name of [graphql, rest]) {
      const request = s.requests[name];
      const response = await fetch(s.url + request.path, request);
      const body = await response.text();
      if (response.status !== 200 || body.includes('"errors"')) throw new Error(`${name}: ${response.status} ${body.slice(0, 300)}`);
      await cpuPerRequest(request, Math.min(500, Number(amount))); // warm: compiled, cached, optimized
    }
  }
  const results = new Map<string, number[]>();
  for (let round = 0; round < Number(rounds); round++) {
    for (const [row, graphql, rest] of ROWS) {
      // Alternate which door goes first, so that neither always follows the same one.
      for (const name of round % 2 ? [rest, graphql] : [graphql, rest]) {
        const key = `${row} ${name === rest ? "REST" : "/graphql"}`;
        results.set(key, [...(results.get(key) ?? []), await cpuPerRequest(s.requests[name], Number(amount))]);
      }
    }
  }
  await s.stop();
  console.log(`${s.kind}, ${rounds} rounds of ${amount} requests, CPU ms per request of the service (median; all rounds)`);
  for (const [row] of ROWS) {
    const g = results.get(`${row} /graphql`)!;
    const r = results.get(`${row} REST`)!;
    const list = (values: number[]) => values.map((v) => v.toFixed(3)).join(" ");
    console.log(
      `${row.padEnd(16)} /graphql ${median(g).toFixed(3)} [${list(g)}]  REST ${median(r).toFixed(3)} [${list(r)}]  REST/graphql ${(median(r) / median(g)).toFixed(2)}`,
    );
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
