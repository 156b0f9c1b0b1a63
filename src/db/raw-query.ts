// The hottest raw reads (src/core/loaders.ts) sent through the driver adapter Prisma itself
// connected, instead of through the client's `$queryRaw` request pipeline (issue 15).
//
// `$queryRaw` costs ~0.25 ms of client CPU per statement on top of the driver (its promise and
// tracing wrappers, extensions, the JSON request, the query interpreter, the debug logger six
// times, every cell serialized for the engine and back), as much as the driver itself. Here the
// statement goes to the very adapter object Prisma sends its own statements to (the one
// client.ts instruments and, on PostgreSQL, makes cancellable), so that it is counted, registered
// in its operation's statement scope (cancelled or refused when the operation stops), yields to
// the event loop on the embedded database, and runs on the same pool, as every statement Prisma
// sends does. Its values are the ones Prisma gives (`queryRows` is checked against `$queryRaw`
// column type by column type, test/raw-query.test.ts), and a database error is Prisma's
// PrismaClientKnownRequestError P2010, as `$queryRaw` throws it.
//
// Not through it: a transaction's client (its statements must run on the transaction's
// connection: `$queryRaw` is used), statements with values other than strings, numbers,
// booleans, null and flat arrays of those (Prisma serializes dates, bytes and objects first), and
// any statement before Prisma has connected its adapter.
import {
  type ArgType,
  type ColumnType,
  ColumnTypeEnum,
  type DriverAdapterError,
  isDriverAdapterError,
  type SqlQueryable,
} from "@prisma/driver-adapter-utils";
import { Prisma, type PrismaClient } from "../generated/prisma/client.ts";

interface Reads {
  /** The adapter the client's statements go to, while Prisma has it connected (undefined while not). */
  adapter(): SqlQueryable | undefined;
  /**
   * Called with each statement's text before it is sent: both databases plan these once (the
   * embedded one in pglite-prepared.ts; PostgreSQL as the named prepared statement this returns,
   * client.ts).
   */
  beforeRead?(sql: string): string | undefined;
}

/** A statement `queryRows` sends: Prisma's, with the name PostgreSQL keeps it prepared under, if any (client.ts). */
export interface ReadQuery {
  sql: string;
  args: unknown[];
  argTypes: ArgType[];
  name: string | undefined;
}
const adapters = new WeakMap<object, Reads>();

/**
 * The @prisma/client whose `$queryRaw` conversions `queryRows` reproduces (CONVERT, asPrismaError;
 * test/raw-query.test.ts compares them column type by column type). Another version may convert
 * differently: its reads go through `$queryRaw`.
 */
export const DIRECT_READS_VERIFIED_WITH = "7.10.0";

/** Why reads cannot go straight to the adapter with the installed Prisma client; undefined when they can. */
export function directReadsRefusal(clientVersion = Prisma.prismaVersion.client): string | undefined {
  if (clientVersion === DIRECT_READS_VERIFIED_WITH) return undefined;
  return `@prisma/client is ${clientVersion}, direct reads were verified with ${DIRECT_READS_VERIFIED_WITH}: reads go through $queryRaw`;
}

/** Registers how `prisma`'s reads reach its connected adapter (client.ts). */
export function readThroughAdapter(prisma: PrismaClient, reads: Reads): void {
  adapters.set(prisma, reads);
}

/** Prisma's argument type of a raw value, after its JSON round trip: undefined when the value needs Prisma's own serialization. */
function scalarType(value: unknown): ArgType["scalarType"] | undefined {
  switch (typeof value) {
    case "string":
      return "string";
    case "number":
      return Number.isFinite(value) ? "decimal" : undefined;
    case "boolean":
      return "unknown";
    default:
      return value === null ? "unknown" : undefined;
  }
}

/** The argument types `argTypesOf` gives, made once (the adapters only read them). */
const ARG_TYPES = {
  scalar: new Map<ArgType["scalarType"], ArgType>(),
  list: new Map<ArgType["scalarType"], ArgType>(),
};
for (const scalarType of ["string", "decimal", "unknown"] as const)
  for (const arity of ["scalar", "list"] as const) ARG_TYPES[arity].set(scalarType, Object.freeze({ scalarType, arity }));

function argTypesOf(values: unknown[]): ArgType[] | undefined {
  const types: ArgType[] = new Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (Array.isArray(value)) {
      for (const item of value) if (Array.isArray(item) || scalarType(item) === undefined) return undefined;
      types[i] = ARG_TYPES.list.get(value.length ? scalarType(value[0])! : "unknown")!;
    } else {
      const type = scalarType(value);
      if (type === undefined) return undefined;
      types[i] = ARG_TYPES.scalar.get(type)!;
    }
  }
  return types;
}

const fail = (value: unknown, as: string) => {
  throw new Error(`Cannot serialize value of type ${typeof value} as ${as}`);
};
const int32 = (value: unknown) =>
  typeof value === "number" ? Math.trunc(value) : typeof value === "string" ? Math.trunc(Number(value)) : fail(value, "Int32");
const int64 = (value: unknown) =>
  typeof value === "number" ? BigInt(Math.trunc(value)) : typeof value === "string" ? BigInt(value) : fail(value, "Int64");
const json = (value: unknown) => (typeof value === "string" ? JSON.parse(value) : fail(value, "Json"));
const boolean = (value: unknown) =>
  typeof value === "boolean"
    ? value
    : typeof value === "string"
      ? value === "true" || value === "1"
      : typeof value === "number"
        ? value === 1
        : fail(value, "Boolean");
const decimal = (value: unknown) => new Prisma.Decimal(value as string);
const bytes = (value: unknown) => new Uint8Array(Buffer.from(value as string, "base64"));
const date = (value: unknown) => new Date(value as string);
const time = (value: unknown) => new Date(`1970-01-01T${value}Z`);

/**
 * A cell as `$queryRaw` gives it: Prisma's serialization of the adapter's value for its engine
 * followed by the client's deserialization of that (both in @prisma/client 7.10's runtime), in one.
 */
const CONVERT: Partial<Record<ColumnType, (value: unknown) => unknown>> = {
  [ColumnTypeEnum.Int32]: int32,
  [ColumnTypeEnum.Int64]: int64,
  [ColumnTypeEnum.Json]: json,
  [ColumnTypeEnum.Boolean]: boolean,
  [ColumnTypeEnum.Numeric]: decimal,
  [ColumnTypeEnum.Bytes]: bytes,
  [ColumnTypeEnum.DateTime]: date,
  [ColumnTypeEnum.Date]: date,
  [ColumnTypeEnum.Time]: time,
};
const ARRAYS: Partial<Record<ColumnType, ColumnType>> = {
  [ColumnTypeEnum.Int32Array]: ColumnTypeEnum.Int32,
  [ColumnTypeEnum.Int64Array]: ColumnTypeEnum.Int64,
  [ColumnTypeEnum.JsonArray]: ColumnTypeEnum.Json,
  [ColumnTypeEnum.BooleanArray]: ColumnTypeEnum.Boolean,
  [ColumnTypeEnum.NumericArray]: ColumnTypeEnum.Numeric,
  [ColumnTypeEnum.BytesArray]: ColumnTypeEnum.Bytes,
  [ColumnTypeEnum.DateTimeArray]: ColumnTypeEnum.DateTime,
  [ColumnTypeEnum.DateArray]: ColumnTypeEnum.Date,
  [ColumnTypeEnum.TimeArray]: ColumnTypeEnum.Time,
};
for (const [array, element] of Object.entries(ARRAYS)) {
  const convert = CONVERT[element];
  CONVERT[Number(array) as ColumnType] = (value) =>
    Array.isArray(value) ? value.map((item) => (item === null ? null : convert!(item))) : fail(value, "Array");
}

/** `$queryRaw`'s message for a driver's error ("Raw query failed", P2010). */
function asPrismaError(error: DriverAdapterError): Prisma.PrismaClientKnownRequestError {
  const cause = error.cause as { originalCode?: string; originalMessage?: string };
  return new Prisma.PrismaClientKnownRequestError(
    `\nInvalid \`prisma.$queryRaw()\` invocation:\n\n\nRaw query failed. Code: \`${cause.originalCode ?? "N/A"}\`. Message: \`${cause.originalMessage ?? error.message ?? "N/A"}\``,
    { code: "P2010", clientVersion: Prisma.prismaVersion.client, meta: { driverAdapterError: error } },
  );
}

type ResultSet = Awaited<ReturnType<SqlQueryable["queryRaw"]>>;

/** `query` sent to Prisma's connected adapter; undefined when it cannot go there (see above). */
function send(prisma: PrismaClient, query: Prisma.Sql): Promise<ResultSet> | undefined {
  const reads = adapters.get(prisma);
  const adapter = reads?.adapter();
  const argTypes = adapter && argTypesOf(query.values);
  if (!argTypes) return undefined;
  const sql = query.text;
  const read: ReadQuery = { sql, args: query.values, argTypes, name: reads!.beforeRead?.(sql) };
  return adapter!.queryRaw(read);
}

/** A driver's error as `$queryRaw` throws it (duck-typed, as Prisma does: pglite-prisma-adapter throws its own copy's DriverAdapterError). */
const asThrown = (error: unknown) => (isDriverAdapterError(error as never) ? asPrismaError(error as DriverAdapterError) : error);

/**
 * The rows of `query`, as `prisma.$queryRaw(query)` gives them: through Prisma's connected driver
 * adapter where it can (see above), else through `$queryRaw` itself.
 */
export async function queryRows<T>(prisma: PrismaClient, query: Prisma.Sql): Promise<T[]> {
  const sent = send(prisma, query);
  if (!sent) return prisma.$queryRaw<T[]>(query);
  let result: ResultSet;
  try {
    result = await sent;
  } catch (error) {
    throw asThrown(error);
  }
  const { columnNames, columnTypes, rows } = result;
  const converters = columnTypes.map((type) => CONVERT[type]);
  const out: T[] = new Array(rows.length);
  for (let r = 0; r < rows.length; r++) {
    const cells = rows[r];
    const row: Record<string, unknown> = {};
    for (let c = 0; c < columnNames.length; c++) {
      const value = cells[c];
      const convert = converters[c];
      row[columnNames[c]] = value === null || !convert ? value : convert(value);
    }
    out[r] = row as T;
  }
  return out;
}

/**
 * `queryRows`, with the columns named in `extras` (what a wider statement reads beside a model's
 * row: a count, a related row) kept apart: `rows[i]` has the other columns in their order, as
 * `queryRows` gives them, and `extras[i]` those. Built so from the cells (issue 15): taking them
 * out afterwards (`{ _total, ...row }`) copied every row once more (~0.7 us per row of a list).
 */
export async function queryRowsApart<T, X>(
  prisma: PrismaClient,
  query: Prisma.Sql,
  extras: ReadonlySet<string>,
): Promise<{ rows: T[]; extras: X[] }> {
  const sent = send(prisma, query);
  const own: T[] = [];
  const apart: X[] = [];
  if (!sent) {
    for (const cells of await prisma.$queryRaw<Record<string, unknown>[]>(query)) {
      const row: Record<string, unknown> = {};
      const extra: Record<string, unknown> = {};
      for (const key in cells) (extras.has(key) ? extra : row)[key] = cells[key];
      own.push(row as T);
      apart.push(extra as X);
    }
    return { rows: own, extras: apart };
  }
  let result: ResultSet;
  try {
    result = await sent;
  } catch (error) {
    throw asThrown(error);
  }
  const { columnNames, columnTypes, rows } = result;
  const converters = columnTypes.map((type) => CONVERT[type]);
  const isExtra = columnNames.map((name) => extras.has(name));
  for (let r = 0; r < rows.length; r++) {
    const cells = rows[r];
    const row: Record<string, unknown> = {};
    const extra: Record<string, unknown> = {};
    for (let c = 0; c < columnNames.length; c++) {
      const value = cells[c];
      const convert = converters[c];
      (isExtra[c] ? extra : row)[columnNames[c]] = value === null || !convert ? value : convert(value);
    }
    own.push(row as T);
    apart.push(extra as X);
  }
  return { rows: own, extras: apart };
}
