// A batch of content changes to a change request (updateChangeRequestContent): pages inserted,
// updated, moved, deleted and reverted and files uploaded in one revision, through the official
// client, both answer shapes (compat) validated against the published schema; links of the batch
// resolved to stored path links; a refused change refuses the batch and changes nothing; another
// organization's change request is unknown.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectGraphQLError, expectRestError, graphqlData, publishedRest } from "./support/expect.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let A: { organizationId: string; token: string; userId: string };
let B: { organizationId: string; token: string; userId: string };
let space: string;
let guide: string;
let install: string;
let old: string;
const gql = <T = any>(query: string, variables?: Record<string, unknown>) => graphqlData<T>(server, A.token, query, variables);

async function createPage(title: string, markdown: string, parent?: string): Promise<string> {
  const { createPage } = await gql(`mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, {
    input: { space, title, markdown, ...(parent ? { parent } : {}) },
  });
  return createPage.page.id;
}

async function newChangeRequest(): Promise<string> {
  const { data } = await server.client(A.token).spaces.createChangeRequest(space, { subject: "Batch" });
  return data.id;
}

const contentPath = (cr: string, query = "") => `/v1/spaces/${space}/change-requests/${cr}/content${query}`;

/** The change request's pages as [title, path] depth first, and the markdown of each by title. */
async function pagesOf(cr: string) {
  const { body } = await server.rest(A.token, "GET", `/v1/spaces/${space}/change-requests/${cr}/content`);
  const out: [string, string][] = [];
  const markdown = new Map<string, string>();
  const walk = (pages: any[]) => {
    for (const page of pages) {
      out.push([page.title, page.path]);
      if (page.markdown !== undefined) markdown.set(page.title, page.markdown);
      walk(page.pages ?? []);
    }
  };
  walk(body.pages);
  return { tree: out, markdown, revision: body.id as string, files: body.files as any[] };
}

beforeAll(async () => {
  server = await startTestServer();
  A = await server.bootstrap("Batches");
  B = await server.bootstrap("Elsewhere");
  space = (await server.client(A.token).orgs.createSpace(A.organizationId, { title: "Docs" })).data.id;
  guide = await createPage("Guide", "The guide.");
  install = await createPage("Install", "Install it.", guide);
  old = await createPage("Old", "Gone soon.");
});

afterAll(async () => {
  await server?.close();
});

describe("a batch of changes", () => {
  it("inserts, updates, moves and deletes pages and uploads files in one revision; the answer is the change request (compat)", async () => {
    const cr = await newChangeRequest();
    const before = (await server.rest(A.token, "GET", `/v1/spaces/${space}/change-requests/${cr}`)).body;
    const changes = [
      {
        operation: "insert_page",
        ref: "start",
        document: {
          markdown:
            "---\ndescription: First steps\n---\n# Getting started\n\nRead [install](/pages/guide/install), [the FAQ](./faq.md), [by id](/pages/" +
            install +
            "#setup) and ![logo](./logo.png); [missing](/pages/nowhere) stays.\n",
        },
      },
      { operation: "insert_page", ref: "faq", title: "FAQ", slug: "faq", into: guide, at: 0, document: { markdown: "Questions." } },
      {
        operation: "insert_files",
        files: [{ ref: "logo.png", name: "logo.png", contentType: "image/png", base64: Buffer.from("png!").toString("base64") }],
      },
      { operation: "update_page", page: install, title: "Installation", document: { markdown: "Install it **now**." } },
      { operation: "update_page", page: guide, into: null, at: 0 },
      { operation: "delete_page", page: old },
    ];
    const { data, status } = await server.client(A.token).spaces.updateChangeRequestContent(space, cr, { changes } as never);
    expect(status).toBe(200);
    expect(data).toMatchObject({ object: "change-request", id: cr });
    expect((data as any).updatedAt >= before.updatedAt).toBe(true);

    const { tree, markdown, files } = await pagesOf(cr);
    expect(tree).toEqual([
      ["Guide", "guide"],
      ["FAQ", "guide/faq"],
      ["Installation", "guide/install"],
      ["Getting started", "getting-started"],
    ]);
    const logo = files.find((file) => file.name === "logo.png");
    expect(logo).toMatchObject({ contentType: "image/png", size: 4 });
    expect(markdown.get("Getting started")).toBe(
      `Read [install](/guide/install), [the FAQ](/guide/faq), [by id](/guide/install#setup) and ![logo](/files/${logo.id}); [missing](/pages/nowhere) stays.\n`,
    );
    expect(markdown.get("Installation")).toBe("Install it **now**.");
    const start = (await server.rest(A.token, "GET", `/v1/spaces/${space}/change-requests/${cr}/content/path/getting-started`)).body;
    expect(start.description).toBe("First steps");
    // The space itself is untouched.
    expect((await server.rest(A.token, "GET", `/v1/spaces/${space}/content/page/${old}`)).status).toBe(200);
  });

  it("answers the change request and the pages and files it touched with compat=false", async () => {
    const cr = await newChangeRequest();
    const { body } = await publishedRest(server, A.token, "POST", contentPath(cr, "?compat=false"), {
      changes: [
        { operation: "insert_page", ref: "new", title: "New", document: { markdown: "Hi" } },
        { operation: "update_page", page: guide, description: "All of it" },
        { operation: "delete_page", page: old },
        { operation: "insert_files", files: [{ name: "a.txt", contentType: "text/plain", base64: "YQ==" }] },
      ],
    });
    expect(body.changeRequest).toMatchObject({ object: "change-request", id: cr });
    const created = body.changes[0];
    expect(body.changes).toEqual([
      {
        object: "created_page",
        ref: "new",
        page: {
          object: "page",
          id: created.page.id,
          urls: { location: `${server.url}/v1/spaces/${space}/change-requests/${cr}/content/page/${created.page.id}` },
        },
      },
      {
        object: "updated_page",
        page: {
          object: "page",
          id: guide,
          urls: { location: `${server.url}/v1/spaces/${space}/change-requests/${cr}/content/page/${guide}` },
        },
      },
      { object: "deleted_page", page: old },
    ]);
    expect(body.insertedFiles).toEqual([expect.objectContaining({ name: "a.txt", contentType: "text/plain", size: 1 })]);
    const location = await server.rest(A.token, "GET", created.page.urls.location.slice(server.url.length));
    expect(location.body.title).toBe("New");
    await publishedRest(server, A.token, "POST", contentPath(cr), { changes: [{ operation: "update_page", page: guide, hidden: true }] });
  });

  it("reverts a page to the change request's base, or restores a deleted one", async () => {
    const cr = await newChangeRequest();
    const client = server.client(A.token).spaces;
    await client.updateChangeRequestContent(space, cr, {
      changes: [
        { operation: "update_page", page: install, title: "Changed", document: { markdown: "Changed." } },
        { operation: "delete_page", page: old },
      ],
    } as never);
    await client.updateChangeRequestContent(space, cr, {
      changes: [
        { operation: "revert_page", page: install },
        { operation: "revert_page", page: old },
      ],
    } as never);
    const { tree, markdown } = await pagesOf(cr);
    expect(tree).toEqual([
      ["Guide", "guide"],
      ["Install", "guide/install"],
      ["Old", "old"],
    ]);
    expect(markdown.get("Install")).toBe("Install it.");
    expect(markdown.get("Old")).toBe("Gone soon.");
  });
});

describe("bad input", () => {
  it("refuses a batch with one bad change as a whole, naming it, on both surfaces: nothing changes", async () => {
    const cr = await newChangeRequest();
    const before = await pagesOf(cr);
    const cases: [unknown, number, string][] = [
      [[], 400, "changes"],
      [Array.from({ length: 51 }, () => ({ operation: "delete_page", page: old })), 400, "changes"],
      [[{ operation: "rename_page" }], 400, "changes[0].operation"],
      [
        [
          { operation: "insert_page", title: "A", document: { markdown: "a" } },
          { operation: "update_page", page: "pg_unknown", title: "x" },
        ],
        404,
        "changes[1]",
      ],
      [
        [{ operation: "insert_page", document: { document: { object: "document", data: {}, nodes: [] } } }],
        400,
        "changes[0].document.document",
      ],
      [[{ operation: "insert_page", title: "Guide", slug: "guide", document: { markdown: "" } }], 400, "changes[0].slug"],
      [[{ operation: "revert_page", page: install, block: ["b1"] }], 400, "changes[0].block"],
      [[{ operation: "insert_page", title: "A", condition: "visitor.claims.x", document: { markdown: "a" } }], 400, "changes[0].condition"],
      [[{ operation: "update_page", page: guide, into: guide }], 400, "changes[0]"],
      [[{ operation: "insert_files", files: [{ name: "a.png", base64: "YQ==" }] }], 400, "changes[0].files[0].contentType"],
      [[{ operation: "insert_files", files: [{ name: "a.png", url: "ftp://example.com/a.png" }] }], 400, "changes[0].files[0].url"],
    ];
    for (const [changes, status, field] of cases) {
      const response = await server.rest(A.token, "POST", contentPath(cr), { changes });
      expect(response.status, JSON.stringify(changes).slice(0, 200)).toBe(status);
      expect(response.body.error.message, JSON.stringify(changes).slice(0, 200)).toContain(field);
    }
    await expectRestError(server.client(A.token).spaces.updateChangeRequestContent(space, cr, {} as never), 400, "changes");
    expectGraphQLError(
      await server.graphql(
        A.token,
        `mutation($input: UpdateChangeRequestContentInput!) { updateChangeRequestContent(input: $input) { changeRequest { id } } }`,
        {
          input: {
            space,
            changeRequest: cr,
            changes: [{ operation: "insert_page", document: { markdown: "x" } }, { operation: "delete_page" }],
          },
        },
      ),
      "BAD_REQUEST",
      "changes[1].page",
    );
    expect(await pagesOf(cr)).toEqual(before);
  });

  it("answers another organization's change request as unknown, and a reader is refused", async () => {
    const cr = await newChangeRequest();
    await expectRestError(
      server.client(B.token).spaces.updateChangeRequestContent(space, cr, { changes: [{ operation: "delete_page", page: old }] } as never),
      404,
    );
    const theirSpace = (await server.client(B.token).orgs.createSpace(B.organizationId, { title: "Theirs" })).data.id;
    const theirs = (await server.client(B.token).spaces.createChangeRequest(theirSpace, { subject: "x" })).data.id;
    await expectRestError(
      server
        .client(A.token)
        .spaces.updateChangeRequestContent(theirSpace, theirs, { changes: [{ operation: "delete_page", page: old }] } as never),
      404,
    );
    const reader = await server.addMember(A.organizationId, "read");
    await expectRestError(
      server
        .client(reader.token)
        .spaces.updateChangeRequestContent(space, cr, { changes: [{ operation: "delete_page", page: old }] } as never),
      403,
    );
  });
});
