// Errors meant for clients (domain errors, GraphQL validation) keep their message and get
// `extensions.code` and `extensions.http.status`; anything else is logged and masked.
import { GraphQLError } from "graphql";
import type { Plugin } from "graphql-yoga";
import { boundErrorMessages, DomainError } from "../../core/errors.ts";
import { OperationStopped } from "../../db/statement-scope.ts";

export function toGraphQLError(error: DomainError, source?: GraphQLError): GraphQLError {
  return new GraphQLError(error.message, {
    nodes: source?.nodes,
    positions: source?.positions,
    path: source?.path,
    extensions: { ...error.details, code: error.code, http: { status: error.status } },
  });
}

/** Prisma's unique-constraint violation: two writers raced for the same unique value. */
const isUniqueViolation = (error: unknown) => (error as { code?: string } | null)?.code === "P2002";

/** PostgreSQL cancelled a statement at its `statement_timeout` (SQLSTATE 57014). */
function isStatementTimeout(error: unknown): boolean {
  for (
    let cause = error as { code?: unknown; cause?: unknown; message?: unknown } | undefined, depth = 0;
    cause && depth < 5;
    cause = cause.cause as typeof cause, depth++
  ) {
    if (cause.code === "57014" || (typeof cause.message === "string" && cause.message.includes("statement timeout"))) return true;
  }
  return false;
}

/**
 * What a client sees of an error: its own kind of error keeps its message, bounded (no message
 * echoes a large input, GraphQL's own "got invalid value" ones included); the rest is masked.
 */
export function maskError(error: unknown): Error {
  return boundErrorMessages([maskOne(error)])[0];
}

function maskOne(error: unknown): Error {
  const original = error instanceof GraphQLError ? (error.originalError ?? error) : error;
  if (original instanceof DomainError) {
    // The same error, annotated: Yoga logs every error its mask replaces, and a client's
    // mistake is not a server error worth a log line.
    if (error instanceof GraphQLError && Object.isExtensible(error.extensions)) {
      Object.assign(error.extensions, { ...original.details, code: original.code, http: { status: original.status } });
      return error;
    }
    return toGraphQLError(original, error instanceof GraphQLError ? error : undefined);
  }
  if (isStatementTimeout(original)) {
    return new GraphQLError(
      "A database statement ran longer than the operation's deadline and was cancelled; retry later or ask for less",
      {
        path: error instanceof GraphQLError ? error.path : undefined,
        extensions: { code: "EXECUTION_TIMEOUT", http: { status: 503 } },
      },
    );
  }
  if (original instanceof OperationStopped) {
    // A statement its stopped operation's resolvers tried to send (src/db/statement-scope.ts).
    return new GraphQLError("The operation was stopped (deadline or client gone)", {
      path: error instanceof GraphQLError ? error.path : undefined,
      extensions: { code: "EXECUTION_TIMEOUT", http: { status: 503 } },
    });
  }
  if ((original as { name?: unknown } | null)?.name === "AbortError") {
    // The client went away: nobody reads this answer, and it is no server error.
    return new GraphQLError("The client went away; the operation was stopped", {
      extensions: { code: "CLIENT_CLOSED_REQUEST", http: { status: 499 } },
    });
  }
  if (isUniqueViolation(original)) {
    return toGraphQLError(new DomainError("CONFLICT", "A concurrent change took this value; retry the request"));
  }
  // Errors of the request itself (syntax, validation, variables that do not coerce) have no
  // path and are the client's to read. An error raised while resolving a field is only shown
  // when it is a domain error: anything else, Pothos' own errors included, is masked.
  // They get a code too (the one of every bad input), so that no error reaches a client without one.
  if (error instanceof GraphQLError && !error.path) {
    if (error.extensions?.code) return error;
    if (Object.isExtensible(error.extensions)) {
      Object.assign(error.extensions, { code: "BAD_REQUEST" });
      return error;
    }
    return new GraphQLError(error.message, {
      nodes: error.nodes,
      source: error.source,
      positions: error.positions,
      originalError: error.originalError,
      extensions: { ...error.extensions, code: "BAD_REQUEST" },
    });
  }
  // A raw query's error on PGlite prints no cause ("Message: `undefined`"): the driver's is logged beside it.
  const cause = (original as { meta?: { driverAdapterError?: { cause?: { message?: string; originalMessage?: string } } } }).meta
    ?.driverAdapterError?.cause;
  console.error("Unexpected error:", original, ...(cause ? [`(database: ${cause.originalMessage ?? cause.message})`] : []));
  return new GraphQLError("Unexpected error", {
    path: error instanceof GraphQLError ? error.path : undefined,
    extensions: { code: "INTERNAL_SERVER_ERROR", http: { status: 500 } },
  });
}

/**
 * Request errors (syntax, validation) never reach the mask: Yoga answers them as they are, and
 * GraphQL's own messages quote the document ("Cannot query field …"). Every error a result carries
 * gets the same bound here.
 */
export function useBoundedErrorMessages(): Plugin {
  return {
    onResultProcess({ result }) {
      for (const single of Array.isArray(result) ? result : [result]) {
        const errors = (single as { errors?: unknown } | undefined)?.errors;
        if (Array.isArray(errors)) boundErrorMessages(errors);
      }
    },
  };
}
