// Ask's LSA trainings off the event loop (the core's LsaTrainer): each runs in a thread of a
// WorkerPool (src/infra/lsa-worker.ts), bounded in heap; the caller's signal (its time bound, a
// shutdown) terminates the thread at once, which no yielding could do in ml-matrix's steps.
import type { Worker } from "node:worker_threads";
import type { LsaModel, LsaOptions, LsaTrainer, LsaTraining } from "../core/ask/lsa.ts";
import { WorkerPool, type WorkerPoolOptions } from "./worker-pool.ts";

export const DEFAULT_LSA_TRAINER_OPTIONS: WorkerPoolOptions = {
  // Two trainings at once (the job queue's concurrency); a third waits.
  size: 2,
  // 50,000 sections measured 0.34 GB in all, most of it typed arrays, outside this bound.
  heapMb: 512,
  idleMs: 60_000,
};

type Answer = { model: LsaModel | null } | { error: string };

export class LsaWorkers implements LsaTrainer {
  private readonly pool: WorkerPool;

  constructor(options: Partial<WorkerPoolOptions> = {}) {
    this.pool = new WorkerPool("./lsa-worker", { ...DEFAULT_LSA_TRAINER_OPTIONS, ...options });
  }

  /** Threads alive (training or idle). */
  get threads(): number {
    return this.pool.size;
  }

  async open(options: LsaOptions, signal: AbortSignal): Promise<LsaTraining | null> {
    const worker = await this.pool.acquire(signal);
    return worker ? new WorkerTraining(this.pool, worker, options, signal) : null;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

class WorkerTraining implements LsaTraining {
  private released = false;
  /** Why the thread ended before answering (it may end while sections are still being sent). */
  private failure: Error | undefined;
  private settle: ((answer: Answer | { failure: Error }) => void) | undefined;
  private readonly onMessage = (answer: Answer) => this.settle?.(answer);
  private readonly onError = (error: Error) => this.fail(error);
  private readonly onExit = (code: number) => this.fail(new Error(`the LSA training thread stopped (exit code ${code})`));

  constructor(
    private readonly pool: WorkerPool,
    private readonly worker: Worker,
    private readonly options: LsaOptions,
    private readonly signal: AbortSignal,
  ) {
    worker.on("message", this.onMessage).on("error", this.onError).on("exit", this.onExit);
  }

  add(vectors: string[]): void {
    if (!this.released) this.worker.postMessage({ type: "add", vectors });
  }

  train(): ReturnType<LsaTraining["train"]> {
    return new Promise((resolve, reject) => {
      const onAbort = () => finish({ failure: new Error("aborted") });
      const finish = (answer: Answer | { failure: Error }) => {
        this.signal.removeEventListener("abort", onAbort);
        this.settle = undefined;
        this.release("model" in answer);
        if (this.signal.aborted) resolve({ stopped: "signal", message: String(this.signal.reason) });
        else if ("model" in answer) resolve({ model: answer.model });
        else if ("error" in answer) reject(new Error(`LSA training failed: ${answer.error}`));
        else if ((answer.failure as Error & { code?: string }).code === "ERR_WORKER_OUT_OF_MEMORY")
          resolve({ stopped: "memory", message: "training passed its memory bound" });
        else reject(answer.failure);
      };
      if (this.signal.aborted || this.failure || this.released) return finish({ failure: this.failure ?? new Error("closed") });
      this.settle = finish;
      this.signal.addEventListener("abort", onAbort, { once: true });
      this.worker.postMessage({ type: "train", options: { dimensions: this.options.dimensions, termsMax: this.options.termsMax } });
    });
  }

  close(): void {
    this.release(false);
  }

  private fail(error: Error): void {
    this.failure ??= error;
    this.settle?.({ failure: this.failure });
  }

  /** Gives the thread back: kept when it answered, terminated otherwise (its work stops at once). */
  private release(reusable: boolean): void {
    if (this.released) return;
    this.released = true;
    this.worker.off("message", this.onMessage).off("error", this.onError).off("exit", this.onExit);
    this.pool.release(this.worker, reusable);
  }
}
