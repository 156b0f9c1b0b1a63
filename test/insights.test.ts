// Insights of published sites (issue 30): events recorded without making anyone wait (a bounded
// buffer written in batches), the visitor told from the request alone; on the database under test.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InsightsRecorder, insightRow, recordInsightEvent } from "../src/core/insights/index.ts";
import { visitorTraits } from "../src/core/insights/visitor.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let A: { organizationId: string; token: string; userId: string };
let siteId: string;

const CHROME_MAC = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const SAFARI_IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";

beforeAll(async () => {
  server = await startTestServer();
  A = await server.bootstrap("Insights");
  const { data: site } = await server.client(A.token).orgs.createSite(A.organizationId, { title: "Insights site" });
  siteId = site.id;
});

afterAll(async () => {
  await server?.close();
});

const event = (type: "page_view" | "search_type_query", data?: Record<string, unknown>) => ({
  siteId,
  type,
  url: `${server.url}/sites/${siteId}/setup?utm_source=newsletter`,
  visitor: { address: "203.0.113.7", userAgent: CHROME_MAC, referrer: "https://search.example/q" },
  data,
});

describe("recordInsightEvent", () => {
  it("returns at once; the event is written with the visitor's traits, not its address", async () => {
    const before = server.app.services.insights.stats.written;
    expect(recordInsightEvent(server.app.services, event("page_view"))).toBe(true);
    expect(recordInsightEvent(server.app.services, event("search_type_query", { query: "install", found: true }))).toBe(true);
    // Nothing is written yet: the page view did not wait for the database.
    expect(await server.database.prisma.insightEvent.count({ where: { siteId } })).toBe(0);
    await server.app.services.insights.flush();
    expect(server.app.services.insights.stats.written - before).toBe(2);
    const rows = await server.database.prisma.insightEvent.findMany({ where: { siteId }, orderBy: { id: "asc" } });
    expect(rows.map((row) => [row.type, row.urlPath, row.visitorBrowser, row.visitorOS, row.visitorDevice, row.visitorBot])).toEqual([
      ["page_view", `/sites/${siteId}/setup`, "chrome", "macos", "desktop", null],
      ["search_type_query", `/sites/${siteId}/setup`, "chrome", "macos", "desktop", null],
    ]);
    expect(rows[0]!.utmSource).toBe("newsletter");
    expect(rows[0]!.referrerDomain).toBe("search.example");
    expect(rows[1]!.data).toEqual({ query: "install", found: true });
    // One visitor, one session; the address appears nowhere.
    expect(rows[0]!.visitorId).toBe(rows[1]!.visitorId);
    expect(rows[0]!.sessionId).toBe(rows[1]!.sessionId);
    expect(JSON.stringify(rows, (_, v) => (typeof v === "bigint" ? String(v) : v))).not.toContain("203.0.113.7");
  });

  it("is bounded: past maxBuffered events are dropped and counted, never queued", async () => {
    const recorder = new InsightsRecorder(server.database.prisma, { maxBuffered: 3, batchSize: 100, flushIntervalMs: 60_000 });
    const row = insightRow(event("page_view"), new Date());
    const taken = Array.from({ length: 5 }, () => recorder.record(row));
    expect(taken).toEqual([true, true, true, false, false]);
    expect(recorder.stats).toMatchObject({ recorded: 3, dropped: 2 });
    expect(recorder.buffered).toBe(3);
    await recorder.close();
    expect(recorder.stats.written).toBe(3);
    expect(recorder.record(row)).toBe(false);
  });

  it("writes a full batch at once, and skips events of a site deleted meanwhile", async () => {
    const recorder = new InsightsRecorder(server.database.prisma, { maxBuffered: 100, batchSize: 2, flushIntervalMs: 60_000 });
    const gone = { ...insightRow(event("page_view"), new Date()), siteId: "site_gone" };
    recorder.record(insightRow(event("page_view"), new Date()));
    recorder.record(gone);
    await recorder.flush();
    expect(recorder.stats).toMatchObject({ recorded: 2, written: 1, failed: 0 });
  });

  it("a request answers while thousands of events are being buffered", async () => {
    const started = Date.now();
    for (let i = 0; i < 5_000; i++) recordInsightEvent(server.app.services, event("page_view"));
    expect(Date.now() - started).toBeLessThan(1_000);
    const response = await fetch(`${server.url}/health`);
    expect(response.status).toBe(200);
    await server.app.services.insights.flush();
  });
});

describe("visitor traits", () => {
  it("tells browsers, devices and bots apart from the user agent", () => {
    expect(visitorTraits(SAFARI_IPHONE)).toEqual({ browser: "safari", device: "mobile", os: "ios", bot: null });
    expect(visitorTraits("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)").bot).toBe("googlebot");
    expect(
      visitorTraits("Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)").bot,
    ).toBe("gptbot");
    expect(visitorTraits("curl/8.5.0").bot).toBe("unknown");
    expect(visitorTraits(null)).toEqual({ browser: "unknown", device: "unknown", os: "unknown", bot: "unknown" });
  });
});
