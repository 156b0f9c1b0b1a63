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
  /** p99 of how late the client sent its requests (ms after their time): near 0 when it kept pace. */
  lateP99: number;
  /** The client's longest event-loop stall (ms): a response that arrived during one is timed late. */
  clientStallMax: number;
  /** With `options.trace`: every request's send time (ms since the epoch), how late the client sent it and its latency (ms). */
  trace?: { at: number; late: number; ms: number }[];
  /** With `options.trace`: the client's own event-loop stalls over 10 ms (ms since the epoch, length). */
  clientStalls?: { at: number; ms: number }[];
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

export async function paced(
  url: string,
  request: { method: string; path: string; headers: Record<string, string>; body?: string },
  options: { rate: number; seconds: number; connections?: number; trace?: boolean },
): Promise<PacedResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.connections ?? 10 });
  const target = new URL(url);
  const latencies: number[] = [];
  let failures = 0;
  const trace: { at: number; late: number; ms: number }[] = [];
  const lateness: number[] = [];
  // The client's own stalls (a GC, the scheduler): what it measures includes them.
  const clientStalls: { at: number; ms: number }[] = [];
  let clientStallMax = 0;
  let last = performance.now();
  const monitor = setInterval(() => {
    const now = performance.now();
    const stall = now - last - 5;
    clientStallMax = Math.max(clientStallMax, stall);
    if (options.trace && stall > 10) clientStalls.push({ at: performance.timeOrigin + now, ms: stall });
    last = now;
  }, 5);
  const send = (due: number) =>
    new Promise<void>((resolve) => {
      const start = performance.now();
      const req = httpRequest(
        { agent, host: target.hostname, port: target.port, method: request.method, path: request.path, headers: request.headers },
        (res) => {
          res.on("data", () => {});
          res.on("end", () => {
            latencies.push(performance.now() - start);
            lateness.push(start - due);
            if (options.trace) trace.push({ at: performance.timeOrigin + start, late: start - due, ms: performance.now() - start });
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
        pending.push(send(started + sent * interval));
        sent++;
      }
      if (sent >= total) resolve();
      else setTimeout(tick, Math.max(0, started + sent * interval - performance.now()));
    };
    tick();
  });
  await Promise.all(pending);
  clearInterval(monitor);
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
    lateP99: round(
      percentile(
        lateness.sort((a, b) => a - b),
        0.99,
      ),
    ),
    clientStallMax: round(Math.max(0, clientStallMax)),
    ...(options.trace ? { trace, clientStalls } : {}),
  };
}

/** What the service child reported over a paced run ("watch" … "watched", test/bench/service.ts). */
export interface Watched {
  scavenges: number;
  scavengeMs: number;
  scavengeMax: number;
  majors: number;
  majorMs: number;
  majorMax: number;
  delayMax: number;
  delayP99: number;
  cpuMs: number;
}

/**
 * Where a paced run's tail may come from, printed beside its p50/p99: the service's GC pauses and
 * event-loop delay (its own work: a request arriving during one waits for it), its CPU time per
 * request, and the client's lateness and longest stall (the client's own delays, which the
 * measured latencies include). A service delay far above its GC pauses, on a machine with other
 * load, is the scheduler's.
 */
export function describeTail(x: PacedResult, w: Watched, requests: number): string {
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  return (
    `service: ${w.scavenges} scavenges (${ms(w.scavengeMs)}, longest ${ms(w.scavengeMax)}), ${w.majors} major GCs` +
    `${w.majors ? ` (longest ${ms(w.majorMax)})` : ""}, event-loop delay p99 ${ms(w.delayP99)} max ${ms(w.delayMax)}, ` +
    `CPU ${(w.cpuMs / Math.max(1, requests)).toFixed(2)} ms/request; client: sent late p99 ${ms(x.lateP99)}, longest stall ${ms(x.clientStallMax)}`
  );
}
