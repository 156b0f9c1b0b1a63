// Change requests end to end: opening (numbers under concurrency), status and counters, editing
// inside a change request (its head moves, the space's does not), update from the space and merge
// as three-way merges (combining, refusing conflicts with nothing changed, `outdated`), and who
// may do what. REST through the official client (every answer validated against the spec).
import { ChangeRequestStatus } from "@gitbook/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectGraphQLError, expectRestError, graphqlData } from "./support/expect.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let A: { organizationId: string; userId: string; token: string };
let B: { organizationId: string; userId: string; token: string };
const members: Record<"edit" | "review" | "comment" | "read", { userId: string; token: string }> = {} as never;

beforeAll(async () => {
  server = await startTestServer();
  A = await server.bootstrap("Change requests A");
  B = await server.bootstrap("Change requests B");
  for (const role of ["edit", "review", "comment", "read"] as const) members[role] = await server.addMember(A.organizationId, role);
});

afterAll(async () => {
  await server?.close();
});

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

const gql = <T = any>(token: string, query: string, variables?: Record<string, unknown>) => graphqlData<T>(server, token, query, variables);
const api = (token = A.token) => server.client(token).spaces;
const prisma = () => server.database.prisma;

async function newSpace(): Promise<string> {
  const data = await gql(A.token, `mutation($input: CreateSpaceInput!) { createSpace(input: $input) { space { id } } }`, {
    input: { organization: A.organizationId, title: "Handbook" },
  });
  return data.createSpace.space.id;
}

const CREATE_PAGE = /* GraphQL */ `mutation($input: CreatePageInput!) { createPage(input: $input) { revision { id parents } page { id path } } }`;
const UPDATE_PAGE = /* GraphQL */ `mutation($input: UpdatePageInput!) { updatePage(input: $input) { revision { id parents } } }`;

/** Creates a document page (in the change request when `changeRequest` is given); returns its id. */
async function createPage(space: string, title: string, markdown: string, changeRequest?: string, token = A.token): Promise<string> {
  const data = await gql(token, CREATE_PAGE, { input: { space, changeRequest, title, markdown } });
  return data.createPage.page.id;
}

async function updateMarkdown(space: string, page: string, markdown: string, changeRequest?: string, token = A.token) {
  return (await gql(token, UPDATE_PAGE, { input: { space, changeRequest, page, markdown } })).updatePage.revision;
}

async function markdownIn(space: string, page: string, changeRequest?: string): Promise<string> {
  const response = changeRequest
    ? await api().getPageInChangeRequestById(space, changeRequest, page, { format: "markdown" })
    : await api().getPageById(space, page, { format: "markdown" });
  return (response.data as { markdown: string }).markdown;
}

/** A space with three pages, each with five lines, and its page ids. */
async function spaceWithPages() {
  const space = await newSpace();
  const lines = (name: string) => [1, 2, 3, 4, 5].map((n) => `${name} line ${n}`).join("\n\n") + "\n";
  const intro = await createPage(space, "Intro", lines("intro"));
  const guide = await createPage(space, "Guide", lines("guide"));
  const faq = await createPage(space, "FAQ", lines("faq"));
  return { space, intro, guide, faq };
}

const headOf = async (space: string) => (await prisma().space.findUniqueOrThrow({ where: { id: space } })).revisionId;

/** Everything of the space a reader sees, and its rows: must not move when an operation is refused. */
async function snapshot(space: string) {
  const [content, spaceRow, revisions, changeRequests] = await Promise.all([
    api().getCurrentRevision(space),
    prisma().space.findUniqueOrThrow({ where: { id: space } }),
    prisma().revision.count({ where: { spaceId: space } }),
    prisma().changeRequest.findMany({ where: { spaceId: space }, orderBy: { number: "asc" } }),
  ]);
  return { content: JSON.stringify(content.data), spaceRow, revisions, changeRequests };
}

// ---------------------------------------------------------------------------------------------
// Opening, reading, listing
// ---------------------------------------------------------------------------------------------

describe("opening and reading change requests", () => {
  it("opens a draft on the space's head, readable by id and by number, and counts it on the space", async () => {
    const space = await newSpace();
    const head = await headOf(space);
    const created = await api().createChangeRequest(space, { subject: "Rewrite the intro" });
    expect(created.status).toBe(201);
    const changeRequest = created.data;
    expect(changeRequest).toMatchObject({
      object: "change-request",
      number: 1,
      status: "draft",
      subject: "Rewrite the intro",
      createdBy: { id: A.userId },
      space,
      revision: head,
      revisionInitial: head,
      comments: 0,
      outdated: false,
      urls: { location: `${server.url}/v1/spaces/${space}/change-requests/${changeRequest.id}` },
    });
    expect(changeRequest.id).toMatch(/^cr_/);
    expect(changeRequest.revisionMerged).toBeUndefined();

    expect((await api().getChangeRequestById(space, "1")).data.id).toBe(changeRequest.id);
    expect((await api().getChangeRequestById(space, changeRequest.id)).data.number).toBe(1);
    expect((await api().getSpaceById(space)).data).toMatchObject({ changeRequests: 1, changeRequestsDraft: 1, changeRequestsOpen: 0 });

    const opened = await api().updateChangeRequestById(space, "1", { status: "open", subject: "Intro, rewritten" });
    expect(opened.data).toMatchObject({ status: "open", subject: "Intro, rewritten" });
    expect((await api().getSpaceById(space)).data).toMatchObject({ changeRequests: 1, changeRequestsDraft: 0, changeRequestsOpen: 1 });

    const node = await gql(A.token, `query($id: ID!) { node(id: $id) { ... on ChangeRequest { id number status space { id } } } }`, {
      id: changeRequest.id,
    });
    expect(node.node).toEqual({ id: changeRequest.id, number: 1, status: "OPEN", space: { id: space } });
  });

  it("gives 20 change requests created at once 20 distinct consecutive numbers", async () => {
    const space = await newSpace();
    const created = await Promise.all(Array.from({ length: 20 }, (_, i) => api().createChangeRequest(space, { subject: `CR ${i}` })));
    const numbers = created.map((response) => response.data.number).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect((await api().getSpaceById(space)).data.changeRequests).toBe(20);
  });

  it("lists open ones by default, filters by status and contributor, and pages", async () => {
    const space = await newSpace();
    const ids: string[] = [];
    for (const subject of ["one", "two", "three"]) ids.push((await api().createChangeRequest(space, { subject })).data.id);
    await api().updateChangeRequestById(space, ids[0], { status: "open" });
    await api().updateChangeRequestById(space, ids[1], { status: "open" });
    // The edit member contributes to the third one only.
    await createPage(space, "Contribution", "text\n", ids[2], members.edit.token);

    const open = await api().listChangeRequestsForSpace(space);
    expect(open.data.items.map((c) => c.id)).toEqual([ids[1], ids[0]]);
    expect((await api().listChangeRequestsForSpace(space, { status: ChangeRequestStatus.Draft })).data.items.map((c) => c.id)).toEqual([
      ids[2],
    ]);
    const byContributor = await api().listChangeRequestsForSpace(space, {
      status: ChangeRequestStatus.Draft,
      contributor: members.edit.userId,
    });
    expect(byContributor.data.items.map((c) => c.id)).toEqual([ids[2]]);
    expect(
      (await api().listChangeRequestsForSpace(space, { status: ChangeRequestStatus.Open, contributor: members.edit.userId })).data.items,
    ).toEqual([]);

    const page1 = await api().listChangeRequestsForSpace(space, { status: ChangeRequestStatus.Open, limit: 1 });
    expect(page1.data.items.map((c) => c.id)).toEqual([ids[1]]);
    const page2 = await api().listChangeRequestsForSpace(space, {
      status: ChangeRequestStatus.Open,
      limit: 1,
      page: page1.data.next!.page,
    });
    expect(page2.data.items.map((c) => c.id)).toEqual([ids[0]]);
    expect(page2.data.next).toBeUndefined();
  });

  it("filters by creator, requested reviewer and topic and orders by updatedAt (default) or createdAt, on both surfaces, in the same statements", async () => {
    const space = await newSpace();
    const ids: string[] = [];
    for (const [token, subject] of [
      [A.token, "one"],
      [members.edit.token, "two"],
      [A.token, "three"],
    ]) {
      ids.push((await api(token).createChangeRequest(space, { subject })).data.id);
    }
    await api().requestReviewersForChangeRequest(space, ids[0], { users: [members.review.userId] });
    // Opened in the order three, one, two: the last update is two's.
    for (const index of [2, 0, 1]) {
      server.clock.advance(1000);
      await api().updateChangeRequestById(space, ids[index], { status: "open" });
    }
    const list = async (query: Record<string, unknown>) => {
      const { data } = await api().listChangeRequestsForSpace(space, query as never);
      if (!query.limit) expect(data.count).toBe(data.items.length);
      return data.items.map((changeRequest) => changeRequest.id);
    };
    expect(await list({})).toEqual([ids[1], ids[0], ids[2]]);
    expect(await list({ orderBy: "updatedAt" })).toEqual([ids[1], ids[0], ids[2]]);
    expect(await list({ orderBy: "createdAt" })).toEqual([ids[2], ids[1], ids[0]]);
    expect(await list({ creator: A.userId })).toEqual([ids[0], ids[2]]);
    expect(await list({ creator: members.edit.userId })).toEqual([ids[1]]);
    expect(await list({ creator: A.userId, orderBy: "createdAt" })).toEqual([ids[2], ids[0]]);
    expect(await list({ requestedReviewer: members.review.userId })).toEqual([ids[0]]);
    expect(await list({ requestedReviewer: members.edit.userId })).toEqual([]);
    expect(await list({ requestedReviewer: members.review.userId, creator: members.edit.userId })).toEqual([]);
    expect(await list({ status: "draft", creator: A.userId })).toEqual([]);
    // No change request is linked to a site topic (there are none).
    expect(await list({ topic: "topic_1" })).toEqual([]);

    // Paging in updatedAt order, ties broken by number (two updated at the same time).
    server.clock.advance(1000);
    await api().updateChangeRequestById(space, ids[2], { subject: "three, again" });
    await api().updateChangeRequestById(space, ids[0], { subject: "one, again" });
    const seen: string[] = [];
    let page: string | undefined;
    do {
      const { data } = await api().listChangeRequestsForSpace(space, { limit: 1, ...(page ? { page } : {}) });
      seen.push(...data.items.map((changeRequest) => changeRequest.id));
      page = data.next?.page;
    } while (page);
    expect(seen).toEqual([ids[2], ids[0], ids[1]]);
    expect(await list({ orderBy: "createdAt", limit: 2 })).toEqual([ids[2], ids[1]]);

    const LIST = /* GraphQL */ `
      query($id: ID!, $creator: ID, $requestedReviewer: ID, $topic: String, $orderBy: ChangeRequestOrderBy) {
        space(id: $id) {
          changeRequests(first: 10, creator: $creator, requestedReviewer: $requestedReviewer, topic: $topic, orderBy: $orderBy) {
            totalCount nodes { id }
          }
        }
      }`;
    const graphqlIds = async (variables: Record<string, unknown>) =>
      (await gql(A.token, LIST, { id: space, ...variables })).space.changeRequests.nodes.map((node: { id: string }) => node.id);
    expect(await graphqlIds({})).toEqual([ids[2], ids[0], ids[1]]);
    expect(await graphqlIds({ orderBy: "CREATED_AT" })).toEqual([ids[2], ids[1], ids[0]]);
    expect(await graphqlIds({ creator: A.userId, orderBy: "CREATED_AT" })).toEqual([ids[2], ids[0]]);
    expect(await graphqlIds({ requestedReviewer: members.review.userId })).toEqual([ids[0]]);
    expect(await graphqlIds({ topic: "topic_1" })).toEqual([]);

    // Filtering is in the list's own statements: the same three items in as many statements in
    // either order, and never more with filters (fewer items may need fewer users loaded).
    const statements = async (query: string) => {
      const before = server.database.statementCount;
      const response = await server.rest(A.token, "GET", `/v1/spaces/${space}/change-requests${query}`);
      expect(response.status).toBe(200);
      return server.database.statementCount - before;
    };
    const plain = await statements("");
    expect(await statements("?orderBy=createdAt")).toBe(plain);
    expect(await statements(`?creator=${A.userId}&requestedReviewer=${members.review.userId}&orderBy=createdAt`)).toBeLessThanOrEqual(
      plain,
    );
    expect(await statements(`?creator=${A.userId}&topic=topic_1`)).toBeLessThanOrEqual(plain);
  });

  it("refuses bad list parameters with 400 naming them (GraphQL: extensions.code), reading nothing", async () => {
    const space = await newSpace();
    for (const [query, name] of [
      ["orderBy=title", "orderBy"],
      ["orderBy=", "orderBy"],
      ["creator=", "creator"],
      ["requestedReviewer=", "requestedReviewer"],
      [`topic=`, "topic"],
      [`creator=${"u".repeat(201)}`, "creator"],
    ]) {
      const response = await server.rest(A.token, "GET", `/v1/spaces/${space}/change-requests?${query}`);
      expect({ query, status: response.status }).toEqual({ query, status: 400 });
      expect(response.body.error.message).toContain(name);
    }
    await expectRestError(api().listChangeRequestsForSpace(space, { orderBy: "title" as never }), 400, "orderBy");
    const LIST = /* GraphQL */ `query($id: ID!, $creator: ID, $topic: String) { space(id: $id) { changeRequests(creator: $creator, topic: $topic) { totalCount } } }`;
    expectGraphQLError(await server.graphql(A.token, LIST, { id: space, creator: "" }), "BAD_REQUEST", "creator");
    expectGraphQLError(await server.graphql(A.token, LIST, { id: space, topic: "" }), "BAD_REQUEST", "topic");
    const ORDERED = /* GraphQL */ `query($id: ID!, $o: ChangeRequestOrderBy) { space(id: $id) { changeRequests(orderBy: $o) { totalCount } } }`;
    expectGraphQLError(await server.graphql(A.token, ORDERED, { id: space, o: "TITLE" }), "BAD_REQUEST", "TITLE");
  });

  it("refuses bad subjects and statuses with 400 naming the field, changing nothing", async () => {
    const space = await newSpace();
    const { data: changeRequest } = await api().createChangeRequest(space, { subject: "Fine" });
    const before = await snapshot(space);
    await expectRestError(api().createChangeRequest(space, { subject: "x".repeat(101) }), 400, "subject");
    await expectRestError(api().updateChangeRequestById(space, changeRequest.id, { subject: "x".repeat(101) }), 400, "subject");
    await expectRestError(api().updateChangeRequestById(space, changeRequest.id, { status: "merged" as never }), 400, "status");
    await expectRestError(api().updateChangeRequestById(space, changeRequest.id, { status: "closed" as never }), 400, "status");
    await expectRestError(api().listChangeRequestsForSpace(space, { status: "closed" as never }), 400, "status");
    expect(await snapshot(space)).toEqual(before);
    // The limit is 100 characters, not bytes.
    expect((await api().updateChangeRequestById(space, changeRequest.id, { subject: "é".repeat(100) })).data.subject).toBe("é".repeat(100));
  });

  it("is as visible as its space: another organization gets 404 on REST and null from node(id:)", async () => {
    const space = await newSpace();
    const { data: changeRequest } = await api().createChangeRequest(space, {});
    await expectRestError(api(B.token).getChangeRequestById(space, changeRequest.id), 404);
    await expectRestError(api(B.token).getChangeRequestById(space, "1"), 404);
    await expectRestError(api().getChangeRequestById(space, "2"), 404, "change request");
    const result = await server.graphql(B.token, `query($id: ID!) { node(id: $id) { id } }`, { id: changeRequest.id });
    expect(result.data?.node ?? null).toBeNull();
    expect(result.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
  });
});

// ---------------------------------------------------------------------------------------------
// Editing inside a change request
// ---------------------------------------------------------------------------------------------

describe("editing inside a change request", () => {
  it("moves the change request's revision and leaves the space's alone", async () => {
    const { space, intro } = await spaceWithPages();
    const spaceHead = await headOf(space);
    const { data: changeRequest } = await api().createChangeRequest(space, { subject: "Edits" });
    const page = await createPage(space, "Proposed", "# Proposed\n\nNew text.\n", changeRequest.id);
    const revision = await updateMarkdown(space, intro, "intro, rewritten\n", String(changeRequest.number));

    expect(await headOf(space)).toBe(spaceHead);
    const after = (await api().getChangeRequestById(space, changeRequest.id)).data;
    expect(after.revision).toBe(revision.id);
    expect(after.revisionInitial).toBe(spaceHead);
    expect(after.outdated).toBe(false);

    const proposed = await api().getPageInChangeRequestById(space, changeRequest.id, page, { format: "markdown" });
    expect(proposed.data).toMatchObject({ title: "Proposed", path: "proposed", markdown: "# Proposed\n\nNew text.\n" });
    const byPath = await api().getPageInChangeRequestByPath(space, changeRequest.id, "proposed", { format: "markdown" });
    expect(byPath.data.id).toBe(page);
    expect(await markdownIn(space, intro, changeRequest.id)).toBe("intro, rewritten\n");
    expect(await markdownIn(space, intro)).toContain("intro line 1");
    await expectRestError(api().getPageById(space, page), 404);
    const pages = (await api().listPagesInChangeRequest(space, changeRequest.id)).data.pages.map((p) => p.title);
    expect(pages).toEqual(["Intro", "Guide", "FAQ", "Proposed"]);
    expect((await api().getRevisionOfChangeRequestById(space, changeRequest.id)).data.id).toBe(revision.id);
  });

  it("answers a page made in a change request with the change request's app URL, as reading it does", async () => {
    const space = await newSpace();
    const { data: changeRequest } = await api().createChangeRequest(space, { subject: "URLs" });
    const created = await gql(A.token, `mutation($input: CreatePageInput!) { createPage(input: $input) { page { id urls { app } } } }`, {
      input: { space, changeRequest: changeRequest.id, title: "Proposed", markdown: "New" },
    });
    const expected = `${server.url}/app/s/${space}/~/changes/${changeRequest.number}/proposed`;
    expect(created.createPage.page.urls.app).toBe(expected);
    const read = await api().getPageInChangeRequestById(space, changeRequest.id, created.createPage.page.id, { format: "markdown" });
    expect((read.data as { urls: { app: string } }).urls.app).toBe(expected);
    const { contentTarget } = await gql(
      A.token,
      `query($space: ID!, $changeRequest: ID) { contentTarget(space: $space, changeRequest: $changeRequest) { page(path: "proposed") { urls { app } } } }`,
      { space, changeRequest: String(changeRequest.number) },
    );
    expect(contentTarget.page.urls.app).toBe(expected);
  });

  it("lets a locked space change through change requests only", async () => {
    const { space, intro } = await spaceWithPages();
    await gql(A.token, `mutation($input: UpdateSpaceInput!) { updateSpace(input: $input) { space { id } } }`, {
      input: { id: space, editMode: "LOCKED" },
    });
    const direct = await server.graphql(A.token, UPDATE_PAGE, { input: { space, page: intro, markdown: "direct\n" } });
    expect(direct.errors?.[0]?.extensions?.code).toBe("CONFLICT");
    const { data: changeRequest } = await api().createChangeRequest(space, {});
    await updateMarkdown(space, intro, "through a change request\n", changeRequest.id);
    await api().mergeChangeRequest(space, changeRequest.id);
    expect(await markdownIn(space, intro)).toBe("through a change request\n");
  });

  it("refuses edits, update and a second merge once merged, and edits while archived", async () => {
    const { space, intro } = await spaceWithPages();
    const { data: merged } = await api().createChangeRequest(space, {});
    await api().mergeChangeRequest(space, merged.id);
    const before = await snapshot(space);
    const edit = await server.graphql(A.token, UPDATE_PAGE, {
      input: { space, changeRequest: merged.id, page: intro, markdown: "late\n" },
    });
    expect(edit.errors?.[0]).toMatchObject({ extensions: { code: "CONFLICT" } });
    expect(edit.errors?.[0]?.message).toContain("merged");
    await expectRestError(api().mergeChangeRequest(space, merged.id), 409, "merged");
    await expectRestError(api().updateChangeRequest(space, merged.id), 409, "merged");
    await expectRestError(api().updateChangeRequestById(space, merged.id, { status: "open" }), 409, "merged");
    expect(await snapshot(space)).toEqual(before);

    const { data: archived } = await api().createChangeRequest(space, {});
    await api().updateChangeRequestById(space, archived.id, { status: "archived" });
    const refused = await server.graphql(A.token, UPDATE_PAGE, {
      input: { space, changeRequest: archived.id, page: intro, markdown: "x\n" },
    });
    expect(refused.errors?.[0]?.message).toContain("archived");
    await api().updateChangeRequestById(space, archived.id, { status: "open" });
    await updateMarkdown(space, intro, "reopened\n", archived.id);
    expect(await markdownIn(space, intro, archived.id)).toBe("reopened\n");
  });
});

// ---------------------------------------------------------------------------------------------
// Merge and update
// ---------------------------------------------------------------------------------------------

describe("merging", () => {
  it("merges two change requests editing different pages, both cleanly, and search follows", async () => {
    const { space, intro, faq } = await spaceWithPages();
    const { data: first } = await api().createChangeRequest(space, { subject: "Intro" });
    const { data: second } = await api().createChangeRequest(space, { subject: "FAQ" });
    await updateMarkdown(space, intro, "intro line 1\n\nintro about zeppelins\n", first.id);
    await updateMarkdown(space, faq, "faq line 1\n\nfaq about submarines\n", second.id);

    const merged = await api().mergeChangeRequest(space, first.id);
    expect(merged.data.result).toBe("merge");
    expect(await headOf(space)).toBe(merged.data.revision);
    const afterFirst = (await api().getChangeRequestById(space, first.id)).data;
    expect(afterFirst).toMatchObject({
      status: "merged",
      revisionMerged: merged.data.revision,
      mergedBy: { id: A.userId },
      outdated: false,
    });
    expect((await api().getChangeRequestById(space, second.id)).data.outdated).toBe(true);

    const secondHead = (await api().getChangeRequestById(space, second.id)).data.revision;
    const mergedAgain = await api().mergeChangeRequest(space, second.id);
    expect(await markdownIn(space, intro)).toBe("intro line 1\n\nintro about zeppelins\n");
    expect(await markdownIn(space, faq)).toBe("faq line 1\n\nfaq about submarines\n");
    const content = (await api().getCurrentRevision(space)).data as any;
    expect(content).toMatchObject({ id: mergedAgain.data.revision, type: "merge", mergedFrom: { id: second.id, status: "merged" } });
    expect(content.parents).toEqual([merged.data.revision, secondHead]);

    const hits = await server.client(A.token).spaces.searchSpaceContent(space, { query: "submarines" });
    expect(hits.data.items.map((item) => item.id)).toEqual([faq]);
    expect((await api().getSpaceById(space)).data).toMatchObject({ changeRequests: 2, changeRequestsOpen: 0, changeRequestsDraft: 0 });
  });

  it("combines edits to different lines of the same page", async () => {
    const { space, guide } = await spaceWithPages();
    const { data: top } = await api().createChangeRequest(space, {});
    const { data: bottom } = await api().createChangeRequest(space, {});
    const original = await markdownIn(space, guide);
    await updateMarkdown(space, guide, original.replace("guide line 1", "guide line ONE"), top.id);
    await updateMarkdown(space, guide, original.replace("guide line 5", "guide line FIVE"), bottom.id);
    await api().mergeChangeRequest(space, top.id);
    await api().mergeChangeRequest(space, bottom.id);
    expect(await markdownIn(space, guide)).toBe(
      original.replace("guide line 1", "guide line ONE").replace("guide line 5", "guide line FIVE"),
    );
  });

  it("refuses the second of two change requests editing the same lines with 409 naming the page, and the space is byte-for-byte unchanged", async () => {
    const { space, guide } = await spaceWithPages();
    const { data: first } = await api().createChangeRequest(space, {});
    const { data: second } = await api().createChangeRequest(space, {});
    const original = await markdownIn(space, guide);
    await updateMarkdown(space, guide, original.replace("guide line 3", "guide line three (first)"), first.id);
    await updateMarkdown(space, guide, original.replace("guide line 3", "guide line III (second)"), second.id);
    await api().mergeChangeRequest(space, first.id);

    const before = await snapshot(space);
    const blobs = await prisma().blob.count();
    await expectRestError(api().mergeChangeRequest(space, second.id), 409, "Guide");
    expect(await snapshot(space)).toEqual(before);
    expect(await prisma().blob.count()).toBe(blobs);

    // The same conflict through GraphQL names the page in extensions.conflicts.
    const result = await server.graphql(
      A.token,
      `mutation($input: MergeChangeRequestInput!) { mergeChangeRequest(input: $input) { revision { id } } }`,
      {
        input: { space, changeRequest: second.id },
      },
    );
    expect(result.status).toBe(409);
    expect(result.errors?.[0]?.extensions).toMatchObject({ code: "CONFLICT", conflicts: [{ kind: "page", id: guide, title: "Guide" }] });
    expect(await snapshot(space)).toEqual(before);
  });

  it("needs review to merge: edit gets 403 and nothing changes, review merges", async () => {
    const { space, intro } = await spaceWithPages();
    const { data: changeRequest } = await api(members.edit.token).createChangeRequest(space, {});
    await updateMarkdown(space, intro, "by an editor\n", changeRequest.id, members.edit.token);
    const before = await snapshot(space);
    await expectRestError(api(members.edit.token).mergeChangeRequest(space, changeRequest.id), 403, "review");
    expect(await snapshot(space)).toEqual(before);
    await api(members.review.token).mergeChangeRequest(space, changeRequest.id);
    expect(await markdownIn(space, intro)).toBe("by an editor\n");
  });
});

describe("merging while others edit", () => {
  it("loses neither the merge nor live edits made at the same moment", async () => {
    const { space, intro, guide, faq } = await spaceWithPages();
    const { data: changeRequest } = await api().createChangeRequest(space, {});
    await updateMarkdown(space, intro, "intro from the change request\n", changeRequest.id);
    const live = [guide, faq].flatMap((page) => [1, 2].map((n) => ({ page, markdown: `${page} live ${n}\n` })));
    await Promise.all([
      api().mergeChangeRequest(space, changeRequest.id),
      ...live.map(({ page, markdown }) => updateMarkdown(space, page, markdown)),
    ]);
    expect(await markdownIn(space, intro)).toBe("intro from the change request\n");
    // Each page ends with one of its live edits, and every revision chains onto the one before.
    for (const page of [guide, faq]) expect(await markdownIn(space, page)).toMatch(new RegExp(`^${page} live [12]\n$`));
    const revisions = await prisma().revision.findMany({ where: { spaceId: space, changeRequestId: null } });
    const heads = new Set(revisions.flatMap((revision) => revision.parentIds));
    const unreferenced = revisions.filter((revision) => !heads.has(revision.id)).map((revision) => revision.id);
    expect(unreferenced).toEqual([await headOf(space)]);
  });
});

describe("updating from the space", () => {
  it("brings merged edits in, clears outdated, and keeps the change request's own edits", async () => {
    const { space, intro, faq } = await spaceWithPages();
    const { data: first } = await api().createChangeRequest(space, {});
    const { data: second } = await api().createChangeRequest(space, {});
    await updateMarkdown(space, intro, "intro from the first\n", first.id);
    await updateMarkdown(space, faq, "faq from the second\n", second.id);
    await api().mergeChangeRequest(space, first.id);
    expect((await api().getChangeRequestById(space, second.id)).data.outdated).toBe(true);

    const updated = await api().updateChangeRequest(space, second.id);
    expect(updated.data.result).toBe("update");
    const after = (await api().getChangeRequestById(space, second.id)).data;
    expect(after).toMatchObject({ outdated: false, revision: updated.data.revision, revisionMergedAncestor: await headOf(space) });
    expect(await markdownIn(space, intro, second.id)).toBe("intro from the first\n");
    expect(await markdownIn(space, faq, second.id)).toBe("faq from the second\n");

    // Nothing new in the space: updating again changes nothing.
    const again = await api().updateChangeRequest(space, second.id);
    expect(again.data.revision).toBe(updated.data.revision);

    await api().mergeChangeRequest(space, second.id);
    expect(await markdownIn(space, intro)).toBe("intro from the first\n");
    expect(await markdownIn(space, faq)).toBe("faq from the second\n");
  });

  it("refuses an update whose edits overlap the space's with 409, changing nothing", async () => {
    const { space, intro } = await spaceWithPages();
    const { data: changeRequest } = await api().createChangeRequest(space, {});
    await updateMarkdown(space, intro, "intro in the change request\n", changeRequest.id);
    await updateMarkdown(space, intro, "intro edited live\n");
    const before = await snapshot(space);
    await expectRestError(api().updateChangeRequest(space, changeRequest.id), 409, "Intro");
    expect(await snapshot(space)).toEqual(before);
    expect((await api().getChangeRequestById(space, changeRequest.id)).data.outdated).toBe(true);
  });

  it("combines page trees: pages added on both sides, one deleted in the space", async () => {
    const { space, faq } = await spaceWithPages();
    const { data: changeRequest } = await api().createChangeRequest(space, {});
    await createPage(space, "From the change request", "cr\n", changeRequest.id);
    await createPage(space, "From the space", "space\n");
    await gql(A.token, `mutation($input: DeletePageInput!) { deletePage(input: $input) { deletedPageId } }`, {
      input: { space, page: faq },
    });
    await api().updateChangeRequest(space, changeRequest.id);
    const titles = (await api().listPagesInChangeRequest(space, changeRequest.id)).data.pages.map((p) => p.title);
    // Where both sides added pages at the same place, the change request's come first.
    expect(titles).toEqual(["Intro", "Guide", "From the change request", "From the space"]);
  });
});

// ---------------------------------------------------------------------------------------------
// Permissions on every write
// ---------------------------------------------------------------------------------------------

describe("who may write", () => {
  const allowed = {
    create: ["edit", "review"],
    patch: ["edit", "review"],
    edit: ["edit", "review"],
    update: ["edit", "review"],
    merge: ["review"],
  } as const;

  it.each(["edit", "review", "comment", "read"] as const)("as %s: allowed or 403, and a refusal writes nothing", async (role) => {
    const token = members[role].token;
    const { space, intro } = await spaceWithPages();
    const { data: changeRequest } = await api().createChangeRequest(space, {});
    const attempts: Record<keyof typeof allowed, () => Promise<unknown>> = {
      create: () => api(token).createChangeRequest(space, { subject: role }),
      patch: () => api(token).updateChangeRequestById(space, changeRequest.id, { subject: role }),
      edit: async () => {
        const result = await server.graphql(token, UPDATE_PAGE, {
          input: { space, changeRequest: changeRequest.id, page: intro, markdown: `${role}\n` },
        });
        if (result.errors?.length) throw Object.assign(new Error(result.errors[0].message), { status: result.status });
      },
      update: () => api(token).updateChangeRequest(space, changeRequest.id),
      merge: () => api(token).mergeChangeRequest(space, changeRequest.id),
    };
    for (const [name, attempt] of Object.entries(attempts) as [keyof typeof allowed, () => Promise<unknown>][]) {
      const before = await snapshot(space);
      const outcome = await attempt().then(
        () => "allowed",
        (error) => error.code ?? error.status,
      );
      const expected = (allowed[name] as readonly string[]).includes(role) ? "allowed" : 403;
      expect(outcome, `${role} ${name}`).toBe(expected);
      if (expected === 403) expect(await snapshot(space), `${role} ${name} changed something`).toEqual(before);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Batching
// ---------------------------------------------------------------------------------------------

describe("N+1 guard", () => {
  const LIST = /* GraphQL */ `
    query($id: ID!, $first: Int) {
      space(id: $id) {
        changeRequestCount openChangeRequestCount
        changeRequests(first: $first, status: DRAFT) {
          totalCount
          nodes {
            id number subject outdated openCommentCount revision
            createdBy { id displayName }
            space { id title }
            content { id pages { id title } }
          }
        }
      }
    }`;

  it("lists 20 change requests with their authors, counters and content in as many statements as 2", async () => {
    const space = await newSpace();
    for (let i = 0; i < 20; i++) {
      const { data } = await api(i % 2 ? members.edit.token : A.token).createChangeRequest(space, { subject: `CR ${i}` });
      await createPage(space, `Page ${i}`, `text ${i}\n`, data.id);
    }
    const measure = async (first: number) => {
      const before = server.database.statementCount;
      const data = await gql(A.token, LIST, { id: space, first });
      return { statements: server.database.statementCount - before, nodes: data.space.changeRequests.nodes as any[] };
    };
    // Revisions are cached by id across requests: warm all 20 so both sizes read the same way.
    await measure(20);
    const small = await measure(2);
    const large = await measure(20);
    console.log(
      `N+1 guard (change requests, ${process.env.DATABASE_URL ? "postgresql" : "pglite"}): N=2 → ${small.statements} statements, N=20 → ${large.statements}`,
    );
    expect(large.nodes).toHaveLength(20);
    expect(new Set(large.nodes.map((node) => node.createdBy.id))).toEqual(new Set([A.userId, members.edit.userId]));
    expect(large.statements).toBe(small.statements);
  });
});
