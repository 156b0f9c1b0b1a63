import { spawnSync } from "node:child_process";
import { appendFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { describe, it, expect } from "vitest";
import { openDatabase, PGLITE_EXTENSIONS } from "../src/db/client.ts";
import { MIGRATIONS_DIR, readMigrations, runMigrations, type MigrationTarget } from "../src/db/migrate.ts";
import { createScratchDatabase, openTestDatabase } from "./support/database.ts";

const serverUrl = process.env.DATABASE_URL;
const names = readMigrations().map((m) => m.name);

/** An empty, unmigrated database of the kind under test, with a way to read it and drop it. */
async function emptyTarget(): Promise<{
  target: MigrationTarget;
  query<R>(sql: string): Promise<R[]>;
  dispose(): Promise<void>;
}> {
  if (serverUrl) {
    const scratch = await createScratchDatabase(serverUrl);
    const { default: pg } = await import("pg");
    const client = new pg.Client({ connectionString: scratch.url });
    await client.connect();
    return {
      target: { kind: "postgres", connectionString: scratch.url },
      query: async (sql) => (await client.query(sql)).rows,
      dispose: async () => {
        await client.end();
        await scratch.drop();
      },
    };
  }
  const pglite = new PGlite({ extensions: PGLITE_EXTENSIONS });
  return {
    target: { kind: "pglite", pglite },
    query: async (sql) => (await pglite.query<any>(sql)).rows,
    dispose: () => pglite.close(),
  };
}

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "db-test-"));
}

describe("migrations", { timeout: 60_000 }, () => {
  it("applies each migration once, records it, and applies nothing the second time", async () => {
    const db = await emptyTarget();
    try {
      expect(names.length).toBeGreaterThan(0);
      expect(await runMigrations(db.target)).toEqual(names);
      expect(await runMigrations(db.target)).toEqual([]);
      const rows = await db.query<{ name: string; checksum: string }>(`SELECT name, checksum FROM "_migrations" ORDER BY name`);
      expect(rows).toEqual(readMigrations().map(({ name, checksum }) => ({ name, checksum })));
    } finally {
      await db.dispose();
    }
  });

  it("refuses an applied migration whose checksum changed, before applying anything", async () => {
    const db = await emptyTarget();
    const dir = tempDir();
    try {
      await runMigrations(db.target);
      cpSync(MIGRATIONS_DIR, dir, { recursive: true });
      appendFileSync(join(dir, names[0], "migration.sql"), "\n-- edited after release\n");
      mkdirSync(join(dir, "99990101000000_extra"));
      writeFileSync(join(dir, "99990101000000_extra", "migration.sql"), "CREATE TABLE extra (id int);");
      await expect(runMigrations(db.target, { migrationsDir: dir })).rejects.toThrow(
        `Migration ${names[0]} was changed after it was applied`,
      );
      expect(await db.query(`SELECT 1 FROM pg_tables WHERE tablename = 'extra'`)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await db.dispose();
    }
  });

  it("rolls back a failing migration together with its record", async () => {
    const db = await emptyTarget();
    const dir = tempDir();
    try {
      cpSync(MIGRATIONS_DIR, dir, { recursive: true });
      mkdirSync(join(dir, "99990101000000_broken"));
      writeFileSync(join(dir, "99990101000000_broken", "migration.sql"), "CREATE TABLE half (id int);\nSELECT no_such_column FROM half;");
      await expect(runMigrations(db.target, { migrationsDir: dir })).rejects.toThrow(/no_such_column/);
      expect(await db.query(`SELECT 1 FROM pg_tables WHERE tablename = 'half'`)).toEqual([]);
      const rows = await db.query<{ name: string }>(`SELECT name FROM "_migrations" ORDER BY name`);
      expect(rows.map((r) => r.name)).toEqual(names); // the good ones stay applied
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await db.dispose();
    }
  });

  it.runIf(serverUrl)("two runners started at once apply each migration exactly once", async () => {
    const db = await emptyTarget();
    try {
      const results = await Promise.all([runMigrations(db.target), runMigrations(db.target)]);
      expect(results.flat().sort()).toEqual(names);
      const rows = await db.query<{ n: string }>(`SELECT count(*)::int AS n FROM "_migrations"`);
      expect(rows).toEqual([{ n: names.length }]);
      // And two whole gateways opening the same database at once.
      const databaseUrl = (db.target as { connectionString: string }).connectionString;
      const [a, b] = await Promise.all([openDatabase({ databaseUrl }), openDatabase({ databaseUrl })]);
      expect(await a.prisma.user.count()).toBe(0);
      await Promise.all([a.close(), b.close()]);
    } finally {
      await db.dispose();
    }
  });
});

describe.skipIf(serverUrl)("PGlite data directory", { timeout: 60_000 }, () => {
  it("belongs to one process: a second open fails clearly, the first keeps working", async () => {
    const dataDir = tempDir();
    try {
      const first = await openDatabase({ dataDir });
      await first.prisma.user.create({ data: { id: "usr_1", displayName: "A", email: "a@x" } });
      await expect(openDatabase({ dataDir })).rejects.toThrow(
        `Data directory ${dataDir} is in use by another process (pid ${process.pid}). ` + "Stop it, or set DATA_DIR to another directory.",
      );
      expect(await first.prisma.user.count()).toBe(1);
      await first.close();
      expect(existsSync(join(dataDir, ".lock"))).toBe(false);

      // Released on close: it opens again, keeps its data and has nothing left to migrate.
      const again = await openDatabase({ dataDir });
      expect(await again.prisma.user.count()).toBe(1);
      await again.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("refuses a lock held by another live process without touching the directory", async () => {
    const dataDir = tempDir();
    try {
      writeFileSync(join(dataDir, ".lock"), String(process.ppid));
      await expect(openDatabase({ dataDir })).rejects.toThrow(`is in use by another process (pid ${process.ppid})`);
      expect(readdirSync(dataDir)).toEqual([".lock"]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("runs with PostgreSQL's message levels, not the DEBUG ones PGlite's build starts with", async () => {
    const db = await openDatabase({ dataDir: "memory://", migrate: false });
    try {
      const levels = await db.prisma.$queryRawUnsafe<{ name: string; setting: string }[]>(
        "SELECT name, setting FROM pg_settings WHERE name IN ('client_min_messages', 'log_min_messages') ORDER BY name",
      );
      expect(levels).toEqual([
        { name: "client_min_messages", setting: "notice" },
        { name: "log_min_messages", setting: "warning" },
      ]);
    } finally {
      await db.close();
    }
  });

  it("takes over a stale lock whose process is gone", async () => {
    const dataDir = tempDir();
    try {
      const deadPid = spawnSync(process.execPath, ["-e", ""]).pid!;
      writeFileSync(join(dataDir, ".lock"), String(deadPid));
      const db = await openDatabase({ dataDir, migrate: false });
      await db.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("statement counting", { timeout: 60_000 }, () => {
  it("counts every statement Prisma sends", async () => {
    const db = await openTestDatabase();
    try {
      expect(db.kind).toBe(serverUrl ? "postgres" : "pglite");
      const delta = async (fn: () => Promise<unknown>) => {
        const before = db.statementCount;
        await fn();
        return db.statementCount - before;
      };
      expect(await delta(() => db.prisma.organization.create({ data: { id: "org_1", title: "O" } }))).toBe(1);
      expect(await delta(() => db.prisma.user.findMany())).toBe(1);
      // One statement per included relation: the root query plus members plus teams.
      expect(await delta(() => db.prisma.organization.findMany({ include: { members: true, teams: true } }))).toBe(3);
      // A batch transaction: its two queries and the COMMIT (the adapter's BEGIN is not reported).
      expect(await delta(() => db.prisma.$transaction([db.prisma.user.count(), db.prisma.team.count()]))).toBe(3);
      // exec() is not Prisma: not counted.
      expect(await delta(() => db.exec("SELECT 1; SELECT 2;"))).toBe(0);
    } finally {
      await db.close();
    }
  });
});
