// Collections through HTTP, on both surfaces: the eight /v1 collection routes and the GraphQL
// `collection`, `organization.collections`, `node(s)` and the collection mutations. Covers the
// limits, permissions (read member, guest with and without a grant), isolation between
// organizations and concurrent structural writes.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import { randomBytes } from "node:crypto";
import { GitBookAPIError, type MemberRole } from "@gitbook/api";
import { startTestServer, type TestServer } from "./support/server.ts";
import { expectGraphQLError, expectRawRestError as expectRawRestErrorOn, expectRestError, graphqlData } from "./support/expect.ts";

let server: TestServer;

interface Principal {
  organizationId: string;
  userId: string;
  token: string;
}

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/** A role as the client's types spell it (MemberRole is a type-only enum). */
const role = (value: string) => value as MemberRole;
const api = (token: string) => server.client(token);

let titles = 0;
async function newCollection(token: string, organizationId: string, body: { title?: string; parent?: string } = {}) {
  const { data } = await api(token).orgs.createCollection(organizationId, { title: `Collection ${++titles}`, ...body });
  return data;
}

async function newSpace(token: string, organizationId: string, parent?: string) {
  const { data } = await api(token).orgs.createSpace(organizationId, { title: `Space ${++titles}`, ...(parent ? { parent } : {}) });
  return data;
}

const gql = <T = any>(token: string, query: string, variables?: Record<string, unknown>) => graphqlData<T>(server, token, query, variables);
const expectRawRestError = (token: string, method: string, path: string, body: unknown, status: number, mentions?: string) =>
  expectRawRestErrorOn(server, token, method, path, body, status, mentions);

const prisma = () => server.database.prisma;
const dbCollection = (id: string) => prisma().collection.findUnique({ where: { id } });
const dbSpace = (id: string) => prisma().space.findUniqueOrThrow({ where: { id } });

/** Every collection, space and grant row, to check that a refused request changed nothing. */
async function snapshot() {
  const [collections, spaces, grants] = await Promise.all([
    prisma().collection.findMany({ orderBy: { id: "asc" } }),
    prisma().space.findMany({ orderBy: { id: "asc" } }),
    prisma().permissionGrant.findMany({ orderBy: { id: "asc" } }),
  ]);
  return { collections, spaces, grants };
}

async function expectNothingChanged(attempt: () => Promise<void>) {
  const before = await snapshot();
  await attempt();
  expect(await snapshot()).toEqual(before);
}

/** Ids of the collections directly inside `collectionId`, in their order (GraphQL). */
async function childIds(token: string, collectionId: string): Promise<string[]> {
  const data = await gql(token, `query($id: ID!) { collection(id: $id) { collections(first: 100) { nodes { id } } } }`, {
    id: collectionId,
  });
  return data.collection.collections.nodes.map((node: { id: string }) => node.id);
}

/** Walks the parents of `id` in the database; throws if the walk revisits a collection. */
async function ancestorsOf(id: string): Promise<string[]> {
  const seen: string[] = [];
  let current = await dbCollection(id);
  while (current?.parentId) {
    if (seen.includes(current.parentId) || current.parentId === id) throw new Error(`cycle through ${current.parentId}`);
    seen.push(current.parentId);
    current = await dbCollection(current.parentId);
  }
  return seen;
}

async function grant(organizationId: string, collectionId: string, userId: string, grantedRole: string) {
  await prisma().permissionGrant.create({
    data: { id: `grt_${randomBytes(12).toString("base64url")}`, organizationId, collectionId, userId, role: grantedRole },
  });
}

const FIELDS = /* GraphQL */ `
  fragment F on Collection {
    id title description defaultLevel
    organization { id }
    parent { id }
    permissions { view admin viewInviteLinks create }
  }`;
const GET = `query($id: ID!) { collection(id: $id) { ...F } } ${FIELDS}`;
const CREATE = `mutation($input: CreateCollectionInput!) { createCollection(input: $input) { collection { ...F } } } ${FIELDS}`;
const UPDATE = `mutation($input: UpdateCollectionInput!) { updateCollection(input: $input) { collection { ...F } } } ${FIELDS}`;
const DELETE = `mutation($id: ID!) { deleteCollection(input: { id: $id }) { deletedCollectionId } }`;
const MOVE = `mutation($input: MoveCollectionInput!) { moveCollection(input: $input) { collection { ...F } } } ${FIELDS}`;
const TRANSFER = `mutation($input: TransferCollectionInput!) { transferCollection(input: $input) { collection { ...F } } } ${FIELDS}`;
const ORG_COLLECTIONS = /* GraphQL */ `
  query($id: ID!, $nested: Boolean) {
    organization(id: $id) { collections(first: 100, nested: $nested) { totalCount nodes { id } } }
  }`;

const before = (collection: string) => ({ before: { type: "collection" as const, collection } });
const after = (collection: string) => ({ after: { type: "collection" as const, collection } });

// ---------------------------------------------------------------------------
// Fixtures: Alpha (admin alice, a read member, a guest), Beta (another admin, foreign to Alpha),
// Target (alice is admin too) and ReadOnlyTarget (alice is a read member).
// ---------------------------------------------------------------------------

let alpha: Principal;
let beta: Principal;
let target: Principal;
let readOnlyTarget: Principal;
let reader: { userId: string; token: string };
let guest: { userId: string; token: string };

beforeAll(async () => {
  server = await startTestServer();
  alpha = await server.bootstrap("Alpha");
  beta = await server.bootstrap("Beta");
  target = await server.bootstrap("Target");
  readOnlyTarget = await server.bootstrap("Read-only target");
  await prisma().member.create({ data: { organizationId: target.organizationId, userId: alpha.userId, role: "admin" } });
  await prisma().member.create({ data: { organizationId: readOnlyTarget.organizationId, userId: alpha.userId, role: "read" } });
  reader = await server.addMember(alpha.organizationId, "read");
  guest = await server.addMember(alpha.organizationId, null);
});

afterAll(async () => {
  await server?.close();
});

// ---------------------------------------------------------------------------

describe("POST /v1/orgs/{organizationId}/collections", () => {
  it("creates a top-level collection (201) and a nested one, on both surfaces", async () => {
    const response = await api(alpha.token).orgs.createCollection(alpha.organizationId, { title: "Guides" });
    expect(response.status).toBe(201);
    const top = response.data;
    expect(top).toMatchObject({
      object: "collection",
      title: "Guides",
      organization: alpha.organizationId,
      defaultLevel: null,
      permissions: { view: true, admin: true, viewInviteLinks: true, create: true },
      urls: { location: `${server.url}/v1/collections/${top.id}` },
    });
    expect(top.parent).toBeUndefined();
    expect(await dbCollection(top.id)).toMatchObject({ organizationId: alpha.organizationId, parentId: null, title: "Guides" });

    const nested = await newCollection(alpha.token, alpha.organizationId, { title: "Nested", parent: top.id });
    expect(nested.parent).toBe(top.id);
    expect((await dbCollection(nested.id))?.parentId).toBe(top.id);

    const { createCollection } = await gql(alpha.token, CREATE, {
      input: { organization: alpha.organizationId, title: "Via GraphQL", parent: nested.id },
    });
    expect(createCollection.collection).toMatchObject({
      title: "Via GraphQL",
      parent: { id: nested.id },
      organization: { id: alpha.organizationId },
    });
    expect((await dbCollection(createCollection.collection.id))?.parentId).toBe(nested.id);
  });

  it("names an untitled collection 'Untitled'", async () => {
    const { data } = await api(alpha.token).orgs.createCollection(alpha.organizationId, {});
    expect(data.title).toBe("Untitled");
  });

  it("accepts a 50-character title and refuses 51 with 400 naming title; nothing is created", async () => {
    expect((await newCollection(alpha.token, alpha.organizationId, { title: "t".repeat(50) })).title).toBe("t".repeat(50));
    await expectNothingChanged(async () => {
      await expectRestError(api(alpha.token).orgs.createCollection(alpha.organizationId, { title: "t".repeat(51) }), 400, "title");
      expectGraphQLError(
        await server.graphql(alpha.token, CREATE, { input: { organization: alpha.organizationId, title: "t".repeat(51) } }),
        "BAD_REQUEST",
        "title",
      );
      await expectRawRestError(alpha.token, "POST", `/v1/orgs/${alpha.organizationId}/collections`, { title: 7 }, 400, "title");
    });
  });

  it("refuses a parent in another organization, or unknown, with 400 naming parent; nothing is created", async () => {
    const foreign = await newCollection(beta.token, beta.organizationId);
    await expectNothingChanged(async () => {
      for (const parent of [foreign.id, "col_doesnotexist"]) {
        await expectRestError(api(alpha.token).orgs.createCollection(alpha.organizationId, { title: "X", parent }), 400, "parent");
        expectGraphQLError(
          await server.graphql(alpha.token, CREATE, { input: { organization: alpha.organizationId, title: "X", parent } }),
          "BAD_REQUEST",
          "parent",
        );
      }
    });
  });

  it("refuses a read member and a guest (403), and an admin of another organization (404)", async () => {
    await expectNothingChanged(async () => {
      for (const member of [reader, guest]) {
        await expectRestError(api(member.token).orgs.createCollection(alpha.organizationId, { title: "No" }), 403);
        expectGraphQLError(await server.graphql(member.token, CREATE, { input: { organization: alpha.organizationId } }), "FORBIDDEN");
      }
      await expectRestError(api(beta.token).orgs.createCollection(alpha.organizationId, { title: "No" }), 404);
      expectGraphQLError(await server.graphql(beta.token, CREATE, { input: { organization: alpha.organizationId } }), "NOT_FOUND");
    });
  });
});

describe("GET /v1/collections/{collectionId}", () => {
  it("returns the collection, on both surfaces", async () => {
    const parent = await newCollection(alpha.token, alpha.organizationId, { title: "Parent" });
    const child = await newCollection(alpha.token, alpha.organizationId, { title: "Child", parent: parent.id });

    const { data } = await api(alpha.token).collections.getCollectionById(child.id);
    expect(data).toEqual(child);
    expect(data).toMatchObject({ id: child.id, title: "Child", parent: parent.id, organization: alpha.organizationId });

    const { collection } = await gql(alpha.token, GET, { id: child.id });
    expect(collection).toMatchObject({ id: child.id, title: "Child", parent: { id: parent.id }, defaultLevel: null });
  });

  it("answers 404 / NOT_FOUND for an unknown id", async () => {
    await expectRestError(api(alpha.token).collections.getCollectionById("col_doesnotexist"), 404);
    expectGraphQLError(await server.graphql(alpha.token, GET, { id: "col_doesnotexist" }), "NOT_FOUND");
  });
});

describe("PATCH /v1/collections/{collectionId}", () => {
  it("updates title, description and defaultLevel; 'inherit' and null inherit; null removes the description", async () => {
    const c = await newCollection(alpha.token, alpha.organizationId);
    const { data } = await api(alpha.token).collections.updateCollectionById(c.id, {
      title: "t".repeat(50),
      description: "d".repeat(100),
      defaultLevel: role("edit"),
    });
    expect(data).toMatchObject({ title: "t".repeat(50), description: "d".repeat(100), defaultLevel: "edit" });
    expect(await dbCollection(c.id)).toMatchObject({ title: "t".repeat(50), description: "d".repeat(100), defaultLevel: "edit" });

    expect((await api(alpha.token).collections.updateCollectionById(c.id, { defaultLevel: "inherit" })).data.defaultLevel).toBeNull();
    expect((await dbCollection(c.id))?.defaultLevel).toBeNull();

    await api(alpha.token).collections.updateCollectionById(c.id, { defaultLevel: role("read") });
    expect((await api(alpha.token).collections.updateCollectionById(c.id, { defaultLevel: null })).data.defaultLevel).toBeNull();
    expect((await dbCollection(c.id))?.defaultLevel).toBeNull();

    const cleared = await server.rest(alpha.token, "PATCH", `/v1/collections/${c.id}`, { description: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.description).toBeUndefined();
    expect((await dbCollection(c.id))?.description).toBeNull();
    // Absent fields are unchanged.
    expect((await dbCollection(c.id))?.title).toBe("t".repeat(50));
  });

  it("updates through GraphQL; title: null leaves the title unchanged", async () => {
    const c = await newCollection(alpha.token, alpha.organizationId, { title: "Kept" });
    const { updateCollection } = await gql(alpha.token, UPDATE, {
      input: { id: c.id, title: null, description: "About", defaultLevel: "COMMENT" },
    });
    expect(updateCollection.collection).toMatchObject({ title: "Kept", description: "About", defaultLevel: "COMMENT" });
    expect(await dbCollection(c.id)).toMatchObject({ title: "Kept", description: "About", defaultLevel: "comment" });

    const reset = await gql(alpha.token, UPDATE, { input: { id: c.id, defaultLevel: null, description: null } });
    expect(reset.updateCollection.collection).toMatchObject({ defaultLevel: null, description: null });
    expect(await dbCollection(c.id)).toMatchObject({ defaultLevel: null, description: null });
  });

  it("refuses title > 50, description > 100 and a bogus defaultLevel with 400 naming the field; nothing changes", async () => {
    const c = await newCollection(alpha.token, alpha.organizationId);
    const path = `/v1/collections/${c.id}`;
    await expectNothingChanged(async () => {
      await expectRestError(api(alpha.token).collections.updateCollectionById(c.id, { title: "t".repeat(51) }), 400, "title");
      await expectRestError(api(alpha.token).collections.updateCollectionById(c.id, { description: "d".repeat(101) }), 400, "description");
      await expectRawRestError(alpha.token, "PATCH", path, { defaultLevel: "owner" }, 400, "defaultLevel");
      await expectRawRestError(alpha.token, "PATCH", path, { defaultLevel: 5 }, 400, "defaultLevel");
      // A valid field next to an invalid one is not applied either.
      await expectRawRestError(alpha.token, "PATCH", path, { title: "Fine", description: "d".repeat(101) }, 400, "description");

      expectGraphQLError(await server.graphql(alpha.token, UPDATE, { input: { id: c.id, title: "t".repeat(51) } }), "BAD_REQUEST", "title");
      expectGraphQLError(
        await server.graphql(alpha.token, UPDATE, { input: { id: c.id, description: "d".repeat(101) } }),
        "BAD_REQUEST",
        "description",
      );
      expectGraphQLError(
        await server.graphql(alpha.token, UPDATE, { input: { id: c.id, defaultLevel: "OWNER" } }),
        "VALIDATION",
        "defaultLevel",
      );
    });
  });

  it("answers 404 for an unknown collection", async () => {
    await expectRestError(api(alpha.token).collections.updateCollectionById("col_doesnotexist", { title: "X" }), 404);
  });
});

describe("GET /v1/orgs/{organizationId}/collections", () => {
  let org: Principal;
  let top1: string, top2: string, child: string, grandchild: string;

  beforeAll(async () => {
    org = await server.bootstrap("Listing");
    top1 = (await newCollection(org.token, org.organizationId)).id;
    top2 = (await newCollection(org.token, org.organizationId)).id;
    child = (await newCollection(org.token, org.organizationId, { parent: top1 })).id;
    grandchild = (await newCollection(org.token, org.organizationId, { parent: child })).id;
  });

  it("lists nested collections by default and with nested=true, only top-level ones with nested=false", async () => {
    const all = [top1, top2, child, grandchild].sort();
    const byDefault = await api(org.token).orgs.listCollectionsInOrganizationById(org.organizationId);
    expect(byDefault.data.items.map((c) => c.id).sort()).toEqual(all);
    expect(byDefault.data.count).toBe(4);

    const nested = await api(org.token).orgs.listCollectionsInOrganizationById(org.organizationId, { nested: true });
    expect(nested.data.items.map((c) => c.id).sort()).toEqual(all);

    const topLevel = await api(org.token).orgs.listCollectionsInOrganizationById(org.organizationId, { nested: false });
    expect(topLevel.data.items.map((c) => c.id).sort()).toEqual([top1, top2].sort());
    expect(topLevel.data.count).toBe(2);

    const graphql = await gql(org.token, ORG_COLLECTIONS, { id: org.organizationId, nested: false });
    expect(graphql.organization.collections.totalCount).toBe(2);
    expect(graphql.organization.collections.nodes.map((c: { id: string }) => c.id).sort()).toEqual([top1, top2].sort());
    const graphqlAll = await gql(org.token, ORG_COLLECTIONS, { id: org.organizationId });
    expect(graphqlAll.organization.collections.totalCount).toBe(4);
  });

  it("pages with limit and next.page, without repeating or skipping", async () => {
    const seen: string[] = [];
    let page: string | undefined;
    for (let i = 0; i < 4; i++) {
      const { data } = await api(org.token).orgs.listCollectionsInOrganizationById(org.organizationId, { limit: 1, page });
      expect(data.count).toBe(4);
      seen.push(...data.items.map((c) => c.id));
      page = data.next?.page;
      if (i < 3) expect(page).toEqual(expect.any(String));
    }
    expect(page).toBeUndefined();
    expect(seen.sort()).toEqual([top1, top2, child, grandchild].sort());
  });

  it("refuses a nested value that is not a boolean and a limit over 1000 with 400", async () => {
    await expectRawRestError(org.token, "GET", `/v1/orgs/${org.organizationId}/collections?nested=maybe`, undefined, 400, "nested");
    await expectRestError(api(org.token).orgs.listCollectionsInOrganizationById(org.organizationId, { limit: 1001 }), 400, "limit");
  });
});

describe("GET /v1/collections/{collectionId}/spaces", () => {
  it("lists the spaces directly inside the collection, in order, on both surfaces", async () => {
    const c = await newCollection(alpha.token, alpha.organizationId);
    const sub = await newCollection(alpha.token, alpha.organizationId, { parent: c.id });
    const s1 = await newSpace(alpha.token, alpha.organizationId, c.id);
    const s2 = await newSpace(alpha.token, alpha.organizationId, c.id);
    await newSpace(alpha.token, alpha.organizationId, sub.id); // beneath, not directly inside
    await newSpace(alpha.token, alpha.organizationId); // top level

    const { data } = await api(alpha.token).collections.listSpacesInCollectionById(c.id);
    expect(data.items.map((s) => s.id)).toEqual([s1.id, s2.id]);
    expect(data.count).toBe(2);
    expect(data.items[0]).toMatchObject({ object: "space", parent: c.id, organization: alpha.organizationId });

    const first = await api(alpha.token).collections.listSpacesInCollectionById(c.id, { limit: 1 });
    expect(first.data.items.map((s) => s.id)).toEqual([s1.id]);
    const second = await api(alpha.token).collections.listSpacesInCollectionById(c.id, { limit: 1, page: first.data.next!.page });
    expect(second.data.items.map((s) => s.id)).toEqual([s2.id]);
    expect(second.data.next).toBeUndefined();

    const graphql = await gql(alpha.token, `query($id: ID!) { collection(id: $id) { spaces { totalCount nodes { id } } } }`, { id: c.id });
    expect(graphql.collection.spaces.totalCount).toBe(2);
    expect(graphql.collection.spaces.nodes.map((s: { id: string }) => s.id)).toEqual([s1.id, s2.id]);

    // A deleted space leaves the list.
    await api(alpha.token).spaces.deleteSpaceById(s1.id);
    const afterDelete = await api(alpha.token).collections.listSpacesInCollectionById(c.id);
    expect(afterDelete.data.items.map((s) => s.id)).toEqual([s2.id]);
    expect(afterDelete.data.count).toBe(1);
  });

  it("answers 404 for an unknown collection", async () => {
    await expectRestError(api(alpha.token).collections.listSpacesInCollectionById("col_doesnotexist"), 404);
  });
});

describe("POST /v1/collections/{collectionId}/move", () => {
  /** A parent with three children, in order. */
  async function family() {
    const parent = await newCollection(alpha.token, alpha.organizationId, { title: "Family" });
    const [x, y, z] = [
      await newCollection(alpha.token, alpha.organizationId, { parent: parent.id }),
      await newCollection(alpha.token, alpha.organizationId, { parent: parent.id }),
      await newCollection(alpha.token, alpha.organizationId, { parent: parent.id }),
    ];
    return { parent: parent.id, x: x.id, y: y.id, z: z.id };
  }

  it("moves a collection under a new parent, last among its children", async () => {
    const f = await family();
    const loose = await newCollection(alpha.token, alpha.organizationId);
    const { data } = await api(alpha.token).collections.moveCollection(loose.id, { parent: f.parent });
    expect(data.parent).toBe(f.parent);
    expect((await dbCollection(loose.id))?.parentId).toBe(f.parent);
    expect(await childIds(alpha.token, f.parent)).toEqual([f.x, f.y, f.z, loose.id]);
  });

  it("parent: null moves a collection to the top level", async () => {
    const f = await family();
    const { data } = await api(alpha.token).collections.moveCollection(f.y, { parent: null });
    expect(data.parent).toBeUndefined();
    expect((await dbCollection(f.y))?.parentId).toBeNull();
    expect(await childIds(alpha.token, f.parent)).toEqual([f.x, f.z]);
  });

  it("reorders siblings with position before and after", async () => {
    const f = await family();
    await api(alpha.token).collections.moveCollection(f.z, { position: before(f.x) });
    expect(await childIds(alpha.token, f.parent)).toEqual([f.z, f.x, f.y]);

    await api(alpha.token).collections.moveCollection(f.z, { position: after(f.x) });
    expect(await childIds(alpha.token, f.parent)).toEqual([f.x, f.z, f.y]);

    await api(alpha.token).collections.moveCollection(f.x, { position: after(f.y) });
    expect(await childIds(alpha.token, f.parent)).toEqual([f.z, f.y, f.x]);

    // Through GraphQL, with parent and position together.
    const { moveCollection } = await gql(alpha.token, MOVE, { input: { id: f.x, parent: f.parent, position: { before: f.z } } });
    expect(moveCollection.collection.parent).toEqual({ id: f.parent });
    expect(await childIds(alpha.token, f.parent)).toEqual([f.x, f.z, f.y]);
  });

  it("orders collections and spaces together: a space can be the reference", async () => {
    const parent = await newCollection(alpha.token, alpha.organizationId);
    const space = await newSpace(alpha.token, alpha.organizationId, parent.id);
    const c = await newCollection(alpha.token, alpha.organizationId, { parent: parent.id });
    expect((await dbCollection(c.id))!.sortKey > (await dbSpace(space.id)).sortKey).toBe(true);

    await api(alpha.token).collections.moveCollection(c.id, { position: { before: { type: "space", space: space.id } } });
    expect((await dbCollection(c.id))!.sortKey < (await dbSpace(space.id)).sortKey).toBe(true);
  });

  it("a position alone moves the collection into the parent of its reference", async () => {
    const f = await family();
    const other = await family();
    const { data } = await api(alpha.token).collections.moveCollection(f.x, { position: after(other.y) });
    expect(data.parent).toBe(other.parent);
    expect(await childIds(alpha.token, other.parent)).toEqual([other.x, other.y, f.x, other.z]);
    expect(await childIds(alpha.token, f.parent)).toEqual([f.y, f.z]);
  });

  it("refuses moving a collection under itself or one of its descendants with 400; nothing changes", async () => {
    const f = await family();
    const grandchild = await newCollection(alpha.token, alpha.organizationId, { parent: f.x });
    await expectNothingChanged(async () => {
      for (const parent of [f.parent, f.x, grandchild.id]) {
        await expectRestError(api(alpha.token).collections.moveCollection(f.parent, { parent }), 400, "parent");
        expectGraphQLError(await server.graphql(alpha.token, MOVE, { input: { id: f.parent, parent } }), "BAD_REQUEST", "parent");
      }
      // Through a position whose reference lies beneath the collection.
      await expectRestError(api(alpha.token).collections.moveCollection(f.parent, { position: before(grandchild.id) }), 400);
      expectGraphQLError(await server.graphql(alpha.token, MOVE, { input: { id: f.parent, position: { after: f.y } } }), "BAD_REQUEST");
    });
  });

  it("refuses bad parents and positions with 400 naming the field; nothing changes", async () => {
    const f = await family();
    const other = await family();
    const foreign = await newCollection(beta.token, beta.organizationId);
    const path = `/v1/collections/${f.x}/move`;
    await expectNothingChanged(async () => {
      // Neither parent nor position.
      await expectRawRestError(alpha.token, "POST", path, {}, 400, "parent");
      expectGraphQLError(await server.graphql(alpha.token, MOVE, { input: { id: f.x } }), "BAD_REQUEST", "parent");
      // A parent of another organization, or unknown.
      for (const parent of [foreign.id, "col_doesnotexist"]) {
        await expectRestError(api(alpha.token).collections.moveCollection(f.x, { parent }), 400, "parent");
        expectGraphQLError(await server.graphql(alpha.token, MOVE, { input: { id: f.x, parent } }), "BAD_REQUEST", "parent");
      }
      // A reference that is not inside the given parent.
      await expectRestError(
        api(alpha.token).collections.moveCollection(f.x, { parent: f.parent, position: before(other.y) }),
        400,
        "position.before",
      );
      expectGraphQLError(
        await server.graphql(alpha.token, MOVE, { input: { id: f.x, parent: f.parent, position: { after: other.y } } }),
        "BAD_REQUEST",
        "position.after",
      );
      // Unknown reference, and before and after together.
      await expectRestError(
        api(alpha.token).collections.moveCollection(f.x, { position: before("col_doesnotexist") }),
        400,
        "position.before",
      );
      await expectRestError(
        api(alpha.token).collections.moveCollection(f.x, { position: { ...before(f.y), ...after(f.z) } }),
        400,
        "position",
      );
      expectGraphQLError(
        await server.graphql(alpha.token, MOVE, { input: { id: f.x, position: { before: f.y, after: f.z } } }),
        "BAD_REQUEST",
        "position",
      );
      // Wrong types.
      await expectRawRestError(alpha.token, "POST", path, { parent: 12 }, 400, "parent");
    });
  });

  it("answers 404 for an unknown collection", async () => {
    await expectRestError(api(alpha.token).collections.moveCollection("col_doesnotexist", { parent: null }), 404);
  });
});

describe("POST /v1/collections/{collectionId}/transfer", () => {
  it("moves the collection, its sub-collections and their spaces to the top level of the target", async () => {
    const container = await newCollection(alpha.token, alpha.organizationId, { title: "Container" });
    const sibling = await newCollection(alpha.token, alpha.organizationId, { parent: container.id });
    const moved = await newCollection(alpha.token, alpha.organizationId, { parent: container.id, title: "Moved" });
    const sub = await newCollection(alpha.token, alpha.organizationId, { parent: moved.id });
    const s1 = await newSpace(alpha.token, alpha.organizationId, moved.id);
    const s2 = await newSpace(alpha.token, alpha.organizationId, sub.id);
    await grant(alpha.organizationId, moved.id, guest.userId, "read");

    const { data } = await api(alpha.token).collections.transferCollection(moved.id, { organization: target.organizationId });
    expect(data).toMatchObject({ id: moved.id, title: "Moved", organization: target.organizationId });
    expect(data.parent).toBeUndefined();

    expect(await dbCollection(moved.id)).toMatchObject({ organizationId: target.organizationId, parentId: null });
    expect(await dbCollection(sub.id)).toMatchObject({ organizationId: target.organizationId, parentId: moved.id });
    expect(await dbSpace(s1.id)).toMatchObject({ organizationId: target.organizationId, parentId: moved.id });
    expect(await dbSpace(s2.id)).toMatchObject({ organizationId: target.organizationId, parentId: sub.id });
    // Grants name members of the old organization: they do not travel.
    expect(await prisma().permissionGrant.count({ where: { collectionId: moved.id } })).toBe(0);
    // What stays, stays.
    expect(await dbCollection(container.id)).toMatchObject({ organizationId: alpha.organizationId, parentId: null });
    expect(await dbCollection(sibling.id)).toMatchObject({ organizationId: alpha.organizationId, parentId: container.id });

    const targetList = await api(target.token).orgs.listCollectionsInOrganizationById(target.organizationId);
    expect(targetList.data.items.map((c) => c.id)).toEqual(expect.arrayContaining([moved.id, sub.id]));
    const sourceList = await api(alpha.token).orgs.listCollectionsInOrganizationById(alpha.organizationId, { limit: 1000 });
    expect(sourceList.data.items.map((c) => c.id)).not.toContain(moved.id);
    expect(sourceList.data.items.map((c) => c.id)).not.toContain(sub.id);
    expect(await childIds(alpha.token, container.id)).toEqual([sibling.id]);
    // The target's own admin now sees the spaces.
    expect((await api(target.token).collections.listSpacesInCollectionById(moved.id)).data.items.map((s) => s.id)).toEqual([s1.id]);
  });

  it("transfers through GraphQL", async () => {
    const c = await newCollection(alpha.token, alpha.organizationId);
    const space = await newSpace(alpha.token, alpha.organizationId, c.id);
    const { transferCollection } = await gql(alpha.token, TRANSFER, { input: { id: c.id, organization: target.organizationId } });
    expect(transferCollection.collection).toMatchObject({ id: c.id, organization: { id: target.organizationId }, parent: null });
    expect((await dbCollection(c.id))?.organizationId).toBe(target.organizationId);
    expect((await dbSpace(space.id)).organizationId).toBe(target.organizationId);
  });

  it("refuses a target the caller does not administer: 404 when not a member, 403 when a read member; nothing changes", async () => {
    const c = await newCollection(alpha.token, alpha.organizationId);
    await newSpace(alpha.token, alpha.organizationId, c.id);
    await expectNothingChanged(async () => {
      await expectRestError(api(alpha.token).collections.transferCollection(c.id, { organization: beta.organizationId }), 404);
      expectGraphQLError(
        await server.graphql(alpha.token, TRANSFER, { input: { id: c.id, organization: beta.organizationId } }),
        "NOT_FOUND",
      );
      await expectRestError(api(alpha.token).collections.transferCollection(c.id, { organization: "org_doesnotexist" }), 404);

      await expectRestError(api(alpha.token).collections.transferCollection(c.id, { organization: readOnlyTarget.organizationId }), 403);
      expectGraphQLError(
        await server.graphql(alpha.token, TRANSFER, { input: { id: c.id, organization: readOnlyTarget.organizationId } }),
        "FORBIDDEN",
      );
    });
  });

  it("refuses a transfer to the organization the collection is already in with 409", async () => {
    const c = await newCollection(alpha.token, alpha.organizationId);
    await expectNothingChanged(async () => {
      await expectRestError(api(alpha.token).collections.transferCollection(c.id, { organization: alpha.organizationId }), 409);
      expectGraphQLError(
        await server.graphql(alpha.token, TRANSFER, { input: { id: c.id, organization: alpha.organizationId } }),
        "CONFLICT",
      );
    });
  });

  it("refuses a body without organization with 400", async () => {
    const c = await newCollection(alpha.token, alpha.organizationId);
    await expectNothingChanged(async () => {
      await expectRawRestError(alpha.token, "POST", `/v1/collections/${c.id}/transfer`, {}, 400, "organization");
    });
  });
});

describe("DELETE /v1/collections/{collectionId}", () => {
  it("answers 205, removes the sub-collections and soft-deletes every space beneath", async () => {
    const c = await newCollection(alpha.token, alpha.organizationId);
    const child = await newCollection(alpha.token, alpha.organizationId, { parent: c.id });
    const grandchild = await newCollection(alpha.token, alpha.organizationId, { parent: child.id });
    const inside = await newSpace(alpha.token, alpha.organizationId, c.id);
    const deep = await newSpace(alpha.token, alpha.organizationId, grandchild.id);
    const outside = await newSpace(alpha.token, alpha.organizationId);
    const deletedBefore = await newSpace(alpha.token, alpha.organizationId, c.id);
    await api(alpha.token).spaces.deleteSpaceById(deletedBefore.id);
    const firstDeletion = (await dbSpace(deletedBefore.id)).deletedAt;
    server.clock.advance(60 * 60 * 1000);

    const response = await api(alpha.token).collections.deleteCollectionById(c.id);
    expect(response.status).toBe(205);

    for (const id of [c.id, child.id, grandchild.id]) expect(await dbCollection(id)).toBeNull();
    expect((await dbSpace(inside.id)).deletedAt).toEqual(server.clock.now());
    expect((await dbSpace(deep.id)).deletedAt).toEqual(server.clock.now());
    expect((await dbSpace(deletedBefore.id)).deletedAt).toEqual(firstDeletion);
    expect((await dbSpace(outside.id)).deletedAt).toBeNull();

    await expectRestError(api(alpha.token).collections.getCollectionById(c.id), 404);
    await expectRestError(api(alpha.token).collections.getCollectionById(child.id), 404);
    const collections = await api(alpha.token).orgs.listCollectionsInOrganizationById(alpha.organizationId, { limit: 1000 });
    expect(collections.data.items.map((x) => x.id)).not.toContain(c.id);
    expect(collections.data.items.map((x) => x.id)).not.toContain(child.id);
    const spaces = await api(alpha.token).orgs.listSpacesInOrganizationById(alpha.organizationId, { limit: 1000 });
    const listed = spaces.data.items.map((s) => s.id);
    expect(listed).toContain(outside.id);
    expect(listed).not.toContain(inside.id);
    expect(listed).not.toContain(deep.id);
  });

  it("deletes through GraphQL", async () => {
    const c = await newCollection(alpha.token, alpha.organizationId);
    const child = await newCollection(alpha.token, alpha.organizationId, { parent: c.id });
    const { deleteCollection } = await gql(alpha.token, DELETE, { id: c.id });
    expect(deleteCollection.deletedCollectionId).toBe(c.id);
    expect(await dbCollection(c.id)).toBeNull();
    expect(await dbCollection(child.id)).toBeNull();
    expectGraphQLError(await server.graphql(alpha.token, GET, { id: c.id }), "NOT_FOUND");
  });

  it("answers 404 for an unknown collection", async () => {
    await expectRestError(api(alpha.token).collections.deleteCollectionById("col_doesnotexist"), 404);
  });
});

describe("permissions", () => {
  let k: string, kChild: string, kSpace: string, l: string;

  beforeAll(async () => {
    k = (await newCollection(alpha.token, alpha.organizationId, { title: "K" })).id;
    kChild = (await newCollection(alpha.token, alpha.organizationId, { parent: k })).id;
    kSpace = (await newSpace(alpha.token, alpha.organizationId, k)).id;
    l = (await newCollection(alpha.token, alpha.organizationId, { title: "L" })).id;
    await newSpace(alpha.token, alpha.organizationId, l);
  });

  it("a read member can read a collection and its spaces, with read-only permissions", async () => {
    const { data } = await api(reader.token).collections.getCollectionById(k);
    expect(data.permissions).toEqual({ view: true, admin: false, viewInviteLinks: false, create: false });
    expect((await api(reader.token).collections.listSpacesInCollectionById(k)).data.items.map((s) => s.id)).toEqual([kSpace]);
    expect((await gql(reader.token, GET, { id: k })).collection.permissions).toEqual({
      view: true,
      admin: false,
      viewInviteLinks: false,
      create: false,
    });
  });

  it("a read member gets 403 / FORBIDDEN on patch, delete, move and transfer; nothing changes", async () => {
    await expectNothingChanged(async () => {
      const client = api(reader.token);
      await expectRestError(client.collections.updateCollectionById(k, { title: "Mine" }), 403);
      await expectRestError(client.collections.deleteCollectionById(k), 403);
      await expectRestError(client.collections.moveCollection(k, { parent: l }), 403);
      await expectRestError(client.collections.moveCollection(kChild, { parent: null }), 403);
      await expectRestError(client.collections.transferCollection(k, { organization: target.organizationId }), 403);

      expectGraphQLError(await server.graphql(reader.token, UPDATE, { input: { id: k, title: "Mine" } }), "FORBIDDEN");
      expectGraphQLError(await server.graphql(reader.token, DELETE, { id: k }), "FORBIDDEN");
      expectGraphQLError(await server.graphql(reader.token, MOVE, { input: { id: k, parent: l } }), "FORBIDDEN");
      expectGraphQLError(
        await server.graphql(reader.token, TRANSFER, { input: { id: k, organization: target.organizationId } }),
        "FORBIDDEN",
      );
    });
  });

  it("a guest without a grant sees no collection: 404 on reads, empty lists", async () => {
    await expectRestError(api(guest.token).collections.getCollectionById(k), 404);
    await expectRestError(api(guest.token).collections.listSpacesInCollectionById(k), 404);
    const list = await api(guest.token).orgs.listCollectionsInOrganizationById(alpha.organizationId);
    expect(list.data).toMatchObject({ items: [], count: 0 });

    expectGraphQLError(await server.graphql(guest.token, GET, { id: k }), "NOT_FOUND");
    expect((await gql(guest.token, ORG_COLLECTIONS, { id: alpha.organizationId })).organization.collections).toEqual({
      totalCount: 0,
      nodes: [],
    });
    expect((await server.graphql(guest.token, `query($id: ID!) { node(id: $id) { id } }`, { id: k })).data?.node).toBeNull();
    await expectNothingChanged(async () => {
      await expectRestError(api(guest.token).collections.updateCollectionById(k, { title: "Mine" }), 404);
      await expectRestError(api(guest.token).collections.deleteCollectionById(k), 404);
    });
  });

  it("a guest with a grant on a collection reads it, what is beneath it and its spaces, and nothing else", async () => {
    const granted = await server.addMember(alpha.organizationId, null);
    await grant(alpha.organizationId, k, granted.userId, "read");

    const { data } = await api(granted.token).collections.getCollectionById(k);
    expect(data.permissions).toEqual({ view: true, admin: false, viewInviteLinks: false, create: false });
    expect((await api(granted.token).collections.getCollectionById(kChild)).data.parent).toBe(k);
    expect((await api(granted.token).collections.listSpacesInCollectionById(k)).data.items.map((s) => s.id)).toEqual([kSpace]);
    expect((await api(granted.token).spaces.getSpaceById(kSpace)).data.id).toBe(kSpace);

    const list = await api(granted.token).orgs.listCollectionsInOrganizationById(alpha.organizationId);
    expect(list.data.items.map((c) => c.id).sort()).toEqual([k, kChild].sort());
    expect(list.data.count).toBe(2);
    expect((await gql(granted.token, ORG_COLLECTIONS, { id: alpha.organizationId })).organization.collections.totalCount).toBe(2);
    expect(await childIds(granted.token, k)).toEqual([kChild]);

    await expectRestError(api(granted.token).collections.getCollectionById(l), 404);
    await expectNothingChanged(async () => {
      await expectRestError(api(granted.token).collections.updateCollectionById(k, { title: "Mine" }), 403);
    });
  });

  it("a collection's defaultLevel replaces a member's role beneath it", async () => {
    const open = await newCollection(alpha.token, alpha.organizationId);
    await api(alpha.token).collections.updateCollectionById(open.id, { defaultLevel: role("create") });
    const inside = await newCollection(alpha.token, alpha.organizationId, { parent: open.id });

    expect((await api(reader.token).collections.getCollectionById(inside.id)).data.permissions).toMatchObject({
      create: true,
      admin: false,
    });
    const created = await api(reader.token).orgs.createCollection(alpha.organizationId, { title: "By reader", parent: open.id });
    expect(created.status).toBe(201);
    // Elsewhere the reader is still a reader.
    await expectRestError(api(reader.token).orgs.createCollection(alpha.organizationId, { title: "Top" }), 403);
  });
});

describe("isolation between organizations", () => {
  let a1: string, a2: string, aSpace: string, own: string;

  beforeAll(async () => {
    a1 = (await newCollection(alpha.token, alpha.organizationId, { title: "Alpha secret" })).id;
    a2 = (await newCollection(alpha.token, alpha.organizationId, { parent: a1 })).id;
    aSpace = (await newSpace(alpha.token, alpha.organizationId, a1)).id;
    own = (await newCollection(beta.token, beta.organizationId, { title: "Beta's own" })).id;
  });

  it("REST: another organization's admin gets 404 on every collection route; nothing changes", async () => {
    const client = api(beta.token);
    await expectNothingChanged(async () => {
      await expectRestError(client.collections.getCollectionById(a1), 404);
      await expectRestError(client.collections.updateCollectionById(a1, { title: "Pwned" }), 404);
      await expectRestError(client.collections.deleteCollectionById(a1), 404);
      await expectRestError(client.collections.listSpacesInCollectionById(a1), 404);
      await expectRestError(client.collections.moveCollection(a2, { parent: null }), 404);
      await expectRestError(client.collections.moveCollection(a1, { position: before(a2) }), 404);
      await expectRestError(client.collections.transferCollection(a1, { organization: beta.organizationId }), 404);
      await expectRestError(client.orgs.listCollectionsInOrganizationById(alpha.organizationId), 404);
      await expectRestError(client.orgs.createCollection(alpha.organizationId, { title: "Planted" }), 404);
    });
  });

  it("GraphQL: NOT_FOUND on reads and mutations, null from node and nodes; nothing changes", async () => {
    await expectNothingChanged(async () => {
      expectGraphQLError(await server.graphql(beta.token, GET, { id: a1 }), "NOT_FOUND");
      expectGraphQLError(await server.graphql(beta.token, UPDATE, { input: { id: a1, title: "Pwned" } }), "NOT_FOUND");
      expectGraphQLError(await server.graphql(beta.token, DELETE, { id: a1 }), "NOT_FOUND");
      expectGraphQLError(await server.graphql(beta.token, MOVE, { input: { id: a2, parent: null } }), "NOT_FOUND");
      expectGraphQLError(await server.graphql(beta.token, TRANSFER, { input: { id: a1, organization: beta.organizationId } }), "NOT_FOUND");
      expectGraphQLError(await server.graphql(beta.token, ORG_COLLECTIONS, { id: alpha.organizationId }), "NOT_FOUND");

      const NODE = `query($id: ID!) { node(id: $id) { id ... on Collection { title } } }`;
      const node = await server.graphql(beta.token, NODE, { id: a1 });
      expect(node.data?.node).toBeNull();
      // Exactly what an id that does not exist gets: existence is not leaked.
      const missing = await server.graphql(beta.token, NODE, { id: "col_doesnotexist" });
      expect(node.errors?.map((e) => e.extensions?.code)).toEqual(missing.errors?.map((e) => e.extensions?.code));
      const nodes = await server.graphql(beta.token, `query($ids: [ID!]!) { nodes(ids: $ids) { id ... on Collection { title } } }`, {
        ids: [a1, a2, aSpace, own],
      });
      expect(nodes.data?.nodes).toEqual([null, null, null, { id: own, title: "Beta's own" }]);
    });
  });

  it("another organization's collection cannot be used as a parent or a position reference (400); nothing changes", async () => {
    await expectNothingChanged(async () => {
      await expectRestError(api(beta.token).orgs.createCollection(beta.organizationId, { title: "X", parent: a1 }), 400, "parent");
      await expectRestError(api(beta.token).collections.moveCollection(own, { parent: a1 }), 400, "parent");
      await expectRestError(api(beta.token).collections.moveCollection(own, { position: after(a2) }), 400, "position.after");
      expectGraphQLError(await server.graphql(beta.token, MOVE, { input: { id: own, parent: a1 } }), "BAD_REQUEST", "parent");
    });
  });
});

describe("concurrency", () => {
  it("moving A into B and B into A at once: exactly one succeeds and the tree has no cycle", async () => {
    for (let round = 0; round < 5; round++) {
      const a = await newCollection(alpha.token, alpha.organizationId, { title: `A${round}` });
      const b = await newCollection(alpha.token, alpha.organizationId, { title: `B${round}` });
      const results = await Promise.allSettled([
        api(alpha.token).collections.moveCollection(a.id, { parent: b.id }),
        api(alpha.token).collections.moveCollection(b.id, { parent: a.id }),
      ]);
      const fulfilled = results.filter((r) => r.status === "fulfilled");
      const rejected = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
      expect(fulfilled).toHaveLength(1);
      expect(rejected).toHaveLength(1);
      expect(rejected[0].reason).toBeInstanceOf(GitBookAPIError);
      expect((rejected[0].reason as GitBookAPIError).code).toBe(400);

      // Walking the parents from each ends at the top level, and exactly one is inside the other.
      const [fromA, fromB] = [await ancestorsOf(a.id), await ancestorsOf(b.id)];
      expect([fromA, fromB].sort((x, y) => x.length - y.length)).toEqual(results[0].status === "fulfilled" ? [[], [b.id]] : [[], [a.id]]);
    }
  });

  it("the same race through GraphQL: one move wins, no cycle", async () => {
    const a = await newCollection(alpha.token, alpha.organizationId);
    const b = await newCollection(alpha.token, alpha.organizationId);
    const responses = await Promise.all([
      server.graphql(alpha.token, MOVE, { input: { id: a.id, parent: b.id } }),
      server.graphql(alpha.token, MOVE, { input: { id: b.id, parent: a.id } }),
    ]);
    const failed = responses.filter((r) => r.errors);
    expect(failed).toHaveLength(1);
    expect(failed[0].errors![0].extensions?.code).toBe("BAD_REQUEST");
    expect((await ancestorsOf(a.id)).length + (await ancestorsOf(b.id)).length).toBe(1);
  });

  it("concurrent creates under the same parent get distinct positions and are all listed", async () => {
    const parent = await newCollection(alpha.token, alpha.organizationId);
    const created = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        api(alpha.token).orgs.createCollection(alpha.organizationId, { title: `Twin ${i}`, parent: parent.id }),
      ),
    );
    expect(created.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    const ids = created.map((r) => r.data.id);
    const rows = await prisma().collection.findMany({ where: { parentId: parent.id } });
    expect(rows.map((r) => r.id).sort()).toEqual([...ids].sort());
    expect(new Set(rows.map((r) => r.sortKey)).size).toBe(5);
    expect((await childIds(alpha.token, parent.id)).sort()).toEqual([...ids].sort());
  });
});
