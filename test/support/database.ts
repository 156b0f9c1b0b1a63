// Test databases. Test files run in parallel workers, so every call gets its own database: a fresh
// PostgreSQL database when DATABASE_URL is set, else an in-memory PGlite.
import { createHash, randomBytes } from "node:crypto";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { openDatabase, PGLITE_EXTENSIONS, type Database } from "../../src/db/client.ts";
import { readMigrations, runMigrations } from "../../src/db/migrate.ts";

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
export async function openTestDatabase(options: { statementTimeoutMs?: number; directReads?: boolean } = {}): Promise<Database> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) return openDatabase({ dataDir: "memory://", pgliteDataDir: await migratedPGlite(), directReads: options.directReads });
  const scratch = await createScratchDatabase(serverUrl);
  let db: Database;
  try {
    db = await openDatabase({ databaseUrl: scratch.url, statementTimeoutMs: options.statementTimeoutMs, directReads: options.directReads });
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

/**
 * A dump of an in-memory PGlite cluster with every migration applied, made once per set of
 * migrations (and PGlite version) and kept in the temporary directory, so that each test database
 * starts from it instead of running initdb and the migrations again (seconds per database). Two
 * workers may both make it the first time; each writes its own file and renames it into place.
 */
let template: Promise<Blob> | undefined;
export function migratedPGlite(): Promise<Blob> {
  template ??= (async () => {
    const manifest = JSON.parse(readFileSync(join(import.meta.dirname, "../../package.json"), "utf8"));
    const version = String(manifest.dependencies["@electric-sql/pglite"]);
    const key = createHash("sha256")
      .update(version)
      .update(
        readMigrations()
          .map((m) => `${m.name}:${m.checksum}`)
          .join("\n"),
      )
      .digest("hex")
      .slice(0, 16);
    const path = join(tmpdir(), `dps-test-pglite-${key}.tar`);
    try {
      return new Blob([readFileSync(path)]);
    } catch {
      const pglite = new PGlite({ extensions: PGLITE_EXTENSIONS });
      try {
        await runMigrations({ kind: "pglite", pglite });
        const dump = await pglite.dumpDataDir("none");
        const partial = `${path}.${process.pid}.${randomBytes(4).toString("hex")}`;
        writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
        renameSync(partial, path);
        return dump;
      } finally {
        await pglite.close();
      }
    }
  })();
  return template;
}
