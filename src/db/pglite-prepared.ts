// What pglite-prisma-adapter talks to instead of PGlite itself: the same `query`, `exec` and
// `transaction`, with each statement prepared once (a named statement per SQL text) and run as one
// message batch (Bind, Execute, Sync) in one call into PGlite.
//
// PGlite's own `query` sends Parse, Describe, Bind, Describe, Execute and Sync as six calls into its
// WebAssembly PostgreSQL, each with fixed costs (PGlite's C side opens and truncates a lock file per
// call), and PostgreSQL parses and plans the statement every time. Prisma sends the same SQL text
// for the same query shape, so the statement and its description are kept: about 2.5× less time per
// statement here (issue 15). Only PGlite's public API is used (execProtocol, runExclusive,
// transaction): its parsers, serializers and file-system sync after a statement outside a
// transaction are its own, so behaviour and durability do not change.
import { type PGlite, protocol, type QueryOptions, type Results, type Transaction, types } from "@electric-sql/pglite";

type BackendMessage = { name: string };
interface Prepared {
  name: string;
  /** Planned once, not at every execution (`planOnce`). */
  generic: boolean;
  paramTypes: number[];
  /** The statement's RowDescription (text format), absent when it returns no rows. */
  rowDescription: BackendMessage | undefined;
}

/** Distinct SQL texts kept prepared (Prisma's `IN ($1, …, $n)` lists make one text per length). */
const MAX_STATEMENTS = 500;

/**
 * SQL texts to run with a generic plan (`planOnce`), at most this many remembered. PostgreSQL
 * plans a prepared statement again at every execution (a custom plan for its values) unless it
 * judges a generic plan cheaper, and judges by estimated execution cost alone: for the wide reads
 * of src/core/loaders.ts (subqueries, a recursive CTE, JSON aggregates) planning costs several
 * times what executing them does in PGlite (space view: ~1.6 ms of CPU per execution with a custom
 * plan, ~0.6 ms with the generic one).
 */
const planOnceTexts = new Set<string>();
const MAX_PLAN_ONCE = 1000;

/**
 * Asks that `sql`, when it is prepared (again) on the embedded database, be run with a generic
 * plan: planned at its first execution and reused, its values bound at run time. For statements
 * whose results do not depend on a plan's row order (an ORDER BY, or rows matched by key).
 */
export function planOnce(sql: string): undefined {
  if (planOnceTexts.has(sql)) return;
  if (planOnceTexts.size >= MAX_PLAN_ONCE) planOnceTexts.clear();
  planOnceTexts.add(sql);
}

const serialize = protocol.serialize;
const FORCE_GENERIC_PLAN = serialize.query("SET plan_cache_mode = force_generic_plan");
const RESET_PLAN_MODE = serialize.query("RESET plan_cache_mode");

type Parser = (value: string, typeId: number) => unknown;
type Parsers = Record<number, Parser>;
interface Field {
  name: string;
  dataTypeID: number;
}

function fieldsOf(rowDescription: BackendMessage | undefined): Field[] {
  return rowDescription
    ? (rowDescription as unknown as { fields: Field[] }).fields.map((field) => ({ name: field.name, dataTypeID: field.dataTypeID }))
    : [];
}

/** Rows a command tag (`INSERT 0 2`, `UPDATE 1`) says the statement changed, as PGlite counts them. */
function affectedBy(tag: string): number {
  const words = tag.split(" ");
  if (words[0] === "INSERT") return Number.parseInt(words[2], 10);
  if (["UPDATE", "DELETE", "COPY", "MERGE"].includes(words[0])) return Number.parseInt(words[1], 10);
  return 0;
}

/** PGlite's parseResults over parsed messages, for the one result of a statement. */
function toResults<T>(
  rowDescription: BackendMessage | undefined,
  messages: BackendMessage[],
  parsers: Parsers,
  rowMode: QueryOptions["rowMode"],
): Results<T> {
  const fields = fieldsOf(rowDescription);
  const rows: unknown[] = [];
  let affectedRows = 0;
  const value = (text: string | null, index: number) => {
    if (text === null) return null;
    const typeId = fields[index].dataTypeID;
    const parser = parsers[typeId] ?? (types.parsers as Parsers)[typeId];
    return parser ? parser(text, typeId) : text;
  };
  for (const message of messages) {
    if (message.name === "dataRow") {
      const values = (message as unknown as { fields: (string | null)[] }).fields;
      if (rowMode === "array") rows.push(values.map(value));
      else rows.push(Object.fromEntries(values.map((text, index) => [fields[index].name, value(text, index)])));
    } else if (message.name === "commandComplete") {
      affectedRows += affectedBy((message as unknown as { text: string }).text);
    }
  }
  return { rows, fields, affectedRows } as Results<T>;
}

function concat(parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** SQLSTATE of "cached plan must not change result type" (a table changed under a prepared statement). */
const FEATURE_NOT_SUPPORTED = "0A000";

export function preparedPGlite(pglite: PGlite): PGlite {
  const statements = new Map<string, Prepared>();
  let counter = 0;
  let pendingClose: Uint8Array[] = [];
  // PGlite's parsers with a query's own on top, merged once per parsers object the queries pass.
  const merged = new WeakMap<object, Parsers>();
  const parsers = (own: QueryOptions["parsers"]): Parsers => {
    if (!own) return pglite.parsers as Parsers;
    let parsers = merged.get(own);
    if (!parsers) merged.set(own, (parsers = { ...(pglite.parsers as Parsers), ...(own as Parsers) }));
    return parsers;
  };

  const forget = (sql: string) => {
    const prepared = statements.get(sql);
    if (!prepared) return;
    statements.delete(sql);
    pendingClose.push(serialize.close({ type: "S", name: prepared.name }));
  };

  async function prepare(sql: string): Promise<Prepared> {
    const cached = statements.get(sql);
    if (cached) {
      // Most recently used last: the first entry is the one to evict.
      statements.delete(sql);
      statements.set(sql, cached);
      return cached;
    }
    if (statements.size >= MAX_STATEMENTS) forget(statements.keys().next().value as string);
    const name = `prisma_${++counter}`;
    const closes = pendingClose;
    pendingClose = [];
    const { messages } = (await pglite.execProtocol(
      concat([...closes, serialize.parse({ name, text: sql }), serialize.describe({ type: "S", name }), serialize.sync()]),
      { syncToFs: false },
    )) as { messages: BackendMessage[] };
    const params = messages.find((message) => message.name === "parameterDescription") as { dataTypeIDs: number[] } | undefined;
    const prepared: Prepared = {
      name,
      generic: planOnceTexts.has(sql),
      paramTypes: params?.dataTypeIDs ?? [],
      rowDescription: messages.find((message) => message.name === "rowDescription"),
    };
    statements.set(sql, prepared);
    return prepared;
  }

  async function execute<T>(sql: string, values: unknown[], options: QueryOptions | undefined): Promise<Results<T>> {
    const prepared = await prepare(sql);
    const serializers = pglite.serializers as Record<number, (value: unknown) => string>;
    const bindValues = values.map((value, index) => {
      if (value === null || value === undefined) return null;
      const type = prepared.paramTypes[index];
      const serializer = options?.serializers?.[type] ?? serializers[type];
      return serializer ? serializer(value) : String(value);
    });
    const run = [serialize.bind({ statement: prepared.name, values: bindValues }), serialize.execute({}), serialize.sync()];
    // A generic plan is chosen at Bind: the setting is on for this execution only (reset in the
    // same batch, also when the statement fails; inside a transaction, SET and RESET are part of it).
    const message = concat(prepared.generic ? [FORCE_GENERIC_PLAN, ...run, RESET_PLAN_MODE] : run);
    // execProtocol keeps PGlite's isInTransaction() from BEGIN and COMMIT and hands the NOTIFY of
    // a write (the site-data triggers) to its listen() callbacks.
    const { messages } = (await pglite.execProtocol(message, { syncToFs: false })) as { messages: BackendMessage[] };
    return toResults<T>(prepared.rowDescription, messages, parsers(options?.parsers), options?.rowMode);
  }

  /** Runs one statement under PGlite's query mutex; again, prepared anew, if a table changed under it. */
  async function run<T>(sql: string, values: unknown[] = [], options?: QueryOptions, outsideTransaction = false): Promise<Results<T>> {
    return pglite.runExclusive(async () => {
      let result: Results<T>;
      try {
        result = await execute<T>(sql, values, options);
      } catch (error) {
        if ((error as { code?: string }).code !== FEATURE_NOT_SUPPORTED || !statements.has(sql)) throw error;
        forget(sql);
        result = await execute<T>(sql, values, options);
      }
      // As PGlite's query does after a statement outside a transaction.
      if (outsideTransaction) await pglite.syncToFs();
      return result;
    });
  }

  // PGlite's query waits for a transaction under way to end; so does this one, for the transactions
  // begun here: one at a time, and no statement outside them while one is open.
  let lastTransactionOrQuery: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(work: () => Promise<T>): Promise<T> => {
    const done = lastTransactionOrQuery.then(work);
    lastTransactionOrQuery = done.catch(() => {});
    return done;
  };

  const wrapper = {
    query<T>(sql: string, values?: unknown[], options?: QueryOptions): Promise<Results<T>> {
      return exclusive(() => run<T>(sql, values, options, true));
    },
    exec(sql: string, options?: QueryOptions) {
      return pglite.exec(sql, options);
    },
    transaction<T>(callback: (tx: Transaction) => Promise<T>): Promise<T> {
      return exclusive(() =>
        pglite.transaction((tx) =>
          callback(
            new Proxy(tx, {
              get(object, property, receiver) {
                if (property === "query") {
                  return <R>(sql: string, values?: unknown[], options?: QueryOptions) => {
                    if (object.closed) throw new Error("Transaction is closed");
                    return run<R>(sql, values, options);
                  };
                }
                return Reflect.get(object, property, receiver);
              },
            }),
          ),
        ),
      );
    },
  };
  return new Proxy(pglite, {
    get(object, property, receiver) {
      if (property === "query" || property === "exec" || property === "transaction") return wrapper[property];
      return Reflect.get(object, property, receiver);
    },
  });
}
