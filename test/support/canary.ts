// A canary: while `work` runs, a small authenticated GET is sent again and again (one at a time,
// each as soon as the previous answered, every `intervalMs` at most) and each answer's latency
// recorded. A request that stalls the service shows up as a slow canary.
export interface CanaryResult<T> {
  result: T;
  /** Latencies of the canary requests, in ms. */
  latencies: number[];
  max: number;
  /** How long `work` took, in ms. */
  elapsedMs: number;
}

export async function withCanary<T>(
  url: string,
  headers: Record<string, string>,
  work: () => Promise<T>,
  intervalMs = 100,
): Promise<CanaryResult<T>> {
  const latencies: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      const response = await fetch(url, { headers });
      await response.arrayBuffer();
      if (!response.ok) throw new Error(`canary answered ${response.status}`);
      latencies.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();
  const started = performance.now();
  try {
    const result = await work();
    const elapsedMs = performance.now() - started;
    running = false;
    await loop;
    return { result, latencies, max: Math.max(0, ...latencies), elapsedMs };
  } finally {
    running = false;
    await loop.catch(() => {});
  }
}
