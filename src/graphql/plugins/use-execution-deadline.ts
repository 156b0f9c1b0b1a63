// Every operation, on /graphql and REST routes alike, runs under a signal that aborts when its
// deadline passes or when the client goes away: the executor then resolves no further field and
// answers at once (the deadline as 408 EXECUTION_TIMEOUT). Statements already sent to PostgreSQL
// are bounded by the same deadline through `statement_timeout` (src/db/client.ts).
import { GraphQLError } from "graphql";
import type { Plugin } from "graphql-yoga";

export function useExecutionDeadline(timeoutMs: number): Plugin {
  return {
    onExecute({ args }) {
      const deadline = new AbortController();
      const timer = setTimeout(
        () =>
          deadline.abort(
            new GraphQLError(`The operation ran longer than its deadline of ${timeoutMs} ms and was stopped; ask for less`, {
              extensions: { code: "EXECUTION_TIMEOUT", http: { status: 408 } },
            }),
          ),
        timeoutMs,
      );
      const client = (args.contextValue as { request?: Request }).request?.signal;
      (args as { signal?: AbortSignal }).signal = client ? AbortSignal.any([client, deadline.signal]) : deadline.signal;
      return {
        onExecuteDone() {
          clearTimeout(timer);
        },
      };
    },
  };
}
