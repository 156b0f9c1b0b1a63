// The PGlite wrapper the Prisma adapter talks to (src/db/pglite-prepared.ts) answers exactly as
// PGlite's own query does: values, fields, affected rows, errors, transactions.
import { PGlite } from "@electric-sql/pglite";
import { describe, expect, it } from "vitest";
import { preparedPGlite } from "../src/db/pglite-prepared.ts";

describe("preparedPGlite", () => {
  it("returns what PGlite's query returns, for every column type the schema uses, and keeps transactions and errors", async () => {
    const pglite = new PGlite();
    await pglite.waitReady;
    const wrapped = preparedPGlite(pglite);
    await pglite.exec(`create table t (id text primary key, j jsonb, n int, b bigint, f double precision, ok boolean,
      at timestamp(3), bytes bytea, tags text[], d numeric(10,2));
      insert into t values ('a', '{"x":[1,2]}', 1, 9007199254740993, 1.5, true, '2026-11-23 10:00:00.123', '\\x0102ff', '{x,y}', 12.30),
                           ('b', null, null, null, null, null, null, null, null, null),
                           ('é漢😀', '{"s":"ü\\n\\u00e9"}', 0, 0, 0, false, null, '\\x', '{"",é}', 0);
      create function noisy(n int) returns int language plpgsql as $$ begin raise notice 'noisy %', n; return n; end $$`);
    const custom = { 20: (value: string) => `big:${value}` };
    const cases: [string, unknown[], object | undefined][] = [
      ["select * from t where id = $1", ["a"], { rowMode: "array" }],
      ["select * from t where id = $1", ["b"], { rowMode: "array" }],
      ["select * from t order by id", [], undefined],
      ["select id, b from t where n = $1 or $2::bigint = b", [1, 5n], { rowMode: "array", parsers: custom }],
      ["select id from t where bytes = $1", [new Uint8Array([1, 2, 255])], { rowMode: "array" }],
      ["select id from t where at = $1 and tags = $2", ["2026-11-23 10:00:00.123", ["x", "y"]], { rowMode: "array" }],
      ["update t set n = n + 1 where id = $1", ["a"], { rowMode: "array" }],
      ["insert into t (id) values ($1), ($2)", ["c", "d"], { rowMode: "array" }],
      ["delete from t where id in ($1, $2)", ["c", "d"], undefined],
      // Multi-byte UTF-8, empty strings and arrays, a JSON escape, an empty bytea.
      ["select * from t where id = $1", ["é漢😀"], { rowMode: "array" }],
      ["select id, j, tags, bytes, '' as empty from t where n = $1", [0], undefined],
      // A notice in the answer.
      ["select noisy($1) as n", [3], undefined],
      ["select id from t where false", [], undefined],
    ];
    for (let round = 0; round < 2; round++) {
      // PGlite's build answers with DEBUG notices (client_min_messages = debug3); the service sets notice.
      if (round === 1) await pglite.exec("SET client_min_messages = notice");
      for (const [sql, values, options] of cases) {
        const reset = async () => {
          if (sql.startsWith("update")) await pglite.query("update t set n = n - 1 where id = 'a'");
          if (sql.startsWith("insert")) await pglite.query("delete from t where id in ('c', 'd')");
        };
        const ours = await wrapped.query(sql, values, options);
        await reset();
        const theirs = await pglite.query(sql, values, options);
        await reset();
        expect(ours, sql).toEqual(theirs);
      }
    }
    // Errors are PGlite's, and the statement after one works.
    const error = await wrapped.query("select id from t where n = $1", ["x"]).catch((e) => e);
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe("22P02");
    await expect(wrapped.query("select nope from t")).rejects.toMatchObject({ code: "42703" });
    expect((await wrapped.query("select id from t where n = $1", [1])).rows).toEqual([{ id: "a" }]);
    // A transaction rolls back its statements; one that ends waits for nothing.
    await expect(
      wrapped.transaction(async (tx) => {
        await tx.query("update t set n = 100 where id = $1", ["a"]);
        expect((await tx.query("select n from t where id = $1", ["a"])).rows).toEqual([{ n: 100 }]);
        throw new Error("rollback");
      }),
    ).rejects.toThrow("rollback");
    expect((await wrapped.query("select n from t where id = $1", ["a"])).rows).toEqual([{ n: 1 }]);
    // Transaction control through query keeps PGlite's isInTransaction().
    await wrapped.query("begin");
    expect(pglite.isInTransaction()).toBe(true);
    await wrapped.query("rollback");
    expect(pglite.isInTransaction()).toBe(false);
    // A table changed under a prepared statement: prepared again.
    await pglite.exec("alter table t add column extra int default 7");
    expect((await wrapped.query("select * from t where id = $1", ["a"])).rows[0]).toMatchObject({ id: "a", extra: 7 });
    await pglite.close();
  });
});
