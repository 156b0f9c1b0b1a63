// GraphiQL in a real headless Chromium (Debian's, through playwright-core), on a server of the
// whole app whose starter token is a fresh demo's, as `npm start` runs it: the page loads with
// no request leaving this server (its assets are served locally, no CDN), the starter query is
// in the editor and the demo token in the headers, and running it shows the demo's data.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, type App } from "../src/app.ts";
import { seedDemo, type DemoResult } from "../src/core/bootstrap/index.ts";
import type { Database } from "../src/db/client.ts";
import { launchBrowser } from "./support/browser.ts";
import { openTestDatabase } from "./support/database.ts";

let database: Database;
let app: App;
let server: Server;
let url: string;
let demo: DemoResult;
let browser: Browser;

beforeAll(async () => {
  database = await openTestDatabase();
  let handler: App["yoga"] | undefined;
  server = createServer((req, res) => handler!(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let starterToken: string | undefined;
  app = createApp({ database, config: { publicUrl: url }, startJobs: false, starterToken: () => starterToken });
  handler = app.yoga;
  demo = (await seedDemo(app.services))!;
  starterToken = demo.token;
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server.close(resolve));
  await app.close();
  await database.close();
});

/** The text of a Monaco editor's visible lines (Monaco renders spaces as no-break spaces). */
const textOf = (locator: ReturnType<Awaited<ReturnType<Browser["newPage"]>>["locator"]>) =>
  locator.evaluate((element) => (element as HTMLElement).innerText.replace(/\u00a0/g, " "));

describe("GraphiQL in a browser", () => {
  it("opens offline with the starter query and the demo token, and running it shows the demo's data", { timeout: 120_000 }, async () => {
    // Tall enough that the editors show every line (Monaco renders only the visible ones).
    const page = await browser.newPage({ viewport: { width: 1280, height: 1600 } });
    const requests: string[] = [];
    page.on("request", (request) => requests.push(request.url()));
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(`${url}/graphql`);

    const query = page.locator(".graphiql-query-editor .view-lines");
    await expect.poll(() => textOf(query), { timeout: 30_000 }).toContain("query Start {");
    expect(await textOf(query)).toMatch(/^# Your organizations, their spaces and the pages in each\./);
    // The headers editor is open below it, with the demo's token.
    const headers = page.locator(".graphiql-editor-tool .graphiql-editor:not(.hidden) .view-lines");
    await expect.poll(() => textOf(headers), { timeout: 10_000 }).toContain(`"Authorization": "Bearer ${demo.token}"`);

    await page.click(".graphiql-execute-button");
    const result = page.locator(".result-window .view-lines");
    await expect.poll(() => textOf(result), { timeout: 30_000 }).toContain('"title": "Demo organization"');
    const text = await textOf(result);
    expect(text).toContain('"title": "Getting started"');
    expect(text).toContain('"path": "quickstart"');
    expect(text).not.toContain('"errors"');

    // Nothing was fetched from anywhere but this server (blob: URLs are the page's own workers).
    expect(requests.filter((request) => !request.startsWith(url) && !request.startsWith("blob:") && !request.startsWith("data:"))).toEqual(
      [],
    );
    expect(requests).toContain(`${url}/graphql`);
    expect(errors).toEqual([]);
    await page.close();
  });
});
