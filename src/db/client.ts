// Database factory: PostgreSQL through a pg Pool when a URL is given, else embedded PGlite in a
// data directory that one process owns at a time.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { PrismaPg } from "@prisma/adapter-pg";
import type { SqlQueryable } from "@prisma/driver-adapter-utils";
import pg from "pg";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { PrismaClient, type Prisma } from "../generated/prisma/client.ts";
import type { SqlQuery } from "./adapter-proxy.ts";
import { ChangeFeed, listenForChanges, REALTIME_CHANNEL } from "./change-feed.ts";
import { lockDataDir } from "./data-dir-lock.ts";
import { instrument } from "./instrument.ts";
import { runMigrations, unreachable } from "./migrate.ts";
import { planOnce, preparedPGlite } from "./pglite-prepared.ts";
import { withCancellableStatements } from "./postgres-cancel.ts";
import { directReadsRefusal, readThroughAdapter, type ReadQuery } from "./raw-query.ts";
import { openReadPool, preparedReads } from "./read-pool.ts";

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
  /**
   * Whether the hottest reads go straight to the driver adapter (raw-query.ts), and if not, why:
   * turned off (`directReads: false`) or an unverified Prisma client.
   */
  readonly directReads: { on: true } | { on: false; reason: string };
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
   * PGlite: start a new cluster from this dump of a data directory (`PGlite.dumpDataDir`) instead
   * of an empty one; ignored when `dataDir` already holds a cluster. Tests pass one of an already
   * migrated cluster, which skips initdb and the migrations for every database they open; pending
   * migrations still run.
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
  /** The hottest reads straight to the driver adapter (raw-query.ts; default true); false: through `$queryRaw`. */
  directReads?: boolean;
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
    const readPool = openReadPool(poolOptions);
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
      options.directReads !== false,
    );
  }

  const dataDir = options.dataDir ?? "./data";
  const inMemory = dataDir === "memory://";
  // The lock comes first: a second process must not touch the directory at all.
  const unlock = inMemory ? () => {} : lockDataDir(dataDir);
  let pglite: PGlite | undefined;
  try {
    // PGlite's initdb refuses a non-empty directory, so the cluster lives beside the lock.
    const clusterDir = join(dataDir, "pgdata");
    const load =
      options.pgliteDataDir && (inMemory || !existsSync(join(clusterDir, "PG_VERSION"))) ? { loadDataDir: options.pgliteDataDir } : {};
    pglite = inMemory
      ? new PGlite({ extensions: PGLITE_EXTENSIONS, ...load })
      : new PGlite(clusterDir, { extensions: PGLITE_EXTENSIONS, ...load });
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
    options.directReads !== false,
  );
}

// pglite-prisma-adapter 0.7 is typed against an older @prisma/driver-adapter-utils (7.2); same runtime shape.
type Adapter = NonNullable<Prisma.PrismaClientOptions["adapter"]>;

function wrap(
  kind: Database["kind"],
  factory: object,
  exec: (sql: string) => Promise<void>,
  closeDriver: () => Promise<void>,
  poolStats: Database["poolStats"],
  changes: ChangeFeed,
  beforeRead: (sql: string) => string | undefined,
  directReadsWanted: boolean,
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
  const refusal = directReadsWanted ? directReadsRefusal() : "turned off (DATABASE_DIRECT_READS=false)";
  if (!refusal) readThroughAdapter(client, { adapter: () => connected, beforeRead });
  let closing: Promise<void> | undefined;
  return {
    prisma: client,
    kind,
    exec,
    changes,
    directReads: refusal ? { on: false, reason: refusal } : { on: true },
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
