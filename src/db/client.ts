// Database factory: PostgreSQL through a pg Pool when a URL is given, else embedded PGlite in a
// data directory that one process owns at a time.
import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { PrismaPg } from "@prisma/adapter-pg";
import type { SqlQueryable } from "@prisma/driver-adapter-utils";
import pg from "pg";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { PrismaClient, type Prisma } from "../generated/prisma/client.ts";
import { ChangeFeed, listenForChanges, REALTIME_CHANNEL } from "./change-feed.ts";
import { runMigrations, unreachable } from "./migrate.ts";
import { planOnce, preparedPGlite } from "./pglite-prepared.ts";
import { readThroughAdapter, type ReadQuery } from "./raw-query.ts";
import { currentStatementScope, type StatementScope } from "./statement-scope.ts";

/** Extensions PGlite loads (its build ships them); the migrations run CREATE EXTENSION for them. */
export const PGLITE_EXTENSIONS = { pg_trgm };

export interface Database {
  prisma: PrismaClient;
  kind: "pglite" | "postgres";
  /** Runs multi-statement SQL with the simple protocol (PGlite exec / pg simple query). */
  exec(sql: string): Promise<void>;
  /** Count of SQL statements sent by Prisma since open, the job queue's and the rate limiter's left out (tests use deltas to catch N+1). */
  readonly statementCount: number;
  /** Writes of the tables published sites are served from, by this process and (PostgreSQL) others (change-feed.ts). */
  readonly changes: ChangeFeed;
  /** Connections of the PostgreSQL pool (for metrics); undefined on the embedded database. */
  poolStats(): { total: number; idle: number; waiting: number } | undefined;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** PostgreSQL connection string; when unset, PGlite in `dataDir` is used. */
  databaseUrl?: string;
  /** PGlite data directory (default ./data; cluster in <dataDir>/pgdata); "memory://" = in memory. */
  dataDir?: string;
  /** Apply pending migrations before returning (default true). */
  migrate?: boolean;
  /**
   * In-memory PGlite only: start from this dump of a data directory (`PGlite.dumpDataDir`) instead
   * of an empty cluster. Tests pass one of an already migrated cluster, which skips initdb and the
   * migrations for every database they open; pending migrations still run.
   */
  pgliteDataDir?: Blob;
  /** PostgreSQL: how long a connection may take to open before it fails (default 10 s). */
  connectTimeoutMs?: number;
  /**
   * PostgreSQL: `statement_timeout` of the pool's connections (unset: none). The server passes
   * the execution deadline, so a statement an operation started (a lock wait included) stops at
   * the latest one deadline after it began, instead of running on after the client was answered.
   */
  statementTimeoutMs?: number;
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  const migrate = options.migrate !== false;
  if (options.databaseUrl) {
    const connectionString = options.databaseUrl;
    const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    if (migrate) {
      await runMigrations({ kind: "postgres", connectionString }, { connectTimeoutMs });
    } else {
      // Still fail fast, and by name, when the server cannot be reached.
      const probe = new pg.Client({ connectionString, connectionTimeoutMillis: connectTimeoutMs });
      probe.on("error", () => {});
      await probe.connect().catch((error) => Promise.reject(unreachable(connectionString, error)));
      await probe.end();
    }
    const poolOptions = { connectionString, connectionTimeoutMillis: connectTimeoutMs, statement_timeout: options.statementTimeoutMs };
    const pool = new pg.Pool(poolOptions);
    // The reads `queryRows` sends (src/core/loaders.ts; raw-query.ts) run on connections of their
    // own, as named prepared statements planned once (a generic plan): see `preparedReads`.
    const readPool = new pg.Pool({ ...poolOptions, options: "-c plan_cache_mode=force_generic_plan" });
    // Without a listener, an idle connection dropped by the server would crash the process.
    pool.on("error", (error) => console.error("PostgreSQL pool error:", error.message));
    readPool.on("error", (error) => console.error("PostgreSQL pool error:", error.message));
    const stats = () => ({
      total: pool.totalCount + readPool.totalCount,
      idle: pool.idleCount + readPool.idleCount,
      waiting: pool.waitingCount + readPool.waitingCount,
    });
    // Other instances' writes arrive as notifications (the triggers of 20261126000000_site_data_notify).
    const changes = new ChangeFeed(false);
    const stopListening = await listenForChanges(changes, {
      connectionString,
      connectTimeoutMs,
      onError: (error) => console.error("PostgreSQL change listener lost:", error.message),
    });
    // A statement `queryRows` names (`preparedReads`) is prepared under that name; Prisma's own are not named.
    const statementNameGenerator = (query: SqlQuery) => (query as Partial<ReadQuery>).name as string;
    return wrap(
      "postgres",
      withCancellableStatements(new PrismaPg(pool, { statementNameGenerator }), pool, readPool, connectionString),
      async (sql) => void (await pool.query(sql)),
      async () => {
        await stopListening();
        await Promise.all([pool.end(), readPool.end()]);
      },
      stats,
      changes,
      preparedReads(),
    );
  }

  const dataDir = options.dataDir ?? "./data";
  const inMemory = dataDir === "memory://";
  // The lock comes first: a second process must not touch the directory at all.
  const unlock = inMemory ? () => {} : lockDataDir(dataDir);
  let pglite: PGlite | undefined;
  try {
    // PGlite's initdb refuses a non-empty directory, so the cluster lives beside the lock.
    pglite = inMemory
      ? new PGlite({ extensions: PGLITE_EXTENSIONS, ...(options.pgliteDataDir ? { loadDataDir: options.pgliteDataDir } : {}) })
      : new PGlite(join(dataDir, "pgdata"), { extensions: PGLITE_EXTENSIONS });
    await pglite.waitReady;
    // PGlite's build starts PostgreSQL with client_min_messages = debug3 and log_min_messages =
    // debug1: every statement then formats DEBUG messages (parse, bind) and sends them along with
    // its answer. PostgreSQL's defaults, as on a server.
    await pglite.exec("SET client_min_messages = notice; SET log_min_messages = warning");
    if (migrate) await runMigrations({ kind: "pglite", pglite });
  } catch (error) {
    await pglite?.close().catch(() => {});
    unlock();
    throw error;
  }
  const db = pglite;
  // One process owns the database: its own writes are all there are.
  const changes = new ChangeFeed(true);
  // PGlite hands the notifications of a committed write to its listeners (pglite-prepared.ts).
  await db.listen(REALTIME_CHANNEL, (payload) => changes.rows(payload));
  return wrap(
    "pglite",
    // Statements prepared once and run in one call into PGlite each (pglite-prepared.ts).
    new PrismaPGlite(preparedPGlite(db)),
    async (sql) => void (await db.exec(sql)),
    async () => {
      try {
        await db.close();
      } finally {
        unlock();
      }
    },
    () => undefined,
    changes,
    planOnce,
  );
}

/** How many distinct statement texts of `queryRows` PostgreSQL keeps prepared, per connection of the read pool. */
const MAX_PREPARED_READS = 200;

/**
 * The names `queryRows`' statements are prepared under on PostgreSQL (issue 15). PostgreSQL parses
 * and plans an unnamed statement at every execution, and plans a named one for its values (a
 * custom plan) unless it judges a generic plan cheaper by estimated execution cost alone, which it
 * never does for the wide reads of src/core/loaders.ts (`= ANY($1)`): planning the space view
 * costs PostgreSQL ~0.6 ms, twice what executing it does. Named, and run on the read pool, whose
 * sessions have `plan_cache_mode = force_generic_plan`, a read is parsed and planned once per
 * connection, its values bound at each execution; as on the embedded database (`planOnce`), for
 * statements whose results do not depend on a plan's row order. Prisma's own statements stay on
 * the main pool, unnamed and planned as before. A name is never given to another text (pg refuses
 * that): past MAX_PREPARED_READS texts, the rest go unnamed to the main pool, as before.
 */
function preparedReads(): (sql: string) => string | undefined {
  const names = new Map<string, string>();
  return (sql) => {
    let name = names.get(sql);
    if (name === undefined && names.size < MAX_PREPARED_READS) names.set(sql, (name = `read_${names.size + 1}`));
    return name;
  };
}

interface SqlQuery {
  sql: string;
  args: unknown[];
}
type Queryable = Record<string | symbol, unknown>;

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
function withCancellableStatements(factory: PrismaPg, pool: pg.Pool, readPool: pg.Pool, connectionString: string): PrismaPg {
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

type Method = (this: unknown, ...args: unknown[]) => Promise<unknown>;
type Made = (...args: never[]) => unknown;

/**
 * A proxy of `target` whose methods are `wrap(property, method)`'s function where it gives one,
 * else the method bound to `target`: each made once per method (a statement reads `queryRaw`
 * through two of these proxies; a function made at every access was garbage at every statement).
 */
function cachedMethods<T extends object>(target: T, wrap: (property: string | symbol, method: Method) => Made | undefined): T {
  const made = new Map<string | symbol, { method: unknown; made: Made }>();
  return new Proxy(target, {
    get(object, property, receiver) {
      const value: unknown = Reflect.get(object, property, receiver);
      if (typeof value !== "function") return value;
      const known = made.get(property);
      if (known?.method === value) return known.made;
      const fn: Made = wrap(property, value as Method) ?? value.bind(object);
      made.set(property, { method: value, made: fn });
      return fn;
    },
  });
}

// pglite-prisma-adapter 0.7 is typed against an older @prisma/driver-adapter-utils (7.2); same runtime shape.
type Adapter = NonNullable<Prisma.PrismaClientOptions["adapter"]>;

interface Instrumentation {
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
function instrument<T extends object>(factory: T, { onStatement, changes, pglite = false, onConnect }: Instrumentation): T {
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

function wrap(
  kind: Database["kind"],
  factory: object,
  exec: (sql: string) => Promise<void>,
  closeDriver: () => Promise<void>,
  poolStats: Database["poolStats"],
  changes: ChangeFeed,
  beforeRead: (sql: string) => string | undefined,
): Database {
  // What N+1 tests count: every statement Prisma sends (each query of an `include`, and the COMMIT
  // of a transaction; the BEGIN is issued inside the adapter and is not counted).
  // The job worker's polling (statements on "Job") runs in the background whatever the requests
  // do, and the rate limiter's counters (on "RateLimiterFlexible") take an extra statement when a
  // window rolls over or its expiry sweep runs, on the wall clock: both are left out.
  let statementCount = 0;
  const onStatement = (sql: string) => {
    if (!sql.includes('"Job"') && !sql.includes('"RateLimiterFlexible"')) statementCount++;
  };
  // The adapter Prisma connected: the hottest raw reads go to it directly (raw-query.ts).
  let connected: SqlQueryable | undefined;
  const adapter = instrument(factory, {
    onStatement,
    changes,
    pglite: kind === "pglite",
    onConnect: (queryable) => {
      connected = queryable;
    },
  }) as Adapter;
  // "minimal": no call-site capture (a `new Error()` per query) to pretty-print errors nobody reads.
  const client = new PrismaClient({ adapter, errorFormat: "minimal" });
  readThroughAdapter(client, { adapter: () => connected, beforeRead });
  let closing: Promise<void> | undefined;
  return {
    prisma: client,
    kind,
    exec,
    changes,
    get statementCount() {
      return statementCount;
    },
    poolStats,
    close() {
      closing ??= (async () => {
        connected = undefined;
        try {
          await client.$disconnect();
        } finally {
          await closeDriver();
        }
      })();
      return closing;
    },
  };
}

/** Lock files this process holds, to tell "our own live pid" from "our pid reused after restart". */
const heldLocks = new Set<string>();

/**
 * Takes `<dataDir>/.lock` (holding our pid) or throws. The file is written aside and hard-linked
 * into place, so it appears atomically with its content and link() fails if it already exists.
 * A lock whose pid is dead is stale and taken over. Returns the release function.
 */
function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const lockFile = resolve(dataDir, ".lock");
  const temp = `${lockFile}.${process.pid}`;
  writeFileSync(temp, String(process.pid));
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        linkSync(temp, lockFile);
        heldLocks.add(lockFile);
        return () => {
          heldLocks.delete(lockFile);
          rmSync(lockFile, { force: true });
        };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
      let pid: number;
      try {
        pid = Number(readFileSync(lockFile, "utf8").trim());
      } catch {
        continue; // released between link() and read: try again
      }
      // Our own pid counts as alive only if we really hold it: in a restarted container the app
      // often gets the same pid (e.g. 1) as in its previous life.
      const alive = pid === process.pid ? heldLocks.has(lockFile) : isAlive(pid);
      if (alive) {
        throw new Error(
          `Data directory ${dataDir} is in use by another process (pid ${pid}). ` + `Stop it, or set DATA_DIR to another directory.`,
        );
      }
      // Stale (owner died without releasing). Two processes taking over the same stale lock at
      // the same instant could both win; that needs a crash and a double start together.
      rmSync(lockFile, { force: true });
    }
    throw new Error(`Could not lock data directory ${dataDir}: ${lockFile} keeps changing.`);
  } finally {
    rmSync(temp, { force: true });
  }
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0); // signal 0: existence check only
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"; // exists, owned by another user
  }
}
