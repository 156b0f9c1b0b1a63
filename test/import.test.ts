// Import of a website: a small site served by the test itself on 127.0.0.1 (nested pages, a
// broken link, an external link, an image), through REST and GraphQL; and every bad input or
// failing root page gets its 4xx and makes no revision.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { graphqlData } from "./support/expect.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

// A real 1×1 PNG.
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", "base64");

const html = (title: string, body: string) =>
  `<!doctype html><html><head><title>${title}</title><style>p{}</style></head><body><nav><a href="/">Home</a></nav><main>${body}</main><footer>Footer text</footer></body></html>`;

const SITE: Record<string, { type: string; body: string | Buffer }> = {
  "/": {
    type: "text/html; charset=utf-8",
    body: html(
      "Acme Docs",
      `<h1>Acme Docs</h1><p>Welcome to <strong>Acme</strong>.</p>
       <ul><li><a href="/guide/">The guide</a></li><li><a href="/guide/install#steps">Install</a></li>
       <li><a href="/missing">Gone</a></li><li><a href="https://example.com/elsewhere">Elsewhere</a></li></ul>`,
    ),
  },
  "/guide/": { type: "text/html", body: html("Guide", `<h1>Guide</h1><p>Read <a href="install">the install page</a>.</p>`) },
  "/guide/install": {
    type: "text/html",
    body: html("Installation", `<h2 id="steps">Steps</h2><p>Run it.</p><img src="/logo.png" alt="Logo">`),
  },
  "/logo.png": { type: "image/png", body: PNG },
  "/data.json": { type: "application/json", body: `{"not":"html"}` },
  "/huge": { type: "text/html", body: html("Huge", `<p>${"x".repeat(64 * 1024)}</p>`) },
  // No navigation: from /deep/start, only /deep/a/b is reached (two path levels made up).
  "/deep/start": { type: "text/html", body: `<html><head><title>Start</title></head><body><p><a href="a/b">Down</a></p></body></html>` },
  // NUL characters in a page's text and (as %00) in its links' and image's paths: no title, body,
  // slug or file name can keep them (PostgreSQL refuses them: the import failed with a 500).
  "/nul/": {
    type: "text/html",
    body: `<html><head><title>Ti\u0000tle</title></head><body><main><p>a\u0000b</p><a href="sub%00page">Sub</a> <img src="pic%00.png" alt="x\u0000y"></main></body></html>`,
  },
  "/nul/sub%00page": { type: "text/html", body: `<html><head><title></title></head><body><p>Sub page</p></body></html>` },
  "/nul/pic%00.png": { type: "image/png", body: PNG },
  "/deep/a/b": { type: "text/html", body: `<html><body><h1>B</h1><p>Deep page, <a href="../start">up</a></p></body></html>` },
};

let site: Server;
let siteUrl: string;
let server: TestServer;
let A: { organizationId: string; userId: string; token: string };
let B: { organizationId: string; userId: string; token: string };

beforeAll(async () => {
  site = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path === "/slow") return; // never answers
    const resource = SITE[path];
    if (!resource) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    res.writeHead(200, { "content-type": resource.type }).end(resource.body);
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  server = await startTestServer({
    importLimits: { requestTimeoutMs: 500, totalTimeoutMs: 5000, maxBytes: 32 * 1024, allowPrivateHosts: true },
  });
  A = await server.bootstrap("Import A");
  B = await server.bootstrap("Import B");
});

afterAll(async () => {
  site?.closeAllConnections();
  await new Promise((resolve) => site?.close(resolve));
  await server?.close();
});

async function newSpace(token = A.token, organizationId = A.organizationId): Promise<string> {
  const data = await graphqlData(server, token, `mutation($input: CreateSpaceInput!) { createSpace(input: $input) { space { id } } }`, {
    input: { organization: organizationId, title: "Imported" },
  });
  return data.createSpace.space.id;
}

const headOf = async (space: string) => (await server.database.prisma.space.findUniqueOrThrow({ where: { id: space } })).revisionId;
const revisionCount = (space: string) => server.database.prisma.revision.count({ where: { spaceId: space } });
const importRest = (space: string, body: unknown, token = A.token) =>
  server.rest(token, "POST", `/v1/spaces/${space}/content/import`, body);

const TREE = `query($id: ID!) { space(id: $id) { content { id parents files { id name contentType size dimensions { width height } }
  allPages { id title path parentId markdown } } } }`;

describe("importing a website", () => {
  it("imports the site as one revision over REST, keeping hierarchy, titles, links and the image", async () => {
    const space = await newSpace();
    const before = await headOf(space);
    const response = await importRest(space, { url: `${siteUrl}/`, source: "website" });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    // /, /guide/, /guide/install and the logo imported; /missing discovered (404) but skipped.
    expect(response.body).toEqual({ revision: expect.stringMatching(/^rev_/), importedResources: 4, totalResources: 5 });
    expect(await revisionCount(space)).toBe(2);
    expect(await headOf(space)).toBe(response.body.revision);

    const { space: read } = await graphqlData(server, A.token, TREE, { id: space });
    const content = read.content;
    expect(content.id).toBe(response.body.revision);
    expect(content.parents).toEqual([before]);
    const byPath = Object.fromEntries(content.allPages.map((page: any) => [page.path, page]));
    expect(Object.keys(byPath).sort()).toEqual(["acme-docs", "guide", "guide/install"]);
    expect(byPath["acme-docs"].title).toBe("Acme Docs");
    expect(byPath["guide"].title).toBe("Guide");
    expect(byPath["guide/install"].title).toBe("Installation");
    expect(byPath["guide/install"].parentId).toBe(byPath["guide"].id);
    expect(byPath["guide"].parentId).toBeNull();

    // Main content only; title not repeated; links to imported pages made relative.
    const home = byPath["acme-docs"].markdown as string;
    expect(home).toContain("Welcome to **Acme**");
    expect(home).not.toMatch(/Footer text|Home\]/);
    expect(home).not.toMatch(/^# Acme Docs/m);
    expect(home).toContain("(guide)");
    expect(home).toContain("(guide/install#steps)");
    expect(home).toContain(`(${siteUrl}/missing)`);
    expect(home).toContain("(https://example.com/elsewhere)");
    expect(byPath["guide"].markdown).toContain("(guide/install)");

    // The image is a file with its dimensions, referenced as files/<id>.
    expect(content.files).toEqual([
      {
        id: expect.stringMatching(/^file_/),
        name: "logo.png",
        contentType: "image/png",
        size: PNG.length,
        dimensions: { width: 1, height: 1 },
      },
    ]);
    expect(byPath["guide/install"].markdown).toContain(`![Logo](files/${content.files[0].id})`);

    // REST reads show the same tree.
    const pages = await server.rest(A.token, "GET", `/v1/spaces/${space}/content/pages`);
    expect(pages.body.pages.map((page: any) => page.title)).toEqual(["Acme Docs", "Guide"]);
    expect(pages.body.pages[1].pages.map((page: any) => page.title)).toEqual(["Installation"]);
  });

  it("imports through GraphQL, with made-up levels for missing path segments", async () => {
    const space = await newSpace();
    const before = await headOf(space);
    const data = await graphqlData(
      server,
      A.token,
      `mutation($input: ImportContentInput!) { importContent(input: $input) { revision { id parents } importedResources totalResources space { id revision } } }`,
      { input: { space, url: `${siteUrl}/deep/start`, source: "website" } },
    );
    expect(data.importContent).toMatchObject({ importedResources: 2, totalResources: 2, revision: { parents: [before] } });
    expect(data.importContent.space.revision).toBe(data.importContent.revision.id);
    const { space: read } = await graphqlData(server, A.token, TREE, { id: space });
    // /deep/a/b is outside the root's folder (/deep/): placed by its full path, levels made up.
    const pages = read.content.allPages;
    expect(pages.map((page: any) => [page.path, page.title])).toEqual([
      ["start", "Start"],
      ["deep", "Deep"],
      ["deep/a", "A"],
      ["deep/a/b", "B"],
    ]);
    expect(pages[1].markdown).toBe("");
    expect(pages[3].markdown).toContain("[up](../../start)");
    expect(pages[0].markdown).toContain("[Down](deep/a/b)");
  });
});

describe("an imported page with NUL characters", () => {
  it("is imported without them: text, titles, slugs and file names (imports strip what the database cannot store)", async () => {
    const space = await newSpace();
    const response = await importRest(space, { url: `${siteUrl}/nul/`, source: "website" });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    const { space: read } = await graphqlData(server, A.token, TREE, { id: space });
    const pages = read.content.allPages.map(({ title, path, markdown }: any) => ({ title, path, markdown }));
    expect(pages).toEqual([
      { title: "Title", path: "title", markdown: expect.stringContaining("ab") },
      { title: "Subpage", path: "subpage", markdown: "Sub page\n" },
    ]);
    expect(pages[0].markdown).toContain("[Sub](subpage)");
    expect(read.content.files.map((file: any) => file.name)).toEqual(["pic.png"]);
    expect(JSON.stringify(read)).not.toContain("\\u0000");
  });
});

describe("refused imports make no revision", () => {
  const cases: [string, () => Record<string, unknown>, number, RegExp][] = [
    ["missing url", () => ({ source: "website" }), 400, /url is required/],
    ["relative url", () => ({ url: "/guide", source: "website" }), 400, /url must be an absolute/],
    ["ftp url", () => ({ url: "ftp://127.0.0.1/x", source: "website" }), 400, /http or https/],
    ["url too long", () => ({ url: `${siteUrl}/${"a".repeat(2100)}`, source: "website" }), 400, /at most 2048/],
    ["unsupported source", () => ({ url: siteUrl, source: "file" }), 400, /source file is not supported yet/],
    ["unknown source", () => ({ url: siteUrl, source: "notion-ish" }), 400, /source must be one of website, file/],
    ["missing source", () => ({ url: siteUrl }), 400, /source must be one of/],
    ["root not found", () => ({ url: `${siteUrl}/missing`, source: "website" }), 400, /answered 404/],
    [
      "connection refused",
      () => ({ url: "http://127.0.0.1:1/", source: "website" }),
      400,
      /^url: http:\/\/127\.0\.0\.1:1 is unreachable: no HTTP answer/,
    ],
    [
      "unknown host",
      () => ({ url: "http://no-such-host.invalid/", source: "website" }),
      400,
      /^url: http:\/\/no-such-host\.invalid is unreachable: no HTTP answer/,
    ],
    ["root not HTML", () => ({ url: `${siteUrl}/data.json`, source: "website" }), 415, /application\/json, not an HTML page/],
    ["root too big", () => ({ url: `${siteUrl}/huge`, source: "website" }), 413, /at most 32768 bytes/],
    // Silent before any answer: the same 400 as a refused connection (no port oracle).
    [
      "root never answers",
      () => ({ url: `${siteUrl}/slow`, source: "website" }),
      400,
      /is unreachable: no HTTP answer from a public host within 500 ms/,
    ],
  ];
  for (const [name, body, status, message] of cases) {
    it(`${name}: ${status}`, async () => {
      const space = await newSpace();
      const before = await headOf(space);
      const response = await importRest(space, body());
      expect(response.status, JSON.stringify(response.body)).toBe(status);
      expect(response.body.error.code).toBe(status);
      expect(response.body.error.message).toMatch(message);
      expect(await headOf(space)).toBe(before);
      expect(await revisionCount(space)).toBe(1);
    });
  }

  it("answers the same through GraphQL", async () => {
    const space = await newSpace();
    const result = await server.graphql(
      A.token,
      `mutation($input: ImportContentInput!) { importContent(input: $input) { importedResources } }`,
      {
        input: { space, url: `${siteUrl}/data.json`, source: "website" },
      },
    );
    expect(result.errors?.[0].extensions).toMatchObject({ code: "UNSUPPORTED_MEDIA_TYPE" });
    expect(result.errors?.[0].message).toMatch(/not an HTML page/);
    expect(await revisionCount(space)).toBe(1);
  });

  it("needs edit on the space: a read member gets 403, another organization 404", async () => {
    const space = await newSpace();
    const reader = await server.addMember(A.organizationId, "read");
    expect((await importRest(space, { url: siteUrl, source: "website" }, reader.token)).status).toBe(403);
    expect((await importRest(space, { url: siteUrl, source: "website" }, B.token)).status).toBe(404);
    expect(await revisionCount(space)).toBe(1);
  });

  it("refuses private hosts when they are not allowed", async () => {
    const strict = await startTestServer({ importLimits: { allowPrivateHosts: false } });
    try {
      const admin = await strict.bootstrap("Import strict");
      const created = await strict.rest(admin.token, "POST", `/v1/orgs/${admin.organizationId}/spaces`, { title: "Strict" });
      const space = created.body.id as string;
      const response = await strict.rest(admin.token, "POST", `/v1/spaces/${space}/content/import`, {
        url: `${siteUrl}/`,
        source: "website",
      });
      expect(response.status).toBe(400);
      expect(response.body.error.message).toMatch(/is unreachable: no HTTP answer from a public host/);
      const revisions = await strict.database.prisma.revision.count({ where: { spaceId: space } });
      expect(revisions).toBe(1);
    } finally {
      await strict.close();
    }
  });
});
