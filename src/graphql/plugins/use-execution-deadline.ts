// Every operation, on /graphql and REST routes alike, runs under a signal that aborts when its
// deadline passes or when the client goes away: the executor then resolves no further field (a
// mutation not yet started never starts) and answers at once, the deadline as 503
// EXECUTION_TIMEOUT. 503, not 4xx: the server stopped the work (often because of contention,
// e.g. a lock wait), and the same request may well succeed later; the limits a request can be
// refused for beforehand (depth, cost, tokens…) are 400s.
//
// The deadline counts from the moment the request's parameters are known (its body read, within
// the request timeout), so parsing and validating the document count against it: a document
// that takes the whole deadline to validate is answered 503 without running. REST routes run
// documents parsed at start-up, so theirs counts from their execution.
//
// The operation's SQL statements are stopped with it (src/db/statement-scope.ts): on PostgreSQL
// a statement running when the signal aborts is cancelled on its backend, and on both databases
// its resolvers can start no further statement. `statement_timeout` (src/db/client.ts) stays as
// the backstop for statements sent outside an operation; a statement cancelled either way is
// answered as the deadline (use-error-masking.ts).
import { GraphQLError } from "graphql";
import type { Plugin } from "graphql-yoga";
import { runInStatementScope, StatementScope } from "../../db/statement-scope.ts";
import { refusalExtensions } from "./use-graphql-limits.ts";

export const executionTimeoutError = (timeoutMs: number) =>
  new GraphQLError(`The operation ran longer than its deadline of ${timeoutMs} ms and was stopped; retry later or ask for less`, {
    extensions: { code: "EXECUTION_TIMEOUT", http: { status: 503 } },
  });

/** Deadline of a multipart upload's operation, when EXECUTION_TIMEOUT_MS is below it. */
export const UPLOAD_TIMEOUT_MS = 60_000;

/**
 * The deadlines of the operations under way, behind one timer (issue 15: a timer, an
 * AbortController and its listeners per operation were ~6% of a one-statement read's CPU). The
 * timer is armed for the earliest deadline; operations of the same timeout end in about the order
 * they started, so adding one rarely re-arms it, and one that ends in time only leaves the set.
 * When it fires, the operations past their deadline are stopped and it is armed for the next one.
 */
class Deadlines {
  private readonly pending = new Set<Operation>();
  private timer: NodeJS.Timeout | undefined;
  /** When the armed timer fires (performance.now() time); Infinity when none is armed. */
  private at = Infinity;

  add(operation: Operation): void {
    this.pending.add(operation);
    if (operation.deadline < this.at) this.arm(operation.deadline);
  }

  delete(operation: Operation): void {
    this.pending.delete(operation);
  }

  private arm(at: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.at = at;
    // Unreferenced: an operation under way has its socket and statements keeping the process up.
    this.timer = setTimeout(this.fire, Math.max(0, at - performance.now())).unref();
  }

  private readonly fire = () => {
    this.timer = undefined;
    this.at = Infinity;
    // Node's timers count whole milliseconds and may fire a fraction early: an operation within a
    // millisecond of its deadline is stopped now.
    const now = performance.now() + 1;
    let next = Infinity;
    for (const operation of this.pending) {
      if (operation.deadline <= now) {
        this.pending.delete(operation);
        operation.stop(executionTimeoutError(operation.timeoutMs));
      } else if (operation.deadline < next) next = operation.deadline;
    }
    if (next < Infinity) this.arm(next);
  };
}

/**
 * One operation's execution under its deadline and its client: its statement scope, and the
 * AbortSignal the executor gets, made only if the executor reads it (graphql-js on /graphql does;
 * graphql-jit, which runs the REST routes, does not). Stopped (deadline or client gone), the
 * execution is answered at once with the reason, and its scope stops its statements.
 */
class Operation extends StatementScope {
  private controller: AbortController | undefined;
  private reason: unknown;
  private reject: ((reason: unknown) => void) | undefined;
  /** Registered with the deadlines and the client's signal (an execution that went async). */
  private watched = false;

  constructor(
    private readonly deadlines: Deadlines,
    readonly deadline: number,
    readonly timeoutMs: number,
    private readonly client: AbortSignal | undefined,
  ) {
    super();
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.halted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  run<T>(executeFn: (args: T) => unknown, args: T): unknown {
    if (this.client?.aborted) return Promise.reject(this.client.reason);
    // The executor's signal, made if it reads it (graphql-jit does not).
    Object.defineProperty(args, "signal", { configurable: true, enumerable: true, get: () => this.signal });
    let execution: unknown;
    try {
      execution = runInStatementScope(this, executeFn, args);
    } catch (error) {
      this.settle();
      return Promise.reject(error);
    }
    // Nothing can stop an execution that ended synchronously (no timer, no event ran meanwhile).
    if (typeof (execution as PromiseLike<unknown> | null)?.then !== "function") {
      this.settle();
      return execution;
    }
    // One promise per execution (issue 15): the execution's answer, or the reason it was stopped,
    // whichever comes first.
    return new Promise((resolve, reject) => {
      this.reject = reject;
      this.watched = true;
      this.deadlines.add(this);
      this.client?.addEventListener("abort", this);
      (execution as PromiseLike<unknown>).then(
        (result) => {
          this.settle();
          resolve(result);
        },
        (error) => {
          this.settle();
          reject(error);
        },
      );
    });
  }

  /** The client went away (an EventListener object: no closure per operation). */
  handleEvent(): void {
    this.stop(this.client?.reason);
  }

  /** Stops the operation: it is answered with `reason` at once, and its scope stops its statements. */
  override stop(reason?: unknown): boolean {
    if (!super.stop()) return false;
    this.reason = reason;
    this.controller?.abort(reason);
    this.release();
    this.reject?.(reason);
    return true;
  }

  /**
   * The execution settled. One that ended in time ends its scope. A stopped one's scope stays
   * stopped: the executor answers at the abort, but resolvers already running unwind after it, and
   * none of them may start a statement (long-lived work an operation wakes, like the job worker,
   * starts outside its scope).
   */
  private settle(): void {
    if (!this.halted) this.end();
    this.release();
  }

  /** Nothing may stop the operation any more, and nothing outside holds it. */
  private release(): void {
    if (!this.watched) return;
    this.watched = false;
    this.deadlines.delete(this);
    this.client?.removeEventListener("abort", this);
  }
}

export function useExecutionDeadline(timeoutMs: number): Plugin {
  /** When each request's deadline started (its parameters known). */
  const started = new WeakMap<Request, number>();
  const deadlines = new Deadlines();
  // An upload's work is bounded by its size (50 MiB) rather than by what it asks for, and
  // hashing and storing that many bytes takes seconds: it gets a longer deadline.
  const deadlineOf = (request: Request | undefined) =>
    request?.method === "POST" && /^multipart\/form-data/i.test(request.headers.get("content-type") ?? "")
      ? Math.max(timeoutMs, UPLOAD_TIMEOUT_MS)
      : timeoutMs;
  const elapsed = (request: Request | undefined) => {
    const since = request && started.get(request);
    return since === undefined ? 0 : performance.now() - since;
  };
  const requestOf = (context: unknown) => (context as { request?: Request } | undefined)?.request;

  return {
    onParams({ request }) {
      started.set(request, performance.now());
    },
    onValidate({ context }) {
      return ({ setResult }) => {
        const request = requestOf(context);
        const ms = deadlineOf(request);
        // Validation is not interruptible: once it is over, a deadline it used up is answered.
        if (elapsed(request) >= ms) {
          // Yoga answers validation errors 200 to JSON clients unless told they are not the spec's.
          const error = executionTimeoutError(ms);
          Object.assign(error.extensions as Record<string, unknown>, refusalExtensions("EXECUTION_TIMEOUT", 503));
          setResult([error]);
        }
      };
    },
    onExecute({ args, executeFn, setExecuteFn, setResultAndStopExecution }) {
      const request = requestOf(args.contextValue);
      const ms = deadlineOf(request);
      const now = performance.now();
      const since = (request && started.get(request)) ?? now;
      if (since + ms <= now) {
        setResultAndStopExecution({ errors: [executionTimeoutError(ms)] });
        return;
      }
      // The operation's own stop, not AbortSignal.any of the deadline's and the client's: Node
      // keeps a composite signal with an abort listener in a process-wide set until it aborts
      // (gcPersistentSignals), and the executor (@graphql-tools/executor) leaves its listener on
      // the signal, holding the whole execution (every field's promise and value); an operation that
      // ended in time never aborts, so each one on /graphql stayed in memory for good (about
      // 150 KB per query of 100 spaces: RSS after the bench's load passed 1 GB).
      // graphql-jit (the REST routes' compiled operations) does not read the signal: the answer
      // is raced against the stop, so a REST call is answered at its deadline too.
      setExecuteFn((executeArgs) => new Operation(deadlines, since + ms, ms, request?.signal).run(executeFn, executeArgs) as never);
    },
    // A subscription's setup (its checks and first reads; Ask's retrieval) is an operation like
    // any other until its stream begins; the stream's events are bounded by their own rules
    // (the realtime queues, Ask's model deadline).
    onSubscribe({ args, subscribeFn, setSubscribeFn }) {
      const request = requestOf(args.contextValue);
      const ms = deadlineOf(request);
      const since = (request && started.get(request)) ?? performance.now();
      setSubscribeFn((subscribeArgs) => new Operation(deadlines, since + ms, ms, request?.signal).run(subscribeFn, subscribeArgs) as never);
    },
  };
}
