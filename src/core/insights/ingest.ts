// `insights/events` (the published trackEventsInSiteById): a batch of a site's reader events, as a
// site's renderer or a proxy in front of it sends them. Each event is checked against its type's
// published schema (SiteInsightsEvent*, compiled once from @gitbook/api's spec), its URL, its
// timestamp (within five minutes of now, as published) and its site's sections and site spaces;
// the first problem refuses the whole batch (400 naming the field), so a bad batch records nothing.
// A batch that the instance's buffer has no room for is refused whole too (429), never cut.
import type { ValidateFunction } from "ajv";
import type { CoreContext } from "../context.ts";
import { badInput, quote, tooMany } from "../errors.ts";
import { requireSite, structureOf } from "../sites/index.ts";
import { checkUrl } from "../validate.ts";
import { lazily } from "../lazily.ts";
import { publishedSpec, publishedValidator } from "../published-schemas.ts";
import { INSIGHT_EVENT_TYPES, type InsightEventInput, type InsightEventType, insightRow } from "./index.ts";

/** Events of one request. */
export const TRACK_EVENTS_MAX = 100;
/** JSON bytes of one event (its claims and cookies included): enough for any published event. */
export const TRACK_EVENT_MAX_BYTES = 8 * 1024;
/** How far an event's timestamp may be from now (the published "within 5 minutes"). */
export const TRACK_TIMESTAMP_SKEW_MS = 5 * 60 * 1000;

/** The published schema of each event type: SiteInsightsEvent's variants, by their `type` enum. */
const validators = lazily(() => {
  const byType: Record<string, ValidateFunction> = {};
  for (const [name, schema] of Object.entries(publishedSpec().components.schemas)) {
    if (!name.startsWith("SiteInsightsEvent")) continue;
    const type = schema.allOf?.find((part) => part.properties?.type)?.properties?.type?.enum?.[0];
    if (type) byType[type] = publishedValidator(`#/components/schemas/${name}`);
  }
  return byType;
});

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** The first problem Ajv found, as `field.path message`. */
function schemaProblem(field: string, validate: ValidateFunction): string {
  const [error] = validate.errors ?? [];
  const where = `${field}${(error?.instancePath ?? "").replace(/\/(\d+)(?=\/|$)/g, "[$1]").replace(/\//g, ".")}`;
  if (error?.params && "missingProperty" in error.params) return `${where}.${error.params.missingProperty} is required`;
  if (error?.params && "allowedValues" in error.params)
    return `${where} must be one of ${(error.params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(", ")}`;
  return `${where} ${error?.message ?? "is not valid"}`;
}

/** What each type carries, as `data` stores it (docs/insights.md). */
function dataOf(event: Record<string, unknown>): Record<string, unknown> {
  const feedback = isObject(event.feedback) ? event.feedback : {};
  const link = isObject(event.link) ? event.link : {};
  switch (event.type as InsightEventType) {
    case "page_post_feedback":
    case "page_post_feedback_comment":
      return { rating: feedback.rating, ...(feedback.comment !== undefined ? { comment: feedback.comment } : {}) };
    case "link_click":
      return { linkTarget: link.target, linkPosition: link.position };
    case "ask_rate_response":
      return { query: event.query, askRating: event.rating, responseId: event.responseId };
    default: {
      const { type: _type, session: _session, location: _location, timestamp: _timestamp, ...rest } = event;
      return rest;
    }
  }
}

/** One event of the body, checked, as the recorder takes it. */
function eventOf(
  field: string,
  value: unknown,
  siteId: string,
  now: Date,
  structure: { sections: Set<string>; siteSpaces: Set<string>; spaces: Set<string> },
): InsightEventInput {
  if (!isObject(value)) throw badInput(`${field} must be an object { type, session, location, … }`);
  if (Buffer.byteLength(JSON.stringify(value)) > TRACK_EVENT_MAX_BYTES)
    throw badInput(`${field} must be at most ${TRACK_EVENT_MAX_BYTES} bytes of JSON`);
  const type = value.type;
  if (typeof type !== "string" || !(INSIGHT_EVENT_TYPES as readonly string[]).includes(type))
    throw badInput(`${field}.type must be one of ${INSIGHT_EVENT_TYPES.join(", ")} (got ${quote(type)})`);
  const validate = validators()[type];
  if (validate && !validate(value)) throw badInput(schemaProblem(field, validate));
  const session = value.session as Record<string, unknown>;
  const location = value.location as Record<string, unknown>;
  const url = checkUrl(`${field}.location.url`, location.url as string);
  let timestamp: Date | undefined;
  if (value.timestamp !== undefined) {
    timestamp = new Date(value.timestamp as string);
    if (Number.isNaN(timestamp.getTime())) throw badInput(`${field}.timestamp must be a date-time (ISO 8601)`);
    if (Math.abs(timestamp.getTime() - now.getTime()) > TRACK_TIMESTAMP_SKEW_MS)
      throw badInput(`${field}.timestamp must be within 5 minutes of the current time (got ${quote(value.timestamp)})`);
  }
  const known = (key: string, ids: Set<string>, what: string) => {
    const id = location[key];
    if (typeof id === "string" && !ids.has(id)) throw badInput(`${field}.location.${key}: the site has no ${what} ${quote(id)}`);
  };
  known("siteSection", structure.sections, "section");
  known("siteSpace", structure.siteSpaces, "site space");
  known("space", structure.spaces, "space");
  const referrer = typeof session.referrer === "string" && session.referrer ? session.referrer : null;
  if (referrer) checkUrl(`${field}.session.referrer`, referrer);
  const claims = isObject(session.visitorAuthClaims) ? session.visitorAuthClaims : null;
  return {
    siteId,
    type: type as InsightEventType,
    url,
    timestamp,
    location: {
      siteSectionId: (location.siteSection as string | null) ?? null,
      siteSpaceId: (location.siteSpace as string | null) ?? null,
      siteShareKey: (location.siteShareKey as string | null) ?? null,
      spaceId: (location.space as string | null) ?? null,
      pageId: (location.page as string | null) ?? null,
      revisionId: (location.revision as string | null) ?? null,
      displayContext: (location.displayContext as "site" | "server" | "embed" | "mcp" | undefined) ?? "site",
    },
    visitor: {
      // Only hashed, and only when no ids are given; the ids are required, so it is never stored.
      address: typeof session.ip === "string" ? session.ip : "",
      userAgent: session.userAgent as string,
      language: (session.language as string | null) ?? null,
      referrer,
      claims,
      visitorId: session.visitorId as string,
      sessionId: session.sessionId as string,
    },
    data: dataOf(value),
  };
}

/**
 * Records a batch of events of the site's readers (`site.trackInsights`). Everything is checked
 * before anything is recorded: one bad event refuses the batch (400 naming it), and so does a
 * buffer without room for all of it (429). Returns how many were recorded.
 */
export async function trackSiteEvents(
  ctx: CoreContext,
  organizationId: string | null | undefined,
  siteId: string,
  events: unknown,
): Promise<number> {
  const site = await requireSite(ctx, organizationId, siteId, "site.trackInsights");
  if (!Array.isArray(events)) throw badInput("events is required (a list of events)");
  if (events.length > TRACK_EVENTS_MAX) throw badInput(`events: at most ${TRACK_EVENTS_MAX} events per request (got ${events.length})`);
  const structure = await structureOf(ctx, site);
  const ids = {
    sections: new Set(structure.sections.map((section) => section.id)),
    siteSpaces: new Set(structure.siteSpaces.map((siteSpace) => siteSpace.id)),
    spaces: new Set(structure.siteSpaces.map((siteSpace) => siteSpace.spaceId)),
  };
  const now = ctx.clock.now();
  const rows = events.map((event, index) => insightRow(eventOf(`events[${index}]`, event, site.id, now, ids), now));
  if (ctx.insights.room < rows.length) throw tooMany("Insight events are arriving faster than they are written; retry later");
  for (const row of rows) ctx.insights.record(row);
  return rows.length;
}
