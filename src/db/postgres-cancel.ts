// Statements an operation started on PostgreSQL stop with it: its deadline or its client going
// away cancels them on their backend (statement-scope.ts).
import pg from "pg";
import { cachedMethods, type SqlQuery } from "./adapter-proxy.ts";
import type { ReadQuery } from "./raw-query.ts";
import { currentStatementScope, type StatementScope } from "./statement-scope.ts";

/** What the pool's connections expose of their backend (pg's own fields, untyped). */
interface BackendKey {
  processID: number;
  secretKey: number;
}

/**
 * Sends PostgreSQL's CancelRequest for the statement running on `backend`: a short connection of
 * its own that needs no pool slot and no login (the backend's key is the proof), as pg's
 * deprecated Client#cancel does.
 */
function cancelBackend(connectionString: string, backend: BackendKey): void {
  const canceller = new pg.Client({ connectionString }) as unknown as {
    host: string;
    port: number;
    connection: {
      connect(port: number | string, host?: string): void;
      cancel(processID: number, secretKey: number): void;
      on(event: string, listener: (...args: unknown[]) => void): void;
      stream: { destroy(): void };
    };
  };
  const connection = canceller.connection;
  connection.on("error", () => {}); // best effort: the statement_timeout is the backstop
  connection.on("connect", () => connection.cancel(backend.processID, backend.secretKey));
  if (canceller.host?.startsWith("/")) connection.connect(`${canceller.host}/.s.PGSQL.${canceller.port}`);
  else connection.connect(canceller.port, canceller.host);
  // The server closes it once the request is read; in case it does not, it is closed anyway.
  setTimeout(() => connection.stream.destroy(), 5000).unref();
}

/**
 * @prisma/adapter-pg runs a statement outside a transaction with `pool.query`, which hides the
 * connection it ran on. Here, a statement sent for an operation (statement-scope.ts) checks its
 * connection out itself, so that the operation stopping can cancel it on that connection's
 * backend; a connection that saw a cancel is closed rather than reused (a cancel arriving late
 * must not hit the next statement). Statements in transactions are tracked on the transaction's
 * connection the same way. Statements outside any operation go through unchanged.
 */
export function withCancellableStatements<F extends object>(factory: F, pool: pg.Pool, readPool: pg.Pool, connectionString: string): F {
  type Queryable = { client: pg.PoolClient };
  type Run = (this: unknown, query: unknown) => Promise<unknown>;
  const isStatement = (property: string | symbol) => property === "queryRaw" || property === "executeRaw";

  /** Registers a statement of `scope` about to run on `connection`; the returned function, called when it ends, unregisters it. */
  const enter = (scope: StatementScope, sql: string, connection: pg.PoolClient, onCancel: () => void) =>
    scope.enter(
      {
        cancel() {
          onCancel();
          cancelBackend(connectionString, connection as unknown as BackendKey);
        },
      },
      sql,
    );

  const wrapTransaction = <T extends object>(transaction: T): T =>
    new Proxy(transaction, {
      get(object, property, receiver) {
        const value = Reflect.get(object, property, receiver);
        if (typeof value !== "function") return value;
        if (!isStatement(property)) return value.bind(object);
        return async (query: unknown) => {
          const scope = currentStatementScope();
          if (!scope) return (value as Run).call(object, query);
          const connection = (object as unknown as Queryable).client;
          const leave = enter(scope, (query as SqlQuery).sql, connection, () => {
            // Closed, not returned to the pool, when the transaction ends (commit or rollback).
            const release = connection.release;
            connection.release = (error?: Error | boolean) => release.call(connection, error ?? true);
          });
          try {
            return await (value as Run).call(object, query);
          } finally {
            leave();
          }
        };
      },
    });

  const wrapAdapter = <T extends object>(adapter: T): T => {
    const onError = (error: unknown): never => (adapter as unknown as { onError(e: unknown): never }).onError(error);
    // The adapter with one connection in place of the pool (its methods unchanged), made once per connection.
    const onConnections = new WeakMap<pg.PoolClient, object>();
    const statement = (run: Run) => async (query: unknown) => {
      const scope = currentStatementScope();
      // A read `queryRows` named runs on the read pool (`preparedReads`), in an operation or not.
      const read = (query as Partial<ReadQuery>).name !== undefined;
      if (!scope && !read) return run.call(adapter, query);
      const sql = (query as SqlQuery).sql;
      scope?.check(sql);
      let connection: pg.PoolClient;
      try {
        connection = await (read ? readPool : pool).connect();
      } catch (error) {
        return onError(error);
      }
      let cancelled = false;
      let leave: (() => void) | undefined;
      try {
        // Refused here too should the operation have stopped while the connection was checked out.
        if (scope)
          leave = enter(scope, sql, connection, () => {
            cancelled = true;
          });
        let onConnection = onConnections.get(connection);
        if (!onConnection) onConnections.set(connection, (onConnection = Object.create(adapter, { client: { value: connection } })));
        return await run.call(onConnection, query);
      } finally {
        leave?.();
        connection.release(cancelled || undefined);
      }
    };
    return cachedMethods(adapter, (property, value) => {
      if (property === "startTransaction")
        return async (...args: unknown[]) => wrapTransaction((await value.apply(adapter, args)) as object);
      return isStatement(property) ? statement(value as Run) : undefined;
    });
  };

  return new Proxy(factory, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver);
      if (property === "connect" && typeof value === "function") {
        return async (...args: unknown[]) => wrapAdapter((await value.apply(object, args)) as object);
      }
      return typeof value === "function" ? value.bind(object) : value;
    },
  });
}
