// Reads of any revision of a space by id (issue 30): the revision, its pages, files, one page by id
// or path, a page's document, its reusable contents and their documents, and the reusable contents
// of a space's or a change request's head. Through the official client (answers checked against the
// published schemas) and GraphQL (`Space.revisionById` with `fileConnection`, `reusableContent`,
// `pageDocument`); an older revision answers what it held, not the head; another space's revision
// and another organization's caller get 404; bad ids and bad query parameters are refused naming
// the field on both surfaces; a revision's reads take as many statements for 50 pages as for 5.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../src/core/ids.ts";
import { expectGraphQLError, expectRawRestError, expectRestError, graphqlData, publishedRest } from "./support/expect.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let A: { organizationId: string; token: string; userId: string };
let B: { organizationId: string; token: string; userId: string };
let reader: { token: string };

const sha = (text: string) => createHash("sha256").update(Buffer.from(text, "utf8")).digest("hex");
const gql = <T = any>(query: string, variables?: Record<string, unknown>, token = A.token) =>
  graphqlData<T>(server, token, query, variables);

async function newSpace(title = "Revisions"): Promise<{ id: string; initial: string }> {
  const data = await gql(`mutation($input: CreateSpaceInput!) { createSpace(input: $input) { space { id revision } } }`, {
    input: { organization: A.organizationId, title },
  });
  return { id: data.createSpace.space.id, initial: data.createSpace.space.revision };
}

const GUIDE = "# Guide\n\nHello.";
const INSTALL = "# Install\n\nRun it.";
const SNIPPET = "Shared words.";
const CREATED = "2026-01-02T03:04:05.000Z";

/**
 * A revision written as rows (hand-made, so what is expected is not read from what the server
 * reads): Guide (with its child Install), a group Reference with API, three files, one reusable
 * content; made the head of the space, then a later edit through GraphQL moves the head past it.
 */
async function seededRevision(space: { id: string; initial: string }, extraPages = 0) {
  const prisma = server.database.prisma;
  const blobs = [GUIDE, INSTALL, SNIPPET, "a", "bb", "ccc"].map((text) => Buffer.from(text, "utf8"));
  await prisma.blob.createMany({
    data: blobs.map((data) => ({ hash: createHash("sha256").update(data).digest("hex"), data, size: data.length })),
    skipDuplicates: true,
  });
  const ids = {
    guide: newId("Page"),
    install: newId("Page"),
    reference: newId("Page"),
    api: newId("Page"),
    files: [newId("File"), newId("File"), newId("File")],
    snippet: newId("ReusableContent"),
    revision: newId("Revision"),
  };
  const page = (id: string, title: string, slug: string, body: string | null, pages: unknown[] = [], kind = "document") => ({
    id,
    kind,
    title,
    slug,
    hidden: false,
    noIndex: false,
    noRobotsIndex: false,
    variables: {},
    ...(body === null ? {} : { body: sha(body) }),
    createdAt: CREATED,
    updatedAt: CREATED,
    pages,
  });
  const extra = Array.from({ length: extraPages }, (_, i) => page(newId("Page"), `Extra ${i}`, `extra-${i}`, GUIDE));
  await prisma.revision.create({
    data: {
      id: ids.revision,
      spaceId: space.id,
      parentIds: [space.initial],
      pages: [
        page(ids.guide, "Guide", "guide", GUIDE, [page(ids.install, "Install", "install", INSTALL)]),
        page(ids.reference, "Reference", "reference", null, [page(ids.api, "API", "api", GUIDE)], "group"),
        ...extra,
      ] as never,
      files: ["a.txt", "b.txt", "c.txt"].map((name, i) => ({
        id: ids.files[i],
        name,
        contentType: "text/plain",
        size: i + 1,
        blob: sha("abc"[i].repeat(i + 1)),
      })) as never,
      reusableContents: [{ id: ids.snippet, title: "Snippet", body: sha(SNIPPET), createdAt: CREATED, updatedAt: CREATED }] as never,
    },
  });
  await prisma.space.update({ where: { id: space.id }, data: { revisionId: ids.revision } });
  // A later edit: the head moves past the seeded revision, which still answers what it held.
  await gql(`mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, {
    input: { space: space.id, title: "Later", markdown: "Later." },
  });
  return ids;
}

let space: { id: string; initial: string };
let ids: Awaited<ReturnType<typeof seededRevision>>;

beforeAll(async () => {
  server = await startTestServer();
  A = await server.bootstrap("Revisions A");
  B = await server.bootstrap("Revisions B");
  reader = await server.addMember(A.organizationId, "read");
  space = await newSpace();
  ids = await seededRevision(space);
});

afterAll(async () => {
  await server?.close();
});

const INSTALL_DOCUMENT = {
  object: "document",
  data: {},
  nodes: [
    { object: "block", type: "heading-1", data: {}, nodes: [{ object: "text", leaves: [{ object: "leaf", text: "Install", marks: [] }] }] },
    { object: "block", type: "paragraph", data: {}, nodes: [{ object: "text", leaves: [{ object: "leaf", text: "Run it.", marks: [] }] }] },
  ],
};

describe("the published revision reads", () => {
  it("getRevisionById answers the revision as it was, not the head", async () => {
    const { data } = await server.client(A.token).spaces.getRevisionById(space.id, ids.revision);
    expect(data).toMatchObject({
      object: "revision",
      id: ids.revision,
      parents: [space.initial],
      tags: [],
      variables: {},
      reusableContents: [{ id: ids.snippet, title: "Snippet", document: sha(SNIPPET) }],
    });
    const titles = (pages: any[]): unknown[] => pages.map((p) => (p.pages?.length ? [p.title, titles(p.pages)] : p.title));
    expect(titles(data.pages)).toEqual([
      ["Guide", ["Install"]],
      ["Reference", ["API"]],
    ]);
    expect(data.files.map((f: any) => [f.id, f.name, f.size])).toEqual([
      [ids.files[0], "a.txt", 1],
      [ids.files[1], "b.txt", 2],
      [ids.files[2], "c.txt", 3],
    ]);
    expect((data.pages[0] as any).markdown).toBe("# Guide\n\nHello.");
  });

  it("listPagesInRevisionById nests the revision's pages with their paths", async () => {
    const { data } = await server.client(reader.token).spaces.listPagesInRevisionById(space.id, ids.revision);
    const shape = (pages: any[]): unknown[] => pages.map((p) => ({ id: p.id, type: p.type, path: p.path, pages: shape(p.pages ?? []) }));
    expect(shape(data.pages)).toEqual([
      { id: ids.guide, type: "document", path: "guide", pages: [{ id: ids.install, type: "document", path: "guide/install", pages: [] }] },
      { id: ids.reference, type: "group", path: "", pages: [{ id: ids.api, type: "document", path: "api", pages: [] }] },
    ]);
  });

  it("listFilesInRevisionById pages the files; getFileInRevisionById reads one", async () => {
    const api = server.client(A.token);
    const first = await api.spaces.listFilesInRevisionById(space.id, ids.revision, { limit: 2 });
    expect(first.data.items.map((f) => f.name)).toEqual(["a.txt", "b.txt"]);
    expect(first.data.count).toBe(3);
    const rest = await api.spaces.listFilesInRevisionById(space.id, ids.revision, { limit: 2, page: first.data.next!.page });
    expect(rest.data.items.map((f) => f.name)).toEqual(["c.txt"]);
    expect(rest.data.next).toBeUndefined();
    const file = await api.spaces.getFileInRevisionById(space.id, ids.revision, ids.files[1]);
    expect(file.data).toMatchObject({ id: ids.files[1], name: "b.txt", contentType: "text/plain", size: 2 });
  });

  it("getPageInRevisionById and getPageInRevisionByPath answer the page in either format", async () => {
    const api = server.client(A.token);
    const byId = await api.spaces.getPageInRevisionById(space.id, ids.revision, ids.install);
    expect(byId.data).toMatchObject({ id: ids.install, title: "Install", path: "guide/install", document: INSTALL_DOCUMENT });
    const markdown = await api.spaces.getPageInRevisionById(space.id, ids.revision, ids.guide, { format: "markdown" });
    expect(markdown.data).toMatchObject({ id: ids.guide, markdown: "# Guide\n\nHello.", pages: [{ id: ids.install }] });
    const byPath = await api.spaces.getPageInRevisionByPath(space.id, ids.revision, "guide/install", { format: "markdown" });
    expect(byPath.data).toMatchObject({ id: ids.install, markdown: "# Install\n\nRun it." });
    // The later page is in the head only.
    await expectRestError(api.spaces.getPageInRevisionByPath(space.id, ids.revision, "later"), 404, "later");
  });

  it("getPageDocumentInRevisionById answers the document; a group has none (404)", async () => {
    const api = server.client(A.token);
    const { data } = await api.spaces.getPageDocumentInRevisionById(space.id, ids.revision, ids.install);
    expect(data).toEqual(INSTALL_DOCUMENT);
    await expectRestError(api.spaces.getPageDocumentInRevisionById(space.id, ids.revision, ids.reference), 404, "group");
  });

  it("reusable contents: in a revision, its document, on the space's and a change request's head", async () => {
    const api = server.client(A.token);
    const expected = { id: ids.snippet, title: "Snippet", document: sha(SNIPPET) };
    expect((await api.spaces.getReusableContentInRevisionById(space.id, ids.revision, ids.snippet)).data).toEqual(expected);
    expect((await api.spaces.getReusableContentById(space.id, ids.snippet)).data).toEqual(expected);
    const document = await api.spaces.getReusableContentDocumentInRevisionById(space.id, ids.revision, ids.snippet);
    expect(document.data).toEqual({
      object: "document",
      data: {},
      nodes: [
        {
          object: "block",
          type: "paragraph",
          data: {},
          nodes: [{ object: "text", leaves: [{ object: "leaf", text: "Shared words.", marks: [] }] }],
        },
      ],
    });
    const changeRequest = await api.spaces.createChangeRequest(space.id, { subject: "Snippets" });
    const inChangeRequest = await api.spaces.getReusableContentInChangeRequestById(space.id, changeRequest.data.id, ids.snippet);
    expect(inChangeRequest.data).toEqual(expected);
    await expectRestError(api.spaces.getReusableContentById(space.id, "rc_unknown"), 404, "rc_unknown");
  });

  it("GraphQL: revisionById with fileConnection, reusableContent and pageDocument", async () => {
    const data = await gql(
      `query($space: ID!, $revision: ID!, $page: ID!, $rc: ID!) {
        space(id: $space) { revisionById(id: $revision) {
          id
          fileConnection(first: 1) { totalCount pageInfo { hasNextPage } nodes { name } }
          reusableContent(id: $rc) { title markdown }
          pageDocument(id: $page)
        } }
      }`,
      { space: space.id, revision: ids.revision, page: ids.install, rc: ids.snippet },
    );
    expect(data.space.revisionById).toEqual({
      id: ids.revision,
      fileConnection: { totalCount: 3, pageInfo: { hasNextPage: true }, nodes: [{ name: "a.txt" }] },
      reusableContent: { title: "Snippet", markdown: "Shared words." },
      pageDocument: INSTALL_DOCUMENT,
    });
  });
});

describe("who may read a revision, and bad input", () => {
  it("another space's revision, another organization's caller and an unknown id answer 404", async () => {
    const other = await newSpace("Other");
    await expectRestError(server.client(A.token).spaces.getRevisionById(other.id, ids.revision), 404, ids.revision);
    await expectRestError(server.client(B.token).spaces.getRevisionById(space.id, ids.revision), 404);
    await expectRestError(server.client(B.token).spaces.listPagesInRevisionById(space.id, ids.revision), 404);
    await expectRestError(server.client(A.token).spaces.getRevisionById(space.id, "rev_nope"), 404, "rev_nope");
    await expectRawRestError(
      server,
      A.token,
      "GET",
      `/v1/spaces/${space.id}/revisions/${encodeURIComponent("x'\"<>")}/pages`,
      undefined,
      404,
    );
    expectGraphQLError(
      await server.graphql(A.token, `query($s: ID!, $r: ID!) { space(id: $s) { revisionById(id: $r) { id } } }`, {
        s: other.id,
        r: ids.revision,
      }),
      "NOT_FOUND",
      ids.revision,
    );
  });

  it("bad query parameters are refused with 400 naming the parameter, on both surfaces", async () => {
    const base = `/v1/spaces/${space.id}/revisions/${ids.revision}`;
    await expectRawRestError(server, A.token, "GET", `${base}/files?limit=many`, undefined, 400, "limit");
    await expectRawRestError(server, A.token, "GET", `${base}/files?limit=5000`, undefined, 400, "limit");
    await expectRawRestError(server, A.token, "GET", `${base}/files?page=forged`, undefined, 400);
    await expectRawRestError(server, A.token, "GET", `${base}/page/${ids.guide}?format=pdf`, undefined, 400, "format");
    await expectRawRestError(server, A.token, "GET", `${base}/page/${ids.guide}/document?evaluated=maybe`, undefined, 400, "evaluated");
    await expectRawRestError(server, A.token, "GET", `${base}/page/${ids.guide}/document?dereferenced=all`, undefined, 400, "dereferenced");
    await expectRawRestError(server, A.token, "GET", `${base}?metadata=perhaps`, undefined, 400, "metadata");
    await expectRawRestError(
      server,
      A.token,
      "GET",
      `${base}/page/${ids.guide}?format.markdown.refs=odd`,
      undefined,
      400,
      "format.markdown.refs",
    );
    expectGraphQLError(
      await server.graphql(
        A.token,
        `query($s: ID!, $r: ID!) { space(id: $s) { revisionById(id: $r) { fileConnection(first: -1) { totalCount } } } }`,
        {
          s: space.id,
          r: ids.revision,
        },
      ),
      "BAD_REQUEST",
      "first",
    );
    expectGraphQLError(
      await server.graphql(
        A.token,
        `query($s: ID!, $r: ID!) { space(id: $s) { revisionById(id: $r) { reusableContent(id: "rc_x") { id } } } }`,
        {
          s: space.id,
          r: ids.revision,
        },
      ),
      "NOT_FOUND",
      "rc_x",
    );
  });

  it("reads a revision of 50 pages with their bodies in as many statements as one of 5", async () => {
    const small = await newSpace("Small");
    const large = await newSpace("Large");
    const smallIds = await seededRevision(small, 1);
    const largeIds = await seededRevision(large, 46);
    const measure = async (target: { id: string }, revision: string) => {
      const before = server.database.statementCount;
      const { data } = await server.client(A.token).spaces.getRevisionById(target.id, revision);
      const after = server.database.statementCount;
      return { statements: after - before, pages: data.pages.length };
    };
    // Revisions are cached by id across requests: warm both so each reads the same way.
    await measure(small, smallIds.revision);
    await measure(large, largeIds.revision);
    const five = await measure(small, smallIds.revision);
    const fifty = await measure(large, largeIds.revision);
    console.log(
      `N+1 guard (revision reads, ${process.env.DATABASE_URL ? "postgresql" : "pglite"}): 5 pages → ${five.statements} statements, 50 → ${fifty.statements}`,
    );
    expect([five.pages, fifty.pages]).toEqual([3, 48]);
    expect(fifty.statements).toBe(five.statements);
  });
});

describe("getDocumentById: a document of the space by its id", () => {
  const doc = (text: string) => ({
    object: "document",
    data: {},
    nodes: [{ object: "block", type: "paragraph", data: {}, nodes: [{ object: "text", leaves: [{ object: "leaf", text, marks: [] }] }] }],
  });

  it("answers a body of the head, of an older revision, of a change request and of a reusable content, in the published shape", async () => {
    const own = await newSpace("Documents");
    const created = await gql(`mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, {
      input: { space: own.id, title: "Notes", markdown: "First words." },
    });
    const page = created.createPage.page.id;
    // The first body is now only in an older revision.
    await gql(`mutation($input: UpdatePageInput!) { updatePage(input: $input) { revision { id } } }`, {
      input: { space: own.id, page, markdown: "Second words." },
    });
    const { data: cr } = await server.client(A.token).spaces.createChangeRequest(own.id, { subject: "Draft" });
    await gql(`mutation($input: UpdatePageInput!) { updatePage(input: $input) { revision { id } } }`, {
      input: { space: own.id, changeRequest: cr.id, page, markdown: "Draft words." },
    });
    const api = server.client(reader.token).spaces;
    for (const [text, expected] of [
      ["Second words.", "Second words."],
      ["First words.", "First words."],
      ["Draft words.", "Draft words."],
    ]) {
      const { data } = await api.getDocumentById(own.id, sha(text));
      expect(data, text).toEqual(doc(expected));
    }
    const raw = await publishedRest(server, reader.token, "GET", `/v1/spaces/${own.id}/documents/${sha("First words.")}?schema=current`);
    expect(raw.body).toEqual(doc("First words."));
    const snippet = await api.getDocumentById(space.id, sha(SNIPPET));
    expect(snippet.data).toEqual(doc(SNIPPET));
    const gqlData = await gql(`query($s: ID!, $id: ID!) { space(id: $s) { document(id: $id) } }`, { s: own.id, id: sha("Draft words.") });
    expect(gqlData.space.document).toEqual(doc("Draft words."));
  });

  it("answers 404 for a body only another space holds, another organization's caller, and ids that are not content hashes; 400 for a bad schema", async () => {
    const own = await newSpace("Documents 2");
    // INSTALL is a body of the seeded space, not of this one.
    await expectRestError(server.client(A.token).spaces.getDocumentById(own.id, sha(INSTALL)), 404, sha(INSTALL));
    await expectRestError(server.client(B.token).spaces.getDocumentById(space.id, sha(INSTALL)), 404);
    await expectRestError(server.client(A.token).spaces.getDocumentById(space.id, sha("nowhere")), 404);
    await expectRawRestError(server, A.token, "GET", `/v1/spaces/${space.id}/documents/${encodeURIComponent("x'\"<>")}`, undefined, 404);
    await expectRawRestError(
      server,
      A.token,
      "GET",
      `/v1/spaces/${space.id}/documents/${sha(INSTALL)}?schema=old`,
      undefined,
      400,
      "schema",
    );
    expectGraphQLError(
      await server.graphql(A.token, `query($s: ID!, $id: ID!) { space(id: $s) { document(id: $id) } }`, { s: own.id, id: sha(INSTALL) }),
      "NOT_FOUND",
    );
  });
});

describe("getRevisionSemanticChanges: what a revision changed against its parent", () => {
  const CHANGES = `query($s: ID!, $r: ID!, $limit: Int) { space(id: $s) { revisionById(id: $r) { changes(limit: $limit) { more changes { type } } } } }`;

  it("answers a page created, a body edited, a merge with the change request it merged, and the first revision's pages", async () => {
    const own = await newSpace("Changes");
    const created = await gql(`mutation($input: CreatePageInput!) { createPage(input: $input) { revision { id } page { id } } }`, {
      input: { space: own.id, title: "Notes", markdown: "One." },
    });
    const page = created.createPage.page.id;
    const edited = await gql(`mutation($input: UpdatePageInput!) { updatePage(input: $input) { revision { id } } }`, {
      input: { space: own.id, page, markdown: "Two." },
    });
    const api = server.client(reader.token).spaces;
    const first = await api.getRevisionSemanticChanges(own.id, created.createPage.revision.id);
    expect(first.data).toEqual({
      changes: [{ type: "page_created", page: { id: page, type: "document", title: "Notes", path: "notes" } }],
    });
    const second = await publishedRest(
      server,
      reader.token,
      "GET",
      `/v1/spaces/${own.id}/revisions/${edited.updatePage.revision.id}/changes`,
    );
    expect(second.body).toEqual({
      changes: [
        {
          type: "page_edited",
          page: { id: page, type: "document", title: "Notes", path: "notes" },
          attributes: { document: { before: sha("One."), after: sha("Two.") } },
        },
      ],
    });
    const initial = await api.getRevisionSemanticChanges(own.id, own.initial);
    expect(initial.data).toEqual({ changes: [] });

    const { data: cr } = await server.client(A.token).spaces.createChangeRequest(own.id, { subject: "More" });
    await gql(`mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, {
      input: { space: own.id, changeRequest: cr.id, title: "Extra", markdown: "Extra." },
    });
    await server.client(A.token).spaces.updateChangeRequestById(own.id, cr.id, { status: "open" });
    const merged = await server.client(A.token).spaces.mergeChangeRequest(own.id, cr.id);
    const merge = await publishedRest(server, reader.token, "GET", `/v1/spaces/${own.id}/revisions/${merged.data.revision}/changes`);
    expect(merge.body.mergedFrom).toMatchObject({ object: "change-request", id: cr.id, subject: "More", status: "merged" });
    expect(merge.body.changes).toEqual([
      { type: "page_created", page: { id: expect.any(String), type: "document", title: "Extra", path: "extra" } },
    ]);
  });

  it("limits the list and says how many more; refuses a bad limit naming it; another space's revision is 404", async () => {
    const limited = await publishedRest(server, A.token, "GET", `/v1/spaces/${space.id}/revisions/${ids.revision}/changes?limit=1`);
    // The seeded revision, against the empty first revision: Guide, Install, Reference, API, three files, a reusable content.
    expect(limited.body.changes).toHaveLength(1);
    expect(limited.body.more).toBe(7);
    const all = await gql(CHANGES, { s: space.id, r: ids.revision, limit: 100 });
    expect(all.space.revisionById.changes.changes.map((c: { type: string }) => c.type)).toEqual([
      "PAGE_CREATED",
      "PAGE_CREATED",
      "PAGE_CREATED",
      "PAGE_CREATED",
      "FILE_CREATED",
      "FILE_CREATED",
      "FILE_CREATED",
      "REUSABLE_CONTENT_CREATED",
    ]);
    const base = `/v1/spaces/${space.id}/revisions/${ids.revision}/changes`;
    await expectRawRestError(server, A.token, "GET", `${base}?limit=0`, undefined, 400, "limit");
    await expectRawRestError(server, A.token, "GET", `${base}?limit=5000`, undefined, 400, "limit");
    const other = await newSpace("Other changes");
    await expectRestError(server.client(A.token).spaces.getRevisionSemanticChanges(other.id, ids.revision), 404, ids.revision);
    await expectRestError(server.client(B.token).spaces.getRevisionSemanticChanges(space.id, ids.revision), 404);
    expectGraphQLError(await server.graphql(A.token, CHANGES, { s: space.id, r: ids.revision, limit: 0 }), "BAD_REQUEST", "limit");
  });
});
