// What a published site answers besides its pages' chrome (issue 31): `llms-full.txt` (every
// page's Markdown in navigation order, within a bound, saying what it left out), the fonts its
// customization chose (served by the service, hashed, cached for a year), and the size of a
// page's HTML against what the service answered for the same content before the redesign.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { graphqlData } from "./support/expect.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

/** This server's bound of llms-full.txt, low enough for a test to go beyond it. */
const LLMS_FULL_MAX_BYTES = 4096;

let server: TestServer;
let A: { organizationId: string; token: string; userId: string };

const api = () => server.client(A.token);
const create = `mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`;
const page = (space: string, title: string, markdown: string, extra: Record<string, unknown> = {}) =>
  graphqlData(server, A.token, create, { input: { space, title, markdown, ...extra } });

async function publish(title: string, spaces: string[]) {
  const { data: site } = await api().orgs.createSite(A.organizationId, { title, spaces });
  await api().orgs.publishSite(A.organizationId, site.id);
  return site;
}

beforeAll(async () => {
  server = await startTestServer({ llmsFullMaxBytes: LLMS_FULL_MAX_BYTES });
  A = await server.bootstrap("Output");
});

afterAll(async () => {
  await server?.close();
});

describe("llms-full.txt", () => {
  it("holds every readable page's Markdown, title once, in navigation order, each with its HTML URL", async () => {
    const { data: space } = await api().orgs.createSpace(A.organizationId, { title: "Guide" });
    await page(space.id, "Welcome", "# Welcome\n\nStart here.");
    await page(space.id, "Setup", "## Steps\n\nInstall it.");
    await page(space.id, "Hidden", "Not in the navigation.", { hidden: true });
    await page(space.id, "Empty", "");
    const site = await publish("Full docs", [space.id]);
    const base = `${server.url}/sites/${site.id}`;
    const response = await fetch(`${base}/llms-full.txt`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(await response.text()).toBe(
      `# Full docs\n` +
        `\n---\n\n# Welcome\n\nSource: ${base}/welcome\n\nStart here.\n` +
        `\n---\n\n# Setup\n\nSource: ${base}/setup\n\n## Steps\n\nInstall it.\n` +
        `\n---\n\n# Empty\n\nSource: ${base}/empty\n`,
    );
  });

  it("stops at the bound at a page's end and says how many pages it left out and where they are listed", async () => {
    const { data: space } = await api().orgs.createSpace(A.organizationId, { title: "Large" });
    const paragraph = "All work and no play. ".repeat(60); // 1,320 bytes
    for (const title of ["One", "Two", "Three", "Four", "Five"]) await page(space.id, title, paragraph);
    const site = await publish("Large docs", [space.id]);
    const base = `${server.url}/sites/${site.id}`;
    const text = await (await fetch(`${base}/llms-full.txt`)).text();
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(LLMS_FULL_MAX_BYTES);
    expect(text).toContain(`# Two\n\nSource: ${base}/two\n\n${paragraph.trim()}\n`);
    expect(text).not.toContain("# Three");
    expect(
      text.endsWith(
        `\n---\n\n3 more pages are not included: this file stops at 4096 bytes. Every page is listed in ${base}/llms.txt, each with its Markdown URL.\n`,
      ),
    ).toBe(true);
  });
});

const IMMUTABLE = "public, max-age=31536000, immutable";

/** The stylesheets a page links to, fetched. */
async function stylesheetsOf(pageUrl: string) {
  const html = await (await fetch(pageUrl)).text();
  const hrefs = [...html.matchAll(/<link rel="stylesheet" href="([^"]+)">/g)].map((match) => match[1]);
  return Promise.all(
    hrefs.map(async (href) => {
      const response = await fetch(new URL(href, server.url));
      expect(response.headers.get("cache-control")).toBe(IMMUTABLE);
      return { href, text: await response.text() };
    }),
  );
}

/** Fetches every woff2 a stylesheet names (beside it), checking it is a font cached for a year. */
async function fontFilesOf(sheet: { href: string; text: string }) {
  const names = [...sheet.text.matchAll(/url\(([^)]+\.woff2)\)/g)].map((match) => match[1]);
  for (const name of names) {
    const response = await fetch(new URL(name, new URL(sheet.href, server.url)));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("font/woff2");
    expect(response.headers.get("cache-control")).toBe(IMMUTABLE);
    expect(
      Buffer.from(await response.arrayBuffer())
        .subarray(0, 4)
        .toString("latin1"),
    ).toBe("wOF2");
  }
  return names;
}

describe("fonts", () => {
  async function siteWithFonts(title: string, styling: Record<string, unknown>) {
    const { data: space } = await api().orgs.createSpace(A.organizationId, { title });
    await page(space.id, "Intro", "Some `code`.");
    const { data: site } = await api().orgs.createSite(A.organizationId, { title, spaces: [space.id] });
    const settings = (await api().orgs.getSiteCustomizationById(A.organizationId, site.id)).data;
    await api().orgs.updateSiteCustomizationById(A.organizationId, site.id, {
      ...settings,
      styling: { ...settings.styling, ...styling },
    } as never);
    await api().orgs.publishSite(A.organizationId, site.id);
    return { site, url: `${server.url}/sites/${site.id}/intro` };
  }

  it("serves the default fonts (Inter, IBM Plex Mono) from the site stylesheet, and chosen text, code and heading fonts from stylesheets of their own", async () => {
    const plain = await siteWithFonts("Default fonts", {});
    const [site] = await stylesheetsOf(plain.url);
    expect(site.text).toContain(':root{--font:"Inter Variable"}');
    expect(site.text).toContain(':root{--mono:"IBM Plex Mono"}');
    expect(await fontFilesOf(site)).toEqual([
      expect.stringMatching(/^inter-latin-wght-normal\.\w+\.woff2$/),
      expect.stringMatching(/^ibm-plex-mono-latin-400-normal\.\w+\.woff2$/),
      expect.stringMatching(/^ibm-plex-mono-latin-700-normal\.\w+\.woff2$/),
    ]);

    const chosen = await siteWithFonts("Chosen fonts", { font: "Roboto", monospaceFont: "JetBrainsMono" });
    const sheets = await stylesheetsOf(chosen.url);
    expect(sheets.map(({ href }) => href.split("/").pop())).toEqual([
      expect.stringMatching(/^site\./),
      expect.stringMatching(/^text-roboto\.\w+\.css$/),
      expect.stringMatching(/^mono-jetbrains-mono\.\w+\.css$/),
    ]);
    expect(sheets[1].text).toContain(':root{--font:"Roboto Variable"}');
    expect(sheets[2].text).toContain(':root{--mono:"JetBrains Mono Variable"}');
    expect(await fontFilesOf(sheets[1])).toHaveLength(1);
    expect(await fontFilesOf(sheets[2])).toHaveLength(1);

    // A heading font: its own faces, before the text font.
    const headed = await siteWithFonts("Headed fonts", { headingFont: "Merriweather" });
    const [, heading] = await stylesheetsOf(headed.url);
    expect(heading.href).toMatch(/\/heading-merriweather\.\w+\.css$/);
    expect(heading.text).toContain('h1,h2,h3,h4,h5,h6{font-family:"Merriweather Variable",var(--font),system-ui,sans-serif}');
    expect(await fontFilesOf(heading)).toHaveLength(1);

    // ABCFavorit ships in no package: the system font.
    const favorit = await siteWithFonts("Favorit", { font: "ABCFavorit" });
    const [, system] = await stylesheetsOf(favorit.url);
    expect(system.text).toBe(":root{--font:system-ui}");
  });

  it("refuses a font that is not one of the published names (400 naming it), and the page keeps its fonts", async () => {
    const { site, url } = await siteWithFonts("Odd fonts", {});
    const path = `/v1/orgs/${A.organizationId}/sites/${site.id}/customization`;
    const settings = (await server.rest(A.token, "GET", path)).body as { styling: Record<string, unknown> };
    const refused = await server.rest(A.token, "PUT", path, { ...settings, styling: { ...settings.styling, font: "ComicSans" } });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain("styling.font");
    expect(await stylesheetsOf(url)).toHaveLength(1);
  });
});

describe("a page's HTML size", () => {
  /**
   * test/fixtures/sites/plain-page.md published as the page "Getting started" (beside a page
   * "Next") of the site "Sized docs" answered 3,285 bytes of HTML at commit 38ff71f, the last
   * before the redesign of published pages (measured 2026-11-28 with this test's steps, on a test
   * server at http://127.0.0.1:<5-digit port>, default customization). The bound: 1.5×.
   */
  const BEFORE_REDESIGN_BYTES = 3285;

  it("stays within 1.5× of what the same content answered before the redesign (no framework runtime)", async () => {
    const { data: space } = await api().orgs.createSpace(A.organizationId, { title: "Guide" });
    await page(space.id, "Getting started", readFileSync(new URL("fixtures/sites/plain-page.md", import.meta.url), "utf8"));
    await page(space.id, "Next", "The next page.");
    const site = await publish("Sized docs", [space.id]);
    const html = await (await fetch(`${server.url}/sites/${site.id}/getting-started`)).text();
    expect(html).toContain('<h2 id="configure">Configure</h2>');
    expect(Buffer.byteLength(html)).toBeLessThanOrEqual(1.5 * BEFORE_REDESIGN_BYTES);
  });
});
