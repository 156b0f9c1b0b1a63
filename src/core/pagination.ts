// Keyset pagination: a cursor is the sort key and id of the last row, so a page never skips or
// repeats rows when others are inserted or deleted meanwhile.
import { badInput, quote } from "./errors.ts";
import { INT4_MAX, unsafeTextReason } from "./input.ts";

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 1000;

export interface PageArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

export interface Page<T> {
  items: T[];
  totalCount: number;
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  cursorOf(item: T): string;
}

type SortValue = string | Date | number;
export type SortKind = "date" | "text" | "number";

interface Cursor {
  v: string;
  /** 1: the value is a date; 2: a number. */
  d?: 1 | 2;
  id: string;
}

function encodeCursor(value: SortValue, id: string): string {
  const cursor: Cursor =
    value instanceof Date
      ? { v: value.toISOString(), d: 1, id }
      : typeof value === "number"
        ? { v: String(value), d: 2, id }
        : { v: value, id };
  return Buffer.from(JSON.stringify(cursor)).toString("base64url");
}

// A cursor is opaque to clients but travels through them, so every part of it is checked before it
// reaches a query: its shape, the kind of the list's sort column, and values the database holds
// (an integer column's range, timestamps PostgreSQL stores, text it can store). A forged cursor is
// a 400, never a failing statement.
const CURSOR_MAX_LENGTH = 4096;
const CURSOR_ID = /^[A-Za-z0-9_-]{1,200}$/;
const DATE_MIN = Date.UTC(1970, 0, 1);
const DATE_MAX = Date.UTC(9999, 11, 31);

/** The cursor's sort value, checked against the kind of the list's sort column. */
function decodeCursor(cursor: string, sortKind: SortKind): { value: SortValue; id: string } {
  try {
    if (cursor.length > CURSOR_MAX_LENGTH) throw new Error();
    const parsed = JSON.parse(Buffer.from(cursor, "base64url").toString()) as Cursor;
    if (typeof parsed !== "object" || parsed === null) throw new Error();
    if (typeof parsed.v !== "string" || typeof parsed.id !== "string" || !CURSOR_ID.test(parsed.id)) throw new Error();
    if ((sortKind === "date") !== (parsed.d === 1) || (sortKind === "number") !== (parsed.d === 2)) throw new Error();
    const value = sortKind === "date" ? new Date(parsed.v) : sortKind === "number" ? Number(parsed.v) : parsed.v;
    if (value instanceof Date && !(value.getTime() >= DATE_MIN && value.getTime() <= DATE_MAX)) throw new Error();
    if (typeof value === "number" && !(Number.isInteger(value) && Math.abs(value) <= INT4_MAX)) throw new Error();
    if (typeof value === "string" && unsafeTextReason(value)) throw new Error();
    return { value, id: parsed.id };
  } catch {
    throw badInput(`page cursor ${quote([...cursor].slice(0, 100).join(""))} is not valid for this list: pass back the value of next.page`);
  }
}

export function checkPageSize(first: number | null | undefined): number {
  if (first == null) return DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(first) || first < 1 || first > MAX_PAGE_SIZE) {
    throw badInput(`first must be an integer between 1 and ${MAX_PAGE_SIZE} (got ${first})`);
  }
  return first;
}

/**
 * The rows `paginate` reads: a Prisma model delegate (`ctx.prisma.member`), or an object with the
 * same two methods when a page is read another way (a DataLoader batch).
 */
export interface PageSource<T, W> {
  findMany(query: { where: W; orderBy: { [field: string]: "asc" | "desc" }[]; take: number }): PromiseLike<T[]>;
  count(query: { where: W }): PromiseLike<number>;
  /** If the source can: `findMany` of `pageWhere` and `count` of `where` at once (one statement). */
  findPage?(query: {
    where: W;
    pageWhere: W;
    orderBy: { [field: string]: "asc" | "desc" }[];
    take: number;
  }): PromiseLike<{ rows: T[]; count: number }>;
}

/**
 * One page of `rows` ordered by (sortField, id), ascending unless `direction` is "desc";
 * `sortKind` is the type of the sort column, checked in cursors. `where` is the unpaginated
 * filter, also used for `totalCount`. `idField` names the unique tie-breaker (default `id`).
 */
export async function paginate<T extends object, W extends object>(
  args: PageArgs,
  options: {
    rows: PageSource<T, W>;
    sortField: keyof T & string;
    sortKind: SortKind;
    direction?: "asc" | "desc";
    idField?: keyof T & string;
    /** The tie-breaker's type: text (default) or an integer column. */
    idKind?: "text" | "number";
    where: W;
  },
): Promise<Page<T>> {
  if (args.last != null || args.before != null) {
    throw badInput("Lists page forward only: use first and after (last and before are not supported)");
  }
  const take = checkPageSize(args.first);
  const { sortField, where } = options;
  const direction = options.direction ?? "asc";
  const idField = options.idField ?? ("id" as keyof T & string);
  // A numeric tie-breaker (a change request's number) travels as text in the cursor.
  const idOf = (id: string) => {
    if (options.idKind !== "number") return id;
    if (!/^\d{1,9}$/.test(id))
      throw badInput(
        `page cursor ${quote([...(args.after ?? "")].slice(0, 100).join(""))} is not valid for this list: pass back the value of next.page`,
      );
    return Number(id);
  };
  const beyond = direction === "asc" ? "gt" : "lt";
  let pageWhere = where;
  if (args.after) {
    const { value, id } = decodeCursor(args.after, options.sortKind);
    // Every Prisma where input takes AND of itself and field conditions; W cannot say so.
    pageWhere = {
      AND: [where, { OR: [{ [sortField]: { [beyond]: value } }, { [sortField]: value, [idField]: { [beyond]: idOf(id) } }] }],
    } as unknown as W;
  }
  const orderBy = [{ [sortField]: direction }, { [idField]: direction }];
  const { rows, count: totalCount } = options.rows.findPage
    ? await options.rows.findPage({ where, pageWhere, orderBy, take: take + 1 })
    : await Promise.all([options.rows.findMany({ where: pageWhere, orderBy, take: take + 1 }), options.rows.count({ where })]).then(
        ([rows, count]) => ({ rows, count }),
      );
  return {
    items: rows.slice(0, take),
    totalCount,
    hasNextPage: rows.length > take,
    hasPreviousPage: Boolean(args.after),
    cursorOf: (item) => encodeCursor(item[sortField] as SortValue, String(item[idField])),
  };
}

/** A page of `items`, in memory, keyed by `keyOf` (the cursor). */
export function pageInMemory<T>(items: T[], args: PageArgs, keyOf: (item: T) => string): Page<T> {
  if (args.last != null || args.before != null) {
    throw badInput("Lists page forward only: use first and after (last and before are not supported)");
  }
  const take = checkPageSize(args.first);
  let start = 0;
  if (args.after) {
    let key: unknown;
    try {
      key = JSON.parse(Buffer.from(args.after, "base64url").toString()).k;
    } catch {
      key = undefined;
    }
    const index = typeof key === "string" ? items.findIndex((item) => keyOf(item) === key) : -1;
    if (index < 0)
      throw badInput(
        `page cursor ${quote([...(args.after ?? "")].slice(0, 100).join(""))} is not valid for this list: pass back the value of next.page`,
      );
    start = index + 1;
  }
  return {
    items: items.slice(start, start + take),
    totalCount: items.length,
    hasNextPage: start + take < items.length,
    hasPreviousPage: start > 0,
    cursorOf: (item) => Buffer.from(JSON.stringify({ k: keyOf(item) })).toString("base64url"),
  };
}
