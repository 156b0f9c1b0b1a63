// Content editing through /graphql: createPage, updatePage, movePage, deletePage and the
// editContent batch. Every accepted mutation makes exactly one revision whose parent is the
// previous head; every refused one makes none; old revisions never change; concurrent editors
// are all kept, in one chain.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/server.ts";
import { graphqlData } from "./support/expect.ts";
import {
  expectOneRevision as expectOneRevisionOf,
  headOf as headOfSpace,
  revisionCount as revisionCountOf,
  type RevisionPayload,
} from "./support/revisions.ts";

let server: TestServer;
/** Organization A and its admin. */
let A: { organizationId: string; userId: string; token: string };
/** Organization B: a stranger to A. */
let B: { organizationId: string; userId: string; token: string };

beforeAll(async () => {
  server = await startTestServer();
  A = await server.bootstrap("Editing A");
  B = await server.bootstrap("Editing B");
});

afterAll(async () => {
  await server?.close();
});

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

const gql = <T = any>(token: string, query: string, variables?: Record<string, unknown>) => graphqlData<T>(server, token, query, variables);

/** The HTTP status and first GraphQL error of a request that must fail. */
async function gqlError(token: string, query: string, variables?: Record<string, unknown>) {
  const result = await server.graphql(token, query, variables);
  expect(result.errors?.length, `expected an error, got ${JSON.stringify(result.data)}`).toBeGreaterThan(0);
  const [error] = result.errors!;
  return { status: result.status, code: error.extensions?.code, message: error.message };
}

const sha256 = (text: string) => createHash("sha256").update(Buffer.from(text, "utf8")).digest("hex");

const PAGE_FIELDS = /* GraphQL */ `
  id title emoji icon description slug path parentId type hidden noIndex noRobotsIndex href documentId markdown
  layout { cover coverSize title description tableOfContents outline pagination }
  cover { ref { kind file } refDark { kind file } yPos }`;
const PAYLOAD = /* GraphQL */ `revision { id parents } page { ${PAGE_FIELDS} } space { id revision }`;

const CREATE = /* GraphQL */ `mutation($input: CreatePageInput!) { createPage(input: $input) { ${PAYLOAD} } }`;
const UPDATE = /* GraphQL */ `mutation($input: UpdatePageInput!) { updatePage(input: $input) { ${PAYLOAD} } }`;
const MOVE = /* GraphQL */ `mutation($input: MovePageInput!) { movePage(input: $input) { ${PAYLOAD} } }`;
const DELETE = /* GraphQL */ `mutation($input: DeletePageInput!) { deletePage(input: $input) { revision { id parents } deletedPageId space { id revision } } }`;
const BATCH = /* GraphQL */ `mutation($input: EditContentInput!) {
  editContent(input: $input) { revision { id parents } createdPages { id title path parentId } space { id revision } } }`;

/** A new space in `organizationId` (GraphQL). */
async function newSpace(token = A.token, organizationId = A.organizationId, title = "Docs"): Promise<string> {
  const data = await gql(token, /* GraphQL */ `mutation($input: CreateSpaceInput!) { createSpace(input: $input) { space { id } } }`, {
    input: { organization: organizationId, title },
  });
  return data.createSpace.space.id;
}

async function createPage(space: string, input: Record<string, unknown>, token = A.token) {
  return (await gql(token, CREATE, { input: { space, ...input } })).createPage;
}

const headOf = (space: string) => headOfSpace(server, space);
const revisionCount = (space: string) => revisionCountOf(server, space);

/** Everything a revision holds, read twice: the stored row with its bodies, and through GraphQL. */
async function snapshot(space: string, revisionId: string) {
  const row = await server.database.prisma.revision.findUniqueOrThrow({ where: { id: revisionId } });
  const hashes =
    JSON.stringify(row.pages)
      .match(/"body":"([0-9a-f]{64})"/g)
      ?.map((match) => match.slice(8, -1)) ?? [];
  const blobs = await server.database.prisma.blob.findMany({ where: { hash: { in: hashes } }, orderBy: { hash: "asc" } });
  const read = await gql(
    A.token,
    /* GraphQL */ `query($space: ID!, $id: ID!) {
    space(id: $space) { revisionById(id: $id) { id parents allPages { ${PAGE_FIELDS} } files { id name } } } }`,
    { space, id: revisionId },
  );
  return {
    row: { pages: row.pages, files: row.files, parentIds: row.parentIds, createdAt: row.createdAt },
    bodies: blobs.map((blob) => ({ hash: blob.hash, text: Buffer.from(blob.data).toString("utf8") })),
    graphql: read.space.revisionById,
  };
}

const expectOneRevision = <T extends RevisionPayload>(space: string, run: () => Promise<T>) => expectOneRevisionOf(server, space, run);

/** Asserts that `run` fails with `status` (and `code`), naming `mentions`, and changes nothing. */
async function expectRefused(
  space: string,
  status: number,
  mentions: string,
  query: string,
  input: Record<string, unknown>,
  token = A.token,
) {
  const head = await headOf(space);
  const count = await revisionCount(space);
  const before = await snapshot(space, head);
  const error = await gqlError(token, query, { input });
  expect(error.status, error.message).toBe(status);
  expect(error.message).toContain(mentions);
  expect(await headOf(space)).toBe(head);
  expect(await revisionCount(space)).toBe(count);
  expect(await snapshot(space, head)).toEqual(before);
  return error;
}

/** Multipart GraphQL request uploading one file (the GraphQL multipart request spec). */
async function uploadFile(space: string, name: string, bytes: Uint8Array<ArrayBuffer>, type: string) {
  const form = new FormData();
  form.set(
    "operations",
    JSON.stringify({
      query: /* GraphQL */ `mutation($input: UploadFilesInput!) { uploadFiles(input: $input) { revision { id } files { id } } }`,
      variables: { input: { space, files: [null] } },
    }),
  );
  form.set("map", JSON.stringify({ 0: ["variables.input.files.0"] }));
  form.set("0", new Blob([bytes], { type }), name);
  const response = await fetch(`${server.url}/graphql`, {
    method: "POST",
    headers: { authorization: `Bearer ${A.token}`, "graphql-require-preflight": "1" },
    body: form,
  });
  const body = (await response.json()) as any;
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data.uploadFiles.files[0].id as string;
}

// ---------------------------------------------------------------------------------------------

describe("createPage", () => {
  it("creates a document with its fields and markdown as one new revision; the body is stored by hash", async () => {
    const space = await newSpace();
    const payload = await expectOneRevision(space, () =>
      createPage(space, {
        title: "Getting started",
        emoji: "1f680",
        icon: "rocket",
        description: "First steps",
        hidden: true,
        noIndex: true,
        markdown: "# Hello\n\nWorld.",
      }),
    );
    expect(payload.page).toMatchObject({
      id: expect.stringMatching(/^pg_/),
      title: "Getting started",
      emoji: "1f680",
      icon: "rocket",
      description: "First steps",
      slug: "getting-started",
      path: "getting-started",
      parentId: null,
      type: "DOCUMENT",
      hidden: true,
      noIndex: true,
      noRobotsIndex: false,
      markdown: "# Hello\n\nWorld.",
      documentId: sha256("# Hello\n\nWorld."),
    });
    const blob = await server.database.prisma.blob.findUnique({ where: { hash: sha256("# Hello\n\nWorld.") } });
    expect(Buffer.from(blob!.data).toString("utf8")).toBe("# Hello\n\nWorld.");
    const read = await gql(A.token, `query($id: ID!) { space(id: $id) { revision content { id pages { id title } } } }`, { id: space });
    expect(read.space.content).toEqual({ id: payload.revision.id, pages: [{ id: payload.page.id, title: "Getting started" }] });
  });

  it("creates groups and links, under a parent, before or after a sibling; groups add no path segment", async () => {
    const space = await newSpace();
    const guides = (await createPage(space, { title: "Guides", kind: "GROUP" })).page;
    expect(guides).toMatchObject({ type: "GROUP", path: "", markdown: null, documentId: null });
    const deploy = (await createPage(space, { title: "Deploy", parent: guides.id })).page;
    expect(deploy).toMatchObject({ path: "deploy", parentId: guides.id, markdown: "" });
    const install = (await createPage(space, { title: "Install", parent: guides.id, before: deploy.id, slug: "setup" })).page;
    expect(install).toMatchObject({ path: "setup", slug: "setup" });
    const link = (
      await createPage(space, { title: "Website", kind: "LINK", href: "https://example.com", parent: guides.id, after: install.id })
    ).page;
    expect(link).toMatchObject({ type: "LINK", href: "https://example.com" });
    const tree = await gql(A.token, `query($id: ID!) { space(id: $id) { content { pages { id pages { id } } } } }`, { id: space });
    expect(tree.space.content.pages).toEqual([{ id: guides.id, pages: [{ id: install.id }, { id: link.id }, { id: deploy.id }] }]);
    // The same title again gets a numbered slug; so does a page in another group of the same scope.
    const again = (await createPage(space, { title: "Deploy" })).page;
    expect(again.path).toBe("deploy-2");
  });
});

describe("updatePage", () => {
  it("changes fields and markdown as one new revision; null removes optional fields and leaves the others", async () => {
    const space = await newSpace();
    const fileId = await uploadFile(space, "cover.png", new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]), "image/png");
    const page = (await createPage(space, { title: "Intro", emoji: "1f44b", markdown: "old" })).page;
    const updated = await expectOneRevision(space, () =>
      gql(A.token, UPDATE, {
        input: {
          space,
          page: page.id,
          title: "Introduction",
          slug: "introduction",
          description: "About",
          noRobotsIndex: true,
          layout: { outline: false, coverSize: "FULL" },
          cover: { file: fileId, yPos: 12.5 },
          markdown: "new **body**",
        },
      }).then((data) => data.updatePage),
    );
    expect(updated.page).toMatchObject({
      id: page.id,
      title: "Introduction",
      slug: "introduction",
      path: "introduction",
      emoji: "1f44b",
      description: "About",
      noRobotsIndex: true,
      markdown: "new **body**",
      layout: { outline: false, coverSize: "full", title: true },
      cover: { ref: { kind: "file", file: fileId }, refDark: null, yPos: 12.5 },
    });
    const cleared = (await gql(A.token, UPDATE, { input: { space, page: page.id, emoji: null, cover: null, title: null } })).updatePage
      .page;
    expect(cleared).toMatchObject({ title: "Introduction", emoji: null, cover: null, markdown: "new **body**" });
  });
});

describe("movePage and deletePage", () => {
  it("moves a page with its subpages (one revision each), and deletes a subtree", async () => {
    const space = await newSpace();
    const a = (await createPage(space, { title: "A" })).page;
    const b = (await createPage(space, { title: "B" })).page;
    const child = (await createPage(space, { title: "Child", parent: a.id })).page;
    const moved = await expectOneRevision(space, () =>
      gql(A.token, MOVE, { input: { space, page: a.id, parent: b.id } }).then((d) => d.movePage),
    );
    expect(moved.page).toMatchObject({ id: a.id, path: "b/a", parentId: b.id });
    const childNow = await gql(A.token, `query($s: ID!, $p: ID!) { space(id: $s) { page(id: $p) { path } } }`, { s: space, p: child.id });
    expect(childNow.space.page.path).toBe("b/a/child");
    // Back to the top level, before b.
    const top = (await gql(A.token, MOVE, { input: { space, page: a.id, parent: null, before: b.id } })).movePage.page;
    expect(top).toMatchObject({ path: "a", parentId: null });
    const deleted = await expectOneRevision(space, () => gql(A.token, DELETE, { input: { space, page: a.id } }).then((d) => d.deletePage));
    expect(deleted.deletedPageId).toBe(a.id);
    const pages = await gql(A.token, `query($id: ID!) { space(id: $id) { content { allPages { id } } } }`, { id: space });
    expect(pages.space.content.allPages).toEqual([{ id: b.id }]);
  });
});

describe("old revisions", () => {
  it("still read exactly the same after updates, moves and deletes", async () => {
    const space = await newSpace();
    const a = (await createPage(space, { title: "A", markdown: "alpha" })).page;
    const b = (await createPage(space, { title: "B", markdown: "beta", parent: a.id })).page;
    const old = await headOf(space);
    const before = await snapshot(space, old);
    expect(before.graphql.allPages.map((page: { markdown: string }) => page.markdown)).toEqual(["alpha", "beta"]);

    await gql(A.token, UPDATE, { input: { space, page: b.id, title: "Beta", markdown: "BETA", emoji: "1f600" } });
    await gql(A.token, MOVE, { input: { space, page: b.id, parent: null } });
    await gql(A.token, DELETE, { input: { space, page: a.id } });
    await gql(A.token, BATCH, { input: { space, edits: [{ updatePage: { page: b.id, markdown: "gamma" } }] } });

    expect(await snapshot(space, old)).toEqual(before);
    const head = await snapshot(space, await headOf(space));
    expect(head.graphql.allPages).toMatchObject([{ id: b.id, title: "Beta", markdown: "gamma", path: "b" }]);
  });
});

describe("editContent (batch)", () => {
  it("applies several edits in order as exactly one revision", async () => {
    const space = await newSpace();
    const a = (await createPage(space, { title: "A" })).page;
    const batch = await expectOneRevision(space, () =>
      gql(A.token, BATCH, {
        input: {
          space,
          message: "Three edits",
          edits: [
            { createPage: { title: "One", markdown: "1" } },
            { updatePage: { page: a.id, title: "A renamed" } },
            { createPage: { title: "Two", parent: a.id } },
          ],
        },
      }).then((d) => d.editContent),
    );
    expect(batch.createdPages).toMatchObject([
      { title: "One", path: "one", parentId: null },
      { title: "Two", path: "a/two", parentId: a.id },
    ]);
    const row = await server.database.prisma.revision.findUniqueOrThrow({ where: { id: batch.revision.id } });
    expect(row).toMatchObject({ message: "Three edits", type: "edits", createdById: A.userId });
    const titles = await gql(A.token, `query($id: ID!) { space(id: $id) { content { allPages { title } } } }`, { id: space });
    expect(titles.space.content.allPages.map((page: { title: string }) => page.title)).toEqual(["A renamed", "Two", "One"]);
  });

  it("refuses the whole batch, naming the edit, when one edit is refused", async () => {
    const space = await newSpace();
    const a = (await createPage(space, { title: "A" })).page;
    await expectRefused(space, 404, "edits[2] (deletePage)", BATCH, {
      space,
      edits: [{ createPage: { title: "One" } }, { updatePage: { page: a.id, title: "Changed" } }, { deletePage: { page: "pg_nope" } }],
    });
    await expectRefused(space, 400, "edits[1] (createPage): title", BATCH, {
      space,
      edits: [{ createPage: { title: "One" } }, { createPage: { title: "x".repeat(101) } }],
    });
    await expectRefused(space, 400, "edits", BATCH, { space, edits: [] });
    await expectRefused(space, 400, "message", BATCH, { space, message: "m".repeat(1001), edits: [{ createPage: { title: "One" } }] });
  });

  it("takes exactly one operation per edit (@oneOf)", async () => {
    const space = await newSpace();
    const a = (await createPage(space, { title: "A" })).page;
    const two = await expectRefused(space, 400, "", BATCH, {
      space,
      edits: [{ createPage: { title: "One" }, deletePage: { page: a.id } }],
    });
    expect(two.message).toMatch(/exactly one/i);
    const none = await expectRefused(space, 400, "", BATCH, { space, edits: [{}] });
    expect(none.message).toMatch(/exactly one/i);
  });
});

describe("bad inputs get their 4xx and change nothing", () => {
  let space: string;
  let parent: { id: string };
  let child: { id: string };
  beforeAll(async () => {
    space = await newSpace();
    parent = (await createPage(space, { title: "Parent" })).page;
    child = (await createPage(space, { title: "Child", parent: parent.id })).page;
  });

  it("title, slug, description, href, markdown", async () => {
    await expectRefused(space, 400, "title", CREATE, { space, title: "t".repeat(101) });
    await expectRefused(space, 400, "title", CREATE, { space, title: "  " });
    await expectRefused(space, 400, "title", UPDATE, { space, page: parent.id, title: "" });
    await expectRefused(space, 400, "slug", CREATE, { space, title: "Ok", slug: "Not a slug" });
    await expectRefused(space, 400, "slug", UPDATE, { space, page: parent.id, slug: "-bad" });
    await expectRefused(space, 400, "description", UPDATE, { space, page: parent.id, description: "d".repeat(1001) });
    await expectRefused(space, 400, "href", CREATE, { space, title: "Link", kind: "LINK" });
    await expectRefused(space, 400, "markdown", CREATE, { space, title: "Group", kind: "GROUP", markdown: "text" });
    await expectRefused(space, 400, "cover.file", UPDATE, { space, page: parent.id, cover: { file: "file_nope" } });
    await expectRefused(space, 400, "at least one field", UPDATE, { space, page: parent.id });
  });

  it("markdown over 1 MiB: 413 naming markdown", async () => {
    await expectRefused(space, 413, "markdown", UPDATE, { space, page: parent.id, markdown: "a".repeat(1024 * 1024 + 1) });
  });

  it("unknown pages and spaces: 404", async () => {
    await expectRefused(space, 404, "pg_nope", UPDATE, { space, page: "pg_nope", title: "x" });
    await expectRefused(space, 404, "pg_nope", MOVE, { space, page: "pg_nope", parent: null });
    await expectRefused(space, 404, "pg_nope", DELETE, { space, page: "pg_nope" });
    const error = await gqlError(A.token, CREATE, { input: { space: "spc_nope", title: "x" } });
    expect(error).toMatchObject({ status: 404, code: "NOT_FOUND" });
  });

  it("moves under the page itself or a descendant, to an unknown parent, beside a non-sibling: 400", async () => {
    await expectRefused(space, 400, "descendants", MOVE, { space, page: parent.id, parent: child.id });
    await expectRefused(space, 400, "descendants", MOVE, { space, page: parent.id, parent: parent.id });
    await expectRefused(space, 400, "parent", MOVE, { space, page: child.id, parent: "pg_nope" });
    await expectRefused(space, 400, "parent", CREATE, { space, title: "Orphan", parent: "pg_nope" });
    await expectRefused(space, 400, "position.before", MOVE, { space, page: child.id, parent: null, before: child.id });
    await expectRefused(space, 400, "before and after", CREATE, { space, title: "x", before: parent.id, after: parent.id });
  });
});

describe("permissions and edit mode", () => {
  it("a locked space refuses every edit with 409", async () => {
    const space = await newSpace();
    const page = (await createPage(space, { title: "A" })).page;
    await gql(A.token, `mutation($input: UpdateSpaceInput!) { updateSpace(input: $input) { space { id } } }`, {
      input: { id: space, editMode: "LOCKED" },
    });
    await expectRefused(space, 409, "locked", CREATE, { space, title: "B" });
    await expectRefused(space, 409, "locked", UPDATE, { space, page: page.id, title: "B" });
    await expectRefused(space, 409, "locked", MOVE, { space, page: page.id, parent: null });
    await expectRefused(space, 409, "locked", DELETE, { space, page: page.id });
    await expectRefused(space, 409, "locked", BATCH, { space, edits: [{ createPage: { title: "B" } }] });
    await gql(A.token, `mutation($input: UpdateSpaceInput!) { updateSpace(input: $input) { space { id } } }`, {
      input: { id: space, editMode: "LIVE" },
    });
    await createPage(space, { title: "B" });
  });

  it("needs edit on the space: read members get 403, editors may edit, other organizations get 404", async () => {
    const space = await newSpace();
    const reader = await server.addMember(A.organizationId, "read");
    const editor = await server.addMember(A.organizationId, "edit");
    const error = await expectRefused(space, 403, "", CREATE, { space, title: "Nope" }, reader.token);
    expect(error.code).toBe("FORBIDDEN");
    await expectRefused(space, 404, space, CREATE, { space, title: "Nope" }, B.token);
    await expectRefused(space, 401, "", CREATE, { space, title: "Nope" }, "dps_not_a_token");
    const created = await createPage(space, { title: "By an editor" }, editor.token);
    expect(created.page.title).toBe("By an editor");
  });
});

describe("concurrency", () => {
  it("10 callers creating a page at once: all 10 pages land, in 10 revisions forming one chain", async () => {
    const space = await newSpace();
    const start = await headOf(space);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, index) => createPage(space, { title: `Page ${index}`, markdown: `body ${index}` })),
    );
    const head = await gql(A.token, `query($id: ID!) { space(id: $id) { revision content { allPages { id title markdown } } } }`, {
      id: space,
    });
    expect(head.space.content.allPages).toHaveLength(10);
    expect(new Set(head.space.content.allPages.map((page: { id: string }) => page.id))).toEqual(
      new Set(results.map((result) => result.page.id)),
    );
    expect(head.space.content.allPages.map((page: { markdown: string }) => page.markdown).sort()).toEqual(
      Array.from({ length: 10 }, (_, i) => `body ${i}`).sort(),
    );

    // Walk back from the head: 10 revisions, each the child of the one before, ending at the start.
    const rows = await server.database.prisma.revision.findMany({ where: { spaceId: space } });
    expect(rows).toHaveLength(11);
    const byId = new Map(rows.map((row) => [row.id, row]));
    const chain: string[] = [];
    for (let id: string | undefined = head.space.revision; id && id !== start; id = byId.get(id)!.parentIds[0]) {
      expect(byId.get(id)!.parentIds).toHaveLength(1);
      chain.push(id);
    }
    expect(chain).toHaveLength(10);
    expect(new Set(results.map((result) => result.revision.id))).toEqual(new Set(chain));
    // No forks: every revision is the parent of at most one other.
    const parents = rows.flatMap((row) => row.parentIds);
    expect(new Set(parents).size).toBe(parents.length);
  });

  it("different edits of one page at once are all kept", async () => {
    const space = await newSpace();
    const page = (await createPage(space, { title: "Shared" })).page;
    await Promise.all([
      gql(A.token, UPDATE, { input: { space, page: page.id, emoji: "1f600" } }),
      gql(A.token, UPDATE, { input: { space, page: page.id, description: "Both" } }),
      gql(A.token, UPDATE, { input: { space, page: page.id, markdown: "kept" } }),
      createPage(space, { title: "Child", parent: page.id }),
    ]);
    const read = await gql(
      A.token,
      `query($s: ID!, $p: ID!) { space(id: $s) { page(id: $p) { emoji description markdown pages { title } } } }`,
      { s: space, p: page.id },
    );
    expect(read.space.page).toEqual({ emoji: "1f600", description: "Both", markdown: "kept", pages: [{ title: "Child" }] });
  });
});

describe("duplicateSpace", () => {
  it("copies the pages and files of the head revision and shares their bodies (no new Blob rows)", async () => {
    const space = await newSpace();
    const a = (await createPage(space, { title: "A", markdown: "shared body" })).page;
    await createPage(space, { title: "B", parent: a.id, markdown: "another" });
    const fileId = await uploadFile(space, "notes.txt", new TextEncoder().encode("file bytes"), "text/plain");
    const source = await snapshot(space, await headOf(space));
    const blobs = await server.database.prisma.blob.count();

    const copy = (
      await gql(A.token, `mutation($input: DuplicateSpaceInput!) { duplicateSpace(input: $input) { space { id revision } } }`, {
        input: { id: space },
      })
    ).duplicateSpace.space;
    expect(await server.database.prisma.blob.count()).toBe(blobs);
    const copied = await snapshot(copy.id, copy.revision);
    expect(copied.row.pages).toEqual(source.row.pages);
    expect(copied.row.files).toEqual(source.row.files);
    expect(copied.bodies).toEqual(source.bodies);
    expect(copied.graphql.allPages).toEqual(source.graphql.allPages);
    expect(copied.graphql.files).toEqual([{ id: fileId, name: "notes.txt" }]);
    // Editing the copy leaves the original alone.
    await gql(A.token, UPDATE, { input: { space: copy.id, page: a.id, markdown: "changed in the copy" } });
    expect(await snapshot(space, await headOf(space))).toEqual(source);
  });
});
