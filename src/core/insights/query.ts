// `insights/events/aggregate` (the published aggregateSiteEvents) and `insights/visitor-segments`
// (listSiteVisitorSegments): SQL over InsightEvent, one statement each, on the (siteId, timestamp)
// index. Bounded: a range of at most RANGE_MAX_DAYS, at most AGGREGATE_LIMIT_MAX groups answered,
// GROUP_COLUMNS_MAX group columns, FILTERS_MAX filters of FILTER_VALUES_MAX values each; every
// statement also has the deadline of the operation (statement_timeout).
import { Prisma, type Site } from "../../generated/prisma/client.ts";
import type { CoreContext } from "../context.ts";
import { badInput, quote } from "../errors.ts";
import { requireSite } from "../sites/index.ts";

/** The longest range one query reads (a custom range; the longest preset is a year). */
export const RANGE_MAX_DAYS = 366;
/** The published maximum (and default) of `limit`: groups answered. */
export const AGGREGATE_LIMIT_MAX = 1000;
/** Columns a query groups by (groupBy and the dimensions it selects together). */
export const GROUP_COLUMNS_MAX = 6;
/** Columns a query selects. */
export const SELECT_COLUMNS_MAX = 20;
/** Filters of one query, and values of one filter. */
export const FILTERS_MAX = 20;
export const FILTER_VALUES_MAX = 100;
/** Visitor segments answered (the largest first), over the last SEGMENT_DAYS days. */
export const SEGMENTS_MAX = 100;
export const SEGMENT_DAYS = 30;

const DAY_MS = 24 * 60 * 60 * 1000;
const INTERVALS = ["hour", "day", "week", "month"] as const;
const OPERATORS = ["in", "notIn", "greaterThan", "greaterThanOrEqual", "lessThan", "lessThanOrEqual"] as const;
type Operator = (typeof OPERATORS)[number];
const COMPARISONS: Record<Exclude<Operator, "in" | "notIn">, string> = {
  greaterThan: ">",
  greaterThanOrEqual: ">=",
  lessThan: "<",
  lessThanOrEqual: "<=",
};
const PRESETS: Record<string, (now: Date) => Date> = {
  last24Hours: (now) => new Date(now.getTime() - DAY_MS),
  last7Days: (now) => new Date(now.getTime() - 7 * DAY_MS),
  last30Days: (now) => new Date(now.getTime() - 30 * DAY_MS),
  last3Months: (now) => {
    const from = new Date(now);
    from.setUTCMonth(from.getUTCMonth() - 3);
    return from;
  },
  lastYear: (now) => {
    const from = new Date(now);
    from.setUTCFullYear(from.getUTCFullYear() - 1);
    return from;
  },
};

/** How a value of a column is typed, in SQL and in the published values. */
type ValueType = "text" | "int" | "bool" | "jsonb" | "timestamp";

interface Dimension {
  kind: "dimension";
  type: ValueType;
  /** Its SQL over the event `e` (and `k`, the claim property, when `claimKeys`). */
  sql: (column: ColumnRequest) => Prisma.Sql;
  /** A field of some event types only, never null in the published values: grouping by it keeps the events that carry it. */
  carried?: true;
  /** Null is one of its published values. */
  nullable?: true;
  /** Reads the visitor's claim properties, one row per property. */
  claimKeys?: true;
}

interface Metric {
  kind: "metric";
  sql: Prisma.Sql;
  /** A count: it may be filtered (HAVING) and compared. */
  count?: true;
}

type Column = Dimension | Metric;

interface ColumnRequest {
  column: string;
  interval?: (typeof INTERVALS)[number];
  claim?: string;
  precision?: number;
}

const raw = Prisma.raw;
const data = (path: string) => raw(`e.data->>'${path}'`);
const text = (sql: string): Dimension => ({ kind: "dimension", type: "text", sql: () => raw(sql) });
const nullableText = (sql: string): Dimension => ({ kind: "dimension", type: "text", sql: () => raw(sql), nullable: true });
const carriedText = (sql: string): Dimension => ({ kind: "dimension", type: "text", sql: () => raw(sql), carried: true });
const FEEDBACK = raw(`e.type IN ('page_post_feedback', 'page_post_feedback_comment')`);
const ASK_RATING = raw(`CASE WHEN jsonb_typeof(e.data->'askRating') = 'number' THEN (e.data->>'askRating')::int END`);

/** Every published SiteInsightsQueryEventsColumn. Geolocation is never recorded (no third party): its columns are null. */
const COLUMNS: Readonly<Record<string, Column>> = {
  datetime: {
    kind: "dimension",
    type: "timestamp",
    sql: ({ interval }) => raw(`to_char(date_trunc('${interval ?? "day"}', e."timestamp"), 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`),
  },
  dayOfWeek: { kind: "dimension", type: "int", sql: () => raw(`extract(isodow from e."timestamp")::int`) },
  hourOfDay: { kind: "dimension", type: "int", sql: () => raw(`extract(hour from e."timestamp")::int`) },
  url: text(`e.url`),
  urlPath: text(`e."urlPath"`),
  eventType: text(`e.type`),
  siteSection: nullableText(`e."siteSectionId"`),
  siteSpace: nullableText(`e."siteSpaceId"`),
  siteShareKey: nullableText(`e."siteShareKey"`),
  displayContext: text(`e."displayContext"`),
  page: {
    kind: "dimension",
    type: "jsonb",
    nullable: true,
    sql: () =>
      raw(
        `CASE WHEN e."pageId" IS NULL OR e."spaceId" IS NULL THEN NULL ELSE jsonb_build_object('page', e."pageId", 'space', e."spaceId") END`,
      ),
  },
  visitorGeoCountry: nullableText(`NULL::text`),
  visitorGeoPoint: { kind: "dimension", type: "jsonb", nullable: true, sql: () => raw(`NULL::jsonb`) },
  visitorDevice: text(`e."visitorDevice"`),
  visitorBrowser: text(`e."visitorBrowser"`),
  visitorOS: text(`e."visitorOS"`),
  visitorBot: nullableText(`e."visitorBot"`),
  visitorLanguage: nullableText(`e."visitorLanguage"`),
  eventLinkTargetValue: { kind: "dimension", type: "jsonb", carried: true, sql: () => raw(`e.data->'linkTarget'`) },
  eventLinkTargetKind: carriedText(`e.data->'linkTarget'->>'kind'`),
  eventLinkTargetDomain: nullableText(`substring(e.data->'linkTarget'->>'url' from '^[A-Za-z][A-Za-z0-9+.-]*://([^/?#:@]+)')`),
  eventLinkPosition: carriedText(`e.data->>'linkPosition'`),
  eventAPIOperationPath: nullableText(`e.data->'operation'->>'path'`),
  eventAPIOperationMethod: nullableText(`e.data->'operation'->>'method'`),
  eventLLMSVariant: nullableText(`e.data->>'llmsVariant'`),
  // Which 404s adaptive content explains is not computed here: always null.
  eventPageNotFoundType: nullableText(`NULL::text`),
  eventMarkdownSource: nullableText(`e.data->>'markdownSource'`),
  eventSearchQuery: carriedText(`e.data->>'query'`),
  eventSearchResultRecordId: nullableText(`e.data->'result'->>'recordId'`),
  eventPageFeedbackRating: {
    kind: "dimension",
    type: "text",
    carried: true,
    sql: () => Prisma.sql`CASE WHEN ${FEEDBACK} THEN ${data("rating")} END`,
  },
  eventPageFeedbackComment: carriedText(`e.data->>'comment'`),
  eventAskResponseRating: { kind: "dimension", type: "int", carried: true, sql: () => ASK_RATING },
  referrer: text(`coalesce(e.referrer, '')`),
  referrerDomain: text(`coalesce(e."referrerDomain", '')`),
  utmSource: text(`coalesce(e."utmSource", '')`),
  utmMedium: text(`coalesce(e."utmMedium", '')`),
  utmCampaign: text(`coalesce(e."utmCampaign", '')`),
  utmTerm: text(`coalesce(e."utmTerm", '')`),
  utmContent: text(`coalesce(e."utmContent", '')`),
  visitorAuthenticated: { kind: "dimension", type: "bool", nullable: true, sql: () => raw(`e."visitorAuthenticated"`) },
  visitorClaimProperty: { kind: "dimension", type: "text", claimKeys: true, sql: () => raw(`coalesce(k.key, '')`) },
  visitorClaim: { kind: "dimension", type: "text", sql: ({ claim }) => Prisma.sql`coalesce(e."visitorClaims"->>${claim}, '')` },
  eventAdDomain: carriedText(`e.data->'ad'->>'domain'`),
  eventAdPlacement: carriedText(`e.data->'ad'->>'placement'`),
  eventTrademarkPlacement: {
    kind: "dimension",
    type: "text",
    carried: true,
    sql: () => raw(`CASE WHEN e.type = 'trademark_click' THEN e.data->>'placement' END`),
  },
  eventsCount: { kind: "metric", count: true, sql: raw(`count(*)::int`) },
  sessionsCount: { kind: "metric", count: true, sql: raw(`count(DISTINCT e."sessionId")::int`) },
  visitorsCount: { kind: "metric", count: true, sql: raw(`count(DISTINCT e."visitorId")::int`) },
  pageFeedbackRating: {
    kind: "metric",
    sql: Prisma.sql`jsonb_build_object(
      'ok', count(*) FILTER (WHERE ${FEEDBACK} AND e.data->>'rating' = 'ok'),
      'good', count(*) FILTER (WHERE ${FEEDBACK} AND e.data->>'rating' = 'good'),
      'bad', count(*) FILTER (WHERE ${FEEDBACK} AND e.data->>'rating' = 'bad'))`,
  },
  askResponseRating: {
    kind: "metric",
    sql: Prisma.sql`jsonb_build_object(
      'positive', count(*) FILTER (WHERE e.type = 'ask_rate_response' AND ${ASK_RATING} = 1),
      'negative', count(*) FILTER (WHERE e.type = 'ask_rate_response' AND ${ASK_RATING} = -1))`,
  },
};

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** A column of `select`, `groupBy` or `order.by`, checked. */
function columnOf(field: string, value: unknown): ColumnRequest & { spec: Column } {
  if (!isObject(value)) throw badInput(`${field} must be an object { column, … }`);
  const name = value.column;
  if (typeof name !== "string" || !Object.hasOwn(COLUMNS, name))
    throw badInput(`${field}.column must be one of ${Object.keys(COLUMNS).join(", ")} (got ${quote(name)})`);
  const request: ColumnRequest & { spec: Column } = { column: name, spec: COLUMNS[name]! };
  if (name === "datetime" && value.interval !== undefined) {
    if (!(INTERVALS as readonly unknown[]).includes(value.interval))
      throw badInput(`${field}.interval must be one of ${INTERVALS.join(", ")} (got ${quote(value.interval)})`);
    request.interval = value.interval as ColumnRequest["interval"];
  }
  if (name === "visitorClaim") {
    if (typeof value.claim !== "string" || !value.claim || value.claim.length > 100)
      throw badInput(`${field}.claim is required (the claim's name, at most 100 characters)`);
    request.claim = value.claim;
  }
  if (name === "visitorGeoPoint" && value.precision !== undefined) {
    if (!Number.isInteger(value.precision) || (value.precision as number) < 0 || (value.precision as number) > 15)
      throw badInput(`${field}.precision must be an integer from 0 to 15`);
    request.precision = value.precision as number;
  }
  return request;
}

/** Two column requests name the same column (the same claim, the same interval). */
const sameColumn = (a: ColumnRequest, b: ColumnRequest) =>
  a.column === b.column && (a.claim ?? null) === (b.claim ?? null) && (a.interval ?? "day") === (b.interval ?? "day");

/** The range's bounds: a preset before now, or a custom range of at most RANGE_MAX_DAYS. */
function rangeOf(value: unknown, now: Date): { from: Date; to: Date } {
  if (typeof value === "string") {
    const preset = PRESETS[value];
    if (!preset || !Object.hasOwn(PRESETS, value))
      throw badInput(`range must be one of ${Object.keys(PRESETS).join(", ")} or { from, to } (got ${quote(value)})`);
    // Up to and including now: an event recorded this instant is in "the last 24 hours".
    return { from: preset(now), to: new Date(now.getTime() + 1) };
  }
  if (!isObject(value)) throw badInput(`range is required: one of ${Object.keys(PRESETS).join(", ")} or { from, to }`);
  const bound = (key: "from" | "to") => {
    const date = typeof value[key] === "string" ? new Date(value[key] as string) : new Date(Number.NaN);
    if (Number.isNaN(date.getTime())) throw badInput(`range.${key} must be a date-time (ISO 8601)`);
    return date;
  };
  const from = bound("from");
  const to = bound("to");
  if (to <= from) throw badInput("range.to must be after range.from");
  if (to.getTime() - from.getTime() > RANGE_MAX_DAYS * DAY_MS) throw badInput(`range: at most ${RANGE_MAX_DAYS} days`);
  return { from, to };
}

/** A value of a filter as SQL of the column's type, or why it is not one. */
function valueSql(field: string, type: ValueType, value: unknown): Prisma.Sql {
  switch (type) {
    case "text":
      if (typeof value !== "string") throw badInput(`${field} must be a string`);
      return Prisma.sql`${value}`;
    case "int":
      if (!Number.isInteger(value)) throw badInput(`${field} must be an integer`);
      return Prisma.sql`${value}::int`;
    case "bool":
      if (typeof value !== "boolean") throw badInput(`${field} must be a boolean or null`);
      return Prisma.sql`${value}::boolean`;
    case "jsonb":
      if (!isObject(value)) throw badInput(`${field} must be an object`);
      return Prisma.sql`${JSON.stringify(value)}::jsonb`;
    case "timestamp": {
      const date = typeof value === "string" ? new Date(value) : new Date(Number.NaN);
      if (Number.isNaN(date.getTime())) throw badInput(`${field} must be a date-time (ISO 8601)`);
      return Prisma.sql`${date.toISOString()}::timestamp`;
    }
  }
}

interface Filter {
  /** A condition on events (WHERE) or on groups (HAVING, the counts). */
  on: "events" | "groups";
  sql: Prisma.Sql;
  claimKeys?: true;
}

/** One filter of `where`, checked: `in`/`notIn` on any column but the rating objects, comparisons on times and counts. */
function filterOf(field: string, value: unknown): Filter {
  const column = columnOf(field, value);
  const filter = value as Record<string, unknown>;
  const operator = (filter.operator ?? "in") as Operator;
  if (!(OPERATORS as readonly unknown[]).includes(operator))
    throw badInput(`${field}.operator must be one of ${OPERATORS.join(", ")} (got ${quote(filter.operator)})`);
  const values = filter.values;
  if (!Array.isArray(values)) throw badInput(`${field}.values is required (a list of values)`);
  if (values.length > FILTER_VALUES_MAX) throw badInput(`${field}.values: at most ${FILTER_VALUES_MAX} values`);
  const spec = column.spec;
  const comparison = operator !== "in" && operator !== "notIn";
  if (spec.kind === "metric") {
    if (!spec.count) throw badInput(`${field}.column: ${column.column} cannot be filtered on`);
    const numbers = values.map((item, index) => {
      if (typeof item !== "number" || !Number.isFinite(item)) throw badInput(`${field}.values[${index}] must be a number`);
      return item;
    });
    return {
      on: "groups",
      sql: condition(
        field,
        spec.sql,
        operator,
        numbers.map((item) => Prisma.sql`${item}`),
        false,
      ),
    };
  }
  // A time compares as the event's own instant; other columns as they are grouped.
  const expression = spec.type === "timestamp" ? raw(`e."timestamp"`) : spec.sql(column);
  if (comparison && spec.type !== "timestamp" && spec.type !== "int")
    throw badInput(`${field}.operator: ${operator} applies to datetime, dayOfWeek, hourOfDay and the counts, not ${column.column}`);
  let hasNull = false;
  const sqlValues: Prisma.Sql[] = [];
  values.forEach((item, index) => {
    if (item === null) {
      if (!spec.nullable && spec.type !== "bool") throw badInput(`${field}.values[${index}] must not be null`);
      hasNull = true;
    } else {
      sqlValues.push(valueSql(`${field}.values[${index}]`, spec.type, item));
    }
  });
  if (comparison && hasNull) throw badInput(`${field}.values: ${operator} compares with a value, not null`);
  return { on: "events", sql: condition(field, expression, operator, sqlValues, hasNull), claimKeys: spec.claimKeys };
}

/** `expression` against `values` under `operator`; `hasNull`: null is one of the values (in/notIn). */
function condition(field: string, expression: Prisma.Sql, operator: Operator, values: Prisma.Sql[], hasNull: boolean): Prisma.Sql {
  if (operator !== "in" && operator !== "notIn") {
    if (values.length !== 1) throw badInput(`${field}.values must hold exactly one value for ${operator}`);
    return Prisma.sql`${expression} ${raw(COMPARISONS[operator])} ${values[0]}`;
  }
  const among = values.length ? Prisma.sql`${expression} IN (${Prisma.join(values)})` : raw("FALSE");
  if (operator === "in") return hasNull ? Prisma.sql`(${among} OR ${expression} IS NULL)` : among;
  return hasNull ? Prisma.sql`(${expression} IS NOT NULL AND NOT ${among})` : Prisma.sql`(${expression} IS NULL OR NOT ${among})`;
}

/** The published SiteInsightsQueryEventsValues: one per selected column, its values in the groups' order. */
export interface InsightColumnValues {
  column: string;
  claim?: string;
  values: unknown[];
}

/**
 * Aggregates the site's events (`site.readInsights`): the events of `range` that pass `where`,
 * grouped by `groupBy` and the dimensions `select` names, each group with the metrics `select`
 * names (without `select`: the group columns and eventsCount), in `order` (else by the group
 * columns), at most `limit` groups. Answered column by column, as published.
 */
export async function aggregateSiteEvents(
  ctx: CoreContext,
  organizationId: string | null | undefined,
  siteId: string,
  query: unknown,
): Promise<InsightColumnValues[]> {
  const site = await requireSite(ctx, organizationId, siteId, "site.readInsights");
  if (!isObject(query)) throw badInput("The query must be an object { range, select, where, groupBy, order, limit }");
  const { from, to } = rangeOf(query.range, ctx.clock.now());
  const list = (key: string, max: number) => {
    const value = query[key];
    if (value === undefined) return [];
    if (!Array.isArray(value)) throw badInput(`${key} must be a list`);
    if (value.length > max) throw badInput(`${key}: at most ${max} items`);
    return value as unknown[];
  };
  const groupBy = list("groupBy", GROUP_COLUMNS_MAX).map((item, index) => columnOf(`groupBy[${index}]`, item));
  groupBy.forEach((column, index) => {
    if (column.spec.kind === "metric") throw badInput(`groupBy[${index}].column: ${column.column} is a count, not a dimension`);
  });
  let select = list("select", SELECT_COLUMNS_MAX).map((item, index) => columnOf(`select[${index}]`, item));
  if (!select.length) select = [...groupBy, { column: "eventsCount", spec: COLUMNS.eventsCount! }];
  const filters = list("where", FILTERS_MAX).map((item, index) => filterOf(`where[${index}]`, item));
  let limit = AGGREGATE_LIMIT_MAX;
  if (query.limit !== undefined) {
    if (!Number.isInteger(query.limit) || (query.limit as number) < 1 || (query.limit as number) > AGGREGATE_LIMIT_MAX)
      throw badInput(`limit must be an integer from 1 to ${AGGREGATE_LIMIT_MAX}`);
    limit = query.limit as number;
  }

  // The groups: groupBy's columns, then the dimensions `select` names beside them.
  const groups: (ColumnRequest & { spec: Dimension })[] = [];
  for (const column of [...groupBy, ...select]) {
    if (column.spec.kind === "dimension" && !groups.some((group) => sameColumn(group, column)))
      groups.push(column as ColumnRequest & { spec: Dimension });
  }
  if (groups.length > GROUP_COLUMNS_MAX) throw badInput(`groupBy and select: at most ${GROUP_COLUMNS_MAX} dimensions together`);
  const metrics: (ColumnRequest & { spec: Metric })[] = [];
  for (const column of select) {
    if (column.spec.kind === "metric" && !metrics.some((metric) => metric.column === column.column))
      metrics.push(column as ColumnRequest & { spec: Metric });
  }
  let orderBy: Prisma.Sql | null = null;
  if (query.order !== undefined) {
    if (!isObject(query.order)) throw badInput("order must be an object { by, direction }");
    const by = columnOf("order.by", query.order.by);
    const direction = query.order.direction;
    if (direction !== "asc" && direction !== "desc") throw badInput(`order.direction must be asc or desc (got ${quote(direction)})`);
    const group = groups.findIndex((column) => sameColumn(column, by));
    const metric = metrics.findIndex((column) => column.column === by.column);
    if (group < 0 && metric < 0) throw badInput(`order.by: ${by.column} must be one of the columns selected or grouped by`);
    orderBy = raw(`${group >= 0 ? `g${group}` : `m${metric}`} ${direction.toUpperCase()} NULLS LAST`);
  }

  const claimKeys = groups.some((column) => column.spec.claimKeys) || filters.some((filter) => filter.claimKeys);
  const carried = groups.filter((column) => column.spec.carried).map((column) => Prisma.sql`${column.spec.sql(column)} IS NOT NULL`);
  const where = [
    Prisma.sql`e."siteId" = ${site.id}`,
    Prisma.sql`e."timestamp" >= ${from.toISOString()}::timestamp`,
    Prisma.sql`e."timestamp" < ${to.toISOString()}::timestamp`,
    ...filters.filter((filter) => filter.on === "events").map((filter) => filter.sql),
    ...carried,
  ];
  const having = filters.filter((filter) => filter.on === "groups").map((filter) => filter.sql);
  const selected = [
    ...groups.map((column, index) => Prisma.sql`${column.spec.sql(column)} AS ${raw(`g${index}`)}`),
    ...metrics.map((column, index) => Prisma.sql`${column.spec.sql} AS ${raw(`m${index}`)}`),
  ];
  // Grouped by position: an expression with a parameter (a claim's name) matches itself only so.
  const positions = groups.map((_, index) => raw(String(index + 1)));
  const order = [...(orderBy ? [orderBy] : []), ...groups.map((_, index) => raw(`g${index} ASC NULLS FIRST`))];
  const rows = await ctx.prisma.$queryRaw<Record<string, unknown>[]>(Prisma.sql`
    SELECT ${Prisma.join(selected)}
    FROM "InsightEvent" e
    ${claimKeys ? raw(`LEFT JOIN LATERAL jsonb_object_keys(CASE WHEN jsonb_typeof(e."visitorClaims") = 'object' THEN e."visitorClaims" ELSE '{}'::jsonb END) AS k(key) ON true`) : Prisma.empty}
    WHERE ${Prisma.join(where, " AND ")}
    ${positions.length ? Prisma.sql`GROUP BY ${Prisma.join(positions)}` : Prisma.empty}
    ${having.length ? Prisma.sql`HAVING ${Prisma.join(having, " AND ")}` : Prisma.empty}
    ${order.length ? Prisma.sql`ORDER BY ${Prisma.join(order)}` : Prisma.empty}
    LIMIT ${limit}`);
  // Without a dimension there is one group, even of no events (its counts are 0).
  return select.map((column) => {
    const key =
      column.spec.kind === "metric"
        ? `m${metrics.findIndex((metric) => metric.column === column.column)}`
        : `g${groups.findIndex((group) => sameColumn(group, column))}`;
    return {
      column: column.column,
      ...(column.claim !== undefined ? { claim: column.claim } : {}),
      values: rows.map((row) => row[key] ?? null),
    };
  });
}

/** The published SiteInsightsVisitorSegment. */
export interface VisitorSegment {
  title: string;
  claims: Record<string, unknown>;
  events: number;
  visitors: number;
  sessions: number;
}

/** A segment's title: its claims as `name: value`, or what its visitors lack. */
function segmentTitle(claims: Record<string, unknown>): string {
  const parts = Object.entries(claims).map(([name, value]) => `${name}: ${typeof value === "string" ? value : JSON.stringify(value)}`);
  if (!parts.length) return "Visitors without claims";
  const title = parts.join(", ");
  return title.length > 200 ? `${title.slice(0, 199)}…` : title;
}

/**
 * The site's visitor segments (`site.readInsights`): visitors with the same claims (visitor
 * authentication, adaptive content) over the last SEGMENT_DAYS days, one segment per set of claims,
 * visitors without claims one more; the SEGMENTS_MAX largest (by visitors), and how many there are.
 */
export async function listVisitorSegments(
  ctx: CoreContext,
  organizationId: string | null | undefined,
  siteId: string,
): Promise<{ items: VisitorSegment[]; count: number }> {
  const site: Site = await requireSite(ctx, organizationId, siteId, "site.readInsights");
  const now = ctx.clock.now();
  const from = new Date(now.getTime() - SEGMENT_DAYS * DAY_MS);
  const to = new Date(now.getTime() + 1);
  const rows = await ctx.prisma.$queryRaw<
    { claims: Record<string, unknown>; events: number; visitors: number; sessions: number; total: number }[]
  >(
    Prisma.sql`
      SELECT coalesce(e."visitorClaims", '{}'::jsonb) AS claims, count(*)::int AS events,
        count(DISTINCT e."visitorId")::int AS visitors, count(DISTINCT e."sessionId")::int AS sessions,
        (count(*) OVER ())::int AS total
      FROM "InsightEvent" e
      WHERE e."siteId" = ${site.id} AND e."timestamp" >= ${from.toISOString()}::timestamp AND e."timestamp" < ${to.toISOString()}::timestamp
      GROUP BY 1
      ORDER BY visitors DESC, events DESC, claims
      LIMIT ${SEGMENTS_MAX}`,
  );
  return {
    count: rows[0]?.total ?? 0,
    items: rows.map(({ claims, events, visitors, sessions }) => ({ title: segmentTitle(claims), claims, events, visitors, sessions })),
  };
}
