// The main thread's side of worker.mjs: one worker per import, each call bounded by a
// deadline. When a call passes its deadline (or the import's whole budget) the worker is
// terminated, which stops the CPU work at once, and a new one is started for the next call.
import { Worker } from "node:worker_threads";
import type { HtmlOutcome, HtmlReader, HtmlReaderLimits, PageMeta, PageSummary } from "../../core/import/html.ts";

const WORKER_HEAP_MB = 256;

export class HtmlSession implements HtmlReader {
  private worker: Worker | undefined;

  constructor(
    private readonly limits: HtmlReaderLimits,
    private readonly total: AbortSignal,
  ) {}

  read(html: string): Promise<HtmlOutcome<PageSummary>> {
    return this.call({ type: "read", html, maxNodes: this.limits.maxNodesPerPage, maxLinks: this.limits.maxLinksPerPage });
  }

  convert(html: string, hrefs: Map<string, string>, srcs: Map<string, string>): Promise<HtmlOutcome<{ markdown: string }>> {
    return this.call({ type: "convert", html, hrefs, srcs });
  }

  meta(html: string): Promise<HtmlOutcome<PageMeta>> {
    return this.call({ type: "meta", html, maxNodes: this.limits.maxNodesPerPage });
  }

  close() {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) void worker.terminate();
  }

  private call<T>(message: object): Promise<HtmlOutcome<T>> {
    if (this.total.aborted) return Promise.resolve({ ok: false, reason: "timeout", message: "the import's time budget is spent" });
    this.worker ??= new Worker(new URL("./worker.mjs", import.meta.url), {
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    });
    const worker = this.worker;
    return new Promise((resolve) => {
      // Only this call's listeners are removed: removeAllListeners() would also drop the ones
      // Worker uses to start its message port, and later answers would never arrive.
      const onMessage = (answer: { error?: string; tooLarge?: string } & T) => {
        if (answer.error !== undefined) finish({ ok: false, reason: "failed", message: answer.error }, false);
        else if (answer.tooLarge !== undefined) finish({ ok: false, reason: "too-large", message: answer.tooLarge }, false);
        else finish({ ok: true, value: answer }, false);
      };
      const onError = (error: Error) => finish({ ok: false, reason: "failed", message: error.message }, true);
      const onExit = (code: number) =>
        finish({ ok: false, reason: "failed", message: `the HTML reader stopped (exit code ${code})` }, true);
      const onTotal = () => finish({ ok: false, reason: "timeout", message: "the import's time budget is spent" }, true);
      const timeout = `reading it took more than ${this.limits.htmlTimeoutMs} ms`;
      const timer = setTimeout(() => finish({ ok: false, reason: "timeout", message: timeout }, true), this.limits.htmlTimeoutMs);
      const finish = (outcome: HtmlOutcome<T>, kill: boolean) => {
        clearTimeout(timer);
        this.total.removeEventListener("abort", onTotal);
        worker.off("message", onMessage).off("error", onError).off("exit", onExit);
        if (kill) {
          if (this.worker === worker) this.worker = undefined;
          void worker.terminate();
        }
        resolve(outcome);
      };
      this.total.addEventListener("abort", onTotal, { once: true });
      worker.on("message", onMessage).on("error", onError).on("exit", onExit);
      worker.postMessage(message);
    });
  }
}
