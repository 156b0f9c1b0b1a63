// Website import defects found while trying it as a new user, each on a small site served by the
// test on 127.0.0.1: a site's index under `/` and `/index.html` (and `/docs/` and
// `/docs/index.html`) is one page, and links to either URL lead to it; and an import reports its
// progress page by page in the JSON logs (a long import no longer looks hung).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, type App } from "../src/app.ts";
import { bootstrapOrganization } from "../src/core/bootstrap/index.ts";
import type { Database } from "../src/db/client.ts";
import { createLogger } from "../src/logger.ts";
import { openTestDatabase } from "./support/database.ts";

const page = (title: string, body: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body><main>${body}</main></body></html>`;

const SITE: Record<string, string> = {
  "/watch/": page("Watch", `<h1>Watch</h1><p><a href="a">A</a>, <a href="b">B</a></p>`),
  "/watch/a": page("A", `<h1>A</h1>`),
  "/watch/b": page("B", `<h1>B</h1>`),
  "/": page("Home", `<h1>Home</h1><p><a href="/index.html">Home again</a>, <a href="/about">About</a>, <a href="/docs/">Docs</a></p>`),
  "/index.html": page("Home", `<h1>Home</h1><p><a href="/about">About</a></p>`),
  "/about": page(
    "About",
    `<h1>About</h1><p>Back <a href="/index.html">to the start</a> or <a href="/">the top</a>; <a href="/docs/index.html">the docs</a></p>`,
  ),
  "/docs/": page("Docs", `<h1>Docs</h1><p><a href="index.html">This page</a>, <a href="setup">Setup</a></p>`),
  "/docs/index.html": page("Docs", `<h1>Docs</h1><p><a href="setup">Setup</a></p>`),
  "/docs/setup": page(
    "Setup",
    `<h1>Setup</h1><p>Read the <a href="./">docs index</a> and the <a href="/docs/index.html#top">docs top</a>.</p>`,
  ),
};

/** Opens when the test lets /watch/b answer. */
const gate = (() => {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
})();

let site: Server;
let siteUrl: string;
let database: Database;
let app: App;
let server: Server;
let url: string;
let token: string;
let organizationId: string;
const logLines: Record<string, any>[] = [];

beforeAll(async () => {
  site = createServer(async (req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path === "/watch/b") await gate.promise; // held until the test has watched the import
    const body = SITE[path];
    if (body === undefined) res.writeHead(404).end();
    else res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(body);
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;

  database = await openTestDatabase();
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) logLines.push(JSON.parse(line));
      done();
    },
  });
  let handler: App["yoga"] | undefined;
  server = createServer((req, res) => handler!(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  app = createApp({
    database,
    config: { publicUrl: url, importAllowPrivateHosts: true },
    logger: createLogger("info", sink),
    startJobs: false,
  });
  handler = app.yoga;
  ({ token, organizationId } = await bootstrapOrganization(database.prisma, { organizationTitle: "Import", email: "import@example.com" }));
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await app.close();
  await database.close();
  site.closeAllConnections();
  await new Promise((resolve) => site.close(resolve));
});

async function gql(query: string, variables?: Record<string, unknown>): Promise<any> {
  const response = await fetch(`${url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data?: any; errors?: unknown[] };
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data;
}

async function importInto(startUrl: string) {
  const { createSpace } = await gql(
    `mutation($org: ID!) { createSpace(input: { organization: $org, title: "Imported" }) { space { id } } }`,
    { org: organizationId },
  );
  const space = createSpace.space.id as string;
  const data = await gql(
    `mutation($space: ID!, $url: String!) { importContent(input: { space: $space, source: "website", url: $url }) {
       importedResources totalResources revision { id } } }`,
    { space, url: startUrl },
  );
  const tree = await gql(`query($id: ID!) { space(id: $id) { content { allPages { title path markdown } } } }`, { id: space });
  return { space, result: data.importContent, pages: tree.space.content.allPages as { title: string; path: string; markdown: string }[] };
}

describe("a site's index under two URLs", () => {
  it("/ and /index.html are one page, /docs/ and /docs/index.html too, and links to either lead to it", async () => {
    const { result, pages } = await importInto(`${siteUrl}/`);
    expect(pages.map((p) => p.path).sort()).toEqual(["about", "docs", "docs/setup", "home"]);
    expect(result.importedResources).toBe(4);
    // Found: /, /about, /docs/, /docs/setup (each index once, under whichever URL).
    expect(result.totalResources).toBe(4);
    const byPath = Object.fromEntries(pages.map((p) => [p.path, p.markdown]));
    expect(byPath.about).toContain("[to the start](home)");
    expect(byPath.about).toContain("[the top](home)");
    expect(byPath.about).toContain("[the docs](docs)");
    expect(pages.map((p) => p.markdown).join("\n")).not.toMatch(/home-2|docs-2|index\.html/);
    expect(byPath.home).toContain("[Home again](home)");
    expect(byPath["docs/setup"]).toContain("[docs index](../docs)");
    expect(byPath["docs/setup"]).toContain("[docs top](../docs#top)");
  });

  it("an import started at /index.html is the same single page", async () => {
    const { pages } = await importInto(`${siteUrl}/index.html`);
    expect(pages.map((p) => p.path).sort()).toEqual(["about", "docs", "docs/setup", "home"]);
  });
});

describe("import progress", () => {
  it("logs its start, each page fetched with the counts so far, and its end, under the import's URL", async () => {
    logLines.length = 0;
    const { space } = await importInto(`${siteUrl}/about`);
    const lines = logLines.filter((line) => line.import === `${siteUrl}/about`);
    expect(lines[0]).toMatchObject({ level: "info", msg: "import started", spaceId: space, maxPages: expect.any(Number) });
    const fetched = lines.filter((line) => line.msg === "import: page fetched");
    expect(fetched.map((line) => line.pages)).toEqual([1, 2, 3, 4]);
    expect(fetched[0]).toMatchObject({
      url: `${siteUrl}/about`,
      queued: expect.any(Number),
      found: expect.any(Number),
      ms: expect.any(Number),
    });
    expect(lines.at(-1)).toMatchObject({ msg: "import finished", pages: 4, files: 0, revisionId: expect.stringMatching(/^rev_/) });
  });

  it("logs why a root page is refused", async () => {
    logLines.length = 0;
    const { createSpace } = await gql(
      `mutation($org: ID!) { createSpace(input: { organization: $org, title: "Refused" }) { space { id } } }`,
      { org: organizationId },
    );
    const response = await fetch(`${url}/v1/spaces/${createSpace.space.id}/content/import`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ source: "website", url: `${siteUrl}/missing` }),
    });
    expect(response.status).toBe(400);
    expect(logLines.find((line) => line.msg === "import refused: the root page cannot be imported")).toMatchObject({
      url: `${siteUrl}/missing`,
      reason: expect.stringContaining("404"),
    });
  });
});

describe("import progress in GraphQL", () => {
  it("Space.importsInProgress shows an import under way as it gets on, and nothing once it is done", async () => {
    const { createSpace } = await gql(
      `mutation($org: ID!) { createSpace(input: { organization: $org, title: "Watched" }) { space { id } } }`,
      { org: organizationId },
    );
    const space = createSpace.space.id as string;
    const WATCH = `query($id: ID!) { space(id: $id) { importsInProgress { url changeRequest phase pagesFetched queued found startedAt } } }`;
    expect((await gql(WATCH, { id: space })).space.importsInProgress).toEqual([]);

    const running = fetch(`${url}/v1/spaces/${space}/content/import`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ source: "website", url: `${siteUrl}/watch/` }),
    });
    // /watch/ and /watch/a are read; /watch/b is held by the site, so the import waits there.
    await expect
      .poll(async () => (await gql(WATCH, { id: space })).space.importsInProgress, { timeout: 10_000, interval: 50 })
      .toEqual([
        {
          url: `${siteUrl}/watch/`,
          changeRequest: null,
          phase: "pages",
          pagesFetched: 2,
          queued: 1,
          found: 3,
          startedAt: expect.any(String),
        },
      ]);
    gate.resolve();
    const response = await running;
    expect(response.status).toBe(201);
    expect((await response.json()) as object).toMatchObject({ importedResources: 3 });
    expect((await gql(WATCH, { id: space })).space.importsInProgress).toEqual([]);
  });
});
