// "Was this page helpful?" on a published page (issue 31): a form that posts without JavaScript,
// shown only when the site's customization has `feedback.enabled`, recorded as one insight event
// (`page_post_feedback`, or `page_post_feedback_comment` with a comment). Bad input is a 400 naming
// the field and records nothing; a reader's posts to a site are bounded.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FEEDBACK_POSTS_PER_READER } from "../src/http/plugins/use-sites.ts";
import { launchBrowser } from "./support/browser.ts";
import { graphqlData } from "./support/expect.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let A: { organizationId: string; token: string; userId: string };
let browser: Browser;

const api = () => server.client(A.token);

beforeAll(async () => {
  server = await startTestServer();
  A = await server.bootstrap("Feedback");
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** A published site of one space with the page "Install"; feedback on when `feedback` says so. */
async function siteWithPage(title: string, feedback: boolean) {
  const { data: space } = await api().orgs.createSpace(A.organizationId, { title });
  await graphqlData(server, A.token, `mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, {
    input: { space: space.id, title: "Install", markdown: "Run the installer." },
  });
  const { data: site } = await api().orgs.createSite(A.organizationId, { title, spaces: [space.id] });
  if (feedback) {
    const settings = (await api().orgs.getSiteCustomizationById(A.organizationId, site.id)).data;
    await api().orgs.updateSiteCustomizationById(A.organizationId, site.id, { ...settings, feedback: { enabled: true } } as never);
  }
  await api().orgs.publishSite(A.organizationId, site.id);
  return { site, url: `${server.url}/sites/${site.id}/install` };
}

const post = (url: string, body: string, type = "application/x-www-form-urlencoded") =>
  fetch(url, { method: "POST", headers: { "content-type": type }, body, redirect: "manual" });

/** The site's feedback events (its pages record their views too, as other event types). */
async function feedbackEventsOf(siteId: string) {
  await server.app.services.insights.flush();
  return server.database.prisma.insightEvent.findMany({
    where: { siteId, type: { startsWith: "page_post_feedback" } },
    orderBy: { id: "asc" },
  });
}

describe("page feedback", () => {
  it("is a form that works without JavaScript and records exactly one event per post", async () => {
    const { site, url } = await siteWithPage("Rated docs", true);
    const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(url);
    await page.getByLabel("Comment (optional)").fill("The second step is unclear.");
    await page.getByRole("button", { name: "No" }).click();
    await page.waitForURL(url);
    expect(await page.locator("main h1").textContent()).toBe("Thank you");

    let events = await feedbackEventsOf(site.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: "page_post_feedback_comment",
      url,
      urlPath: `/sites/${site.id}/install`,
      data: { rating: "bad", comment: "The second step is unclear." },
    });
    expect(events[0].pageId).toBeTruthy();
    expect(events[0].spaceId).toBeTruthy();

    // Without a comment: the rating alone.
    await page.goto(url);
    await page.getByRole("button", { name: "Yes" }).click();
    await page.waitForURL(url);
    events = await feedbackEventsOf(site.id);
    expect(events).toHaveLength(2);
    expect(events[1]).toMatchObject({ type: "page_post_feedback", data: { rating: "good" } });
    await context.close();
  });

  it("answers 400 naming `rating` or `comment`, 415 and 413 for what is not the form, and records nothing", async () => {
    const { site, url } = await siteWithPage("Strict docs", true);
    const badRating = await post(url, "rating=great");
    expect(badRating.status).toBe(400);
    expect(await badRating.text()).toContain("<code>rating</code> must be one of bad, ok, good");
    expect((await post(url, "comment=hello")).status).toBe(400);

    const longComment = await post(url, `rating=ok&comment=${"é".repeat(513)}`);
    expect(longComment.status).toBe(400);
    expect(await longComment.text()).toContain("<code>comment</code> may be at most 512 characters");

    const json = await post(url, JSON.stringify({ rating: "good" }), "application/json");
    expect(json.status).toBe(415);
    expect((await json.json()).error.message).toContain("Content-Type");
    const large = await post(url, `rating=good&comment=${"x".repeat(9000)}`);
    expect(large.status).toBe(413);

    const unknownPage = await post(`${server.url}/sites/${site.id}/nowhere`, "rating=good");
    expect(unknownPage.status).toBe(404);
    expect(await feedbackEventsOf(site.id)).toEqual([]);

    // 512 characters (not bytes: "é" is two) is the bound, and passes.
    expect((await post(url, `rating=ok&comment=${"é".repeat(512)}`)).status).toBe(200);
    expect(await feedbackEventsOf(site.id)).toHaveLength(1);
  });

  it("is not offered nor taken when the site's customization has feedback off (the default)", async () => {
    const { site, url } = await siteWithPage("Quiet docs", false);
    expect(await (await fetch(url)).text()).not.toContain('class="feedback"');
    const refused = await post(url, "rating=good");
    expect(refused.status).toBe(404);
    expect(await refused.text()).toContain("does not take page feedback");
    expect(await feedbackEventsOf(site.id)).toEqual([]);
  });

  it("takes a bounded number of posts per reader and site (429 beyond), while pages still answer", async () => {
    const { site, url } = await siteWithPage("Busy docs", true);
    for (let i = 0; i < FEEDBACK_POSTS_PER_READER; i++) expect((await post(url, "rating=good")).status).toBe(200);
    const [over, view] = await Promise.all([post(url, "rating=good"), fetch(url)]);
    expect(over.status).toBe(429);
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(view.status).toBe(200);
    expect(await feedbackEventsOf(site.id)).toHaveLength(FEEDBACK_POSTS_PER_READER);
  });
});
