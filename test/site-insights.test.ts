// Site insights (issue 30): what a published site's own pages record (page views, 404s, searches
// with their query and whether anything was found, Markdown and llms.txt requests), without a
// cookie or a third party, bots told apart; recording never delays the answer, cached or not. And
// the published operations: insights/events (a checked batch, all or nothing), the aggregation
// over a hand-written sample against hand-computed answers, visitor segments, bounds, other organizations.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordInsightEvent } from "../src/core/insights/index.ts";
import { graphqlData, publishedRest } from "./support/expect.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let A: { organizationId: string; token: string; userId: string };
let published: { siteId: string; spaceId: string; pageId: string; base: string };

const CHROME_MAC = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

const api = () => server.client(A.token);

beforeAll(async () => {
  server = await startTestServer();
  A = await server.bootstrap("Insights");
  const { data: space } = await api().orgs.createSpace(A.organizationId, { title: "Guides" });
  const created = await graphqlData(server, A.token, `mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, {
    input: { space: space.id, title: "Install", markdown: "Run the installer, then restart." },
  });
  const { data: site } = await api().orgs.createSite(A.organizationId, { title: "Insights docs", spaces: [space.id] });
  await api().orgs.publishSite(A.organizationId, site.id);
  published = { siteId: site.id, spaceId: space.id, pageId: created.createPage.page.id, base: `${server.url}/sites/${site.id}` };
});

afterAll(async () => {
  await server?.close();
});

async function eventsOf(siteId: string) {
  await server.app.services.insights.flush();
  return server.database.prisma.insightEvent.findMany({ where: { siteId }, orderBy: { id: "asc" } });
}

const view = (path: string, userAgent = CHROME_MAC, headers: Record<string, string> = {}) =>
  fetch(`${published.base}/${path}`, { headers: { "user-agent": userAgent, ...headers } });

describe("the site's own pages record their views", () => {
  it("a page view, cached or not, is one page_view with its page; a 404 has no page; a bot is told apart; no cookie is set", async () => {
    const before = (await eventsOf(published.siteId)).length;
    const first = await view("install?utm_source=newsletter&shareKey=secret", CHROME_MAC, { referer: "https://news.example/today" });
    expect(first.status).toBe(200);
    expect(first.headers.get("set-cookie")).toBeNull();
    const renders = server.app.siteCache.renders;
    const again = await view("install?utm_source=newsletter&shareKey=secret");
    expect(again.status).toBe(200);
    // The second view came from the cache and was recorded all the same.
    expect(server.app.siteCache.renders).toBe(renders);
    expect((await view("install", GOOGLEBOT)).status).toBe(200);
    expect((await view("no-such-page")).status).toBe(404);
    // A HEAD asks about a page; it is no view.
    expect((await fetch(`${published.base}/install`, { method: "HEAD" })).status).toBe(200);

    const events = (await eventsOf(published.siteId)).slice(before);
    expect(events.map((event) => [event.type, event.pageId, event.visitorBot])).toEqual([
      ["page_view", published.pageId, null],
      ["page_view", published.pageId, null],
      ["page_view", published.pageId, "googlebot"],
      ["page_view", null, null],
    ]);
    expect(events[0]).toMatchObject({
      spaceId: published.spaceId,
      urlPath: `/sites/${published.siteId}/install`,
      utmSource: "newsletter",
      referrerDomain: "news.example",
      visitorBrowser: "chrome",
      displayContext: "site",
    });
    // The share key of the URL is never stored.
    expect(events[0]!.url).toBe(`${published.base}/install?utm_source=newsletter`);
    expect(events[0]!.revisionId).toBeTruthy();
    expect(events[0]!.siteSpaceId).toBeTruthy();
    expect(events[3]!.urlPath).toBe(`/sites/${published.siteId}/no-such-page`);
  });

  it("a search records its query and whether it found anything; opening the search page records search_open", async () => {
    const before = (await eventsOf(published.siteId)).length;
    expect((await view("~search?q=installer")).status).toBe(200);
    expect((await view("~search?q=zebrafish")).status).toBe(200);
    expect((await view("~search")).status).toBe(200);
    const events = (await eventsOf(published.siteId)).slice(before);
    expect(events.map((event) => [event.type, event.data])).toEqual([
      ["search_type_query", { query: "installer", found: true }],
      ["search_type_query", { query: "zebrafish", found: false }],
      ["search_open", {}],
    ]);
  });

  it("Markdown and llms.txt requests are recorded as their own types", async () => {
    const before = (await eventsOf(published.siteId)).length;
    expect((await view("install.md")).status).toBe(200);
    expect((await view("llms.txt")).status).toBe(200);
    const events = (await eventsOf(published.siteId)).slice(before);
    expect(events.map((event) => [event.type, event.pageId, event.data])).toEqual([
      ["page_markdown_request", published.pageId, {}],
      ["llms_request", null, { llmsVariant: "standard" }],
    ]);
  });

  it("recording does not slow a cached view: every cached view records, at a small fraction of the view's time", async () => {
    await view("install");
    const before = server.app.services.insights.stats.recorded;
    const started = performance.now();
    for (let i = 0; i < 200; i++) expect((await view("install")).status).toBe(200);
    const perView = (performance.now() - started) / 200;
    expect(server.app.services.insights.stats.recorded - before).toBe(200);
    await server.app.services.insights.flush();
    // What recording itself costs, measured apart from the HTTP round trip.
    const event = {
      siteId: published.siteId,
      type: "page_view" as const,
      url: `${published.base}/install`,
      visitor: { address: "203.0.113.9", userAgent: CHROME_MAC },
    };
    const t0 = performance.now();
    for (let i = 0; i < 1000; i++) recordInsightEvent(server.app.services, event);
    const perRecord = (performance.now() - t0) / 1000;
    await server.app.services.insights.flush();
    console.info(`cached view: ${perView.toFixed(3)} ms per request; recording: ${(perRecord * 1000).toFixed(1)} µs per event`);
    expect(perRecord).toBeLessThan(perView / 10);
  });
});

// ---------------------------------------------------------------------------------------------
// The published operations: insights/events, insights/events/aggregate, insights/visitor-segments

type SampleEvent = Record<string, unknown>;

/** A published SiteInsightsEvent of `type` on `path` of the site, by visitor `visitor` in session `session`. */
function sampleEvent(siteBase: string, type: string, path: string, visitor: string, session: string, extra: SampleEvent = {}): SampleEvent {
  const { userAgent = CHROME_MAC, claims, ...rest } = extra as { userAgent?: string; claims?: Record<string, unknown> };
  return {
    type,
    session: {
      visitorId: visitor,
      sessionId: session,
      cookies: {},
      userAgent,
      language: "en",
      referrer: null,
      ...(claims ? { visitorAuthClaims: claims } : {}),
    },
    location: {
      url: `${siteBase}${path}`,
      siteSection: null,
      siteSpace: null,
      siteShareKey: null,
      page: null,
      space: null,
      revision: null,
    },
    ...rest,
  };
}

describe("insights/events, aggregate and visitor segments", () => {
  let siteId: string;
  let siteBase: string;
  let rowsBefore: number;
  const path = () => `/v1/orgs/${A.organizationId}/sites/${siteId}/insights`;

  beforeAll(async () => {
    const { data: site } = await api().orgs.createSite(A.organizationId, { title: "Sampled" });
    siteId = site.id;
    siteBase = `https://docs.example.com`;
  });

  const count = async () => {
    await server.app.services.insights.flush();
    return server.database.prisma.insightEvent.count({ where: { siteId } });
  };

  it("refuses a bad event naming its field, and records nothing of its batch (REST and GraphQL)", async () => {
    rowsBefore = await count();
    const good = sampleEvent(siteBase, "page_view", "/a", "v1", "s1");
    const { location: _location, ...noLocation } = sampleEvent(siteBase, "page_view", "/a", "v1", "s1");
    const cases: [unknown, string][] = [
      [[good, noLocation], "events[1].location is required"],
      [[good, { ...good, type: "page_vue" }], "events[1].type"],
      [[{ ...good, location: { ...(good.location as object), url: "javascript:alert(1)" } }], "events[0].location.url"],
      [[sampleEvent(siteBase, "page_post_feedback", "/a", "v1", "s1", { feedback: { rating: "great" } })], "events[0].feedback.rating"],
      [[sampleEvent(siteBase, "search_type_query", "/a", "v1", "s1")], "events[0].query is required"],
      [[{ ...good, timestamp: "2020-01-01T00:00:00Z" }], "events[0].timestamp"],
      [[{ ...good, location: { ...(good.location as object), siteSpace: "sitesp_unknown" } }], "events[0].location.siteSpace"],
    ];
    for (const [events, mentions] of cases) {
      const response = await server.rest(A.token, "POST", `${path()}/events`, { events });
      expect(response.status, JSON.stringify(response.body)).toBe(400);
      expect(response.body.error.message).toContain(mentions);
    }
    const graphql = await server.graphql(
      A.token,
      `mutation($input: TrackSiteInsightEventsInput!) { trackSiteInsightEvents(input: $input) { tracked } }`,
      { input: { site: siteId, events: [good, noLocation] } },
    );
    expect(graphql.errors?.[0]?.extensions?.code).toBe("BAD_REQUEST");
    expect(graphql.errors?.[0]?.message).toContain("events[1].location is required");
    expect(await count()).toBe(rowsBefore);
  });

  it("is bounded: at most 100 events per request, and a batch the buffer has no room for is refused whole", async () => {
    const events = Array.from({ length: 101 }, () => sampleEvent(siteBase, "page_view", "/a", "v1", "s1"));
    const response = await server.rest(A.token, "POST", `${path()}/events`, { events });
    expect(response.status).toBe(400);
    expect(response.body.error.message).toContain("events: at most 100 events");
    expect(await count()).toBe(rowsBefore);
  });

  it("records a hand-written sample through the official client, and aggregates it as computed by hand", async () => {
    const event = (type: string, at: string, visitor: string, session: string, extra: SampleEvent = {}) =>
      sampleEvent(siteBase, type, at, visitor, session, extra);
    // Thursday 2026-01-15, around 10:00 UTC (the test clock).
    const thursday = server.clock.now();
    expect(thursday.getUTCDay()).toBe(4);
    const day1 = [
      event("page_view", "/a", "v1", "s1"),
      event("page_view", "/b", "v1", "s1"),
      event("search_type_query", "/a", "v1", "s1", { query: "install" }),
      event("page_view", "/a", "v2", "s2", { userAgent: GOOGLEBOT }),
    ];
    let response = await api().orgs.trackEventsInSiteById(A.organizationId, siteId, { events: day1 as never });
    expect(response.status).toBe(204);
    // Friday, 25 hours later.
    server.clock.advance(25 * 3_600_000);
    const day2 = [
      event("page_view", "/a", "v1", "s3"),
      event("page_post_feedback", "/a", "v1", "s3", { feedback: { rating: "good" } }),
      event("page_view", "/a", "v3", "s4", { claims: { plan: "pro" } }),
      event("page_post_feedback_comment", "/a", "v3", "s4", { feedback: { rating: "bad", comment: "Too short" }, claims: { plan: "pro" } }),
      event("link_click", "/a", "v3", "s4", {
        link: { target: { kind: "url", url: "https://example.com/x" }, position: "content" },
        claims: { plan: "pro" },
      }),
    ];
    response = await api().orgs.trackEventsInSiteById(A.organizationId, siteId, { events: day2 as never });
    expect(response.status).toBe(204);
    expect(await count()).toBe(rowsBefore + 9);

    const range = { from: "2026-01-15T00:00:00Z", to: "2026-01-17T00:00:00Z" };
    const aggregate = async (query: Record<string, unknown>) => {
      const answer = await publishedRest(server, A.token, "POST", `${path()}/events/aggregate`, { range, ...query });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      return answer.body.columns as { column: string; values: unknown[] }[];
    };
    const valuesOf = (columns: { column: string; values: unknown[] }[]) => columns.map((column) => [column.column, column.values]);

    expect(
      valuesOf(
        await aggregate({
          groupBy: [{ column: "datetime", interval: "day" }],
          select: [
            { column: "datetime", interval: "day" },
            { column: "eventsCount" },
            { column: "visitorsCount" },
            { column: "sessionsCount" },
          ],
        }),
      ),
    ).toEqual([
      ["datetime", ["2026-01-15T00:00:00.000Z", "2026-01-16T00:00:00.000Z"]],
      ["eventsCount", [4, 5]],
      ["visitorsCount", [2, 2]],
      ["sessionsCount", [2, 2]],
    ]);
    // Page views by path, most viewed first; then people only (no bot).
    expect(
      valuesOf(
        await aggregate({
          where: [{ column: "eventType", values: ["page_view"] }],
          groupBy: [{ column: "urlPath" }],
          select: [{ column: "urlPath" }, { column: "eventsCount" }],
          order: { by: { column: "eventsCount" }, direction: "desc" },
        }),
      ),
    ).toEqual([
      ["urlPath", ["/a", "/b"]],
      ["eventsCount", [4, 1]],
    ]);
    expect(
      valuesOf(
        await aggregate({
          where: [
            { column: "eventType", values: ["page_view"] },
            { column: "visitorBot", values: [null] },
          ],
          groupBy: [{ column: "urlPath" }],
        }),
      ),
    ).toEqual([
      ["urlPath", ["/a", "/b"]],
      ["eventsCount", [3, 1]],
    ]);
    expect(valuesOf(await aggregate({ select: [{ column: "pageFeedbackRating" }, { column: "eventsCount" }] }))).toEqual([
      ["pageFeedbackRating", [{ ok: 0, good: 1, bad: 1 }]],
      ["eventsCount", [9]],
    ]);
    expect(valuesOf(await aggregate({ groupBy: [{ column: "eventSearchQuery" }] }))).toEqual([
      ["eventSearchQuery", ["install"]],
      ["eventsCount", [1]],
    ]);
    expect(
      valuesOf(
        await aggregate({ select: [{ column: "eventLinkPosition" }, { column: "eventLinkTargetDomain" }, { column: "eventsCount" }] }),
      ),
    ).toEqual([
      ["eventLinkPosition", ["content"]],
      ["eventLinkTargetDomain", ["example.com"]],
      ["eventsCount", [1]],
    ]);
    expect(valuesOf(await aggregate({ groupBy: [{ column: "dayOfWeek" }] }))).toEqual([
      ["dayOfWeek", [4, 5]],
      ["eventsCount", [4, 5]],
    ]);
    // A count filter keeps the groups it holds for; limit cuts the groups.
    expect(
      valuesOf(
        await aggregate({
          groupBy: [{ column: "datetime" }],
          where: [{ column: "eventsCount", operator: "greaterThan", values: [4] }],
        }),
      ),
    ).toEqual([
      ["datetime", ["2026-01-16T00:00:00.000Z"]],
      ["eventsCount", [5]],
    ]);
    expect(
      valuesOf(
        await aggregate({
          groupBy: [{ column: "visitorClaim", claim: "plan" }],
          order: { by: { column: "eventsCount" }, direction: "asc" },
          limit: 1,
        }),
      ),
    ).toEqual([
      ["visitorClaim", ["pro"]],
      ["eventsCount", [3]],
    ]);
    // The official client reads the same answer; a preset range counts back from now.
    const { data } = await api().orgs.aggregateSiteEvents(A.organizationId, siteId, {
      range: "last7Days" as never,
      select: [{ column: "eventsCount" }],
    });
    expect(data.columns).toEqual([{ column: "eventsCount", values: [9] }]);

    // GraphQL first: the same aggregation.
    const graphql = await graphqlData(
      server,
      A.token,
      `query($site: ID!, $query: JSON!) { site(id: $site) { insightsAggregation(query: $query) { column values } } }`,
      { site: siteId, query: { range, groupBy: [{ column: "visitorBrowser" }] } },
    );
    expect(graphql.site.insightsAggregation).toEqual([
      { column: "visitorBrowser", values: ["chrome", "unknown"] },
      { column: "eventsCount", values: [8, 1] },
    ]);

    // Visitor segments: those with the claim plan=pro, and everyone else.
    const segments = await publishedRest(server, A.token, "GET", `${path()}/visitor-segments`);
    expect(segments.body).toEqual({
      items: [
        { title: "Visitors without claims", claims: {}, events: 6, visitors: 2, sessions: 3 },
        { title: "plan: pro", claims: { plan: "pro" }, events: 3, visitors: 1, sessions: 1 },
      ],
      count: 2,
    });
    expect((await api().orgs.listSiteVisitorSegments(A.organizationId, siteId)).data.count).toBe(2);
  });

  it("refuses a bad query naming its field (REST and GraphQL), and a range past the bound", async () => {
    const cases: [unknown, string][] = [
      [{ range: "lastDecade" }, "range must be one of"],
      [{ range: { from: "2025-01-01T00:00:00Z", to: "2026-01-15T00:00:00Z" } }, "range: at most 366 days"],
      [{ range: "last7Days", groupBy: [{ column: "colour" }] }, "groupBy[0].column"],
      [{ range: "last7Days", where: [{ column: "urlPath", operator: "greaterThan", values: ["/a"] }] }, "where[0].operator"],
      [{ range: "last7Days", where: [{ column: "dayOfWeek", values: ["monday"] }] }, "where[0].values[0]"],
      [{ range: "last7Days", limit: 1001 }, "limit"],
      [{ range: "last7Days", groupBy: [{ column: "url" }], order: { by: { column: "urlPath" }, direction: "asc" } }, "order.by"],
    ];
    for (const [query, mentions] of cases) {
      const response = await server.rest(A.token, "POST", `${path()}/events/aggregate`, query);
      expect(response.status, JSON.stringify(response.body)).toBe(400);
      expect(response.body.error.message).toContain(mentions);
    }
    const graphql = await server.graphql(
      A.token,
      `query($site: ID!, $query: JSON!) { site(id: $site) { insightsAggregation(query: $query) { column } } }`,
      { site: siteId, query: { range: "last7Days", select: [{ column: "colour" }] } },
    );
    expect(graphql.errors?.[0]?.extensions?.code).toBe("BAD_REQUEST");
    expect(graphql.errors?.[0]?.message).toContain("select[0].column");
  });

  it("another organization's site answers as unknown; a reader may send events but not read them", async () => {
    const B = await server.bootstrap("Elsewhere");
    const good = sampleEvent(siteBase, "page_view", "/a", "v9", "s9");
    for (const [method, route, body] of [
      ["POST", "/events", { events: [good] }],
      ["POST", "/events/aggregate", { range: "last7Days" }],
      ["GET", "/visitor-segments", undefined],
    ] as const) {
      expect((await server.rest(B.token, method, `${path()}${route}`, body)).status).toBe(404);
      const misplaced = `/v1/orgs/${B.organizationId}/sites/${siteId}/insights${route}`;
      expect((await server.rest(B.token, method, misplaced, body)).status).toBe(404);
    }
    const reader = await server.addMember(A.organizationId, "read");
    expect((await server.rest(reader.token, "POST", `${path()}/events`, { events: [good] })).status).toBe(204);
    expect((await server.rest(reader.token, "GET", `${path()}/visitor-segments`)).status).toBe(403);
  });
});
