// Content gaps of a published site: searches and questions that found nothing, pages rated not
// helpful, aggregated from its insights into findings. Rules are in src/core/insights/findings.ts.
import { getSiteFinding, INSIGHTS_SCAN, listSiteFindings, type SiteFinding, siteFindingStats } from "../core/insights/findings.ts";
import { builder } from "./builder.ts";
import { toConnection } from "./common.ts";
import { SiteRef } from "./sites.ts";

const FindingUrls = builder.simpleObject("SiteFindingUrls", {
  description: "Addresses of a finding",
  fields: (t) => ({ location: t.string({ description: "The finding in the API" }) }),
});

export const SiteFindingRef = builder.objectRef<SiteFinding>("SiteFinding").implement({
  description:
    "What a site's readers could not find: searches or questions with no answer, or a page they rated not helpful, counted over the last 90 days",
  fields: (t) => ({
    id: t.exposeID("id", { description: "Id of the finding (the same for the same query or page)" }),
    scan: t.string({
      description: "Always `insights`: findings come from the site's insights, not from a scan",
      resolve: () => INSIGHTS_SCAN,
    }),
    topic: t.string({ nullable: true, description: "Always null: no topics are kept here", resolve: () => null }),
    title: t.exposeString("title", { description: "What readers could not find, at most 256 characters" }),
    kind: t.exposeString("kind", { description: "search (no page matched), ask (no passage answered) or feedback (rated not helpful)" }),
    occurrences: t.exposeInt("occurrences", { description: "Searches, questions or ratings it was counted from" }),
    changeRequests: t.int({ description: "Change requests linked to it (none: they are not linked here)", resolve: () => 0 }),
    pages: t.exposeInt("pages", { description: "Pages linked to it (the rated page)" }),
    records: t.int({ description: "Context records linked to it (none: no context records are kept here)", resolve: () => 0 }),
    questions: t.exposeInt("questions", { description: "Questions readers asked that no passage answered" }),
    status: t.exposeString("status", { description: "Always open: it lasts as long as its events" }),
    type: t.exposeString("type", { description: "content-gap (searches, questions) or other (a page rated not helpful)" }),
    severity: t.exposeString("severity", { description: "low, medium (3 occurrences or more) or high (10 or more)" }),
    description: t.field({
      type: "JSON",
      description: "What was counted, as a document (the published JSONDocument)",
      resolve: (f) => f.description,
    }),
    autoFixable: t.boolean({ description: "Always false: no agent fixes findings here", resolve: () => false }),
    createdAt: t.field({ type: "DateTime", description: "Its first event in the window", resolve: (f) => f.createdAt }),
    updatedAt: t.field({ type: "DateTime", description: "Its most recent event", resolve: (f) => f.updatedAt }),
    urls: t.field({
      type: FindingUrls,
      description: "Addresses of the finding",
      resolve: (f, _args, { core }) => ({ location: core.urls.api(`/orgs/${f.organizationId}/sites/${f.siteId}/findings/${f.id}`) }),
    }),
  }),
});

const Statuses = builder.simpleObject("SiteFindingStatsStatuses", {
  description: "Findings by status",
  fields: (t) => ({
    open: t.int({ description: "Open findings (all of them here)" }),
    done: t.int({ description: "Resolved findings (none here)" }),
    canceled: t.int({ description: "Canceled findings (none here)" }),
  }),
});

const Severities = builder.simpleObject("SiteFindingStatsSeverities", {
  description: "Findings by severity",
  fields: (t) => ({
    low: t.int({ description: "Findings of low severity" }),
    medium: t.int({ description: "Findings of medium severity" }),
    high: t.int({ description: "Findings of high severity" }),
  }),
});

const FindingStats = builder.simpleObject("SiteFindingStats", {
  description: "Counts of a site's findings (the published SiteFindingStats)",
  fields: (t) => ({
    total: t.int({ description: "Findings counted" }),
    statuses: t.field({ type: Statuses, description: "Findings by status (all are open here)" }),
    severities: t.field({ type: Severities, description: "Findings by severity" }),
    connectors: t.field({ type: "JSON", description: "Findings by connector: none comes from one here ({})" }),
    questions: t.int({ description: "Findings with at least one question readers asked" }),
    mergedChangeRequests: t.int({ description: "Merged change requests made for findings (none here)" }),
  }),
});

builder.objectFields(SiteRef, (t) => {
  const filterArgs = {
    topic: t.arg.string({ description: "Findings of this site topic (none: no topics are kept here)" }),
    question: t.arg.string({ description: "Findings with this site question as evidence (none here)" }),
    status: t.arg.string({ description: "candidate, open, done or canceled" }),
    type: t.arg.stringList({ description: "Findings of any of these types (content-gap, other, …)" }),
    severity: t.arg.string({ description: "low, medium or high" }),
    hasChangeRequests: t.arg.boolean({ description: "true: findings with a change request (none here)" }),
    source: t.arg.stringList({ description: "questions, or connection:<connectionId> (no finding comes from a connection here)" }),
  };
  return {
    findings: t.connection(
      {
        type: SiteFindingRef,
        description:
          "What the site's readers could not find over the last 90 days (searches and questions with no answer, pages rated not helpful); needs the edit role on the site",
        args: {
          ...filterArgs,
          updatedAfter: t.arg.string({ description: "Findings whose most recent event is at or after this date-time" }),
          updatedBefore: t.arg.string({ description: "Findings whose most recent event is before this date-time" }),
          orderBy: t.arg.string({
            description: "updatedAt (most recent first, the default), severity (most severe first) or sources (most questions first)",
          }),
        },
        resolve: async (site, args, { core }) => toConnection(await listSiteFindings(core, site.organizationId, site.id, args, args)),
      },
      builder.connectionObject({ type: SiteFindingRef, name: "SiteFindingConnection" }, { name: "SiteFindingEdge" }),
    ),
    finding: t.field({
      type: SiteFindingRef,
      description: "One finding of the site by its id (NOT_FOUND when none); needs the edit role on the site",
      args: { id: t.arg.id({ required: true, description: "The finding" }) },
      resolve: (site, { id }, { core }) => getSiteFinding(core, site.organizationId, site.id, String(id)),
    }),
    findingStats: t.field({
      type: FindingStats,
      description: "Counts of the site's findings that pass the filters; needs the edit role on the site",
      args: filterArgs,
      resolve: (site, args, { core }) => siteFindingStats(core, site.organizationId, site.id, args),
    }),
  };
});
