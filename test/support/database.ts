// Test databases. Test files run in parallel workers, so every call gets its own database: a fresh
// PostgreSQL database when DATABASE_URL is set, else an in-memory PGlite.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { openDatabase, type Database } from "../../src/db/client.ts";

/** Creates an empty, uniquely named database on the DATABASE_URL server. */
export async function createScratchDatabase(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `test_${randomBytes(6).toString("hex")}`;
  await adminQuery(serverUrl, `CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    // WITH (FORCE) (PostgreSQL 13+) ends connections a failed test may have left open.
    drop: () => adminQuery(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

/** `statementTimeoutMs`: as the server passes its execution deadline (PostgreSQL only). */
export async function openTestDatabase(options: { statementTimeoutMs?: number } = {}): Promise<Database> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) return openDatabase({ dataDir: "memory://" });
  const scratch = await createScratchDatabase(serverUrl);
  let db: Database;
  try {
    db = await openDatabase({ databaseUrl: scratch.url, statementTimeoutMs: options.statementTimeoutMs });
  } catch (error) {
    await scratch.drop();
    throw error;
  }
  const close = db.close;
  db.close = async () => {
    try {
      await close();
    } finally {
      await scratch.drop();
    }
  };
  return db;
}

async function adminQuery(serverUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
