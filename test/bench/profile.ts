// Test-only: `npx tsx test/bench/profile.ts <space|list|page|relations|site> [seconds]` starts the
// service child (test/bench/service.ts) with a V8 CPU profile, loads one request with autocannon,
// and prints where the service's CPU went (self time by package and by function).
// Without DATABASE_URL on PGlite; with it a scratch PostgreSQL database (start.ts).
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { startBenchService } from "./start.ts";

const [name = "space", seconds = "8"] = process.argv.slice(2);
const dir = mkdtempSync(join(tmpdir(), "bench-prof-"));

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount: number;
  children?: number[];
}

async function main() {
  const s = await startBenchService();
  const { child } = s;
  const request = s.requests[name as keyof typeof s.requests];
  if (!request) throw new Error(`unknown request ${name}: ${Object.keys(s.requests).join(", ")}`);
  const first = await fetch(s.url + request.path, request);
  if (first.status !== 200) throw new Error(`${first.status} ${await first.text()}`);
  await autocannon({ url: s.url, connections: 10, duration: 2, requests: [request] }); // warm
  if (s.kind === "postgres") {
    // The statements one request sends, by stage (recorded through pg).
    await child.ask({ type: "record" });
    await fetch(s.url + request.path, request).then((r) => r.text());
    const { stages } = await child.ask<{ stages: { text: string }[][] }>({ type: "stop" });
    for (const [index, stage] of stages.entries())
      for (const statement of stage) console.log(`stage ${index + 1}: ${statement.text.replace(/\s+/g, " ").slice(0, 220)}`);
  }
  await child.ask({ type: "profile" });
  const before = await child.ask<{ cpu: NodeJS.CpuUsage }>({ type: "usage" });
  const result = await autocannon({ url: s.url, connections: 10, duration: Number(seconds), requests: [request] });
  const after = await child.ask<{ cpu: NodeJS.CpuUsage }>({ type: "usage" });
  const file = join(dir, `${name}.cpuprofile`);
  await child.ask({ type: "profile-stop", file });
  const cpuMs = (after.cpu.user + after.cpu.system - before.cpu.user - before.cpu.system) / 1000;
  console.log(
    `${name}: ${result.requests.average.toFixed(0)} req/s, CPU ${(cpuMs / result.requests.total).toFixed(2)} ms/req, non-2xx ${result.non2xx}`,
  );
  await s.stop();
  const profile = JSON.parse(readFileSync(file, "utf8")) as { nodes: Node[] };
  summarize(profile.nodes);
  console.log(`profile: ${file}`);
}

function packageOf(url: string): string {
  if (!url) return "(native/gc)";
  const m = url.match(/node_modules\/((@[^/]+\/)?[^/]+)/);
  if (m) return m[1];
  if (url.startsWith("node:")) return "node";
  const p = url.match(/\/(src|rest-adapter|test)\/(.*)$/);
  return p ? `${p[1]}/${p[2].split("/").slice(0, 2).join("/")}` : url;
}

function summarize(nodes: Node[]) {
  const total = nodes.reduce((sum, n) => sum + n.hitCount, 0);
  const byPackage = new Map<string, number>();
  const byFunction = new Map<string, number>();
  for (const n of nodes) {
    const pkg = n.callFrame.url ? packageOf(n.callFrame.url) : `(${n.callFrame.functionName || "anonymous"})`;
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + n.hitCount);
    const fn = `${n.callFrame.functionName || "(anon)"} ${packageOf(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + n.hitCount);
  }
  const top = (map: Map<string, number>, count: number) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([key, hits]) => `  ${((100 * hits) / total).toFixed(1).padStart(5)}%  ${key}`)
      .join("\n");
  console.log(`self time by package (${total} samples):\n${top(byPackage, 25)}\nself time by function:\n${top(byFunction, 40)}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
