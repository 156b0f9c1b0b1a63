// Worker threads for CPU work that must not hold the event loop: at most `size` at once, each
// bounded in heap, an idle one kept for the next task a little while. The thread's module is
// TypeScript source under vitest and tsx, and its build under node (dist): worker-entry.mjs
// (plain JavaScript, which runs under all three) loads either.
import { Worker } from "node:worker_threads";

export interface WorkerPoolOptions {
  /** Threads at most; a task beyond waits for one to be free. */
  size: number;
  /** Old-generation heap of a thread, in MB (typed arrays are outside it). */
  heapMb: number;
  /** How long an idle thread is kept for the next task. */
  idleMs: number;
}

const ENTRY = new URL("./worker-entry.mjs", import.meta.url);

export class WorkerPool {
  private readonly idle: { worker: Worker; timer: NodeJS.Timeout }[] = [];
  private readonly waiting: (() => void)[] = [];
  private readonly live = new Set<Worker>();
  private busy = 0;
  private closed = false;

  /** `module`: the thread's module, as a path relative to this directory without its extension. */
  constructor(
    private readonly module: string,
    private readonly options: WorkerPoolOptions,
  ) {}

  /** Threads alive (busy or idle). */
  get size(): number {
    return this.live.size;
  }

  /**
   * A thread for one task, once one is free (or null when `signal` fires first, or the pool is
   * closed). Give it back with `release`.
   */
  async acquire(signal: AbortSignal): Promise<Worker | null> {
    while (this.busy >= this.options.size && !this.closed && !signal.aborted) {
      await new Promise<void>((resolve) => {
        const wake = () => {
          signal.removeEventListener("abort", wake);
          const index = this.waiting.indexOf(wake);
          if (index >= 0) this.waiting.splice(index, 1);
          resolve();
        };
        this.waiting.push(wake);
        signal.addEventListener("abort", wake, { once: true });
      });
    }
    if (this.closed || signal.aborted) return null;
    this.busy++;
    const kept = this.idle.pop();
    if (kept) {
      clearTimeout(kept.timer);
      return kept.worker;
    }
    return this.start();
  }

  /**
   * Takes a thread back: kept for the next task when `reusable` (its task finished cleanly),
   * terminated otherwise (cut off, failed, or left mid-task), which stops its work at once.
   */
  release(worker: Worker, reusable: boolean): void {
    this.busy--;
    if (reusable && !this.closed && this.live.has(worker)) {
      const timer = setTimeout(() => this.retire(worker), this.options.idleMs).unref();
      this.idle.push({ worker, timer });
    } else this.retire(worker);
    this.waiting.shift()?.();
  }

  /** Terminates every thread, busy ones included (their tasks see them exit). */
  async close(): Promise<void> {
    this.closed = true;
    for (const wake of this.waiting.splice(0)) wake();
    for (const { timer } of this.idle.splice(0)) clearTimeout(timer);
    await Promise.all([...this.live].map((worker) => worker.terminate()));
    this.live.clear();
  }

  private start(): Worker {
    const source = import.meta.url.endsWith(".ts");
    const worker = new Worker(ENTRY, {
      workerData: { module: new URL(`${this.module}${source ? ".ts" : ".js"}`, import.meta.url).href },
      resourceLimits: { maxOldGenerationSizeMb: this.options.heapMb },
    });
    this.live.add(worker);
    // A task listens for its thread's errors; an idle thread's error is followed by its exit.
    worker.on("error", () => {});
    worker.once("exit", () => this.retire(worker));
    return worker;
  }

  private retire(worker: Worker): void {
    const index = this.idle.findIndex((entry) => entry.worker === worker);
    if (index >= 0) clearTimeout(this.idle.splice(index, 1)[0]!.timer);
    if (this.live.delete(worker)) void worker.terminate();
  }
}
