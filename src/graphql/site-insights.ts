// Insights of a published site: its readers' events, recorded by the site's own pages and by
// trackSiteInsightEvents, aggregated and segmented. Rules are in src/core/insights/.
import { trackSiteEvents } from "../core/insights/ingest.ts";
import { aggregateSiteEvents, listVisitorSegments } from "../core/insights/query.ts";
import { builder } from "./builder.ts";
import { inputDescription, payloadDescription } from "./common.ts";
import { SiteRef } from "./sites.ts";

const ColumnValues = builder.simpleObject("SiteInsightsColumnValues", {
  description: "One selected column of an aggregation: its values, one per group, in the groups' order",
  fields: (t) => ({
    column: t.string({ description: "The column (the published SiteInsightsQueryEventsColumn name)" }),
    claim: t.string({ nullable: true, description: "The claim's name (visitorClaim)" }),
    values: t.field({ type: "JSON", description: "The values, one per group (their type is the column's)" }),
  }),
});

const Segment = builder.simpleObject("SiteInsightsVisitorSegment", {
  description: "Visitors with the same claims (visitor authentication, adaptive content) over the last 30 days",
  fields: (t) => ({
    title: t.string({ description: "The claims as `name: value`, or `Visitors without claims`" }),
    claims: t.field({ type: "JSON", description: "The claims the segment's visitors share ({} for visitors without claims)" }),
    events: t.int({ description: "Events of the segment's visitors" }),
    visitors: t.int({ description: "Visitors of the segment" }),
    sessions: t.int({ description: "Sessions of the segment's visitors" }),
  }),
});

const Segments = builder.simpleObject("SiteInsightsVisitorSegmentList", {
  description: "The site's visitor segments, the largest first",
  fields: (t) => ({
    items: t.field({ type: [Segment], description: "At most 100 segments, by visitors (then events), largest first" }),
    count: t.int({ description: "How many segments there are over the last 30 days" }),
  }),
});

builder.objectFields(SiteRef, (t) => ({
  insightsAggregation: t.field({
    type: [ColumnValues],
    description:
      "The site's reader events of a range, filtered, grouped and counted (the published SiteInsightsQueryEventsAggregation); needs the edit role on the site",
    args: {
      query: t.arg({
        type: "JSON",
        required: true,
        description:
          "{ range, select?, where?, groupBy?, order?, limit? } as published: range a preset (last24Hours … lastYear) or { from, to } of at most 366 days; at most 6 dimensions, 20 filters, 1,000 groups",
      }),
    },
    resolve: (site, { query }, { core }) => aggregateSiteEvents(core, site.organizationId, site.id, query),
  }),
  insightsVisitorSegments: t.field({
    type: Segments,
    description: "The site's visitor segments over the last 30 days; needs the edit role on the site",
    resolve: (site, _args, { core }) => listVisitorSegments(core, site.organizationId, site.id),
  }),
}));

builder.mutationFields((t) => ({
  trackSiteInsightEvents: t.field({
    type: builder.simpleObject("TrackSiteInsightEventsPayload", {
      description: payloadDescription("TrackSiteInsightEventsPayload"),
      fields: (p) => ({ tracked: p.int({ description: "Events recorded (written within a second or so, in batches)" }) }),
    }),
    description:
      "Records up to 100 events of the site's readers (the published SiteInsightsEvent each); one bad event refuses the whole batch. Readers of the site may send them",
    args: {
      input: t.arg({
        required: true,
        type: builder.inputType("TrackSiteInsightEventsInput", {
          description: inputDescription("TrackSiteInsightEventsInput"),
          fields: (f) => ({
            site: f.id({ required: true, description: "The site" }),
            organization: f.id({ description: "When given, the site must be of this organization (not found otherwise)" }),
            events: f.field({ type: ["JSON"], required: true, description: "The events, each a published SiteInsightsEvent" }),
          }),
        }),
      }),
    },
    resolve: async (_root, { input }, { core }) => ({
      tracked: await trackSiteEvents(core, input.organization, String(input.site), input.events),
    }),
  }),
}));
