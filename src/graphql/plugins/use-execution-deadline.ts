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

export function useExecutionDeadline(timeoutMs: number): Plugin {
  /** When each request's deadline started (its parameters known). */
  const started = new WeakMap<Request, number>();
  // An upload's work is bounded by its size (50 MiB) rather than by what it asks for, and
  // hashing and storing that many bytes takes seconds: it gets a longer deadline.
  const deadlineOf = (request: Request | undefined) =>
    /^multipart\/form-data/i.test(request?.headers.get("content-type") ?? "") ? Math.max(timeoutMs, UPLOAD_TIMEOUT_MS) : timeoutMs;
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
      const remaining = ms - elapsed(request);
      if (remaining <= 0) {
        setResultAndStopExecution({ errors: [executionTimeoutError(ms)] });
        return;
      }
      // One controller that the deadline or the client's signal aborts, not AbortSignal.any: Node
      // keeps a composite signal with an abort listener in a process-wide set until it aborts
      // (gcPersistentSignals), and the executor (@graphql-tools/executor) leaves its listener on
      // the signal, holding the whole execution (every field's promise and value); an operation that
      // ended in time never aborts, so each one on /graphql stayed in memory for good (about
      // 150 KB per query of 100 spaces: RSS after the bench's load passed 1 GB).
      const operation = new AbortController();
      const signal = operation.signal;
      const timer = setTimeout(() => operation.abort(executionTimeoutError(ms)), remaining);
      const client = request?.signal;
      const onClientAbort = () => operation.abort(client?.reason);
      if (client?.aborted) onClientAbort();
      else client?.addEventListener("abort", onClientAbort, { once: true });
      /** The operation is over: nothing may abort it any more, and nothing outside holds it. */
      const release = () => {
        clearTimeout(timer);
        client?.removeEventListener("abort", onClientAbort);
      };
      (args as { signal?: AbortSignal }).signal = signal;
      // graphql-jit (the REST routes' compiled operations) does not read the signal: the answer
      // is raced against it, so a REST call is answered at its deadline too.
      // One promise per execution (issue 15), where a race of the execution and an abort promise,
      // with its then, finally and Promise.resolve, made five.
      setExecuteFn(
        (executeArgs) =>
          new Promise((resolve, reject) => {
            if (signal.aborted) return reject(signal.reason);
            const scope = new StatementScope(signal);
            const onAbort = () => {
              release();
              reject(signal.reason);
            };
            signal.addEventListener("abort", onAbort, { once: true });
            // An execution that ends in time ends its scope. A stopped one's scope stays stopped:
            // the executor answers at the abort, but resolvers already running unwind after it,
            // and none of them may start a statement (long-lived work an operation wakes, like
            // the job worker, starts outside its scope).
            const settle = () => {
              signal.removeEventListener("abort", onAbort);
              if (!signal.aborted) scope.end();
              release();
            };
            let execution: ReturnType<typeof executeFn>;
            try {
              execution = runInStatementScope(scope, () => executeFn(executeArgs));
            } catch (error) {
              settle();
              return reject(error);
            }
            Promise.resolve(execution).then(
              (result) => {
                settle();
                resolve(result);
              },
              (error) => {
                settle();
                reject(error);
              },
            );
          }),
      );
      return {
        onExecuteDone() {
          release();
        },
      };
    },
  };
}
