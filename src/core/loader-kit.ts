// The toolkit of the per-request loaders: raw row reads, batching helpers and the loader class
// that domains build their DataLoaders with (src/core/<domain>/loaders.ts). Apart from the
// registry (src/core/loaders.ts), which imports every domain's loaders, so that the domains can
// import this without an import circle.
import DataLoader from "dataloader";
import { Prisma } from "../generated/prisma/client.ts";
import { queryRows, queryRowsApart } from "../db/raw-query.ts";
import type { Collection, Member, Organization, PermissionGrant, PrismaClient, Space } from "../generated/prisma/client.ts";
import { quote } from "./errors.ts";
import { isThenable } from "./thenable.ts";

/**
 * The columns of a model's scalar fields, as its model queries select them (no field is mapped to
 * another column name in this schema).
 */
const columnsOf = (fields: Record<string, string>, alias?: string) =>
  Prisma.raw(
    Object.keys(fields)
      .map((field) => (alias ? `${alias}."${field}"` : `"${field}"`))
      .join(", "),
  );
const ORGANIZATION_COLUMNS = columnsOf(Prisma.OrganizationScalarFieldEnum);
const COLLECTION_COLUMNS = columnsOf(Prisma.CollectionScalarFieldEnum);
const SPACE_COLUMNS = columnsOf(Prisma.SpaceScalarFieldEnum);
const SPACE_COLUMNS_OF_S = columnsOf(Prisma.SpaceScalarFieldEnum, "s");
const ORGANIZATION_COLUMNS_OF_O = columnsOf(Prisma.OrganizationScalarFieldEnum, "o");
const SPACE_COLUMNS_OF_P = columnsOf(Prisma.SpaceScalarFieldEnum, "p");
const COLLECTION_COLUMNS_OF_C = columnsOf(Prisma.CollectionScalarFieldEnum, "c");
const MEMBER_COLUMNS = columnsOf(Prisma.MemberScalarFieldEnum);
const GRANT_COLUMNS = columnsOf(Prisma.PermissionGrantScalarFieldEnum);

/**
 * A row that came back as JSON (a related row nested in a wider statement) as the model query
 * gives it: the model's scalar fields in their order, its `timestamp(3)` columns (which JSON
 * writes in ISO 8601 without a zone; Prisma reads them as UTC) as dates. JSON columns, arrays,
 * booleans, numbers and nulls are already what Prisma gives.
 */
function jsonRows<T>(fields: Record<string, string>, dates: string[]) {
  const names = Object.keys(fields);
  const isDate = new Set(dates);
  return (json: Record<string, unknown>): T => {
    const row: Record<string, unknown> = {};
    for (const name of names) {
      const value = json[name];
      row[name] = isDate.has(name) && typeof value === "string" ? new Date(`${value}Z`) : value;
    }
    return row as T;
  };
}
const organizationOfJson = jsonRows<Organization>(Prisma.OrganizationScalarFieldEnum, ["createdAt"]);
const collectionOfJson = jsonRows<Collection>(Prisma.CollectionScalarFieldEnum, ["createdAt", "updatedAt"]);
const memberOfJson = jsonRows<Member>(Prisma.MemberScalarFieldEnum, ["joinedAt", "lastSeenAt"]);
const grantOfJson = jsonRows<PermissionGrant>(Prisma.PermissionGrantScalarFieldEnum, ["createdAt"]);

/** What `spaceCountersSql` reads of a space. */
export interface SpaceCounters {
  changeRequests: Record<string, number>;
  openComments: number;
}

/** The counters of a space (alias `alias`): change requests by status, open comments on it (not replies). */
export const spaceCountersSql = (alias: string) => {
  const id = Prisma.raw(`${alias}.id`);
  return Prisma.sql`
    (SELECT coalesce(json_object_agg(c.status, c.n), '{}'::json)
       FROM (SELECT status, count(*)::int AS n FROM "ChangeRequest" WHERE "spaceId" = ${id} GROUP BY status) c) AS "changeRequests",
    (SELECT count(*)::int FROM "Comment"
       WHERE "spaceId" = ${id} AND "changeRequestId" IS NULL AND "parentId" IS NULL AND status = 'open') AS "openComments"`;
};

/**
 * A space with what reading it needs next, for one viewer: its organization and the viewer's
 * membership there, its collection chain (parent first, up to the top level), the grants on the
 * space and that chain that reach the viewer (directly or through one of their teams) and, when
 * asked, its counters. Every row is the model query's (test/raw-rows.test.ts).
 */
export interface SpaceView {
  space: Space;
  organization: Organization | null;
  membership: Member | null;
  chain: Collection[];
  grants: PermissionGrant[];
  counters?: { changeRequests: Record<string, number>; openComments: number };
}

/**
 * The hottest reads of every request (the viewer's memberships, spaces, their collections and
 * organizations) as raw SQL through Prisma: the same statement and the same row objects as
 * `findMany({ where: { id: { in } } })` (test/raw-rows.test.ts compares them on both databases),
 * at well under half of the client CPU, since Prisma 6.19 compiles every model query again
 * (docs/performance.md). They are sent with `queryRows` (src/db/raw-query.ts): to the driver
 * adapter Prisma connected, without the client's per-call pipeline, with `$queryRaw`'s rows.
 */
export const rawRows = {
  /**
   * Organizations, each with the viewer's membership there (null when none), in one statement: an
   * organization is read to check that the viewer may see it, which needs that membership.
   */
  async organizations(prisma: PrismaClient, ids: string[], viewerUserId: string | null) {
    const rows = await queryRows<Organization & { _membership: Record<string, unknown> | null }>(
      prisma,
      Prisma.sql`
      SELECT ${ORGANIZATION_COLUMNS_OF_O},
        (SELECT row_to_json(m) FROM (SELECT ${MEMBER_COLUMNS} FROM "Member"
           WHERE "organizationId" = o.id AND "userId" = ${viewerUserId}) m) AS "_membership"
      FROM "Organization" o WHERE o.id = ANY(${ids}::text[])`,
    );
    return rows.map(({ _membership, ...organization }) => ({
      organization: organization as Organization,
      membership: _membership && memberOfJson(_membership),
    }));
  },
  collections: (prisma: PrismaClient, ids: string[]) =>
    queryRows<Collection>(prisma, Prisma.sql`SELECT ${COLLECTION_COLUMNS} FROM "Collection" WHERE id = ANY(${ids}::text[])`),
  spaces: (prisma: PrismaClient, ids: string[]) =>
    queryRows<Space>(prisma, Prisma.sql`SELECT ${SPACE_COLUMNS} FROM "Space" WHERE id = ANY(${ids}::text[])`),
  membershipsOfUser: (prisma: PrismaClient, userId: string) =>
    queryRows<Member>(prisma, Prisma.sql`SELECT ${MEMBER_COLUMNS} FROM "Member" WHERE "userId" = ${userId}`),
  /**
   * Spaces with what reading them needs (SpaceView), in one statement: a space read through the
   * API sends this and nothing else (issue 15), where the loaders one by one sent five statements
   * in up to four stages. The chain stops after 64 levels (a cycle, which moves refuse, ends there).
   */
  async spaceViews(prisma: PrismaClient, ids: string[], viewerUserId: string | null, { counters = false } = {}): Promise<SpaceView[]> {
    type Row = Space & {
      _organization: Record<string, unknown> | null;
      _membership: Record<string, unknown> | null;
      _chain: Record<string, unknown>[];
      _grants: Record<string, unknown>[];
      changeRequests?: Record<string, number>;
      openComments?: number;
    };
    const rows = await queryRows<Row>(
      prisma,
      Prisma.sql`
      SELECT ${SPACE_COLUMNS_OF_S},
        (SELECT row_to_json(o) FROM (SELECT ${ORGANIZATION_COLUMNS} FROM "Organization" WHERE id = s."organizationId") o) AS "_organization",
        (SELECT row_to_json(m) FROM (SELECT ${MEMBER_COLUMNS} FROM "Member"
           WHERE "organizationId" = s."organizationId" AND "userId" = ${viewerUserId}) m) AS "_membership",
        chain.collections AS "_chain",
        (SELECT coalesce(json_agg(g), '[]'::json) FROM (SELECT ${GRANT_COLUMNS} FROM "PermissionGrant"
           WHERE ("spaceId" = s.id OR "collectionId" = ANY(chain.ids))
             AND ("userId" = ${viewerUserId} OR "teamId" IN (SELECT "teamId" FROM "TeamMember" WHERE "userId" = ${viewerUserId}))) g) AS "_grants"
        ${counters ? Prisma.sql`, ${spaceCountersSql("s")}` : Prisma.empty}
      FROM "Space" s
      CROSS JOIN LATERAL (
        WITH RECURSIVE up AS (
          SELECT ${COLLECTION_COLUMNS}, 1 AS depth FROM "Collection" WHERE id = s."parentId"
          UNION ALL
          SELECT ${COLLECTION_COLUMNS_OF_C}, up.depth + 1 FROM "Collection" c JOIN up ON c.id = up."parentId" WHERE up.depth < 64
        )
        SELECT coalesce(json_agg(up ORDER BY up.depth), '[]'::json) AS collections, coalesce(array_agg(up.id), '{}') AS ids FROM up
      ) chain
      WHERE s.id = ANY(${ids}::text[])`,
    );
    return rows.map(({ _organization, _membership, _chain, _grants, changeRequests, openComments, ...space }) => ({
      space: space as Space,
      organization: _organization && organizationOfJson(_organization),
      membership: _membership && memberOfJson(_membership),
      chain: _chain.map(collectionOfJson),
      grants: _grants.map(grantOfJson),
      ...(counters ? { counters: { changeRequests: changeRequests!, openComments: Number(openComments) } } : {}),
    }));
  },
};

/**
 * A filter of the few shapes lists pass to a page source (`paginate` in pagination.ts) as SQL on
 * the table's own columns: `{}`, `field: value | null`, `field: { in | gt | lt | gte | lte }`, and
 * AND / OR of those. Anything else throws, so a list that starts filtering another way fails its
 * tests rather than reading other rows. Dates compare as the `timestamp(3)` columns store them (UTC).
 */
function whereSql(where: object, columns: ReadonlySet<string>): Prisma.Sql {
  const value = (v: unknown): Prisma.Sql => {
    if (v instanceof Date) return Prisma.sql`${v.toISOString()}::timestamp(3)`;
    if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") return Prisma.sql`${v}`;
    throw new Error(`raw page filter: unsupported value ${quote(v)}`);
  };
  const COMPARE: Record<string, string> = { gt: ">", lt: "<", gte: ">=", lte: "<=" };
  const parts: Prisma.Sql[] = [];
  for (const [key, condition] of Object.entries(where)) {
    if (condition === undefined) continue;
    if (key === "AND" || key === "OR") {
      if (!Array.isArray(condition)) throw new Error(`raw page filter: ${key} must be a list`);
      const inner = condition.map((item: object) => whereSql(item, columns));
      parts.push(
        inner.length ? Prisma.sql`(${Prisma.join(inner, key === "AND" ? " AND " : " OR ")})` : Prisma.raw(key === "AND" ? "TRUE" : "FALSE"),
      );
      continue;
    }
    if (!columns.has(key)) throw new Error(`raw page filter: unknown column ${key}`);
    const column = Prisma.raw(`${quote(key)}`);
    if (condition === null) parts.push(Prisma.sql`${column} IS NULL`);
    else if (typeof condition !== "object" || condition instanceof Date) parts.push(Prisma.sql`${column} = ${value(condition)}`);
    else
      for (const [operator, operand] of Object.entries(condition)) {
        if (operator === "in" && Array.isArray(operand) && operand.every((item) => typeof item === "string")) {
          parts.push(Prisma.sql`${column} = ANY(${operand}::text[])`);
        } else if (operator in COMPARE) {
          parts.push(Prisma.sql`${column} ${Prisma.raw(COMPARE[operator])} ${value(operand)}`);
        } else throw new Error(`raw page filter: unsupported condition ${key}.${operator}`);
      }
  }
  return parts.length ? Prisma.join(parts, " AND ") : Prisma.raw("TRUE");
}

type SpaceOrder = { [field: string]: "asc" | "desc" }[];

/**
 * Pages of spaces (`paginate`'s source) in raw SQL: the statements of `prisma.space.findMany` and
 * `count` with the filters lists pass, giving the same rows (test/raw-rows.test.ts), at well under
 * half of the client CPU (Prisma 6.19 compiles every model query again: a page of 100 spaces cost
 * 4.2 ms of client CPU through the model query, 2.2 through `$queryRaw`). `findPage` reads a page
 * and its count in one statement, with what the list's fields read next when asked (issue 15):
 * `counters` (in `counters`, by row) and `parents` (each row's parent collection, put in that loader).
 */
/** What a page read (`rawSpacePages().findPage`) reads beside each space's own columns. */
const PAGE_EXTRAS: ReadonlySet<string> = new Set(["_total", "_parent", "changeRequests", "openComments"]);

export function rawSpacePages(
  prisma: PrismaClient,
  { counters = false, parents }: { counters?: boolean; parents?: DataLoader<string, Collection | null> } = {},
) {
  const columns = new Set(Object.keys(Prisma.SpaceScalarFieldEnum));
  const orderSql = (orderBy: SpaceOrder, alias = "") =>
    Prisma.join(
      orderBy.flatMap((item) =>
        Object.entries(item).map(([field, direction]) => {
          if (!columns.has(field) || (direction !== "asc" && direction !== "desc"))
            throw new Error(`raw page order: ${field} ${direction}`);
          return Prisma.raw(`${alias}${quote(field)} ${direction.toUpperCase()}`);
        }),
      ),
      ", ",
    );
  /** The counters of each row a page read (`findPage` with `counters`). */
  const countersOf = new Map<Space, SpaceCounters>();
  return {
    countersOf,
    findMany({ where, orderBy, take }: { where: Prisma.SpaceWhereInput; orderBy: SpaceOrder; take: number }) {
      return queryRows<Space>(
        prisma,
        Prisma.sql`SELECT ${SPACE_COLUMNS} FROM "Space" WHERE ${whereSql(where, columns)}
        ORDER BY ${orderSql(orderBy)} LIMIT ${take}`,
      );
    },
    async count({ where }: { where: Prisma.SpaceWhereInput }) {
      const [row] = await queryRows<{ count: number }>(
        prisma,
        Prisma.sql`SELECT count(*)::int AS count FROM "Space" WHERE ${whereSql(where, columns)}`,
      );
      return Number(row.count);
    },
    /** `findMany` of `pageWhere` and `count` of `where` in one statement (an empty page still gives its one row, with the count). */
    async findPage({
      where,
      pageWhere,
      orderBy,
      take,
    }: {
      where: Prisma.SpaceWhereInput;
      pageWhere: Prisma.SpaceWhereInput;
      orderBy: SpaceOrder;
      take: number;
    }) {
      type Extras = {
        _total: number;
        /** The parent collection's row as JSON text: parsed once per parent (a page's spaces share a few). */
        _parent?: string | null;
        changeRequests?: Record<string, number>;
        openComments?: number;
      };
      const result = await queryRowsApart<Space, Extras>(
        prisma,
        Prisma.sql`
        WITH total AS (SELECT count(*)::int AS n FROM "Space" WHERE ${whereSql(where, columns)})
        SELECT total.n AS "_total", ${SPACE_COLUMNS_OF_P}
          ${counters ? Prisma.sql`, ${spaceCountersSql("p")}` : Prisma.empty}
          ${parents ? Prisma.sql`, (SELECT row_to_json(c)::text FROM (SELECT ${COLLECTION_COLUMNS} FROM "Collection" WHERE id = p."parentId") c) AS "_parent"` : Prisma.empty}
        FROM total LEFT JOIN LATERAL (
          SELECT ${SPACE_COLUMNS} FROM "Space" WHERE ${whereSql(pageWhere, columns)} ORDER BY ${orderSql(orderBy)} LIMIT ${take}
        ) p ON true
        ORDER BY ${orderSql(orderBy, "p.")}`,
        PAGE_EXTRAS,
      );
      const rows: Space[] = [];
      // The parents primed by this page: DataLoader's prime keeps a key's first value, so a
      // parent's later rows (the same row of the same statement) would change nothing.
      const primed = parents && new Set<string>();
      for (let index = 0; index < result.rows.length; index++) {
        const space = result.rows[index];
        if (space.id === null) continue; // the count's row of an empty page
        rows.push(space);
        const { _parent, changeRequests, openComments } = result.extras[index];
        if (counters) countersOf.set(space, { changeRequests: changeRequests!, openComments: Number(openComments) });
        if (_parent && !primed!.has(space.parentId!)) {
          primed!.add(space.parentId!);
          const parent = collectionOfJson(JSON.parse(_parent));
          parents!.prime(parent.id, parent);
        }
      }
      return { rows, count: Number(result.extras[0]?._total ?? 0) };
    },
  };
}

/**
 * A DataLoader that also tells, without a promise, the value it holds for a key (`peek`): one
 * primed, or one a batch of its own gave, for as long as its cache keeps the key (issue 15: a load
 * of a key the loader holds still waits for a batch dispatch, a tick and several promises; a
 * space read made six such loads of rows its one statement had primed). A primed value becomes
 * the cache's promise only when a load asks for it. Values and statements are DataLoader's: the
 * first value of a key is kept, `clear` forgets it. A batch records the values of its keys that no
 * `clear` touched while it ran (those the cache still holds as its promises), so a key whose load
 * settled with a value can be peeked.
 */
export class KnownLoader<K, V> extends DataLoader<K, V, K> {
  private readonly known: Map<K, V>;
  /** Keys of `known` primed but not yet given to DataLoader's cache. */
  private readonly unprimed = new Set<K>();
  private readonly cacheMap: Map<K, Promise<V>>;
  /** Clears so far, in all (`clearAll` too) and by key: a batch records no key cleared while it ran. */
  private readonly clears: { all: number; of: Map<K, number> };

  constructor(batch: DataLoader.BatchLoadFn<K, V>) {
    const known = new Map<K, V>();
    const clears = { all: 0, of: new Map<K, number>() };
    const cacheMap = new Map<K, Promise<V>>();
    super(
      async (keys) => {
        const all = clears.all;
        const before = clears.of.size ? keys.map((key) => clears.of.get(key)) : undefined;
        const values = await batch(keys);
        for (let index = 0; index < keys.length; index++) {
          const key = keys[index];
          const value = values[index];
          if (value instanceof Error || known.has(key)) continue;
          if (clears.all !== all && clears.of.get(key) !== before?.[index]) continue;
          known.set(key, value);
        }
        return values;
      },
      { cacheMap },
    );
    this.known = known;
    this.clears = clears;
    this.cacheMap = cacheMap;
  }

  /** The value held for `key`, if the loader holds one now; undefined otherwise (then `load` it). */
  peek(key: K): V | undefined {
    return this.known.get(key);
  }

  override load(key: K): Promise<V> {
    if (this.unprimed.delete(key)) super.prime(key, this.known.get(key)!);
    return super.load(key);
  }

  override prime(key: K, value: V | PromiseLike<V> | Error): this {
    // DataLoader keeps the first value of a key.
    if (this.known.has(key) || this.cacheMap.has(key)) return this;
    if (value instanceof Error || isThenable(value)) return super.prime(key, value);
    this.known.set(key, value);
    this.unprimed.add(key);
    return this;
  }

  override clear(key: K): this {
    this.clears.all++;
    this.clears.of.set(key, (this.clears.of.get(key) ?? 0) + 1);
    this.known.delete(key);
    this.unprimed.delete(key);
    return super.clear(key);
  }

  override clearAll(): this {
    this.clears.all++;
    // Every key counts as cleared: a batch under way records none.
    for (const key of this.cacheMap.keys()) this.clears.of.set(key, (this.clears.of.get(key) ?? 0) + 1);
    this.known.clear();
    this.unprimed.clear();
    return super.clearAll();
  }
}

export function byId<T extends { id: string }>(find: (ids: string[]) => Promise<T[]>) {
  return new KnownLoader<string, T | null>(async (ids) => {
    const rows = await find([...ids]);
    const found = new Map(rows.map((row) => [row.id, row]));
    return ids.map((id) => found.get(id) ?? null);
  });
}

export function groupedBy<T>(keysOf: (row: T) => string[], find: (keys: string[]) => Promise<T[]>) {
  return new KnownLoader<string, T[]>(async (keys) => {
    const rows = await find([...keys]);
    const groups = new Map<string, T[]>(keys.map((key) => [key, []]));
    for (const row of rows) for (const key of keysOf(row)) groups.get(key)?.push(row);
    return keys.map((key) => groups.get(key) ?? []);
  });
}
