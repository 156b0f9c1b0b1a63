// Content gaps of a published site, deterministic (issue 33): what its readers could not find,
// aggregated from the site's insight events into the published SiteFinding shape. Three kinds:
// searches that found nothing (by normalized query), questions asked with no passage to answer
// them (by normalized question), and pages rated "not helpful" (by page). Nothing is stored: a
// finding is its events, counted over the last FINDINGS_DAYS days, so its id is a hash of its kind
// and key and the same events always give the same findings. Bounded: one statement per kind on the
// (siteId, timestamp) index, the FINDINGS_PER_KIND most frequent of each.
import { createHash } from "node:crypto";
import { Prisma, type Site } from "../../generated/prisma/client.ts";
import type { CoreContext } from "../context.ts";
import type { JsonDocument } from "../content/document.ts";
import { badInput, notFound, quote } from "../errors.ts";
import { type Page, type PageArgs, pageInMemory } from "../pagination.ts";
import { requireSite } from "../sites/index.ts";

/** The window findings are counted over. */
export const FINDINGS_DAYS = 90;
/** Findings of each kind kept (the most frequent first): a site has at most three times as many. */
export const FINDINGS_PER_KIND = 200;
/** Recent comments of a page's "not helpful" ratings quoted in its finding's description. */
export const FINDING_COMMENTS = 5;
/** Occurrences from which a finding is of medium, then high, severity. */
export const SEVERITY_MEDIUM = 3;
export const SEVERITY_HIGH = 10;

const DAY_MS = 24 * 60 * 60 * 1000;
const TITLE_MAX = 256;
/** The published SiteFinding `scan`: findings here come from the site's insights, not a scan. */
export const INSIGHTS_SCAN = "insights";

export const FINDING_STATUSES = ["candidate", "open", "done", "canceled"] as const;
export const FINDING_TYPES = [
  "content-outdated",
  "content-incorrect",
  "content-gap",
  "broken-link",
  "outbound-link-error",
  "other",
] as const;
export const FINDING_SEVERITIES = ["low", "medium", "high"] as const;
export const FINDING_ORDERS = ["updatedAt", "severity", "sources"] as const;
type Severity = (typeof FINDING_SEVERITIES)[number];

export type FindingKind = "search" | "ask" | "feedback";

/** One finding, in the published SiteFinding's terms (plus what it was counted from). */
export interface SiteFinding {
  id: string;
  organizationId: string;
  siteId: string;
  kind: FindingKind;
  type: "content-gap" | "other";
  title: string;
  /** Events it was counted from (searches, questions or ratings). */
  occurrences: number;
  pages: number;
  questions: number;
  severity: Severity;
  status: "open";
  description: JsonDocument;
  createdAt: Date;
  updatedAt: Date;
}

/** The published filters of listSiteFindings and getSiteFindingStats, as they came. */
export interface FindingFilters {
  topic?: string | null;
  question?: string | null;
  status?: string | null;
  type?: readonly string[] | null;
  severity?: string | null;
  hasChangeRequests?: boolean | null;
  source?: readonly string[] | null;
  updatedAfter?: string | null;
  updatedBefore?: string | null;
}

function oneOf<T extends string>(field: string, value: string | null | undefined, allowed: readonly T[]): T | undefined {
  if (value == null) return undefined;
  if (!(allowed as readonly string[]).includes(value))
    throw badInput(`${field} must be one of ${allowed.join(", ")} (got ${quote(value)})`);
  return value as T;
}

function dateOf(field: string, value: string | null | undefined): Date | undefined {
  if (value == null) return undefined;
  const date = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(date.getTime()))
    throw badInput(`${field} must be a date-time such as 2026-11-29T12:00:00Z (got ${quote(value)})`);
  return date;
}

/** The filters checked (each bad one named) and made a predicate. */
function filterOf(filters: FindingFilters): (finding: SiteFinding) => boolean {
  const status = oneOf("status", filters.status, FINDING_STATUSES);
  const types = (filters.type ?? []).map((type, index) => oneOf(`type[${index}]`, type, FINDING_TYPES)!);
  const severity = oneOf("severity", filters.severity, FINDING_SEVERITIES);
  const sources = (filters.source ?? []).map((source, index) => {
    if (source !== "questions" && !/^connection:.+$/.test(source))
      throw badInput(`source[${index}] must be questions or connection:<connectionId> (got ${quote(source)})`);
    return source;
  });
  const after = dateOf("updatedAfter", filters.updatedAfter);
  const before = dateOf("updatedBefore", filters.updatedBefore);
  return (finding) =>
    // No finding here has a topic, a site question id, a change request or a connection's evidence.
    filters.topic == null &&
    filters.question == null &&
    filters.hasChangeRequests !== true &&
    (status === undefined || status === finding.status) &&
    (!types.length || types.includes(finding.type)) &&
    (severity === undefined || severity === finding.severity) &&
    (!sources.length || (sources.includes("questions") && finding.questions > 0)) &&
    (after === undefined || finding.updatedAt >= after) &&
    (before === undefined || finding.updatedAt < before);
}

const severityOf = (occurrences: number): Severity =>
  occurrences >= SEVERITY_HIGH ? "high" : occurrences >= SEVERITY_MEDIUM ? "medium" : "low";

const SEVERITY_RANK: Record<Severity, number> = { high: 0, medium: 1, low: 2 };

const times = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

function titleOf(text: string): string {
  const chars = [...text];
  return chars.length > TITLE_MAX ? `${chars.slice(0, TITLE_MAX - 1).join("")}…` : text;
}

/** A description of plain paragraphs: readers' words are text, never parsed as Markdown. */
function documentOf(paragraphs: string[]): JsonDocument {
  return {
    object: "document",
    data: {},
    nodes: paragraphs.map((text) => ({
      object: "block",
      type: "paragraph",
      data: {},
      nodes: [{ object: "text", leaves: [{ object: "leaf", text, marks: [] }] }],
    })),
  };
}

const idOf = (kind: FindingKind, key: string) => `${kind}-${createHash("sha256").update(`${kind}\u0000${key}`).digest("hex").slice(0, 20)}`;

interface TextRow {
  key: string;
  occurrences: number;
  first: Date;
  last: Date;
}

interface PageRow extends TextRow {
  path: string;
  comments: string[] | null;
}

/** Every finding of the site, the most frequent first (then by key): one statement per kind. */
async function siteFindings(ctx: CoreContext, site: Site): Promise<SiteFinding[]> {
  const now = ctx.clock.now();
  const from = new Date(now.getTime() - FINDINGS_DAYS * DAY_MS).toISOString();
  // A query as readers typed it, told apart from another by its words only (case and spaces aside).
  const unanswered = (type: string) => Prisma.sql`
    SELECT lower(regexp_replace(btrim(e.data->>'query'), '\\s+', ' ', 'g')) AS key, count(*)::int AS occurrences,
      min(e."timestamp") AS first, max(e."timestamp") AS last
    FROM "InsightEvent" e
    WHERE e."siteId" = ${site.id} AND e."timestamp" >= ${from}::timestamp AND e.type = ${type}
      AND e.data->>'found' = 'false' AND btrim(coalesce(e.data->>'query', '')) <> ''
    GROUP BY 1
    ORDER BY occurrences DESC, key
    LIMIT ${FINDINGS_PER_KIND}`;
  const [searches, asks, pages] = await Promise.all([
    ctx.prisma.$queryRaw<TextRow[]>(unanswered("search_type_query")),
    ctx.prisma.$queryRaw<TextRow[]>(unanswered("ask_question")),
    ctx.prisma.$queryRaw<PageRow[]>(Prisma.sql`
      SELECT e."pageId" AS key, count(*)::int AS occurrences, min(e."timestamp") AS first, max(e."timestamp") AS last,
        (array_agg(e."urlPath" ORDER BY e."timestamp" DESC, e.id DESC))[1] AS path,
        (array_agg(e.data->>'comment' ORDER BY e."timestamp" DESC, e.id DESC)
          FILTER (WHERE btrim(coalesce(e.data->>'comment', '')) <> ''))[1:${FINDING_COMMENTS}] AS comments
      FROM "InsightEvent" e
      WHERE e."siteId" = ${site.id} AND e."timestamp" >= ${from}::timestamp
        AND e.type IN ('page_post_feedback', 'page_post_feedback_comment') AND e.data->>'rating' = 'bad' AND e."pageId" IS NOT NULL
      GROUP BY 1
      ORDER BY occurrences DESC, key
      LIMIT ${FINDINGS_PER_KIND}`),
  ]);
  const base = (kind: FindingKind, row: TextRow) => ({
    id: idOf(kind, row.key),
    organizationId: site.organizationId,
    siteId: site.id,
    kind,
    occurrences: row.occurrences,
    severity: severityOf(row.occurrences),
    status: "open" as const,
    createdAt: row.first,
    updatedAt: row.last,
  });
  const when = (row: TextRow) => `in the last ${FINDINGS_DAYS} days, most recently on ${row.last.toISOString().slice(0, 10)}`;
  return [
    ...searches.map((row) => ({
      ...base("search", row),
      type: "content-gap" as const,
      title: titleOf(`Searches for "${row.key}" found nothing`),
      pages: 0,
      questions: 0,
      description: documentOf([
        `Readers searched the site for "${row.key}" ${times(row.occurrences, "time", "times")} ${when(row)}, and no page matched.`,
      ]),
    })),
    ...asks.map((row) => ({
      ...base("ask", row),
      type: "content-gap" as const,
      title: titleOf(`No passage answers "${row.key}"`),
      pages: 0,
      questions: row.occurrences,
      description: documentOf([
        `Readers asked "${row.key}" ${times(row.occurrences, "time", "times")} ${when(row)}, and no passage of the site answered it.`,
      ]),
    })),
    ...pages.map((row) => ({
      ...base("feedback", row),
      type: "other" as const,
      title: titleOf(`Readers rated ${row.path} not helpful`),
      pages: 1,
      questions: 0,
      description: documentOf([
        `Readers rated the page ${row.path} not helpful ${times(row.occurrences, "time", "times")} ${when(row)}.`,
        ...(row.comments ?? []).map((comment) => `A reader wrote: ${comment}`),
      ]),
    })),
  ].sort((a, b) => b.occurrences - a.occurrences || a.id.localeCompare(b.id));
}

const byOrder: Record<(typeof FINDING_ORDERS)[number], (a: SiteFinding, b: SiteFinding) => number> = {
  updatedAt: (a, b) => b.updatedAt.getTime() - a.updatedAt.getTime() || a.id.localeCompare(b.id),
  severity: (a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] || b.occurrences - a.occurrences || a.id.localeCompare(b.id),
  sources: (a, b) => b.questions - a.questions || b.occurrences - a.occurrences || a.id.localeCompare(b.id),
};

/** The site's findings (`site.readInsights`: they show what readers typed), filtered, ordered and paged. */
export async function listSiteFindings(
  ctx: CoreContext,
  organizationId: string | null | undefined,
  siteId: string,
  args: PageArgs,
  filters: FindingFilters & { orderBy?: string | null },
): Promise<Page<SiteFinding>> {
  const site = await requireSite(ctx, organizationId, siteId, "site.readInsights");
  const keep = filterOf(filters);
  const order = oneOf("orderBy", filters.orderBy, FINDING_ORDERS) ?? "updatedAt";
  const findings = (await siteFindings(ctx, site)).filter(keep).sort(byOrder[order]);
  return pageInMemory(findings, args, (finding) => finding.id);
}

/** One finding of the site by its id (NOT_FOUND when its events are gone or it never was). */
export async function getSiteFinding(
  ctx: CoreContext,
  organizationId: string | null | undefined,
  siteId: string,
  findingId: string,
): Promise<SiteFinding> {
  const site = await requireSite(ctx, organizationId, siteId, "site.readInsights");
  const finding = (await siteFindings(ctx, site)).find((candidate) => candidate.id === findingId);
  if (!finding) throw notFound("site finding", findingId);
  return finding;
}

/** The published SiteFindingStats of the site's findings that pass the filters. */
export async function siteFindingStats(
  ctx: CoreContext,
  organizationId: string | null | undefined,
  siteId: string,
  filters: FindingFilters,
) {
  const site = await requireSite(ctx, organizationId, siteId, "site.readInsights");
  const keep = filterOf(filters);
  const findings = (await siteFindings(ctx, site)).filter(keep);
  const count = (severity: Severity) => findings.filter((finding) => finding.severity === severity).length;
  return {
    total: findings.length,
    statuses: { open: findings.length, done: 0, canceled: 0 },
    severities: { low: count("low"), medium: count("medium"), high: count("high") },
    // No finding here comes from a connector, and none has a change request.
    connectors: {},
    questions: findings.filter((finding) => finding.questions > 0).length,
    mergedChangeRequests: 0,
  };
}
