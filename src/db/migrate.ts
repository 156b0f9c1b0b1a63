// Our own migration runner: `prisma migrate deploy` needs a native engine these machines lack.
// Applies prisma/migrations/*/migration.sql in name order, each in one transaction together with
// its row in `_migrations`, so a crash never leaves a half-applied, unrecorded migration.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { PGlite } from "@electric-sql/pglite";
import pg from "pg";

/** Repo-relative, not cwd-relative: the CLI and tests may start from anywhere. */
export const MIGRATIONS_DIR = fileURLToPath(new URL("../../prisma/migrations/", import.meta.url));

/** Arbitrary constant key for pg_advisory_lock; advisory locks are scoped to one database. */
const MIGRATION_LOCK_KEY = 72_310_455;

export type MigrationTarget = { kind: "pglite"; pglite: PGlite } | { kind: "postgres"; connectionString: string };

interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

/** The small surface both drivers share; multi-statement SQL goes through the simple protocol. */
interface Conn {
  exec(sql: string): Promise<void>;
  query<R>(sql: string, params?: unknown[]): Promise<R[]>;
  transaction(fn: () => Promise<void>): Promise<void>;
}

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS "_migrations" (
  name text PRIMARY KEY,
  checksum text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
)`;

export function readMigrations(dir: string = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(dir, e.name, "migration.sql")))
    .map((e) => e.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, "migration.sql"), "utf8");
      // Line endings normalized so a git autocrlf checkout does not look like an edit.
      const checksum = createHash("sha256").update(sql.replace(/\r\n/g, "\n")).digest("hex");
      return { name, sql, checksum };
    });
}

/** Applies pending migrations; returns the names applied (empty when up to date). */
export async function runMigrations(
  target: MigrationTarget,
  options: { migrationsDir?: string; connectTimeoutMs?: number } = {},
): Promise<string[]> {
  const migrations = readMigrations(options.migrationsDir);
  if (target.kind === "pglite") {
    // One connection in one process (the data-dir lock guarantees it): nothing to race with.
    return applyPending(pgliteConn(target.pglite), migrations);
  }
  // Several gateways may start at once: one dedicated connection holds the advisory lock for the
  // whole run and does the work, so the lock and the migrations share a session.
  const client = new pg.Client({ connectionString: target.connectionString, connectionTimeoutMillis: options.connectTimeoutMs });
  // A dropped connection also rejects the pending query; without a listener it would crash.
  client.on("error", () => {});
  try {
    await client.connect();
  } catch (error) {
    throw unreachable(target.connectionString, error);
  }
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY]);
    try {
      return await applyPending(pgConn(client), migrations);
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY]);
    }
  } finally {
    await client.end();
  }
}

/** Names the setting and the server (never the password), so a wrong URL is found at once. */
export function unreachable(connectionString: string, error: unknown): Error {
  const url = new URL(connectionString);
  const where = `${url.hostname || "localhost"}:${url.port || 5432}`;
  const cause = (error as Error).message || (error as { code?: string }).code || String(error);
  return new Error(`Cannot connect to PostgreSQL at ${where} (DATABASE_URL): ${cause}`, { cause: error });
}

/** The migrations of this build that the database has not applied (empty: up to date). */
export async function pendingMigrations(query: (sql: string) => Promise<{ name: string }[]>): Promise<string[]> {
  const applied = new Set((await query(`SELECT name FROM "_migrations"`)).map((row) => row.name));
  return readMigrations()
    .map((migration) => migration.name)
    .filter((name) => !applied.has(name));
}

async function applyPending(conn: Conn, migrations: Migration[]): Promise<string[]> {
  await conn.exec(CREATE_TABLE);
  const rows = await conn.query<{ name: string; checksum: string }>(`SELECT name, checksum FROM "_migrations"`);
  const applied = new Map(rows.map((r) => [r.name, r.checksum]));
  for (const m of migrations) {
    const checksum = applied.get(m.name);
    if (checksum !== undefined && checksum !== m.checksum) {
      throw new Error(
        `Migration ${m.name} was changed after it was applied (checksum differs). ` +
          `Never edit an applied migration: restore it and add a new migration instead.`,
      );
    }
  }
  const done: string[] = [];
  for (const m of migrations) {
    if (applied.has(m.name)) continue;
    await conn.transaction(async () => {
      await conn.exec(m.sql);
      await conn.query(`INSERT INTO "_migrations" (name, checksum) VALUES ($1, $2)`, [m.name, m.checksum]);
    });
    done.push(m.name);
  }
  return done;
}

function pgliteConn(db: PGlite): Conn {
  return {
    exec: async (sql) => void (await db.exec(sql)),
    query: async <R>(sql: string, params?: unknown[]) => (await db.query<R>(sql, params)).rows,
    // PGlite's own transaction() hands out a scoped object; plain BEGIN/COMMIT keeps one Conn.
    transaction: (fn) => inTransaction((sql) => db.exec(sql).then(() => undefined), fn),
  };
}

function pgConn(client: pg.Client): Conn {
  return {
    // A query without parameters uses the simple protocol, which allows several statements.
    exec: async (sql) => void (await client.query(sql)),
    query: async <R>(sql: string, params?: unknown[]) => (await client.query(sql, params)).rows as R[],
    transaction: (fn) => inTransaction((sql) => client.query(sql).then(() => undefined), fn),
  };
}

async function inTransaction(run: (sql: string) => Promise<void>, fn: () => Promise<void>) {
  await run("BEGIN");
  try {
    await fn();
    await run("COMMIT");
  } catch (error) {
    await run("ROLLBACK").catch(() => {}); // keep the original error, not the rollback's
    throw error;
  }
}
