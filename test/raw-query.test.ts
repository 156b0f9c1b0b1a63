// queryRows (src/db/raw-query.ts): the hottest raw reads go to the driver adapter Prisma
// connected rather than through `$queryRaw`, and give what `$queryRaw` gives (every column type,
// nulls, key order, errors), are counted, stay in their operation's statement scope (refused once
// it stopped; on PostgreSQL cancelled while running), report writes to the change feed, and run
// inside a transaction through the transaction's client; both databases plan them once. On the
// database under test.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Prisma } from "../src/generated/prisma/client.ts";
import type { Database } from "../src/db/client.ts";
import { DIRECT_READS_VERIFIED_WITH, directReadsRefusal, queryRows } from "../src/db/raw-query.ts";
import { OperationStopped, runInStatementScope, StatementScope } from "../src/db/statement-scope.ts";
import { maskError } from "../src/graphql/plugins/use-error-masking.ts";
import { openTestDatabase } from "./support/database.ts";

let db: Database;
beforeAll(async () => {
  db = await openTestDatabase();
  await db.prisma.organization.create({ data: { id: "org_a", title: "A" } }); // Prisma connects its adapter
});
afterAll(() => db?.close());

/** Every cell's type as well as its value: Date, Decimal, Uint8Array, bigint, plain JSON. */
const described = (rows: Record<string, unknown>[]) =>
  rows.map((row) =>
    Object.entries(row).map(([key, value]) => [
      key,
      Object.prototype.toString.call(value),
      (value as object | null)?.constructor?.name,
      Array.isArray(value) ? value.map((item) => (item as object | null)?.constructor?.name ?? String(item)) : undefined,
    ]),
  );

/** Through the adapter: `$queryRaw` is not called. */
async function direct<T>(query: Prisma.Sql): Promise<T[]> {
  const spy = vi.spyOn(db.prisma, "$queryRaw");
  try {
    const rows = await queryRows<T>(db.prisma, query);
    expect(spy).not.toHaveBeenCalled();
    return rows;
  } finally {
    spy.mockRestore();
  }
}

describe("queryRows", () => {
  it("gives what $queryRaw gives, column type by column type, nulls and key order included", async () => {
    const text = "héllo";
    const query = Prisma.sql`
      SELECT 1::int2 AS i2, 2147483647::int4 AS i4, 9007199254740993::int8 AS i8, 1.5::float4 AS f4, 2.25::float8 AS f8,
        12345678901234567890.123456789::numeric AS num, true AS b, false AS bf, ${text}::text AS t, 'v'::varchar AS vc,
        'c'::char(3) AS ch, '2026-01-02'::date AS d, '03:04:05.678'::time AS tm, '2026-01-02 03:04:05.678'::timestamp(3) AS ts,
        '2026-01-02 03:04:05.678+02'::timestamptz AS tstz, '{"a":[1,"x",null],"b":{"c":true}}'::json AS j,
        '{"z":1,"a":2}'::jsonb AS jb, '[1,2]'::json AS ja, '"s"'::jsonb AS js, 'null'::jsonb AS jn,
        'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid AS u, '\\x00ff10'::bytea AS by, 42::oid AS o,
        ARRAY[1, NULL, 3]::int4[] AS ai4, ARRAY[9007199254740993, NULL]::int8[] AS ai8, ARRAY['x', NULL, 'y']::text[] AS at,
        ARRAY[1.5, NULL]::numeric[] AS anum, ARRAY[true, NULL, false] AS ab, ARRAY['{"a":1}', NULL]::jsonb[] AS ajb,
        ARRAY['2026-01-02 03:04:05.678'::timestamp(3), NULL] AS ats, ARRAY['2026-01-02'::date] AS ad,
        ARRAY['\\x0102'::bytea] AS aby, ARRAY[]::text[] AS empty, '{}'::text[] AS empty2,
        NULL::int4 AS ni4, NULL::int8 AS ni8, NULL::json AS nj, NULL::timestamp(3) AS nts, NULL::numeric AS nnum,
        NULL::bytea AS nby, NULL::bool AS nb, NULL::text[] AS nat, NULL AS untyped,
        1 AS dup, 2 AS dup, ${42}::int AS p_num, ${"s"}::text AS p_str, ${true}::bool AS p_bool, ${null}::text AS p_null,
        ${["a", "b"]}::text[] AS p_arr, ${[1, 2]}::int[] AS p_int_arr, ${[] as string[]}::text[] AS p_empty`;
    const raw = await db.prisma.$queryRaw<Record<string, unknown>[]>(query);
    const rows = await direct<Record<string, unknown>>(query);
    expect(rows).toStrictEqual(raw);
    expect(described(rows)).toStrictEqual(described(raw));
    expect(Object.keys(rows[0])).toStrictEqual(Object.keys(raw[0]));
  });

  it("gives what $queryRaw gives for several rows and for none", async () => {
    const many = Prisma.sql`SELECT g AS n, g::text AS s, '2026-01-02 03:04:05.678'::timestamp(3) - (g || ' days')::interval AS at FROM generate_series(1, 50) g ORDER BY g`;
    expect(await direct(many)).toStrictEqual(await db.prisma.$queryRaw(many));
    const none = Prisma.sql`SELECT id, "createdAt" FROM "Organization" WHERE id = ${"org_none"}`;
    expect(await direct(none)).toStrictEqual([]);
  });

  it("is counted as one statement, as $queryRaw is", async () => {
    const query = Prisma.sql`SELECT id FROM "Organization" WHERE id = ${"org_a"}`;
    let before = db.statementCount;
    await direct(query);
    expect(db.statementCount - before).toBe(1);
    before = db.statementCount;
    await db.prisma.$queryRaw(query);
    expect(db.statementCount - before).toBe(1);
  });

  it("throws $queryRaw's error for a database error", async () => {
    for (const query of [Prisma.sql`SELECT 1 / ${0}::int AS x`, Prisma.sql`SELECT * FROM "NoSuchTable"`]) {
      const raw = await db.prisma.$queryRaw(query).then(
        () => undefined,
        (error: unknown) => error as Prisma.PrismaClientKnownRequestError,
      );
      const fast = await direct(query).then(
        () => undefined,
        (error: unknown) => error as Prisma.PrismaClientKnownRequestError,
      );
      expect(fast).toBeInstanceOf(Prisma.PrismaClientKnownRequestError);
      expect(raw).toBeInstanceOf(Prisma.PrismaClientKnownRequestError);
      expect([fast!.code, fast!.message, fast!.clientVersion]).toStrictEqual([raw!.code, raw!.message, raw!.clientVersion]);
      const cause = (error: Prisma.PrismaClientKnownRequestError) => (error.meta?.driverAdapterError as { cause: unknown }).cause;
      expect(cause(fast!)).toStrictEqual(cause(raw!));
    }
  });

  it("uses $queryRaw for values Prisma serializes itself (dates, bytes, objects)", async () => {
    const spy = vi.spyOn(db.prisma, "$queryRaw");
    try {
      const at = new Date("2026-01-02T03:04:05.678Z");
      const query = Prisma.sql`SELECT ${at}::timestamp(3) AS at, ${Buffer.from([1, 2])}::bytea AS b`;
      expect(await queryRows(db.prisma, query)).toStrictEqual(await db.prisma.$queryRaw(query));
      expect(spy).toHaveBeenCalledTimes(2);
    } finally {
      spy.mockRestore();
    }
  });

  it("runs in a transaction through the transaction's client, and a write outside one reaches the change feed", async () => {
    await db.prisma.$transaction(async (tx) => {
      await tx.organization.update({ where: { id: "org_a" }, data: { title: "In transaction" } });
      const [row] = await queryRows<{ title: string }>(tx as never, Prisma.sql`SELECT title FROM "Organization" WHERE id = ${"org_a"}`);
      expect(row.title).toBe("In transaction");
    });
    const generation = db.changes.generation;
    await direct(Prisma.sql`UPDATE "Organization" SET title = ${"Written"} WHERE id = ${"org_a"} RETURNING id`);
    expect(db.changes.generation).toBeGreaterThan(generation);
  });

  it("is refused once its operation stopped, and runs while it has not", async () => {
    const scope = new StatementScope();
    const query = Prisma.sql`SELECT id FROM "Organization" WHERE id = ${"org_a"}`;
    expect(await runInStatementScope(scope, () => direct(query))).toHaveLength(1);
    scope.stop();
    await expect(runInStatementScope(scope, () => direct(query))).rejects.toBeInstanceOf(OperationStopped);
    scope.end();
  });

  it.skipIf(!!process.env.DATABASE_URL)(
    "on the embedded database, runs with a generic plan (planned once), leaving the session's plan mode as it was",
    async () => {
      const query = Prisma.sql`SELECT o.id, (SELECT count(*)::int FROM "Member" m WHERE m."organizationId" = o.id) AS members
      FROM "Organization" o WHERE o.id = ANY(${["org_a"]}::text[])`;
      for (let i = 0; i < 7; i++) expect(await direct(query)).toStrictEqual([{ id: "org_a", members: 0 }]);
      const plans = (text: string) =>
        db.prisma.$queryRaw<{ generic: number; custom: number }[]>`
        SELECT generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements WHERE statement = ${text}`;
      expect(await plans(query.text)).toStrictEqual([{ generic: 7, custom: 0 }]);
      // Another text through $queryRaw (not asked to) is planned for its values, as before.
      const other = Prisma.sql`SELECT o.id FROM "Organization" o WHERE o.id = ANY(${["org_a"]}::text[]) AND o.title IS NOT NULL`;
      for (let i = 0; i < 3; i++) await db.prisma.$queryRaw(other);
      expect(await plans(other.text)).toStrictEqual([{ generic: 0, custom: 3 }]);
      const mode = () => db.prisma.$queryRaw`SELECT current_setting('plan_cache_mode') AS mode`;
      expect(await mode()).toStrictEqual([{ mode: "auto" }]);
      // Also after a failing statement.
      await expect(direct(Prisma.sql`SELECT 1 / ${0}::int AS x`)).rejects.toThrow(/22012/);
      expect(await mode()).toStrictEqual([{ mode: "auto" }]);
    },
  );

  it.skipIf(!process.env.DATABASE_URL)(
    "on PostgreSQL, runs as a named statement with a generic plan (planned once) on connections of its own; Prisma's statements are planned as before",
    async () => {
      const query = Prisma.sql`SELECT o.id, (SELECT count(*)::int FROM "Member" m WHERE m."organizationId" = o.id) AS members
      FROM "Organization" o WHERE o.id = ANY(${["org_a"]}::text[])`;
      for (let i = 0; i < 7; i++) expect(await direct(query)).toStrictEqual([{ id: "org_a", members: 0 }]);
      // Prepared statements are the session's: asked through queryRows too, on the connection the
      // reads above used (one after another, they take the same idle connection of the read pool).
      const plans = await direct(
        Prisma.sql`SELECT generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements WHERE statement = ${query.text}`,
      );
      expect(plans).toStrictEqual([{ generic: 7, custom: 0 }]);
      // Prisma's own statements: unnamed, on sessions planning for the values, as before.
      const other = Prisma.sql`SELECT current_setting('plan_cache_mode') AS mode, (SELECT count(*)::int FROM pg_prepared_statements) AS prepared`;
      for (let i = 0; i < 3; i++) expect(await db.prisma.$queryRaw(other)).toStrictEqual([{ mode: "auto", prepared: 0 }]);
    },
  );

  it.skipIf(!process.env.DATABASE_URL)(
    "on PostgreSQL, is cancelled while it runs when its operation stops, with $queryRaw's error",
    async () => {
      const cancelled = async (run: (query: Prisma.Sql) => Promise<unknown>) => {
        const scope = new StatementScope();
        const started = performance.now();
        const running = runInStatementScope(scope, async () => await run(Prisma.sql`SELECT pg_sleep(${10})::text AS slept`)).catch(
          (error: unknown) => error,
        );
        setTimeout(() => scope.stop(), 200);
        const error = (await running) as Prisma.PrismaClientKnownRequestError;
        expect(performance.now() - started).toBeLessThan(3000);
        expect(scope.cancelled).toBe(1);
        scope.end();
        return error;
      };
      const fast = await cancelled(direct);
      const raw = await cancelled((query) => db.prisma.$queryRaw(query));
      expect(fast).toBeInstanceOf(Prisma.PrismaClientKnownRequestError);
      expect(fast.message).toMatch(/57014/);
      expect([fast.code, fast.message]).toStrictEqual([raw.code, raw.message]);
      // The operation's own answer is the deadline's (use-execution-deadline.ts); this error is masked as $queryRaw's is.
      const masked = (error: unknown) => {
        const spy = vi.spyOn(console, "error").mockImplementation(() => {});
        try {
          return (maskError(error) as unknown as { extensions: unknown }).extensions;
        } finally {
          spy.mockRestore();
        }
      };
      expect(masked(fast)).toStrictEqual(masked(raw));
    },
  );
});

describe("the direct path's switch", () => {
  it("is on with the Prisma client it was verified with, and refuses another version", () => {
    expect(db.directReads).toStrictEqual({ on: true });
    // A Prisma upgrade fails here until the conversions above are checked again and the constant moved.
    expect(Prisma.prismaVersion.client).toBe(DIRECT_READS_VERIFIED_WITH);
    expect(directReadsRefusal("7.11.0")).toBe(
      "@prisma/client is 7.11.0, direct reads were verified with 7.10.0: reads go through $queryRaw",
    );
  });

  it("turned off, sends every read through $queryRaw, with the same rows", async () => {
    const off = await openTestDatabase({ directReads: false });
    try {
      await off.prisma.organization.create({ data: { id: "org_off", title: "Off" } });
      expect(off.directReads).toStrictEqual({ on: false, reason: "turned off (DATABASE_DIRECT_READS=false)" });
      const spy = vi.spyOn(off.prisma, "$queryRaw");
      const rows = await queryRows(off.prisma, Prisma.sql`SELECT id, title FROM "Organization" WHERE id = ${"org_off"}`);
      expect(spy).toHaveBeenCalledTimes(1);
      expect(rows).toStrictEqual([{ id: "org_off", title: "Off" }]);
    } finally {
      await off.close();
    }
  });
});
