// Change requests across an organization (issue 30: GET /orgs/{id}/change-requests answered 501):
// through the official client and raw REST (answers checked against the published schema) and
// GraphQL (`Organization.changeRequests`). Members with a role see every space's change requests,
// a guest those of the spaces granted to them, another organization's admin gets 404; deleted
// spaces are left out; the published filters (status list, creator, contributor, requested
// reviewer, site, space, topic, style guide run, finding) and orderBy; pages of a bounded size;
// bad parameters refused naming the field on both surfaces.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectGraphQLError, expectRawRestError, expectRestError, graphqlData, publishedRest } from "./support/expect.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let A: { organizationId: string; userId: string; token: string };
let B: { organizationId: string; userId: string; token: string };
let editor: { userId: string; token: string };
let reader: { userId: string; token: string };
let reviewer: { userId: string; token: string };
let guest: { userId: string; token: string };
let spaces: { one: string; two: string; gone: string; foreign: string };
let site: string;
/** Change request ids by subject. */
const cr: Record<string, string> = {};

const gql = <T = any>(token: string, query: string, variables?: Record<string, unknown>) => graphqlData<T>(server, token, query, variables);
const client = (token = A.token) => server.client(token);
const prisma = () => server.database.prisma;
const path = (query = "") => `/v1/orgs/${A.organizationId}/change-requests${query}`;
const subjects = (body: { items: { subject?: string }[] }) => body.items.map((item) => item.subject);

async function newSpace(token: string, organization: string, title: string): Promise<string> {
  const data = await gql(token, `mutation($input: CreateSpaceInput!) { createSpace(input: $input) { space { id } } }`, {
    input: { organization, title },
  });
  return data.createSpace.space.id;
}

/** Opens a change request with fixed dates, so the expected order is written here, not read back. */
async function open(space: string, subject: string, status: "open" | "draft", created: string, updated: string, token = A.token) {
  const { data } = await client(token).spaces.createChangeRequest(space, { subject });
  if (status === "open") await client(token).spaces.updateChangeRequestById(space, data.id, { status: "open" });
  await prisma().changeRequest.update({ where: { id: data.id }, data: { createdAt: new Date(created), updatedAt: new Date(updated) } });
  cr[subject] = data.id;
}

beforeAll(async () => {
  server = await startTestServer();
  A = await server.bootstrap("Org change requests A");
  B = await server.bootstrap("Org change requests B");
  editor = await server.addMember(A.organizationId, "edit");
  reader = await server.addMember(A.organizationId, "read");
  reviewer = await server.addMember(A.organizationId, "review");
  guest = await server.addMember(A.organizationId, null);
  spaces = {
    one: await newSpace(A.token, A.organizationId, "One"),
    two: await newSpace(A.token, A.organizationId, "Two"),
    gone: await newSpace(A.token, A.organizationId, "Gone"),
    foreign: await newSpace(B.token, B.organizationId, "Foreign"),
  };
  // Created in this order, updated in another: updatedAt order Delta, Alpha, Charlie, Bravo.
  await open(spaces.one, "Alpha", "open", "2026-01-01T00:00:00Z", "2026-03-03T00:00:00Z");
  await open(spaces.one, "Bravo", "draft", "2026-01-02T00:00:00Z", "2026-03-01T00:00:00Z");
  await open(spaces.two, "Charlie", "open", "2026-01-03T00:00:00Z", "2026-03-02T00:00:00Z", editor.token);
  await open(spaces.two, "Delta", "open", "2026-01-04T00:00:00Z", "2026-03-04T00:00:00Z");
  await open(spaces.gone, "Echo", "open", "2026-01-05T00:00:00Z", "2026-03-05T00:00:00Z");
  await open(spaces.foreign, "Foxtrot", "open", "2026-01-06T00:00:00Z", "2026-03-06T00:00:00Z", B.token);
  await client(editor.token).spaces.requestReviewersForChangeRequest(spaces.two, cr.Charlie, { users: [reviewer.userId] });
  // Asking for a review may touch the change request: its dates are set again.
  await prisma().changeRequest.update({ where: { id: cr.Charlie }, data: { updatedAt: new Date("2026-03-02T00:00:00Z") } });
  await client().spaces.deleteSpaceById(spaces.gone);
  await client().spaces.inviteToSpace(spaces.two, { role: "read" as never, users: [guest.userId] });
  site = (await client().orgs.createSite(A.organizationId, { title: "Docs", spaces: [spaces.two] })).data.id;
});

afterAll(async () => {
  await server?.close();
});

describe("GET /orgs/{organizationId}/change-requests", () => {
  it("lists the open change requests of every readable space, newest update first, in the published shape", async () => {
    const { data } = await client(reader.token).orgs.listChangeRequestsForOrganization(A.organizationId);
    expect(subjects(data)).toEqual(["Delta", "Alpha", "Charlie"]);
    expect(data.count).toBe(3);
    expect(data.items[0]).toMatchObject({ object: "change-request", id: cr.Delta, status: "open", createdBy: { id: A.userId } });
    expect(data.items[2]).toMatchObject({ id: cr.Charlie, createdBy: { id: editor.userId } });
    const raw = await publishedRest(server, reader.token, "GET", path());
    expect(subjects(raw.body)).toEqual(["Delta", "Alpha", "Charlie"]);
  });

  it("takes a list of statuses, repeated or comma-separated, and orders by creation when asked", async () => {
    const { data } = await client().orgs.listChangeRequestsForOrganization(A.organizationId, { status: ["draft", "open"] as never });
    expect(subjects(data)).toEqual(["Delta", "Alpha", "Charlie", "Bravo"]);
    const comma = await publishedRest(server, A.token, "GET", path("?status=draft,open&orderBy=createdAt"));
    expect(subjects(comma.body)).toEqual(["Delta", "Charlie", "Bravo", "Alpha"]);
    const drafts = await publishedRest(server, A.token, "GET", path("?status=draft"));
    expect(subjects(drafts.body)).toEqual(["Bravo"]);
    const merged = await publishedRest(server, A.token, "GET", path("?status=merged"));
    expect(merged.body).toMatchObject({ items: [], count: 0 });
  });

  it("filters by space, site, creator, contributor and requested reviewer", async () => {
    const list = async (query: string) => subjects((await publishedRest(server, A.token, "GET", path(query))).body);
    expect(await list(`?space=${spaces.one}&status=open,draft`)).toEqual(["Alpha", "Bravo"]);
    expect(await list(`?site=${site}`)).toEqual(["Delta", "Charlie"]);
    expect(await list(`?creator=${editor.userId}`)).toEqual(["Charlie"]);
    expect(await list(`?contributor=${editor.userId}`)).toEqual(["Charlie"]);
    expect(await list(`?requestedReviewer=${reviewer.userId}`)).toEqual(["Charlie"]);
    expect(await list(`?finding=all`)).toEqual(["Delta", "Alpha", "Charlie"]);
    expect(await list(`?finding=none`)).toEqual(["Delta", "Alpha", "Charlie"]);
  });

  it("matches nothing for a deleted, unknown or another organization's space or site, a topic or a style guide run", async () => {
    const list = async (query: string) => (await publishedRest(server, A.token, "GET", path(query))).body;
    for (const query of [
      `?space=${spaces.gone}`,
      `?space=${spaces.foreign}`,
      "?space=nope",
      "?site=nope",
      "?topic=pricing",
      "?styleguideRun=run-1",
    ]) {
      expect(await list(query), query).toMatchObject({ items: [], count: 0 });
    }
  });

  it("shows a guest only the change requests of the spaces granted to them", async () => {
    const { data } = await client(guest.token).orgs.listChangeRequestsForOrganization(A.organizationId);
    expect(subjects(data)).toEqual(["Delta", "Charlie"]);
    const filtered = await client(guest.token).orgs.listChangeRequestsForOrganization(A.organizationId, { space: spaces.one });
    expect(filtered.data.items).toEqual([]);
  });

  it("pages through the list with next cursors and a bounded size", async () => {
    const first = await publishedRest(server, A.token, "GET", path("?status=open,draft&limit=3"));
    expect(subjects(first.body)).toEqual(["Delta", "Alpha", "Charlie"]);
    expect(first.body.count).toBe(4);
    expect(first.body.next.page).toEqual(expect.any(String));
    const second = await publishedRest(server, A.token, "GET", path(`?status=open,draft&limit=3&page=${first.body.next.page}`));
    expect(subjects(second.body)).toEqual(["Bravo"]);
    expect(second.body.next).toBeUndefined();
    await expectRawRestError(server, A.token, "GET", path("?limit=1001"), undefined, 400, "limit");
  });

  it("answers 404 to another organization's admin and for an unknown organization, 401 without a token", async () => {
    await expectRestError(client(B.token).orgs.listChangeRequestsForOrganization(A.organizationId), 404);
    await expectRestError(client().orgs.listChangeRequestsForOrganization("no-such-org"), 404);
    const anonymous = await server.rest(undefined, "GET", path());
    expect(anonymous.status).toBe(401);
  });

  it("refuses bad parameters naming the field, on REST and GraphQL", async () => {
    await expectRawRestError(server, A.token, "GET", path("?status=closed"), undefined, 400, "status");
    await expectRawRestError(server, A.token, "GET", path(`?status=${Array(11).fill("open").join(",")}`), undefined, 400, "status");
    await expectRawRestError(server, A.token, "GET", path("?orderBy=title"), undefined, 400, "orderBy");
    await expectRawRestError(server, A.token, "GET", path("?finding=some"), undefined, 400, "finding");
    await expectRawRestError(server, A.token, "GET", path(`?creator=${"x".repeat(201)}`), undefined, 400, "creator");
    await expectRawRestError(server, A.token, "GET", path(`?site=${"x".repeat(201)}`), undefined, 400, "site");
    await expectRawRestError(server, A.token, "GET", path("?page=garbage"), undefined, 400, "page");
    const query = `query($id: ID!, $space: ID, $status: [ChangeRequestStatus!]) {
      organization(id: $id) { changeRequests(space: $space, status: $status) { totalCount } }
    }`;
    expectGraphQLError(await server.graphql(A.token, query, { id: A.organizationId, status: ["CLOSED"] }), "VALIDATION", "CLOSED");
    expectGraphQLError(await server.graphql(A.token, query, { id: A.organizationId, space: "" }), "BAD_REQUEST", "space");
  });

  it("is the same list in GraphQL", async () => {
    const data = await gql(
      A.token,
      `query($id: ID!) { organization(id: $id) {
        changeRequests(status: [OPEN, DRAFT], orderBy: CREATED_AT, first: 2) { totalCount nodes { subject space { id } } }
      } }`,
      { id: A.organizationId },
    );
    expect(data.organization.changeRequests).toEqual({
      totalCount: 4,
      nodes: [
        { subject: "Delta", space: { id: spaces.two } },
        { subject: "Charlie", space: { id: spaces.two } },
      ],
    });
  });
});
