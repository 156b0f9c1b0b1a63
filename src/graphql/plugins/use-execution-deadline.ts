// Every operation, on /graphql and REST routes alike, runs under a signal that aborts when its
// deadline passes or when the client goes away: the executor then resolves no further field (a
// mutation not yet started never starts) and answers at once, the deadline as 503
// EXECUTION_TIMEOUT. 503, not 4xx: the server stopped the work (often because of contention,
// e.g. a lock wait), and the same request may well succeed later; the limits a request can be
// refused for beforehand (depth, cost, tokens…) are 400s. Statements already sent to PostgreSQL
// are bounded by the same deadline through `statement_timeout` (src/db/client.ts), and a
// statement cancelled by it is answered the same way (use-error-masking.ts).
import { GraphQLError } from "graphql";
import type { Plugin } from "graphql-yoga";

export const executionTimeoutError = (timeoutMs: number) =>
  new GraphQLError(`The operation ran longer than its deadline of ${timeoutMs} ms and was stopped; retry later or ask for less`, {
    extensions: { code: "EXECUTION_TIMEOUT", http: { status: 503 } },
  });

/** Deadline of a multipart upload's operation, when EXECUTION_TIMEOUT_MS is below it. */
export const UPLOAD_TIMEOUT_MS = 60_000;

export function useExecutionDeadline(timeoutMs: number): Plugin {
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      const request = (args.contextValue as { request?: Request }).request;
      // An upload's work is bounded by its size (50 MiB) rather than by what it asks for, and
      // hashing and storing that many bytes takes seconds: it gets a longer deadline.
      const isUpload = /^multipart\/form-data/i.test(request?.headers.get("content-type") ?? "");
      const ms = isUpload ? Math.max(timeoutMs, UPLOAD_TIMEOUT_MS) : timeoutMs;
      const deadline = new AbortController();
      const timer = setTimeout(() => deadline.abort(executionTimeoutError(ms)), ms);
      const client = request?.signal;
      const signal = client ? AbortSignal.any([client, deadline.signal]) : deadline.signal;
      (args as { signal?: AbortSignal }).signal = signal;
      // graphql-jit (the REST routes' compiled operations) does not read the signal: the answer
      // is raced against it, so a REST call is answered at its deadline too.
      setExecuteFn((executeArgs) => {
        if (signal.aborted) return Promise.reject(signal.reason);
        let onAbort: () => void = () => {};
        const aborted = new Promise<never>((_, reject) => {
          onAbort = () => reject(signal.reason);
          signal.addEventListener("abort", onAbort, { once: true });
        });
        return Promise.race([Promise.resolve(executeFn(executeArgs)), aborted]).finally(() => signal.removeEventListener("abort", onAbort));
      });
      return {
        onExecuteDone() {
          clearTimeout(timer);
        },
      };
    },
  };
}
