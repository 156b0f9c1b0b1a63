// A published page as a reader sees it, in Debian's Chromium: the demo's sample site (its page
// with every block) on a phone (390×844) and a desktop (1280×900), light and dark. Nothing
// overflows sideways, the menu opens and navigates, tabs switch, expandables open, outline links
// scroll, the title shows once, the theme toggle is remembered, and axe-core finds no serious or
// critical violation. With UPDATE_SCREENSHOTS=1 the screenshots go to docs/images/ (docs/sites.md shows them).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DemoResult, seedDemo } from "../src/core/bootstrap/index.ts";
import { launchBrowser } from "./support/browser.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let demo: DemoResult;
let browser: Browser;
let base: string;
const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const IMAGES = new URL("../docs/images/", import.meta.url);
/** The screenshots docs/sites.md shows, rewritten only on request so that a test run leaves the tree clean. */
const screenshotPath = (name: string) => (process.env.UPDATE_SCREENSHOTS ? new URL(name, IMAGES).pathname : undefined);

beforeAll(async () => {
  server = await startTestServer();
  demo = (await seedDemo(server.app.services))!;
  base = `${server.url}/sites/${demo.siteId}`;
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const VIEWPORTS = [
  { name: "phone", width: 390, height: 844 },
  { name: "desktop", width: 1280, height: 900 },
] as const;

async function noSidewaysScroll(page: Page) {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
  }));
  expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
}

async function axeViolations(page: Page) {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const result = await (window as any).axe.run(document, { resultTypes: ["violations"] });
    return result.violations.map((v: any) => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.map((n: any) => n.target.join(" ")).slice(0, 3),
    }));
  });
  return violations.filter((v: { impact: string }) => v.impact === "serious" || v.impact === "critical");
}

describe("the sample site's page of every block, in Chromium", () => {
  for (const viewport of VIEWPORTS) {
    it(`reads well at ${viewport.width}×${viewport.height}, light and dark`, async () => {
      const context = await browser.newContext({ viewport: { width: viewport.width, height: viewport.height } });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on("console", (message) => message.type() === "error" && errors.push(message.text()));
      page.on("pageerror", (error) => errors.push(error.message));
      try {
        await page.goto(`${base}/blocks`);
        // The title once: the page's heading, not the Markdown's own `# Blocks` again.
        expect(await page.locator("main h1").allTextContents()).toEqual(["Blocks"]);
        expect(await page.locator("html").getAttribute("data-theme")).toBe("light");
        // Every block is there, rendered.
        for (const selector of [
          ".hint-info",
          ".hint-success",
          ".hint-warning",
          ".hint-danger",
          ".tabset",
          "figure.code.numbered figcaption",
          "details.expandable",
          ".cards a.card",
          "a.embed",
          "a.file",
          "a.content-ref",
          ".math .katex-display",
          "li.task input[type=checkbox]",
          ".table-scroll table",
          // The demo site asks for feedback (the form's own test: site-feedback.test.ts).
          "form.feedback textarea",
        ])
          expect(await page.locator(selector).count(), selector).toBeGreaterThan(0);
        expect(await page.locator("figure.code pre code span[class^=k]").count()).toBeGreaterThan(0);
        await noSidewaysScroll(page);
        expect(await axeViolations(page)).toEqual([]);
        await page.screenshot({ path: screenshotPath(`site-${viewport.name}-light.png`) });

        // Tabs switch.
        const panels = page.locator(".tabset .tab-panel");
        expect(await panels.nth(0).isVisible()).toBe(true);
        await page.locator(".tabset label", { hasText: "REST" }).click();
        expect(await panels.nth(1).isVisible()).toBe(true);
        expect(await panels.nth(0).isVisible()).toBe(false);
        // Expandables open.
        const details = page.locator("details.expandable");
        await details.locator("summary").click();
        expect(await details.getAttribute("open")).not.toBeNull();

        if (viewport.name === "desktop") {
          // The outline of headings; its links scroll to the heading.
          const outline = page.locator('aside[aria-label="On this page"]');
          expect(await outline.isVisible()).toBe(true);
          await outline.locator("a", { hasText: "Task list" }).click();
          await page.waitForFunction(() => {
            const top = document.getElementById("task-list")!.getBoundingClientRect().top;
            return top >= 0 && top < window.innerHeight / 2;
          });
          expect(await page.locator('nav[aria-label="Pages"]').isVisible()).toBe(true);
        } else {
          // The page list hides behind the menu button; the menu opens and navigates.
          await page.evaluate(() => window.scrollTo(0, 0));
          const pages = page.locator('nav[aria-label="Pages"]');
          expect(await pages.isVisible()).toBe(false);
          expect(await page.locator('aside[aria-label="On this page"]').isVisible()).toBe(false);
          await page.locator("label.menu-button").click();
          expect(await pages.isVisible()).toBe(true);
          await noSidewaysScroll(page);
          await pages.locator("a", { hasText: "Quickstart" }).click();
          await page.waitForURL(`${base}/quickstart`);
          expect(await page.locator("main h1").allTextContents()).toEqual(["Quickstart"]);
          await noSidewaysScroll(page);
          await page.goto(`${base}/blocks`);
        }

        // Dark: the reader's toggle, remembered across pages.
        await page.locator("button.theme-toggle").click();
        expect(await page.locator("html").getAttribute("data-theme")).toBe("dark");
        await page.reload();
        expect(await page.locator("html").getAttribute("data-theme")).toBe("dark");
        const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
        expect(background).toBe("rgb(13, 17, 23)");
        await noSidewaysScroll(page);
        expect(await axeViolations(page)).toEqual([]);
        // The dark screenshot shows the tabs and the code.
        await page.evaluate(() => document.getElementById("tabs")!.scrollIntoView());
        await page.screenshot({ path: screenshotPath(`site-${viewport.name}-dark.png`) });
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    }, 60_000);
  }
});
