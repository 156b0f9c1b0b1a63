// The demo organization of a first start (seedDemo, as `npm start` runs it): its sample space has
// pages with headings, a table, links between pages and an image, a reusable content, a change
// request with its own edit, and a comment with a reply, so that every read route of a space
// and search answer something. Read through the official client (responses validated against
// the published schemas) and GraphQL, on a real server.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo, type DemoResult } from "../src/core/bootstrap/index.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let demo: DemoResult;

beforeAll(async () => {
  server = await startTestServer();
  demo = (await seedDemo(server.app.services))!;
});

afterAll(() => server.close());

describe("the demo organization's sample content", () => {
  it("is created once, on an empty database only", async () => {
    expect(demo).not.toBeNull();
    expect(await seedDemo(server.app.services)).toBeNull();
    expect(await server.database.prisma.organization.count()).toBe(1);
  });

  it("has pages with headings, a table, links and an image, in a tree", async () => {
    const api = server.client(demo.token);
    const { data: content } = await api.spaces.getCurrentRevision(demo.spaceId);
    const titles = (pages: any[]): any[] => pages.map((page) => (page.pages?.length ? [page.title, titles(page.pages)] : page.title));
    expect(titles(content.pages)).toEqual(["Welcome", "Quickstart", ["Reference", ["API"]], "Blocks"]);
    expect(content.files).toEqual([
      expect.objectContaining({ name: "architecture.png", contentType: "image/png", dimensions: { width: 96, height: 48 } }),
    ]);

    const { data: quickstart } = await api.spaces.getPageByPath(demo.spaceId, "quickstart", { format: "markdown" });
    const markdown = (quickstart as { markdown: string }).markdown;
    expect(markdown).toMatch(/^# Quickstart\n/);
    expect(markdown).toMatch(/^## 2\. Create a page$/m);
    expect(markdown).toMatch(/^\| Surface \| Request \| Returns \|\n\| --- \| --- \| --- \|$/m);
    expect(markdown).toContain("[API reference](reference/api)");

    const { data: welcome } = await api.spaces.getPageById(demo.spaceId, demo.content.pageIds.welcome, { format: "document" });
    const inlines = JSON.stringify((welcome as { document: unknown }).document);
    expect(inlines).toContain('"type":"inline-image"');
    expect(inlines).toContain('"type":"heading-1"');

    // The image's bytes are a real PNG of those dimensions.
    const { data: file } = await api.spaces.getFileById(demo.spaceId, demo.content.fileId);
    const png = new Uint8Array(await (await fetch(file.downloadURL)).arrayBuffer());
    expect([...png.slice(1, 4)].map((byte) => String.fromCharCode(byte)).join("")).toBe("PNG");
  });

  it("links between pages resolve (none broken), and the image has its backlink", async () => {
    const { status, body: links } = await server.rest(demo.token, "GET", `/v1/spaces/${demo.spaceId}/links`);
    expect(status).toBe(200);
    const { welcome, quickstart, api: apiPage } = demo.content.pageIds;
    const pageTargets = links.items
      .filter((link: any) => link.targetReference.kind === "page")
      .map((link: any) => link.targetReference.page);
    expect(pageTargets.sort()).toEqual([welcome, quickstart, apiPage].sort());
    expect(links.stats.broken.total).toBe(0);
    expect(links.items.filter((link: any) => link.status !== "ok")).toEqual([]);
    expect(links.items.find((link: any) => link.relation === "image")).toMatchObject({
      targetReference: { kind: "file", file: demo.content.fileId },
    });

    const base = `/v1/spaces/${demo.spaceId}/content`;
    const backlinks = await server.rest(demo.token, "GET", `${base}/page/${quickstart}/backlinks`);
    // The welcome page, the API page and the page of every block.
    expect(backlinks.body.items.length).toBe(3);
    const fileBacklinks = await server.rest(demo.token, "GET", `${base}/files/${demo.content.fileId}/backlinks`);
    expect(fileBacklinks.body.items).toEqual([expect.objectContaining({ kind: "page", page: expect.objectContaining({ id: welcome }) })]);
  });

  it("search finds pages, in the space and in the organization", async () => {
    const api = server.client(demo.token);
    const { data: inSpace } = await api.spaces.searchSpaceContent(demo.spaceId, { query: "token" });
    expect(inSpace.items.map((page: any) => page.title)).toContain("Quickstart");
    const { data: inOrganization } = await api.orgs.searchOrganizationContent(demo.organizationId, { query: "endpoints" });
    expect(inOrganization.items.length).toBeGreaterThan(0);
  });

  it("has a change request with its own page, a comment with a reply, and a reusable content", async () => {
    const api = server.client(demo.token);
    const { data: changeRequests } = await api.spaces.listChangeRequestsForSpace(demo.spaceId);
    expect(changeRequests.items).toEqual([
      expect.objectContaining({ id: demo.content.changeRequestId, subject: "Add a troubleshooting page", status: "open" }),
    ]);
    const { data: changes } = await api.spaces.getChangeRequestChanges(demo.spaceId, demo.content.changeRequestId);
    expect(changes.changes).toEqual([
      expect.objectContaining({ type: "page_created", page: expect.objectContaining({ title: "Troubleshooting" }) }),
    ]);

    const { data: comments } = await api.spaces.listCommentsInSpace(demo.spaceId);
    expect(comments.items).toEqual([expect.objectContaining({ id: demo.content.commentId, replies: 1 })]);
    const { data: replies } = await api.spaces.listCommentRepliesInSpace(demo.spaceId, demo.content.commentId);
    expect(replies.items).toHaveLength(1);

    const reusable = await server.graphql(
      demo.token,
      `query($id: ID!) { space(id: $id) { content { reusableContents { id title markdown } } } }`,
      { id: demo.spaceId },
    );
    expect(reusable.errors).toBeUndefined();
    expect(reusable.data.space.content.reusableContents).toEqual([
      { id: demo.content.reusableContentId, title: "Support notice", markdown: expect.stringContaining("Need help?") },
    ]);
  });
});

describe("the demo's published site", () => {
  it("is public and shows the page of every block, each rendered (no GitBook tag left as text)", async () => {
    const response = await fetch(`${server.url}/sites/${demo.siteId}/blocks`);
    expect(response.status).toBe(200);
    const html = await response.text();
    for (const part of [
      'class="hint hint-info"',
      'class="tabset"',
      'class="code numbered"',
      '<details class="expandable"',
      'class="cards"',
      'class="embed"',
      'class="file"',
      'class="content-ref"',
      'class="katex-display"',
      'type="checkbox" disabled checked',
    ])
      expect(html, part).toContain(part);
    for (const tag of ["{% endhint %}", "{% endtabs %}", "{% endcode %}", "{% embed", "{% file", "{% content-ref", "$$", "[!NOTE]"])
      expect(html).not.toContain(tag);
  });
});

describe("the README's first write", () => {
  it("its createPage request, sent as written (with the demo space's id), creates the page", async () => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
    const body = readme.match(/-d '(\{"query":"mutation[^']*)'/)![1];
    const request = JSON.parse(body.replace("spc_…", demo.spaceId));
    const response = await server.graphql(demo.token, request.query, request.variables);
    expect(response.errors).toBeUndefined();
    expect(response.data.createPage.page.path).toBe("release-notes");
    const { data } = await server.client(demo.token).spaces.getPageByPath(demo.spaceId, "release-notes", { format: "markdown" });
    expect((data as { markdown: string }).markdown).toBe("# Release notes\n\n| Version | Date |\n| --- | --- |\n| 1.0 | today |");
  });
});
