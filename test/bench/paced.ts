// Test-only: latency at a fixed rate, with requests evenly spaced in time (an open loop), for the
// bench's "p99 at half of the maximum rate" rows.
//
// autocannon's `overallRate` is not that: each connection sends its quota of the second back to
// back when the second starts, then waits for the next one, so at half the maximum rate the
// service is saturated for half of every second (every request queued behind the others of its
// burst) and idle for the rest; and it records each latency "with expected interval" 1 ms, which
// adds a synthetic sample for every millisecond of it (a 50 ms answer counts 50 samples spread
// over 1–50 ms). Its p50 is then about half the latency of a saturated service and its p99 the
// burst's slowest, whatever the service does. Here each request leaves at its time (start +
// i / rate) on a pool of keep-alive connections, and its latency is from then to the end of its
// body: what a client sending at that rate sees, queueing in the service included.
import { Agent, request as httpRequest } from "node:http";

export interface PacedResult {
  /** Requests answered per second over the run. */
  rps: number;
  p50: number;
  p99: number;
  max: number;
  failures: number;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

export async function paced(
  url: string,
  request: { method: string; path: string; headers: Record<string, string>; body?: string },
  options: { rate: number; seconds: number; connections?: number },
): Promise<PacedResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections ?? 10 });
  const target = new URL(url);
  const latencies: number[] = [];
  let failures = 0;
  const send = () =>
    new Promise<void>((resolve) => {
      const start = performance.now();
      const req = httpRequest(
        { agent, host: target.hostname, port: target.port, method: request.method, path: request.path, headers: request.headers },
        (res) => {
          res.on("data", () => {});
          res.on("end", () => {
            latencies.push(performance.now() - start);
            if (res.statusCode !== 200) failures++;
            resolve();
          });
        },
      );
      req.on("error", () => {
        failures++;
        resolve();
      });
      req.end(request.body);
    });
  const total = Math.max(1, Math.round(options.rate * options.seconds));
  const interval = 1000 / options.rate;
  const started = performance.now();
  const pending: Promise<void>[] = [];
  let sent = 0;
  // A timer per interval would drift: each tick sends every request whose time has come.
  await new Promise<void>((resolve) => {
    const tick = () => {
      const due = Math.min(total, Math.floor((performance.now() - started) / interval) + 1);
      while (sent < due) {
        pending.push(send());
        sent++;
      }
      if (sent >= total) resolve();
      else setTimeout(tick, Math.max(0, started + sent * interval - performance.now()));
    };
    tick();
  });
  await Promise.all(pending);
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  const sorted = latencies.sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return {
    rps: latencies.length / elapsed,
    p50: round(percentile(sorted, 0.5)),
    p99: round(percentile(sorted, 0.99)),
    max: round(sorted[sorted.length - 1] ?? 0),
    failures,
  };
}
