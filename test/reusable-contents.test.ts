// Reusable contents and revision variables: created, updated and deleted through /graphql (single
// mutations and the editContent batch), each accepted mutation making exactly one revision whose
// parent is the previous head; read back through GraphQL and through REST
// `GET /v1/spaces/{id}/content` with the official client (validated against the published schemas).
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
let A: { organizationId: string; userId: string; token: string };

beforeAll(async () => {
  server = await startTestServer();
  A = await server.bootstrap("Reusable A");
});

afterAll(async () => {
  await server?.close();
});

const gql = <T = any>(token: string, query: string, variables?: Record<string, unknown>) => graphqlData<T>(server, token, query, variables);
const sha256 = (text: string) => createHash("sha256").update(Buffer.from(text, "utf8")).digest("hex");

const RC_FIELDS = /* GraphQL */ `id title markdown documentId document`;
const CREATE = /* GraphQL */ `mutation($input: CreateReusableContentInput!) {
  createReusableContent(input: $input) { revision { id parents } reusableContent { ${RC_FIELDS} } space { id revision } } }`;
const UPDATE = /* GraphQL */ `mutation($input: UpdateReusableContentInput!) {
  updateReusableContent(input: $input) { revision { id parents } reusableContent { ${RC_FIELDS} } space { id revision } } }`;
const DELETE = /* GraphQL */ `mutation($input: DeleteReusableContentInput!) {
  deleteReusableContent(input: $input) { revision { id parents } deletedReusableContentId space { id revision } } }`;
const SET_VARIABLES = /* GraphQL */ `mutation($input: SetRevisionVariablesInput!) {
  setRevisionVariables(input: $input) { revision { id parents variables } space { id revision } } }`;
const BATCH = /* GraphQL */ `mutation($input: EditContentInput!) {
  editContent(input: $input) { revision { id parents } createdReusableContents { id title } space { id revision } } }`;

async function newSpace(title = "Docs"): Promise<string> {
  const data = await gql(A.token, /* GraphQL */ `mutation($input: CreateSpaceInput!) { createSpace(input: $input) { space { id } } }`, {
    input: { organization: A.organizationId, title },
  });
  return data.createSpace.space.id;
}

const headOf = (space: string) => headOfSpace(server, space);
const revisionCount = (space: string) => revisionCountOf(server, space);

const expectOneRevision = <T extends RevisionPayload>(space: string, run: () => Promise<T>) => expectOneRevisionOf(server, space, run);

/** Asserts that `query` fails with `status`, naming `mentions`, and makes no revision. */
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
  const result = await server.graphql(token, query, { input });
  expect(result.errors?.length, JSON.stringify(result.data)).toBeGreaterThan(0);
  expect(result.status, result.errors![0].message).toBe(status);
  expect(result.errors![0].message).toContain(mentions);
  expect(await headOf(space)).toBe(head);
  expect(await revisionCount(space)).toBe(count);
  return result.errors![0];
}

const READ = /* GraphQL */ `query($id: ID!) { space(id: $id) { content { id variables reusableContents { ${RC_FIELDS} } } } }`;

describe("reusable contents", () => {
  it("create, update and delete each make one revision; GraphQL and REST read them back", async () => {
    const space = await newSpace();
    const created = await expectOneRevision(
      space,
      async () => (await gql(A.token, CREATE, { input: { space, title: "Warning", markdown: "# Careful\n\nHot." } })).createReusableContent,
    );
    const rc = created.reusableContent;
    expect(rc.id).toMatch(/^rc_/);
    expect(rc).toMatchObject({ title: "Warning", markdown: "# Careful\n\nHot.", documentId: sha256("# Careful\n\nHot.") });
    expect(rc.document).toBeTruthy();
    const blob = await server.database.prisma.blob.findUnique({ where: { hash: sha256("# Careful\n\nHot.") } });
    expect(Buffer.from(blob!.data).toString("utf8")).toBe("# Careful\n\nHot.");

    const updated = await expectOneRevision(
      space,
      async () => (await gql(A.token, UPDATE, { input: { space, reusableContent: rc.id, markdown: "Cold." } })).updateReusableContent,
    );
    expect(updated.reusableContent).toMatchObject({ id: rc.id, title: "Warning", markdown: "Cold.", documentId: sha256("Cold.") });
    const renamed = await expectOneRevision(
      space,
      async () => (await gql(A.token, UPDATE, { input: { space, reusableContent: rc.id, title: "Note" } })).updateReusableContent,
    );
    expect(renamed.reusableContent).toMatchObject({ title: "Note", markdown: "Cold." });

    // The revision of the create still reads the same.
    const old = await gql(
      A.token,
      `query($s: ID!, $r: ID!) { space(id: $s) { revisionById(id: $r) { reusableContents { title markdown } } } }`,
      { s: space, r: created.revision.id },
    );
    expect(old.space.revisionById.reusableContents).toEqual([{ title: "Warning", markdown: "# Careful\n\nHot." }]);

    const read = await gql(A.token, READ, { id: space });
    expect(read.space.content.reusableContents.map((item: any) => [item.id, item.title, item.markdown])).toEqual([
      [rc.id, "Note", "Cold."],
    ]);

    const { data } = await server.client(A.token).spaces.getCurrentRevision(space);
    expect(data.reusableContents).toEqual([{ id: rc.id, title: "Note", document: sha256("Cold.") }]);

    // A reusable content has an id but is not a node (like a page): node(id:) does not find it.
    const node = await server.graphql(A.token, `query($id: ID!) { node(id: $id) { id } }`, { id: rc.id });
    expect(node.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");

    const deleted = await expectOneRevision(
      space,
      async () => (await gql(A.token, DELETE, { input: { space, reusableContent: rc.id } })).deleteReusableContent,
    );
    expect(deleted.deletedReusableContentId).toBe(rc.id);
    expect((await gql(A.token, READ, { id: space })).space.content.reusableContents).toEqual([]);
    expect((await server.client(A.token).spaces.getCurrentRevision(space)).data.reusableContents).toEqual([]);
  });

  it("the editContent batch takes reusable content and variable edits: one revision for all", async () => {
    const space = await newSpace();
    const payload = await expectOneRevision(
      space,
      async () =>
        (
          await gql(A.token, BATCH, {
            input: {
              space,
              edits: [
                { createReusableContent: { title: "One", markdown: "1" } },
                { createReusableContent: { title: "Two" } },
                { setVariables: { variables: { product: "Docs" } } },
                { createPage: { title: "Page" } },
              ],
            },
          })
        ).editContent,
    );
    expect(payload.createdReusableContents.map((item: any) => item.title)).toEqual(["One", "Two"]);
    const read = (await gql(A.token, READ, { id: space })).space.content;
    expect(read.variables).toEqual({ product: "Docs" });
    expect(read.reusableContents.map((item: any) => [item.title, item.markdown])).toEqual([
      ["One", "1"],
      ["Two", ""],
    ]);
  });

  it("refuses bad input with 400 naming the field, and makes no revision", async () => {
    const space = await newSpace();
    const { createReusableContent } = await gql(A.token, CREATE, { input: { space, title: "Kept" } });
    const id = createReusableContent.reusableContent.id;
    await expectRefused(space, 400, "title", CREATE, { space, title: "" });
    await expectRefused(space, 400, "title", CREATE, { space, title: "x".repeat(101) });
    await expectRefused(space, 400, "title", UPDATE, { space, reusableContent: id, title: "  " });
    await expectRefused(space, 400, "updateReusableContent", UPDATE, { space, reusableContent: id });
    await expectRefused(space, 404, "rc_missing", UPDATE, { space, reusableContent: "rc_missing", title: "X" });
    await expectRefused(space, 404, "rc_missing", DELETE, { space, reusableContent: "rc_missing" });
    // A refused edit in a batch refuses the whole batch.
    await expectRefused(space, 400, "edits[1]", BATCH, {
      space,
      edits: [{ createReusableContent: { title: "Fine" } }, { createReusableContent: { title: "" } }],
    });
  });

  it("needs edit on the space: a read member gets 403", async () => {
    const space = await newSpace();
    const reader = await server.addMember(A.organizationId, "read");
    const error = await expectRefused(space, 403, "", CREATE, { space, title: "Nope" }, reader.token);
    expect(error.extensions?.code).toBe("FORBIDDEN");
    await expectRefused(space, 403, "", SET_VARIABLES, { space, variables: { a: "b" } }, reader.token);
  });
});

describe("revision variables", () => {
  it("setRevisionVariables replaces the map as one revision; GraphQL and REST read it", async () => {
    const space = await newSpace();
    const first = await expectOneRevision(
      space,
      async () =>
        (await gql(A.token, SET_VARIABLES, { input: { space, variables: { version: "2.0", _name: "Docs" } } })).setRevisionVariables,
    );
    expect(first.revision.variables).toEqual({ version: "2.0", _name: "Docs" });
    const second = await expectOneRevision(
      space,
      async () => (await gql(A.token, SET_VARIABLES, { input: { space, variables: { version: "3.0" } } })).setRevisionVariables,
    );
    expect(second.revision.variables).toEqual({ version: "3.0" });
    expect((await gql(A.token, READ, { id: space })).space.content.variables).toEqual({ version: "3.0" });
    expect((await server.client(A.token).spaces.getCurrentRevision(space)).data.variables).toEqual({ version: "3.0" });
    // Page edits carry the variables and reusable contents of the head.
    await gql(A.token, CREATE, { input: { space, title: "Kept" } });
    await gql(A.token, `mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, {
      input: { space, title: "P" },
    });
    const read = (await gql(A.token, READ, { id: space })).space.content;
    expect(read.variables).toEqual({ version: "3.0" });
    expect(read.reusableContents.map((item: any) => item.title)).toEqual(["Kept"]);
  });

  it("refuses a bad name, a long value, too many variables or a non-object, with 400 naming it", async () => {
    const space = await newSpace();
    await expectRefused(space, 400, '"1st"', SET_VARIABLES, { space, variables: { "1st": "x" } });
    await expectRefused(space, 400, '"with-dash"', SET_VARIABLES, { space, variables: { ok: "y", "with-dash": "x" } });
    await expectRefused(space, 400, "variables.long", SET_VARIABLES, { space, variables: { long: "x".repeat(10_001) } });
    await expectRefused(space, 400, "variables.num", SET_VARIABLES, { space, variables: { num: 3 } });
    await expectRefused(space, 400, "at most 100", SET_VARIABLES, {
      space,
      variables: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`v${i}`, "x"])),
    });
    await expectRefused(space, 400, "variables", SET_VARIABLES, { space, variables: ["a"] });
    // 100 names of up to 10000 characters are fine.
    const many = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`v${i}`, "x".repeat(10_000)]));
    await expectOneRevision(
      space,
      async () => (await gql(A.token, SET_VARIABLES, { input: { space, variables: many } })).setRevisionVariables,
    );
  });
});

describe("duplicateSpace", () => {
  it("copies reusable contents and variables (bodies shared)", async () => {
    const space = await newSpace();
    const { createReusableContent } = await gql(A.token, CREATE, { input: { space, title: "Shared", markdown: "Body" } });
    await gql(A.token, SET_VARIABLES, { input: { space, variables: { a: "b" } } });
    const copy = (
      await gql(A.token, `mutation($input: DuplicateSpaceInput!) { duplicateSpace(input: $input) { space { id } } }`, {
        input: { id: space },
      })
    ).duplicateSpace.space.id;
    const read = (await gql(A.token, READ, { id: copy })).space.content;
    expect(read.variables).toEqual({ a: "b" });
    expect(read.reusableContents).toEqual([createReusableContent.reusableContent]);
    const { data } = await server.client(A.token).spaces.getCurrentRevision(copy);
    expect(data.reusableContents).toEqual([{ id: createReusableContent.reusableContent.id, title: "Shared", document: sha256("Body") }]);
    expect(data.variables).toEqual({ a: "b" });
  });
});
