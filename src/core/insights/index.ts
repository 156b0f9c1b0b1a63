// Insights of published sites: events of their readers (page views, searches, link clicks, page
// feedback ...), recorded by our own site pages and through `insights/events`, aggregated by
// `insights/events/aggregate` (./query.ts). `recordInsightEvent` never waits: the event goes to
// the instance's buffer (./recorder.ts), written in batches.
import type { Services } from "../context.ts";
import type { InsightEventRow } from "./recorder.ts";
import { campaignOf, visitorIds, visitorTraits } from "./visitor.ts";

export { DEFAULT_INSIGHTS_LIMITS, InsightsRecorder, type InsightsLimits } from "./recorder.ts";

/** The published SiteInsightsEventType. */
export const INSIGHT_EVENT_TYPES = [
  "page_view",
  "page_markdown_request",
  "search_open",
  "search_type_query",
  "search_open_result",
  "page_post_feedback",
  "page_post_feedback_comment",
  "agent_feedback",
  "ask_question",
  "ask_view",
  "ask_rate_response",
  "link_click",
  "api_client_open",
  "api_client_request",
  "ad_click",
  "ad_display",
  "trademark_click",
  "llms_request",
  "mcp_request",
  "rss_request",
] as const;
export type InsightEventType = (typeof INSIGHT_EVENT_TYPES)[number];

/** One event, as the site server (or the ingest route) knows it. */
export interface InsightEventInput {
  siteId: string;
  type: InsightEventType;
  /** The page's absolute URL (its `utm_*` parameters are read from it). */
  url: string;
  /** Default: now. */
  timestamp?: Date;
  /** What the page shows, when known. */
  location?: {
    siteSectionId?: string | null;
    siteSpaceId?: string | null;
    siteShareKey?: string | null;
    spaceId?: string | null;
    pageId?: string | null;
    revisionId?: string | null;
    /** site (default), server, embed or mcp. */
    displayContext?: "site" | "server" | "embed" | "mcp";
  };
  visitor: {
    /** The client address: hashed into the visitor id, never stored. */
    address: string;
    userAgent: string | null;
    language?: string | null;
    referrer?: string | null;
    /** The visitor's claims (visitor auth, adaptive content), when any. */
    claims?: Record<string, unknown> | null;
    /** Ids given by the client (`insights/events`); computed from address and user agent otherwise. */
    visitorId?: string;
    sessionId?: string;
  };
  /**
   * What the type carries: `query` and `found` (searches), `rating` and `comment` (feedback),
   * `linkTarget` and `linkPosition` (link clicks), `operation`, `ad`, `placement`, `llmsVariant`,
   * `markdownSource`, `result`, `askRating`, `responseId`.
   */
  data?: Record<string, unknown>;
}

const text = (value: string | null | undefined, max: number) => (value == null ? null : value.slice(0, max));

/** The stored row of an event. */
export function insightRow(input: InsightEventInput, now: Date): InsightEventRow {
  const timestamp = input.timestamp ?? now;
  const traits = visitorTraits(input.visitor.userAgent);
  const ids = visitorIds(input.siteId, input.visitor.address, input.visitor.userAgent, timestamp);
  let urlPath = "/";
  try {
    urlPath = new URL(input.url).pathname;
  } catch {
    // a URL that does not parse keeps "/" as its path
  }
  const location = input.location ?? {};
  const claims = input.visitor.claims && Object.keys(input.visitor.claims).length ? input.visitor.claims : null;
  return {
    siteId: input.siteId,
    type: input.type,
    timestamp,
    visitorId: text(input.visitor.visitorId, 128) ?? ids.visitorId,
    sessionId: text(input.visitor.sessionId, 128) ?? ids.sessionId,
    url: input.url.slice(0, 2048),
    urlPath: urlPath.slice(0, 2048),
    displayContext: location.displayContext ?? "site",
    siteSectionId: location.siteSectionId ?? null,
    siteSpaceId: location.siteSpaceId ?? null,
    siteShareKey: location.siteShareKey ?? null,
    spaceId: location.spaceId ?? null,
    pageId: location.pageId ?? null,
    revisionId: location.revisionId ?? null,
    visitorBrowser: traits.browser,
    visitorDevice: traits.device,
    visitorOS: traits.os,
    visitorBot: traits.bot,
    visitorLanguage: text(input.visitor.language, 64),
    visitorAuthenticated: claims ? true : null,
    visitorClaims: claims,
    ...campaignOf(input.url, input.visitor.referrer),
    data: input.data ?? {},
  };
}

/**
 * Records one event of a published site's reader. Never waits and never throws: the event joins
 * the instance's bounded buffer (dropped, and counted, when it is full). False when dropped.
 */
export function recordInsightEvent(services: Pick<Services, "insights" | "clock">, input: InsightEventInput): boolean {
  const now = services.clock.now();
  // The row (hashes, user agent, URL) is made when the batch is written, off the answer's path.
  return services.insights.record(() => insightRow(input, now));
}
