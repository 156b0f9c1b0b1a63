// Content gaps of a published site (issue 33): searches with no hit and pages rated not helpful,
// and questions no passage answers, recorded by the site's own pages, aggregated per site into the published SiteFinding shape.
// Through the official client against the published schemas and through GraphQL, over a
// hand-written sample; filters, order and pages; bad filters named on both surfaces; another
// organization's site unknown; the window and the per-kind bound.
import { SiteFindingType } from "@gitbook/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FINDINGS_DAYS, FINDINGS_PER_KIND } from "../src/core/insights/findings.ts";
import { expectGraphQLError, expectRestError, graphqlData, publishedRest } from "./support/expect.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let A: { organizationId: string; token: string; userId: string };
let B: { organizationId: string; token: string; userId: string };
let site: { id: string; pageId: string; url: string };

const api = (token = A.token) => server.client(token);
const DAY_MS = 24 * 60 * 60 * 1000;

const post = (url: string, body: string) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body, redirect: "manual" });

beforeAll(async () => {
  server = await startTestServer();
  A = await server.bootstrap("Findings");
  B = await server.bootstrap("Other findings");
  const { data: space } = await api().orgs.createSpace(A.organizationId, { title: "Guides" });
  const created = await graphqlData(server, A.token, `mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, {
    input: { space: space.id, title: "Install", markdown: "Run the installer, then restart." },
  });
  const { data: created2 } = await api().orgs.createSite(A.organizationId, { title: "Findings docs", spaces: [space.id] });
  const settings = (await api().orgs.getSiteCustomizationById(A.organizationId, created2.id)).data;
  await api().orgs.updateSiteCustomizationById(A.organizationId, created2.id, { ...settings, feedback: { enabled: true } } as never);
  await api().orgs.publishSite(A.organizationId, created2.id);
  site = { id: created2.id, pageId: created.createPage.page.id, url: `${server.url}/sites/${created2.id}` };

  // Three searches for the same misspelling (case and spaces aside), one that finds the page,
  // two "not helpful" ratings of Install (one with a comment) and one "helpful".
  for (const query of ["quikstrt", "Quikstrt ", "QUIKSTRT", "installer"])
    expect((await fetch(`${site.url}/~search?q=${encodeURIComponent(query)}`)).status).toBe(200);
  expect((await post(`${site.url}/install`, "rating=bad")).status).toBe(200);
  expect((await post(`${site.url}/install`, "rating=bad&comment=Which+installer%3F")).status).toBe(200);
  expect((await post(`${site.url}/install`, "rating=good")).status).toBe(200);
  await server.app.services.insights.flush();
});

afterAll(async () => {
  await server?.close();
});

const path = (rest = "") => `/v1/orgs/${A.organizationId}/sites/${site.id}${rest}`;

async function lastEventAt(type: string[]) {
  const events = await server.database.prisma.insightEvent.findMany({
    where: { siteId: site.id, type: { in: type } },
    orderBy: { timestamp: "desc" },
  });
  return events[0]!.timestamp.toISOString();
}

describe("findings of a site", () => {
  it("three searches for quikstrt with no hit are one content gap counted 3 times; two bad ratings of a page are one finding", async () => {
    const { body } = await publishedRest(server, A.token, "GET", path("/findings"));
    const searchedAt = await lastEventAt(["search_type_query"]);
    const ratedAt = await lastEventAt(["page_post_feedback", "page_post_feedback_comment"]);
    const day = (at: string) => at.slice(0, 10);
    const search = {
      object: "site-finding",
      scan: "insights",
      topic: null,
      title: 'Searches for "quikstrt" found nothing',
      changeRequests: 0,
      pages: 0,
      records: 0,
      questions: 0,
      status: "open",
      type: "content-gap",
      severity: "medium",
      description: {
        object: "document",
        data: {},
        nodes: [
          {
            object: "block",
            type: "paragraph",
            data: {},
            nodes: [
              {
                object: "text",
                leaves: [
                  {
                    object: "leaf",
                    text: `Readers searched the site for "quikstrt" 3 times in the last 90 days, most recently on ${day(searchedAt)}, and no page matched.`,
                    marks: [],
                  },
                ],
              },
            ],
          },
        ],
      },
      autoFixable: false,
      updatedAt: searchedAt,
    };
    const rated = {
      object: "site-finding",
      title: `Readers rated /sites/${site.id}/install not helpful`,
      pages: 1,
      questions: 0,
      status: "open",
      type: "other",
      severity: "low",
      updatedAt: ratedAt,
    };
    // Most recently updated first: the ratings came after the searches.
    expect(body.count).toBe(2);
    expect(body.items).toMatchObject([rated, search]);
    expect(body.next).toBeUndefined();
    const paragraphs = body.items[0].description.nodes.map((node: any) => node.nodes[0].leaves[0].text);
    expect(paragraphs).toEqual([
      `Readers rated the page /sites/${site.id}/install not helpful 2 times in the last 90 days, most recently on ${day(ratedAt)}.`,
      "A reader wrote: Which installer?",
    ]);
    const [ratedFinding, searchFinding] = body.items;
    expect(searchFinding.urls.location).toBe(`${server.url}/v1/orgs/${A.organizationId}/sites/${site.id}/findings/${searchFinding.id}`);
    expect(new Date(searchFinding.createdAt).getTime()).toBeLessThanOrEqual(new Date(searchFinding.updatedAt).getTime());

    // The same events give the same ids; one finding reads as listed, through the official client.
    const again = await publishedRest(server, A.token, "GET", path("/findings"));
    expect(again.body.items.map((item: any) => item.id)).toEqual([ratedFinding.id, searchFinding.id]);
    const { data: one } = await api().orgs.getSiteFindingById(A.organizationId, site.id, searchFinding.id);
    expect(one).toEqual(searchFinding);
    await publishedRest(server, A.token, "GET", path(`/findings/${ratedFinding.id}`));
    await expectRestError(
      api().orgs.getSiteFindingById(A.organizationId, site.id, "search-00000000000000000000"),
      404,
      "search-00000000000000000000",
    );
  });

  it("stats count them by status and severity", async () => {
    const { body } = await publishedRest(server, A.token, "GET", path("/stats/findings"));
    expect(body).toEqual({
      total: 2,
      statuses: { open: 2, done: 0, canceled: 0 },
      severities: { low: 1, medium: 1, high: 0 },
      connectors: {},
      questions: 0,
      mergedChangeRequests: 0,
    });
    const { data } = await api().orgs.getSiteFindingStats(A.organizationId, site.id, { type: [SiteFindingType.ContentGap] });
    expect(data).toMatchObject({ total: 1, severities: { low: 0, medium: 1, high: 0 } });
  });

  it("filters, orders and pages", async () => {
    const titles = async (query: string) =>
      (await publishedRest(server, A.token, "GET", path(`/findings${query}`))).body.items.map((item: any) => item.title);
    expect(await titles("?type=content-gap")).toEqual(['Searches for "quikstrt" found nothing']);
    expect(await titles("?type=other&type=content-gap&orderBy=severity")).toEqual([
      'Searches for "quikstrt" found nothing',
      `Readers rated /sites/${site.id}/install not helpful`,
    ]);
    expect(await titles("?severity=low")).toEqual([`Readers rated /sites/${site.id}/install not helpful`]);
    expect(await titles("?status=open")).toHaveLength(2);
    for (const none of [
      "?status=done",
      "?hasChangeRequests=true",
      "?source=questions",
      "?source=connection:c1",
      "?topic=t1",
      "?question=q1",
    ])
      expect(await titles(none), none).toEqual([]);
    expect(await titles(`?updatedAfter=${new Date(server.clock.now().getTime() + DAY_MS).toISOString()}`)).toEqual([]);
    expect(await titles(`?updatedBefore=${new Date(server.clock.now().getTime() + DAY_MS).toISOString()}`)).toHaveLength(2);

    const first = await publishedRest(server, A.token, "GET", path("/findings?limit=1"));
    expect(first.body).toMatchObject({ count: 2, next: { page: expect.any(String) } });
    const second = await publishedRest(server, A.token, "GET", path(`/findings?limit=1&page=${first.body.next.page}`));
    expect(second.body.items[0].id).not.toBe(first.body.items[0].id);
    expect(second.body.next).toBeUndefined();
  });

  it("GraphQL serves the same findings, with how many events each was counted from", async () => {
    const data = await graphqlData(
      server,
      A.token,
      `query($site: ID!) { site(id: $site) { findings(type: ["content-gap"]) { totalCount nodes { kind occurrences title severity } }
        findingStats { total severities { medium } } } }`,
      { site: site.id },
    );
    expect(data.site.findings).toEqual({
      totalCount: 1,
      nodes: [{ kind: "search", occurrences: 3, title: 'Searches for "quikstrt" found nothing', severity: "medium" }],
    });
    expect(data.site.findingStats).toEqual({ total: 2, severities: { medium: 1 } });
  });

  it("a bad filter is a 400 naming it on REST and a BAD_REQUEST naming it on GraphQL", async () => {
    for (const [query, field] of [
      ["status=closed", "status"],
      ["type=content-gap&type=typo", "type[1]"],
      ["severity=urgent", "severity"],
      ["source=slack", "source[0]"],
      ["updatedAfter=yesterday", "updatedAfter"],
      ["updatedBefore=2026-13-45", "updatedBefore"],
      ["orderBy=title", "orderBy"],
      ["limit=5000", "limit"],
      ["page=not-a-cursor", "page"],
    ]) {
      const response = await server.rest(A.token, "GET", path(`/findings?${query}`));
      expect(response.status, query).toBe(400);
      expect(response.body.error.message, query).toContain(field);
    }
    const stats = await server.rest(A.token, "GET", path("/stats/findings?severity=urgent"));
    expect(stats.status).toBe(400);
    expect(stats.body.error.message).toContain("severity");
    expectGraphQLError(
      await server.graphql(A.token, `query($site: ID!) { site(id: $site) { findings(status: "closed") { totalCount } } }`, {
        site: site.id,
      }),
      "BAD_REQUEST",
      "status",
    );
    expectGraphQLError(
      await server.graphql(A.token, `query($site: ID!) { site(id: $site) { findingStats(type: ["typo"]) { total } } }`, { site: site.id }),
      "BAD_REQUEST",
      "type[0]",
    );
  });

  it("another organization's site answers as an unknown one; readers of the site may not read them", async () => {
    await expectRestError(api(B.token).orgs.listSiteFindings(A.organizationId, site.id), 404);
    await expectRestError(api(B.token).orgs.listSiteFindings(B.organizationId, site.id), 404);
    await expectRestError(api(A.token).orgs.getSiteFindingStats(B.organizationId, site.id), 404);
    const reader = await server.addMember(A.organizationId, "read");
    await expectRestError(api(reader.token).orgs.listSiteFindings(A.organizationId, site.id), 403);
  });
});

describe("questions no passage answers", () => {
  it("a question asked of a page's Markdown view that no passage answers is a content gap with its questions counted", async () => {
    for (const question of ["Xylophone warranty", "xylophone   WARRANTY", "installer"])
      expect((await fetch(`${site.url}/install.md?ask=${encodeURIComponent(question)}`)).status).toBe(200);
    await server.app.services.insights.flush();
    const asks = await server.database.prisma.insightEvent.findMany({
      where: { siteId: site.id, type: "ask_question" },
      orderBy: { id: "asc" },
    });
    expect(asks.map((event) => [event.data, event.pageId])).toEqual([
      [{ query: "Xylophone warranty", found: false }, site.pageId],
      [{ query: "xylophone   WARRANTY", found: false }, site.pageId],
      [{ query: "installer", found: true }, site.pageId],
    ]);
    const { body } = await publishedRest(server, A.token, "GET", path("/findings?source=questions"));
    expect(body.items).toMatchObject([
      { title: 'No passage answers "xylophone warranty"', type: "content-gap", questions: 2, pages: 0, severity: "low" },
    ]);
    const stats = await publishedRest(server, A.token, "GET", path("/stats/findings"));
    expect(stats.body).toMatchObject({ total: 3, questions: 1, severities: { low: 2, medium: 1, high: 0 } });
  });
});

describe("bounds", () => {
  it(`counts the last ${FINDINGS_DAYS} days only, and at most ${FINDINGS_PER_KIND} findings of a kind, the most frequent`, async () => {
    const { data: other } = await api().orgs.createSite(A.organizationId, { title: "Busy docs" });
    const now = server.clock.now().getTime();
    const event = (query: string, at: number) => ({
      siteId: other.id,
      type: "search_type_query",
      timestamp: new Date(at),
      visitorId: "v",
      sessionId: "s",
      url: "https://docs.example/~search",
      urlPath: "/~search",
      data: { query, found: false },
    });
    await server.database.prisma.insightEvent.createMany({
      data: [
        ...Array.from({ length: FINDINGS_PER_KIND + 5 }, (_, index) => event(`missing ${index}`, now - 1000)),
        event("missing 0", now - 2000),
        event("forgotten", now - (FINDINGS_DAYS + 1) * DAY_MS),
      ],
    });
    const page = (
      await publishedRest(server, A.token, "GET", `/v1/orgs/${A.organizationId}/sites/${other.id}/findings?limit=1000&orderBy=sources`)
    ).body;
    expect(page.count).toBe(FINDINGS_PER_KIND);
    expect(page.items[0].title).toBe('Searches for "missing 0" found nothing');
    expect(page.items.some((item: any) => item.title.includes("forgotten"))).toBe(false);
  });
});
