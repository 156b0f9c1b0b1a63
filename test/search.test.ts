// Full-text search of a space and of an organization, on both surfaces: ranking, sections cut at
// headings with snippets, only readable spaces, the query limits, and an index that follows the
// head revision (edits, duplicates).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { editContent } from "../src/core/content/index.ts";
import { createCoreContext } from "../src/core/context.ts";
import { newId } from "../src/core/ids.ts";
import type { ContentEdit } from "../src/core/content/tree.ts";
import { expectGraphQLError, expectRestError, graphqlData } from "./support/expect.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let admin: { organizationId: string; userId: string; token: string };
let guides: string;
let internal: string;
const pageIds = { install: "", deploy: "", faq: "" };

async function createSpace(title: string): Promise<string> {
  const response = await server.rest(admin.token, "POST", `/v1/orgs/${admin.organizationId}/spaces`, { title });
  return response.body.id;
}

/** Applies edits as the admin, through the core (one revision). */
async function edit(spaceId: string, edits: ContentEdit[], markdown: string[]) {
  const ctx = createCoreContext(server.app.services, { userId: admin.userId, tokenId: "test" });
  return editContent(ctx, { target: { spaceId }, edits, blobs: { markdown, files: [] } });
}

function createPage(title: string, body: string, parent: string | null = null): { edit: ContentEdit; id: string } {
  const id = newId("Page");
  return { id, edit: { op: "createPage", id, kind: "document", fields: { title }, body, position: { parent } } };
}

const search = (token: string, spaceId: string, query: string) => server.client(token).spaces.searchSpaceContent(spaceId, { query });

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.bootstrap("Search organization");
  guides = await createSpace("Guides");
  internal = await createSpace("Internal notes");

  const install = createPage(
    "Installing the CLI",
    "Install the command line tool to publish from a terminal.\n\n## Requirements\n\nNode.js 20 or later.\n\n## Configure the token\n\nRun `docs login` and paste an installation token.\n\n```\n# not a heading: installation inside a code block\n```\n",
  );
  const deploy = createPage("Deploying", "Deploy with the pipeline. The CLI can install plugins too.", install.id);
  const faq = createPage("FAQ", "Questions about billing and invoices.");
  Object.assign(pageIds, { install: install.id, deploy: deploy.id, faq: faq.id });
  await edit(
    guides,
    [install.edit, deploy.edit, faq.edit],
    [
      "Install the command line tool to publish from a terminal.\n\n## Requirements\n\nNode.js 20 or later.\n\n## Configure the token\n\nRun `docs login` and paste an installation token.\n\n```\n# not a heading: installation inside a code block\n```\n",
      "Deploy with the pipeline. The CLI can install plugins too.",
      "Questions about billing and invoices.",
    ],
  );
  const secret = createPage("Salaries", "Installing the payroll: confidential figures.");
  await edit(internal, [secret.edit], ["Installing the payroll: confidential figures."]);
});

afterAll(async () => {
  await server?.close();
});

describe("space search", () => {
  it("ranks the page about the term first, with sections cut at headings and snippets", async () => {
    const { data } = await search(admin.token, guides, "install");
    expect(data.items.map((item) => item.id)).toEqual([pageIds.install, pageIds.deploy]);
    expect(data.count).toBe(2);
    const [first, second] = data.items;
    expect(first.title).toBe("Installing the CLI");
    expect(first.rank).toBe(1);
    expect(second.rank).toBe(2);
    expect(first.score).toBeGreaterThan(second.score);
    expect(second.ancestors).toEqual([{ title: "Installing the CLI" }]);
    expect(second.path).toBe("installing-the-cli/deploying");
    const anchors = first.sections!.map((section) => section.id);
    expect(anchors).toContain("");
    expect(anchors).toContain("configure-the-token");
    // The heading-looking line of the code block did not make a section.
    expect(anchors).not.toContain("not-a-heading-installation-inside-a-code-block");
    const configure = first.sections!.find((section) => section.id === "configure-the-token")!;
    expect(configure.title).toBe("Configure the token");
    expect(configure.path).toBe("installing-the-cli#configure-the-token");
    expect(configure.body).toContain("**installation**");
    expect(configure.urls.app).toMatch(/^http/);
  });

  it("finds nothing for a term the space does not have, and pages the results", async () => {
    expect((await search(admin.token, guides, "kubernetes")).data.items).toEqual([]);
    const page1 = await server.client(admin.token).spaces.searchSpaceContent(guides, { query: "install", limit: 1 });
    expect(page1.data.items).toHaveLength(1);
    const page2 = await server
      .client(admin.token)
      .spaces.searchSpaceContent(guides, { query: "install", limit: 1, page: page1.data.next!.page });
    expect(page2.data.items.map((item) => item.id)).toEqual([pageIds.deploy]);
    expect(page2.data.next).toBeUndefined();
  });

  it("answers the same on GraphQL", async () => {
    const data = await graphqlData(
      server,
      admin.token,
      `query($id: ID!) { space(id: $id) { search(query: "billing") { totalCount nodes { id title sections { id body } } } } }`,
      { id: guides },
    );
    expect(data.space.search.totalCount).toBe(1);
    expect(data.space.search.nodes[0]).toMatchObject({ id: pageIds.faq, title: "FAQ" });
  });

  it("needs a query of at most 512 characters, on both surfaces", async () => {
    await expectRestError(search(admin.token, guides, "x".repeat(513)), 400, "query");
    expect((await search(admin.token, guides, "x".repeat(512))).data.items).toEqual([]);
    const missing = await server.rest(admin.token, "GET", `/v1/spaces/${guides}/search`);
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toContain("query");
    await expectRestError(search(admin.token, guides, "   "), 400, "query");
    const response = await server.graphql(
      admin.token,
      `query($id: ID!, $q: String!) { space(id: $id) { search(query: $q) { totalCount } } }`,
      { id: guides, q: "y".repeat(513) },
    );
    expectGraphQLError(response, "BAD_REQUEST", "query");
  });

  it("follows the head revision: an edit that removes the term removes the page", async () => {
    await edit(guides, [{ op: "updatePage", id: pageIds.faq, fields: {}, body: "Questions about refunds." }], ["Questions about refunds."]);
    expect((await search(admin.token, guides, "billing")).data.items).toEqual([]);
    expect((await search(admin.token, guides, "refunds")).data.items.map((item) => item.id)).toEqual([pageIds.faq]);
  });

  it("a duplicated space is searchable at once", async () => {
    const copy = (await server.client(admin.token).spaces.duplicateSpace(guides)).data;
    expect((await search(admin.token, copy.id, "pipeline")).data.items.map((item) => item.id)).toEqual([pageIds.deploy]);
  });

  it("another organization cannot search the space (404)", async () => {
    const other = await server.bootstrap("Search outsiders");
    await expectRestError(search(other.token, guides, "install"), 404);
  });
});

describe("organization search", () => {
  it("groups matching pages by space, best space first", async () => {
    const { data } = await server.client(admin.token).orgs.searchOrganizationContent(admin.organizationId, { query: "installing" });
    const ids = data.items.map((item) => item.id);
    expect(ids).toContain(guides);
    expect(ids).toContain(internal);
    const internalResult = data.items.find((item) => item.id === internal)!;
    expect(internalResult.title).toBe("Internal notes");
    expect(internalResult.pages.map((page) => page.title)).toEqual(["Salaries"]);
  });

  it("misses the spaces the caller cannot read", async () => {
    const guest = await server.addMember(admin.organizationId, null);
    await server.database.prisma.permissionGrant.create({
      data: { id: newId("PermissionGrant"), organizationId: admin.organizationId, spaceId: guides, userId: guest.userId, role: "read" },
    });
    const { data } = await server.client(guest.token).orgs.searchOrganizationContent(admin.organizationId, { query: "installing" });
    expect(data.items.map((item) => item.id)).toContain(guides);
    expect(data.items.map((item) => item.id)).not.toContain(internal);
    await expectRestError(search(guest.token, internal, "payroll"), 404);
  });
});

describe("a broad search", () => {
  it("highlights the match in the snippets of its 100 best sections; the others show the start of their text", async () => {
    const space = await createSpace("Zebras");
    // 120 pages, each with one section mentioning zebras once, after a numbered opening; page
    // 1 mentions them three times (it ranks first).
    const pages = Array.from({ length: 120 }, (_, n) =>
      createPage(`Stripes ${n + 1}`, n === 0 ? "Zebra zebra zebra." : `Opening ${n + 1} of the page. Later on, one zebra.`),
    );
    await edit(
      space,
      pages.map((page) => page.edit),
      pages.map((_, n) => (n === 0 ? "Zebra zebra zebra." : `Opening ${n + 1} of the page. Later on, one zebra.`)),
    );
    const { data } = await server.client(admin.token).orgs.searchOrganizationContent(admin.organizationId, { query: "zebra" });
    const sections = data.items.find((item) => item.id === space)!.pages.flatMap((page) => page.sections ?? []);
    expect(sections).toHaveLength(120);
    expect(sections[0]!.body).toBe("**Zebra** **zebra** **zebra**.");
    expect(sections.slice(0, 100).every((section) => section.body.includes("**zebra**"))).toBe(true);
    const plain = sections.slice(100);
    expect(plain.every((section) => !section.body.includes("**"))).toBe(true);
    expect(plain.every((section) => /^Opening \d+ of the page\. Later on, one zebra\.$/.test(section.body))).toBe(true);
  });
});
