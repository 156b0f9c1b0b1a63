// Every statement Prisma sends passes here: counted, its writes announced to the change feed, and on
// PGlite spaced out so that timers and other requests get their turn.
import type { SqlQueryable } from "@prisma/driver-adapter-utils";
import { cachedMethods, type SqlQuery } from "./adapter-proxy.ts";
import type { ChangeFeed } from "./change-feed.ts";
import { currentStatementScope } from "./statement-scope.ts";

type Queryable = Record<string | symbol, unknown>;

export interface Instrumentation {
  /** Called for every statement Prisma sends (see `statementCount`). */
  onStatement(sql: string): void;
  /** Bumped once a write of the tables it watches is visible: after its statement, or its transaction's end. */
  changes: ChangeFeed;
  /** PGlite: yield to the event loop before each statement. */
  pglite?: boolean;
  /** Called with the adapter Prisma connected (as wrapped here), and with undefined once Prisma disposes of it. */
  onConnect?(adapter: SqlQueryable | undefined): void;
}

/**
 * Wraps a driver adapter factory: every statement Prisma sends through the connected adapter or
 * one of its transactions is reported to `onStatement` (the COMMIT or ROLLBACK that closes a
 * transaction included, also where the driver ends it without a statement of Prisma's; the
 * adapter's own BEGIN not, as Prisma's query log has them). Counting here rather than through
 * Prisma's `query` log events spares each query the event (its parameters serialized to JSON),
 * about a tenth of the client's CPU per query.
 *
 * On PGlite, also: PGlite runs each statement synchronously in this thread and resolves at once:
 * a long series of statements (an operation, an import) would run as one chain of microtasks, and
 * no timer (the execution deadline), no other request and no client disconnect would be seen until
 * it ends. Yielding to the event loop before each statement lets them in. (`Bytes` arguments,
 * which Prisma sends as base64 strings, are decoded by pglite-prisma-adapter ≥ 0.7 itself.)
 */
export function instrument<T extends object>(factory: T, { onStatement, changes, pglite = false, onConnect }: Instrumentation): T {
  const wrapQueryable = <Q extends object>(target: Q, transaction: boolean): Q => {
    /** A transaction that wrote a watched table: the change is visible once it ends. */
    let touched = false;
    /** After a watched write outside a transaction (failed or not: bumping is always safe). */
    const afterWrite = (sql: string, result: Promise<unknown>): Promise<unknown> => {
      if (!changes.touches(sql)) return result;
      if (transaction) {
        touched = true;
        return result;
      }
      return result.finally(() => changes.changed());
    };
    const object = target as Queryable;
    return cachedMethods(target, (property, value) => {
      if (property === "queryRaw" || property === "executeRaw") {
        if (pglite) {
          return async (query: SqlQuery) => {
            onStatement(query.sql);
            await new Promise((resolve) => setImmediate(resolve));
            // A statement of an operation stopped meanwhile (deadline, client gone) is not
            // started (statement-scope.ts); one already running cannot be cancelled here.
            currentStatementScope()?.check(query.sql);
            return afterWrite(query.sql, value.call(object, query));
          };
        }
        return (query: SqlQuery) => {
          onStatement(query.sql);
          return afterWrite(query.sql, value.call(object, query));
        };
      }
      if (property === "startTransaction") {
        return async (...args: unknown[]) => wrapQueryable((await value.apply(object, args)) as Queryable, true);
      }
      if (!transaction && property === "dispose") {
        return (...args: unknown[]) => {
          onConnect?.(undefined);
          return value.apply(object, args);
        };
      }
      if (transaction && (property === "commit" || property === "rollback")) {
        // A "phantom" end (PGlite's) is no statement Prisma sends; its log reports it all the same.
        return async (...args: unknown[]) => {
          if ((object as { options?: { usePhantomQuery?: boolean } }).options?.usePhantomQuery) onStatement(String(property));
          try {
            return await value.apply(object, args);
          } finally {
            // Prisma calls commit() once its COMMIT has run (PostgreSQL), or to run it (PGlite's
            // commit resolves when PGlite's transaction has ended): the writes are visible now.
            if (touched) changes.changed();
          }
        };
      }
      return undefined;
    });
  };
  return new Proxy(factory, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver);
      if (property === "connect" && typeof value === "function") {
        return async (...args: unknown[]) => {
          const adapter = wrapQueryable((await value.apply(object, args)) as Queryable, false);
          onConnect?.(adapter as unknown as SqlQueryable);
          return adapter;
        };
      }
      return typeof value === "function" ? value.bind(object) : value;
    },
  });
}
