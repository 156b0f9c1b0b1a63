// Spaces through HTTP, on both surfaces: /v1 REST (through the official, schema-checking client
// where it has the operation, raw fetch otherwise) and /graphql.
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GitBookAPIError, MemberRole, SpaceEditMode, type Space } from "@gitbook/api";
import { startTestServer, type TestServer } from "./support/server.ts";
import { graphqlData, restFailure } from "./support/expect.ts";
import { createClient } from "./support/openapi.ts";
import { sweepDeletedSpaces } from "../src/core/spaces/index.ts";
import { createApp } from "../src/app.ts";
import { bootstrapOrganization } from "../src/core/bootstrap/index.ts";
import { openDatabase } from "../src/db/client.ts";

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;

let server: TestServer;
/** Organization A and its admin: most tests work here. */
let A: { organizationId: string; userId: string; token: string };
/** Organization B: a stranger to A. */
let B: { organizationId: string; userId: string; token: string };

beforeAll(async () => {
  server = await startTestServer();
  A = await server.bootstrap("Spaces A");
  B = await server.bootstrap("Spaces B");
});

afterAll(async () => {
  await server?.close();
});

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

const SPACE_FIELDS = /* GraphQL */ `
  id title emoji visibility createdAt updatedAt deletedAt editMode revision defaultLevel
  organization { id } parent { id }
  openCommentCount changeRequestCount openChangeRequestCount draftChangeRequestCount
  urls { location app published public icon }
  permissions { view access admin viewInviteLinks edit triggerGitSync comment merge review installIntegration }`;

const api = (token: string) => server.client(token);

/** GraphQL data, failing the test on any error. */
const gql = <T = any>(token: string, query: string, variables?: Record<string, unknown>) => graphqlData<T>(server, token, query, variables);

/** The HTTP status and first GraphQL error (`extensions.code`, message), failing the test when there is none. */
async function gqlError(token: string, query: string, variables?: Record<string, unknown>) {
  const result = await server.graphql(token, query, variables);
  expect(result.errors?.length, `expected an error, got ${JSON.stringify(result.data)}`).toBeGreaterThan(0);
  const [error] = result.errors!;
  return { status: result.status, code: error.extensions?.code, message: error.message };
}

/** The status and message a client call fails with (any other outcome fails the test). */
const apiError = restFailure;

const mutation = (name: string, input: string) => /* GraphQL */ `
  mutation($input: ${input}!) { ${name}(input: $input) { space { ${SPACE_FIELDS} } } }`;
const CREATE = mutation("createSpace", "CreateSpaceInput");
const UPDATE = mutation("updateSpace", "UpdateSpaceInput");
const RESTORE = mutation("restoreSpace", "RestoreSpaceInput");
const DUPLICATE = mutation("duplicateSpace", "DuplicateSpaceInput");
const MOVE = mutation("moveSpace", "MoveSpaceInput");
const TRANSFER = mutation("transferSpace", "TransferSpaceInput");
const DELETE = /* GraphQL */ `mutation($input: DeleteSpaceInput!) { deleteSpace(input: $input) { deletedSpaceId } }`;
const GET = /* GraphQL */ `query($id: ID!) { space(id: $id) { ${SPACE_FIELDS} } }`;

/** A space created over REST by `token` (default: A's admin). */
async function newSpace(body: Record<string, unknown> = {}, token = A.token, organizationId = A.organizationId): Promise<Space> {
  const response = await api(token).orgs.createSpace(organizationId, body);
  expect(response.status).toBe(201);
  return response.data;
}

async function newCollection(title: string, token = A.token, organizationId = A.organizationId, parent?: string): Promise<string> {
  const data = await gql(
    token,
    /* GraphQL */ `mutation($input: CreateCollectionInput!) { createCollection(input: $input) { collection { id } } }`,
    { input: { organization: organizationId, title, parent } },
  );
  return data.createCollection.collection.id;
}

/** Ids of a collection's spaces in their order, over GraphQL. */
async function collectionOrder(collectionId: string, token = A.token): Promise<string[]> {
  const data = await gql(token, /* GraphQL */ `query($id: ID!) { collection(id: $id) { spaces(first: 1000) { nodes { id } } } }`, {
    id: collectionId,
  });
  return data.collection.spaces.nodes.map((node: { id: string }) => node.id);
}

/** Ids of a collection's spaces in their order, over REST. */
async function collectionOrderRest(collectionId: string, token = A.token): Promise<string[]> {
  const { data } = await api(token).collections.listSpacesInCollectionById(collectionId, { limit: 1000 });
  return data.items.map((space) => space.id);
}

/** Ids of all spaces listed for an organization, over both surfaces (they must agree). */
async function orgSpaceIds(organizationId = A.organizationId, token = A.token): Promise<string[]> {
  const { data } = await api(token).orgs.listSpacesInOrganizationById(organizationId, { limit: 1000 });
  const viaGraphQL = await gql(
    token,
    /* GraphQL */ `query($id: ID!) { organization(id: $id) { spaces(first: 1000) { totalCount nodes { id } } } }`,
    {
      id: organizationId,
    },
  );
  const restIds = data.items.map((space) => space.id);
  expect(viaGraphQL.organization.spaces.nodes.map((node: { id: string }) => node.id)).toEqual(restIds);
  expect(data.count).toBe(restIds.length);
  expect(viaGraphQL.organization.spaces.totalCount).toBe(restIds.length);
  return restIds;
}

/** Top-level spaces of an organization in sort order, from the database (there is no API list of the mixed root). */
async function rootOrder(organizationId: string): Promise<string[]> {
  const rows = await server.database.prisma.space.findMany({
    where: { organizationId, parentId: null, deletedAt: null },
    orderBy: [{ sortKey: "asc" }, { id: "asc" }],
    select: { id: true },
  });
  return rows.map((row) => row.id);
}

const row = (id: string) => server.database.prisma.space.findUnique({ where: { id } });

/** Adds an existing user to an organization (setup only; membership has its own tests). */
async function join(userId: string, organizationId: string, role: string | null) {
  await server.database.prisma.member.create({ data: { organizationId, userId, role } });
}

// ---------------------------------------------------------------------------------------------

describe("create: POST /v1/orgs/{organizationId}/spaces, createSpace", () => {
  it("creates a space with defaults (REST, 201) and stores it", async () => {
    const response = await api(A.token).orgs.createSpace(A.organizationId, {});
    expect(response.status).toBe(201);
    const space = response.data;
    expect(space).toMatchObject({
      object: "space",
      title: "Untitled",
      emoji: "",
      visibility: "private",
      editMode: "live",
      defaultLevel: null,
      organization: A.organizationId,
      comments: 0,
      changeRequests: 0,
      changeRequestsOpen: 0,
      changeRequestsDraft: 0,
    });
    expect(space.id).toMatch(/^spc_/);
    expect(space.parent).toBeUndefined();
    expect(space.deletedAt).toBeUndefined();
    expect(space.urls.location).toBe(`${server.url}/v1/spaces/${space.id}`);
    const stored = await row(space.id);
    expect(stored).toMatchObject({ organizationId: A.organizationId, parentId: null, title: "Untitled", deletedAt: null });
    expect(stored!.revisionId).toBe(space.revision);
    expect(await server.database.prisma.revision.findUnique({ where: { id: space.revision } })).toMatchObject({ spaceId: space.id });
  });

  it("takes title, emoji and editMode, and creates inside a collection with parent (REST)", async () => {
    const collection = await newCollection("Create target");
    const space = await newSpace({ title: "Handbook", emoji: "1f4d8", editMode: "locked", parent: collection });
    expect(space).toMatchObject({ title: "Handbook", emoji: "1f4d8", editMode: "locked", parent: collection });
    expect(await row(space.id)).toMatchObject({ parentId: collection, editMode: "locked" });
    expect(await collectionOrderRest(collection)).toEqual([space.id]);
  });

  it("creates over GraphQL, at the top level and inside a collection", async () => {
    const collection = await newCollection("GraphQL create target");
    const top = await gql(A.token, CREATE, { input: { organization: A.organizationId, title: "Top", emoji: "🎉" } });
    expect(top.createSpace.space).toMatchObject({
      title: "Top",
      emoji: "🎉",
      visibility: "PRIVATE",
      editMode: "LIVE",
      defaultLevel: null,
      deletedAt: null,
      parent: null,
      organization: { id: A.organizationId },
    });
    const inside = await gql(A.token, CREATE, { input: { organization: A.organizationId, title: "Inside", parent: collection } });
    expect(inside.createSpace.space.parent).toEqual({ id: collection });
    expect(await collectionOrder(collection)).toEqual([inside.createSpace.space.id]);
  });

  it("rejects a title over 50 characters and a non-emoji, creating nothing", async () => {
    const before = await server.database.prisma.space.count();
    const longTitle = await apiError(api(A.token).orgs.createSpace(A.organizationId, { title: "x".repeat(51) }));
    expect(longTitle.status).toBe(400);
    expect(longTitle.message).toMatch(/title/);
    const badEmoji = await gqlError(A.token, CREATE, { input: { organization: A.organizationId, emoji: "abc" } });
    expect(badEmoji).toMatchObject({ code: "BAD_REQUEST", status: 400 });
    expect(badEmoji.message).toMatch(/emoji/);
    expect(await server.database.prisma.space.count()).toBe(before);
  });
});

describe("list: GET /v1/orgs/{organizationId}/spaces, organization.spaces", () => {
  it("pages with limit and page, counts, and hides deleted spaces", async () => {
    const org = await server.bootstrap("Listing");
    const created: string[] = [];
    for (let i = 0; i < 5; i++) created.push((await newSpace({ title: `List ${i}` }, org.token, org.organizationId)).id);

    // REST: pages of 2 → 2, 2, 1.
    const seen: string[] = [];
    let page: string | undefined;
    const sizes: number[] = [];
    do {
      const { data } = await api(org.token).orgs.listSpacesInOrganizationById(org.organizationId, { limit: 2, ...(page ? { page } : {}) });
      expect(data.count).toBe(5);
      sizes.push(data.items.length);
      seen.push(...data.items.map((space) => space.id));
      page = data.next?.page;
    } while (page);
    expect(sizes).toEqual([2, 2, 1]);
    expect(seen).toHaveLength(5);
    expect(new Set(seen)).toEqual(new Set(created));

    // GraphQL: the same pages in the same order.
    const pages: string[] = [];
    let after: string | null = null;
    for (;;) {
      const data: any = await gql(
        org.token,
        /* GraphQL */ `query($id: ID!, $after: String) { organization(id: $id) { spaces(first: 2, after: $after) {
          totalCount pageInfo { hasNextPage endCursor } nodes { id } } } }`,
        { id: org.organizationId, after },
      );
      expect(data.organization.spaces.totalCount).toBe(5);
      pages.push(...data.organization.spaces.nodes.map((node: { id: string }) => node.id));
      if (!data.organization.spaces.pageInfo.hasNextPage) break;
      after = data.organization.spaces.pageInfo.endCursor;
    }
    expect(pages).toEqual(seen);

    // A deleted space leaves both lists and the count.
    await api(org.token).spaces.deleteSpaceById(created[1]);
    const remaining = await orgSpaceIds(org.organizationId, org.token);
    expect(remaining).toHaveLength(4);
    expect(remaining).not.toContain(created[1]);
  });

  it("rejects a limit over 1000", async () => {
    const error = await apiError(api(A.token).orgs.listSpacesInOrganizationById(A.organizationId, { limit: 1001 }));
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/limit/);
  });
});

describe("get: GET /v1/spaces/{spaceId}, space(id:)", () => {
  it("returns every field, with counters at 0, on both surfaces", async () => {
    const collection = await newCollection("Get target");
    const created = await newSpace({ title: "Everything", emoji: "🚀", parent: collection });
    const response = await api(A.token).spaces.getSpaceById(created.id);
    expect(response.status).toBe(200);
    const space = response.data;
    expect(space).toMatchObject({
      object: "space",
      id: created.id,
      title: "Everything",
      emoji: "🚀",
      visibility: "private",
      editMode: "live",
      organization: A.organizationId,
      parent: collection,
      revision: created.revision,
      defaultLevel: null,
      comments: 0,
      changeRequests: 0,
      changeRequestsOpen: 0,
      changeRequestsDraft: 0,
      urls: { location: `${server.url}/v1/spaces/${created.id}`, app: expect.any(String) },
      permissions: {
        view: true,
        access: true,
        admin: true,
        viewInviteLinks: true,
        edit: true,
        triggerGitSync: true,
        comment: true,
        merge: true,
        review: true,
      },
    });
    expect(space.deletedAt).toBeUndefined();
    expect(new Date(space.createdAt).toISOString()).toBe(space.createdAt);
    expect(new Date(space.updatedAt).toISOString()).toBe(space.updatedAt);

    const { space: viaGraphQL } = await gql(A.token, GET, { id: created.id });
    expect(viaGraphQL).toMatchObject({
      id: created.id,
      title: "Everything",
      emoji: "🚀",
      visibility: "PRIVATE",
      editMode: "LIVE",
      organization: { id: A.organizationId },
      parent: { id: collection },
      revision: created.revision,
      defaultLevel: null,
      deletedAt: null,
      createdAt: space.createdAt,
      updatedAt: space.updatedAt,
      openCommentCount: 0,
      changeRequestCount: 0,
      openChangeRequestCount: 0,
      draftChangeRequestCount: 0,
      urls: { location: space.urls.location, app: space.urls.app },
      permissions: space.permissions,
    });
  });

  it("answers 404 / NOT_FOUND for an unknown id", async () => {
    expect((await apiError(api(A.token).spaces.getSpaceById("spc_doesnotexist"))).status).toBe(404);
    expect(await gqlError(A.token, GET, { id: "spc_doesnotexist" })).toMatchObject({ code: "NOT_FOUND", status: 404 });
  });
});

describe("update: PATCH /v1/spaces/{spaceId}, updateSpace", () => {
  let id: string;
  beforeAll(async () => {
    id = (await newSpace({ title: "Patch me", emoji: "1f389" })).id;
  });

  /** Runs `call`, expects it to fail with `status` naming `field`, and the stored space to be unchanged. */
  async function rejectedUnchanged(call: () => Promise<{ status: number; message: string }>, status: number, field?: RegExp) {
    const before = await row(id);
    const error = await call();
    expect(error.status, error.message).toBe(status);
    if (field) expect(error.message).toMatch(field);
    expect(await row(id)).toEqual(before);
  }
  const restPatch =
    (body: Record<string, unknown>, token = A.token) =>
    () =>
      apiError(api(token).spaces.updateSpaceById(id, body as any));
  const gqlPatch =
    (input: Record<string, unknown>, token = A.token) =>
    () =>
      gqlError(token, UPDATE, { input: { id, ...input } });

  it("switches editMode between live and locked", async () => {
    const locked = await api(A.token).spaces.updateSpaceById(id, { editMode: SpaceEditMode.Locked });
    expect(locked.status).toBe(200);
    expect(locked.data.editMode).toBe("locked");
    expect((await row(id))!.editMode).toBe("locked");
    const live = await gql(A.token, UPDATE, { input: { id, editMode: "LIVE" } });
    expect(live.updateSpace.space.editMode).toBe("LIVE");
    expect((await row(id))!.editMode).toBe("live");
  });

  it("rejects a bogus editMode with 400 naming editMode", async () => {
    await rejectedUnchanged(restPatch({ editMode: "frozen" }), 400, /editMode/);
    await rejectedUnchanged(gqlPatch({ editMode: "FROZEN" }), 400, /editMode/);
  });

  it("rejects the GraphQL spelling of enums over REST (the REST values are live/locked and lowercase roles)", async () => {
    // "LOCKED" and "ADMIN" are valid GraphQL enum names: the REST translation must not let them through.
    await rejectedUnchanged(restPatch({ editMode: "LOCKED" }), 400, /editMode/);
    await rejectedUnchanged(restPatch({ defaultLevel: "ADMIN" }), 400, /defaultLevel/);
  });

  it("renames up to 50 characters, and rejects 51", async () => {
    const fifty = "t".repeat(50);
    expect((await api(A.token).spaces.updateSpaceById(id, { title: fifty })).data.title).toBe(fifty);
    const renamed = await gql(A.token, UPDATE, { input: { id, title: "Renamed" } });
    expect(renamed.updateSpace.space.title).toBe("Renamed");
    expect((await row(id))!.title).toBe("Renamed");
    await rejectedUnchanged(restPatch({ title: "t".repeat(51) }), 400, /title/);
    await rejectedUnchanged(gqlPatch({ title: "t".repeat(51) }), 400, /title/);
  });

  it("sets emoji as a character or code point, removes it with null, and rejects non-emoji and over 50", async () => {
    expect((await api(A.token).spaces.updateSpaceById(id, { emoji: "🚀" })).data.emoji).toBe("🚀");
    expect((await gql(A.token, UPDATE, { input: { id, emoji: "1f680" } })).updateSpace.space.emoji).toBe("1f680");
    expect((await row(id))!.emoji).toBe("1f680");
    // Non-emoji: letters, and digits or "#" (emoji components, but no emoji on their own), and a
    // code point that is not an emoji's (U+CAFE is a Hangul syllable).
    for (const notAnEmoji of ["abc", "123", "#", "cafe"]) {
      await rejectedUnchanged(restPatch({ emoji: notAnEmoji }), 400, /emoji/);
      await rejectedUnchanged(gqlPatch({ emoji: notAnEmoji }), 400, /emoji/);
    }
    // Sequences are emoji: ZWJ, keycap and flag, as characters or code points.
    for (const emoji of ["👨‍💻", "1f468-200d-1f4bb", "1️⃣", "🇫🇷", "2764"]) {
      expect((await api(A.token).spaces.updateSpaceById(id, { emoji })).data.emoji).toBe(emoji);
    }
    await rejectedUnchanged(restPatch({ emoji: "🎉".repeat(51) }), 400, /emoji/);
    await rejectedUnchanged(gqlPatch({ emoji: "🎉".repeat(51) }), 400, /emoji/);
    const removed = await api(A.token).spaces.updateSpaceById(id, { emoji: null });
    expect(removed.data.emoji).toBe("");
    expect((await row(id))!.emoji).toBe("");
  });

  it("sets defaultLevel to a role, null and inherit, and rejects a bogus one", async () => {
    expect((await api(A.token).spaces.updateSpaceById(id, { defaultLevel: MemberRole.Read })).data.defaultLevel).toBe("read");
    expect((await row(id))!.defaultLevel).toBe("read");
    expect((await api(A.token).spaces.updateSpaceById(id, { defaultLevel: null } as any)).data.defaultLevel).toBeNull();
    expect((await row(id))!.defaultLevel).toBeNull();
    expect((await gql(A.token, UPDATE, { input: { id, defaultLevel: "COMMENT" } })).updateSpace.space.defaultLevel).toBe("COMMENT");
    expect((await api(A.token).spaces.updateSpaceById(id, { defaultLevel: "inherit" })).data.defaultLevel).toBeNull();
    expect((await row(id))!.defaultLevel).toBeNull();
    await gql(A.token, UPDATE, { input: { id, defaultLevel: "EDIT" } });
    expect((await gql(A.token, UPDATE, { input: { id, defaultLevel: null } })).updateSpace.space.defaultLevel).toBeNull();
    await rejectedUnchanged(restPatch({ defaultLevel: "owner" }), 400, /defaultLevel/);
    await rejectedUnchanged(gqlPatch({ defaultLevel: "OWNER" }), 400, /defaultLevel/);
  });

  it("refuses to change a deleted space (409) until it is restored", async () => {
    const doomed = (await newSpace({ title: "Deleted, then patched" })).id;
    await api(A.token).spaces.deleteSpaceById(doomed);
    const before = await row(doomed);
    const error = await apiError(api(A.token).spaces.updateSpaceById(doomed, { title: "Nope" }));
    expect(error.status).toBe(409);
    expect(error.message).toMatch(/restore/);
    expect((await apiError(api(A.token).spaces.duplicateSpace(doomed))).status).toBe(409);
    expect((await apiError(api(A.token).spaces.moveSpace(doomed, { parent: null }))).status).toBe(409);
    expect(await row(doomed)).toEqual(before);
    expect(await server.database.prisma.space.count({ where: { title: "Deleted, then patched (copy)" } })).toBe(0);
  });
});

describe("delete and restore: DELETE /v1/spaces/{spaceId}, POST .../restore, deleteSpace, restoreSpace, sweep", () => {
  it("soft-deletes (205): GET still answers with deletedAt, and the space leaves the org and collection lists", async () => {
    const collection = await newCollection("Delete target");
    const space = await newSpace({ title: "Short-lived", parent: collection });
    const sibling = await newSpace({ title: "Stays", parent: collection });

    const response = await api(A.token).spaces.deleteSpaceById(space.id);
    expect(response.status).toBe(205);
    const deletedAt = server.clock.now().toISOString();
    expect((await row(space.id))!.deletedAt!.toISOString()).toBe(deletedAt);

    expect((await api(A.token).spaces.getSpaceById(space.id)).data.deletedAt).toBe(deletedAt);
    expect((await gql(A.token, GET, { id: space.id })).space.deletedAt).toBe(deletedAt);
    expect(await orgSpaceIds()).not.toContain(space.id);
    expect(await collectionOrder(collection)).toEqual([sibling.id]);
    expect(await collectionOrderRest(collection)).toEqual([sibling.id]);

    // Deleting again is fine and changes nothing.
    server.clock.advance(MINUTE_MS);
    expect((await api(A.token).spaces.deleteSpaceById(space.id)).status).toBe(205);
    expect((await gql(A.token, DELETE, { input: { id: space.id } })).deleteSpace.deletedSpaceId).toBe(space.id);
    expect((await row(space.id))!.deletedAt!.toISOString()).toBe(deletedAt);

    // Restore brings it back, in its collection and at its place.
    const restored = await api(A.token).spaces.restoreSpace(space.id);
    expect(restored.status).toBe(200);
    expect(restored.data.deletedAt).toBeUndefined();
    expect(restored.data.parent).toBe(collection);
    expect((await row(space.id))!.deletedAt).toBeNull();
    expect(await orgSpaceIds()).toContain(space.id);
    expect(await collectionOrder(collection)).toEqual([space.id, sibling.id]);

    // Restoring a space that is not deleted answers it unchanged.
    const again = await api(A.token).spaces.restoreSpace(space.id);
    expect(again.status).toBe(200);
    expect(again.data.deletedAt).toBeUndefined();
    expect((await row(space.id))!.deletedAt).toBeNull();
  });

  it("deletes and restores over GraphQL", async () => {
    const space = await newSpace({ title: "GraphQL delete" });
    expect((await gql(A.token, DELETE, { input: { id: space.id } })).deleteSpace.deletedSpaceId).toBe(space.id);
    expect((await row(space.id))!.deletedAt).not.toBeNull();
    expect(await orgSpaceIds()).not.toContain(space.id);
    const restored = await gql(A.token, RESTORE, { input: { id: space.id } });
    expect(restored.restoreSpace.space.deletedAt).toBeNull();
    expect((await row(space.id))!.deletedAt).toBeNull();
    expect(await orgSpaceIds()).toContain(space.id);
  });

  it("restores within 7 days, and answers 410 after 7 days and a minute, leaving the space deleted", async () => {
    const justInTime = await newSpace({ title: "Restored on day 7" });
    const tooLate = await newSpace({ title: "Restored on day 8" });
    const tooLateGraphQL = await newSpace({ title: "Restored late over GraphQL" });
    await api(A.token).spaces.deleteSpaceById(justInTime.id);
    await api(A.token).spaces.deleteSpaceById(tooLate.id);
    await api(A.token).spaces.deleteSpaceById(tooLateGraphQL.id);

    server.clock.advance(7 * DAY_MS - MINUTE_MS);
    expect((await api(A.token).spaces.restoreSpace(justInTime.id)).data.deletedAt).toBeUndefined();

    server.clock.advance(2 * MINUTE_MS);
    const before = await row(tooLate.id);
    const error = await apiError(api(A.token).spaces.restoreSpace(tooLate.id));
    expect(error.status).toBe(410);
    expect(error.message).toMatch(/more than 7 days ago/);
    expect(await row(tooLate.id)).toEqual(before);
    expect(before!.deletedAt).not.toBeNull();

    const viaGraphQL = await gqlError(A.token, RESTORE, { input: { id: tooLateGraphQL.id } });
    expect(viaGraphQL).toMatchObject({ code: "GONE", status: 410 });
    expect(viaGraphQL.message).toMatch(/7 days/);
    expect((await row(tooLateGraphQL.id))!.deletedAt).not.toBeNull();
    expect(await orgSpaceIds()).not.toContain(tooLate.id);
  });

  it("sweepDeletedSpaces removes only spaces deleted more than 7 days ago; then GET is 404", async () => {
    const old = await newSpace({ title: "Deleted 8 days ago" });
    const recent = await newSpace({ title: "Deleted 1 day ago" });
    const alive = await newSpace({ title: "Never deleted" });
    await api(A.token).spaces.deleteSpaceById(old.id);
    server.clock.advance(7 * DAY_MS);
    await api(A.token).spaces.deleteSpaceById(recent.id);
    server.clock.advance(DAY_MS);

    const activeBefore = await server.database.prisma.space.count({ where: { deletedAt: null } });
    const removed = await sweepDeletedSpaces(server.app.services);
    expect(removed).toBeGreaterThanOrEqual(1);

    expect(await row(old.id)).toBeNull();
    expect(await server.database.prisma.revision.count({ where: { spaceId: old.id } })).toBe(0);
    expect((await row(recent.id))!.deletedAt).not.toBeNull();
    expect((await row(alive.id))!.deletedAt).toBeNull();
    expect(await server.database.prisma.space.count({ where: { deletedAt: null } })).toBe(activeBefore);
    const cutoff = new Date(server.clock.now().getTime() - 7 * DAY_MS);
    expect(await server.database.prisma.space.count({ where: { deletedAt: { lt: cutoff } } })).toBe(0);

    expect((await apiError(api(A.token).spaces.getSpaceById(old.id))).status).toBe(404);
    expect(await gqlError(A.token, GET, { id: old.id })).toMatchObject({ code: "NOT_FOUND", status: 404 });
    expect((await apiError(api(A.token).spaces.restoreSpace(old.id))).status).toBe(404);
    // The one deleted a day ago can still come back.
    expect((await api(A.token).spaces.restoreSpace(recent.id)).status).toBe(200);
  });
});

describe("duplicate: POST /v1/spaces/{spaceId}/duplicate, duplicateSpace", () => {
  it("copies next to the original, in the same collection (REST 201 and GraphQL)", async () => {
    const collection = await newCollection("Duplicate target");
    const first = await newSpace({ title: "First", emoji: "🎉", editMode: "locked", parent: collection });
    const second = await newSpace({ title: "Second", parent: collection });
    const third = await newSpace({ title: "Third", parent: collection });

    const response = await api(A.token).spaces.duplicateSpace(first.id);
    expect(response.status).toBe(201);
    const copy = response.data;
    expect(copy.id).not.toBe(first.id);
    expect(copy.revision).not.toBe(first.revision);
    expect(copy).toMatchObject({
      title: "First (copy)",
      emoji: "🎉",
      editMode: "locked",
      parent: collection,
      organization: A.organizationId,
    });
    expect(await collectionOrder(collection)).toEqual([first.id, copy.id, second.id, third.id]);

    const viaGraphQL = (await gql(A.token, DUPLICATE, { input: { id: second.id } })).duplicateSpace.space;
    expect(viaGraphQL).toMatchObject({ title: "Second (copy)", parent: { id: collection } });
    expect(await collectionOrder(collection)).toEqual([first.id, copy.id, second.id, viaGraphQL.id, third.id]);
    expect(await collectionOrderRest(collection)).toEqual([first.id, copy.id, second.id, viaGraphQL.id, third.id]);
    expect(await row(viaGraphQL.id)).toMatchObject({ parentId: collection, organizationId: A.organizationId, deletedAt: null });
  });

  it("copies a top-level space right after it at the top level", async () => {
    const original = await newSpace({ title: "Top original" });
    const next = await newSpace({ title: "Top next" });
    const copy = (await api(A.token).spaces.duplicateSpace(original.id)).data;
    expect(copy.parent).toBeUndefined();
    const order = await rootOrder(A.organizationId);
    expect(order.indexOf(copy.id)).toBe(order.indexOf(original.id) + 1);
    expect(order.indexOf(next.id)).toBe(order.indexOf(copy.id) + 1);
  });

  it("truncates the copy's title to 50 characters", async () => {
    const long = await newSpace({ title: "d".repeat(46) });
    expect((await api(A.token).spaces.duplicateSpace(long.id)).data.title).toBe(`${"d".repeat(46)} (co`);
    const full = await newSpace({ title: "é".repeat(50) });
    const copy = (await gql(A.token, DUPLICATE, { input: { id: full.id } })).duplicateSpace.space;
    expect(copy.title).toBe("é".repeat(50));
    expect([...(await row(copy.id))!.title]).toHaveLength(50);
  });
});

describe("move: POST /v1/spaces/{spaceId}/move, moveSpace", () => {
  it("moves into a collection with parent, and back to the top with null", async () => {
    const collection = await newCollection("Move target");
    const resident = await newSpace({ title: "Resident", parent: collection });
    const space = await newSpace({ title: "Mover" });

    const moved = await api(A.token).spaces.moveSpace(space.id, { parent: collection });
    expect(moved.status).toBe(200);
    expect(moved.data.parent).toBe(collection);
    expect((await row(space.id))!.parentId).toBe(collection);
    expect(await collectionOrder(collection)).toEqual([resident.id, space.id]);

    const top = await api(A.token).spaces.moveSpace(space.id, { parent: null });
    expect(top.data.parent).toBeUndefined();
    expect((await row(space.id))!.parentId).toBeNull();
    expect(await collectionOrder(collection)).toEqual([resident.id]);
    expect((await rootOrder(A.organizationId)).at(-1)).toBe(space.id);

    const viaGraphQL = await gql(A.token, MOVE, { input: { id: space.id, parent: collection } });
    expect(viaGraphQL.moveSpace.space.parent).toEqual({ id: collection });
    const back = await gql(A.token, MOVE, { input: { id: space.id, parent: null } });
    expect(back.moveSpace.space.parent).toBeNull();
    expect((await row(space.id))!.parentId).toBeNull();
  });

  it("orders with position before/after a sibling space", async () => {
    const collection = await newCollection("Ordering");
    const [a, b, c] = [
      await newSpace({ title: "a", parent: collection }),
      await newSpace({ title: "b", parent: collection }),
      await newSpace({ title: "c", parent: collection }),
    ];
    await api(A.token).spaces.moveSpace(c.id, { position: { before: { type: "space", space: a.id } } });
    expect(await collectionOrder(collection)).toEqual([c.id, a.id, b.id]);
    await gql(A.token, MOVE, { input: { id: a.id, position: { after: b.id } } });
    expect(await collectionOrder(collection)).toEqual([c.id, b.id, a.id]);
    await api(A.token).spaces.moveSpace(b.id, { parent: collection, position: { after: { type: "space", space: a.id } } });
    expect(await collectionOrder(collection)).toEqual([c.id, a.id, b.id]);
    expect(await collectionOrderRest(collection)).toEqual([c.id, a.id, b.id]);

    // A position alone moves the space to the reference's parent.
    const outsider = await newSpace({ title: "outsider" });
    const moved = await api(A.token).spaces.moveSpace(outsider.id, { position: { after: { type: "space", space: c.id } } });
    expect(moved.data.parent).toBe(collection);
    expect(await collectionOrder(collection)).toEqual([c.id, outsider.id, a.id, b.id]);
  });

  it("rejects a position inside another parent than the given one (400), and an empty body (400), changing nothing", async () => {
    const here = await newCollection("Here");
    const there = await newCollection("There");
    const space = await newSpace({ title: "Stuck", parent: here });
    const elsewhere = await newSpace({ title: "Elsewhere", parent: there });
    const before = await row(space.id);

    const mismatch = await apiError(
      api(A.token).spaces.moveSpace(space.id, { parent: here, position: { before: { type: "space", space: elsewhere.id } } }),
    );
    expect(mismatch.status).toBe(400);
    expect(mismatch.message).toMatch(/position/);
    const mismatchTop = await gqlError(A.token, MOVE, { input: { id: space.id, parent: null, position: { after: elsewhere.id } } });
    expect(mismatchTop).toMatchObject({ code: "BAD_REQUEST", status: 400 });

    const both = await apiError(
      api(A.token).spaces.moveSpace(space.id, {
        position: { before: { type: "space", space: elsewhere.id }, after: { type: "space", space: elsewhere.id } },
      }),
    );
    expect(both.status).toBe(400);

    const empty = await apiError(api(A.token).spaces.moveSpace(space.id, {}));
    expect(empty.status).toBe(400);
    expect(empty.message).toMatch(/parent or position/);
    expect(await gqlError(A.token, MOVE, { input: { id: space.id } })).toMatchObject({ code: "BAD_REQUEST", status: 400 });

    expect(await row(space.id)).toEqual(before);
    expect(await collectionOrder(here)).toEqual([space.id]);
    expect(await collectionOrder(there)).toEqual([elsewhere.id]);
  });
});

describe("transfer: POST /v1/spaces/{spaceId}/transfer, transferSpace", () => {
  let source: { organizationId: string; userId: string; token: string };
  let target: string; // caller is admin there
  let stranger: string; // caller is not a member
  let notAdmin: string; // caller is a `create` member

  beforeAll(async () => {
    source = await server.bootstrap("Transfer source");
    target = (await server.bootstrap("Transfer target")).organizationId;
    stranger = (await server.bootstrap("Transfer stranger")).organizationId;
    notAdmin = (await server.bootstrap("Transfer not admin")).organizationId;
    await join(source.userId, target, "admin");
    await join(source.userId, notAdmin, "create");
  });

  const transfer = (id: string, body: unknown, token = source.token) => server.rest(token, "POST", `/v1/spaces/${id}/transfer`, body);

  it("moves the space to the top level of the target organization (REST 200, GraphQL)", async () => {
    const collection = await newCollection("Transfer from", source.token, source.organizationId);
    const space = await newSpace({ title: "Travelling", parent: collection }, source.token, source.organizationId);
    const alreadyThere = await newSpace({ title: "Resident" }, source.token, target);

    const response = await transfer(space.id, { organization: target });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ object: "space", id: space.id, title: "Travelling", organization: target });
    expect(response.body.parent).toBeUndefined();
    expect(await row(space.id)).toMatchObject({ organizationId: target, parentId: null });
    expect(await rootOrder(target)).toEqual([alreadyThere.id, space.id]);
    expect(await orgSpaceIds(target, source.token)).toContain(space.id);
    expect(await orgSpaceIds(source.organizationId, source.token)).not.toContain(space.id);
    expect(await collectionOrder(collection, source.token)).toEqual([]);
    expect((await api(source.token).spaces.getSpaceById(space.id)).data.organization).toBe(target);

    const other = await newSpace({ title: "Travelling too" }, source.token, source.organizationId);
    const viaGraphQL = await gql(source.token, TRANSFER, { input: { id: other.id, organization: target } });
    expect(viaGraphQL.transferSpace.space).toMatchObject({ id: other.id, organization: { id: target }, parent: null });
    expect(await rootOrder(target)).toEqual([alreadyThere.id, space.id, other.id]);
  });

  it("refuses a target the caller is not a member of (404), not admin of (403), the same organization (409), and no organization (400)", async () => {
    const space = await newSpace({ title: "Staying" }, source.token, source.organizationId);
    const before = await row(space.id);

    const notMember = await transfer(space.id, { organization: stranger });
    expect(notMember.status).toBe(404);
    expect(notMember.body.error).toMatchObject({ code: 404 });
    expect(await gqlError(source.token, TRANSFER, { input: { id: space.id, organization: stranger } })).toMatchObject({
      code: "NOT_FOUND",
      status: 404,
    });

    const forbidden = await transfer(space.id, { organization: notAdmin });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.message).toMatch(/admin/);
    expect(await gqlError(source.token, TRANSFER, { input: { id: space.id, organization: notAdmin } })).toMatchObject({
      code: "FORBIDDEN",
      status: 403,
    });

    const same = await transfer(space.id, { organization: source.organizationId });
    expect(same.status).toBe(409);
    expect(await gqlError(source.token, TRANSFER, { input: { id: space.id, organization: source.organizationId } })).toMatchObject({
      code: "CONFLICT",
      status: 409,
    });

    const missing = await transfer(space.id, {});
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toMatch(/organization/);
    const missingGraphQL = await gqlError(source.token, TRANSFER, { input: { id: space.id } });
    expect(missingGraphQL.status).toBe(400);
    expect(missingGraphQL.message).toMatch(/organization/);

    expect(await row(space.id)).toEqual(before);
  });
});

describe("permissions per role", () => {
  // What each organization role may do on a top-level space without a defaultLevel.
  const EXPECTED: Record<string, Record<"view" | "comment" | "edit" | "review" | "merge" | "admin", boolean>> = {
    admin: { view: true, comment: true, edit: true, review: true, merge: true, admin: true },
    create: { view: true, comment: true, edit: true, review: true, merge: true, admin: false },
    review: { view: true, comment: true, edit: true, review: true, merge: true, admin: false },
    edit: { view: true, comment: true, edit: true, review: false, merge: false, admin: false },
    comment: { view: true, comment: true, edit: false, review: false, merge: false, admin: false },
    read: { view: true, comment: false, edit: false, review: false, merge: false, admin: false },
  };
  const tokens: Record<string, string> = {};
  let guest: string;
  let spaceId: string;

  beforeAll(async () => {
    for (const role of Object.keys(EXPECTED)) tokens[role] = (await server.addMember(A.organizationId, role)).token;
    guest = (await server.addMember(A.organizationId, null)).token;
    spaceId = (await newSpace({ title: "Roles" })).id;
  });

  it.each(Object.keys(EXPECTED))("gives a %s member the matching permissions on both surfaces", async (role) => {
    const { data } = await api(tokens[role]).spaces.getSpaceById(spaceId);
    expect(data.permissions).toMatchObject(EXPECTED[role]);
    expect(data.permissions.access).toBe(true);
    const { space } = await gql(tokens[role], GET, { id: spaceId });
    expect(space.permissions).toMatchObject(EXPECTED[role]);
    expect(space.permissions).toEqual(data.permissions);
  });

  it("hides the space from a guest (404 / NOT_FOUND)", async () => {
    expect((await apiError(api(guest).spaces.getSpaceById(spaceId))).status).toBe(404);
    expect(await gqlError(guest, GET, { id: spaceId })).toMatchObject({ code: "NOT_FOUND", status: 404 });
    const before = await row(spaceId);
    expect((await apiError(api(guest).spaces.updateSpaceById(spaceId, { title: "Guest was here" }))).status).toBe(404);
    expect(await row(spaceId)).toEqual(before);
  });

  it("lets an edit member rename but not change editMode or delete; refuses a read member a rename", async () => {
    const renamed = await api(tokens.edit).spaces.updateSpaceById(spaceId, { title: "Renamed by editor" });
    expect(renamed.data.title).toBe("Renamed by editor");
    expect((await gql(tokens.edit, UPDATE, { input: { id: spaceId, title: "Renamed again" } })).updateSpace.space.title).toBe(
      "Renamed again",
    );

    const before = await row(spaceId);
    expect((await apiError(api(tokens.edit).spaces.updateSpaceById(spaceId, { editMode: SpaceEditMode.Locked }))).status).toBe(403);
    expect(await gqlError(tokens.edit, UPDATE, { input: { id: spaceId, editMode: "LOCKED" } })).toMatchObject({
      code: "FORBIDDEN",
      status: 403,
    });
    expect((await apiError(api(tokens.edit).spaces.deleteSpaceById(spaceId))).status).toBe(403);
    expect((await apiError(api(tokens.read).spaces.updateSpaceById(spaceId, { title: "Reader rename" }))).status).toBe(403);
    expect(await gqlError(tokens.read, UPDATE, { input: { id: spaceId, title: "Reader rename" } })).toMatchObject({
      code: "FORBIDDEN",
      status: 403,
    });
    expect(await row(spaceId)).toEqual(before);
  });

  it("lowers an edit member to read through the space defaultLevel, and back with inherit", async () => {
    await api(A.token).spaces.updateSpaceById(spaceId, { defaultLevel: MemberRole.Read });
    expect((await api(tokens.edit).spaces.getSpaceById(spaceId)).data.permissions).toMatchObject(EXPECTED.read);
    expect((await apiError(api(tokens.edit).spaces.updateSpaceById(spaceId, { title: "Blocked" }))).status).toBe(403);
    // An organization admin stays admin whatever the defaultLevel.
    expect((await api(tokens.admin).spaces.getSpaceById(spaceId)).data.permissions).toMatchObject(EXPECTED.admin);
    await api(A.token).spaces.updateSpaceById(spaceId, { defaultLevel: "inherit" });
    expect((await api(tokens.edit).spaces.getSpaceById(spaceId)).data.permissions).toMatchObject(EXPECTED.edit);
  });
});

describe("isolation between organizations", () => {
  it("gives org B 404 / NOT_FOUND on every operation on org A's spaces, and changes nothing", async () => {
    const collection = await newCollection("Private to A");
    const space = await newSpace({ title: "A only", parent: collection });
    const deleted = await newSpace({ title: "A deleted" });
    await api(A.token).spaces.deleteSpaceById(deleted.id);
    const own = await newSpace({ title: "B's own" }, B.token, B.organizationId);
    const snapshot = async () => ({
      space: await row(space.id),
      deleted: await row(deleted.id),
      own: await row(own.id),
      countA: await server.database.prisma.space.count({ where: { organizationId: A.organizationId } }),
      countB: await server.database.prisma.space.count({ where: { organizationId: B.organizationId } }),
    });
    const before = await snapshot();
    const b = api(B.token);

    const restCalls: [string, () => Promise<unknown>][] = [
      ["get", () => b.spaces.getSpaceById(space.id)],
      ["patch", () => b.spaces.updateSpaceById(space.id, { title: "Hijacked" })],
      ["delete", () => b.spaces.deleteSpaceById(space.id)],
      ["restore", () => b.spaces.restoreSpace(deleted.id)],
      ["duplicate", () => b.spaces.duplicateSpace(space.id)],
      ["move", () => b.spaces.moveSpace(space.id, { parent: null })],
    ];
    for (const [name, call] of restCalls) {
      expect((await apiError(call())).status, name).toBe(404);
    }
    const transfer = await server.rest(B.token, "POST", `/v1/spaces/${space.id}/transfer`, { organization: B.organizationId });
    expect(transfer.status).toBe(404);
    expect((await apiError(b.orgs.listSpacesInOrganizationById(A.organizationId))).status).toBe(404);

    const gqlCalls: [string, string, Record<string, unknown>][] = [
      ["space", GET, { id: space.id }],
      ["updateSpace", UPDATE, { input: { id: space.id, title: "Hijacked" } }],
      ["deleteSpace", DELETE, { input: { id: space.id } }],
      ["restoreSpace", RESTORE, { input: { id: deleted.id } }],
      ["duplicateSpace", DUPLICATE, { input: { id: space.id } }],
      ["moveSpace", MOVE, { input: { id: space.id, parent: null } }],
      ["transferSpace", TRANSFER, { input: { id: space.id, organization: B.organizationId } }],
    ];
    for (const [name, query, variables] of gqlCalls) {
      expect(await gqlError(B.token, query, variables), name).toMatchObject({ code: "NOT_FOUND", status: 404 });
    }

    const nodes = await server.graphql(
      B.token,
      /* GraphQL */ `query($id: ID!, $ids: [ID!]!) { node(id: $id) { id } nodes(ids: $ids) { id } }`,
      { id: space.id, ids: [space.id, deleted.id, own.id] },
    );
    expect(nodes.data).toEqual({ node: null, nodes: [null, null, { id: own.id }] });

    // B's own moves cannot point into A's tree either.
    const position = await apiError(b.spaces.moveSpace(own.id, { position: { before: { type: "space", space: space.id } } }));
    expect(position.status).toBe(400);
    const parent = await apiError(b.spaces.moveSpace(own.id, { parent: collection }));
    expect(parent.status).toBe(400);

    expect(await snapshot()).toEqual(before);
  });
});

describe("concurrency", () => {
  it("two deletes of the same space at once: both 205, one deletedAt", async () => {
    const space = await newSpace({ title: "Deleted twice at once" });
    const [first, second] = await Promise.all([
      api(A.token).spaces.deleteSpaceById(space.id),
      api(A.token).spaces.deleteSpaceById(space.id),
    ]);
    expect([first.status, second.status]).toEqual([205, 205]);
    expect((await row(space.id))!.deletedAt!.toISOString()).toBe(server.clock.now().toISOString());
    expect(await orgSpaceIds()).not.toContain(space.id);
  });

  it("two moves relative to each other at once leave a consistent total order", async () => {
    const collection = await newCollection("Race track");
    const ids: string[] = [];
    for (const title of ["w", "x", "y", "z"]) ids.push((await newSpace({ title, parent: collection })).id);
    const [, x, , z] = ids;

    for (let round = 0; round < 4; round++) {
      const outcomes = await Promise.allSettled([
        api(A.token).spaces.moveSpace(x, { position: { after: { type: "space", space: z } } }),
        gql(A.token, MOVE, { input: { id: z, position: { before: x } } }),
      ]);
      for (const outcome of outcomes) {
        if (outcome.status === "rejected") {
          // A clean refusal is acceptable; a crash is not.
          expect(outcome.reason).toBeInstanceOf(GitBookAPIError);
          expect((outcome.reason as GitBookAPIError).code).toBeLessThan(500);
        }
      }
      const order = await collectionOrder(collection);
      expect([...order].sort()).toEqual([...ids].sort());
      expect(await collectionOrderRest(collection)).toEqual(order);
      const rows = await server.database.prisma.space.findMany({ where: { parentId: collection }, select: { id: true, sortKey: true } });
      expect(new Set(rows.map((r) => r.sortKey)).size).toBe(rows.length);
      expect([...rows].sort((p, q) => (p.sortKey < q.sortKey ? -1 : 1)).map((r) => r.id)).toEqual(order);
      // Paging through one at a time yields each space exactly once.
      const paged: string[] = [];
      let after: string | null = null;
      do {
        const data: any = await gql(
          A.token,
          /* GraphQL */ `query($id: ID!, $after: String) { collection(id: $id) {
          spaces(first: 1, after: $after) { pageInfo { hasNextPage endCursor } nodes { id } } } }`,
          { id: collection, after },
        );
        paged.push(...data.collection.spaces.nodes.map((node: { id: string }) => node.id));
        after = data.collection.spaces.pageInfo.hasNextPage ? data.collection.spaces.pageInfo.endCursor : null;
      } while (after);
      expect(paged).toEqual(order);
    }
  });

  it("a move racing a move of its reference into another collection succeeds or is refused cleanly", async () => {
    const left = await newCollection("Race left");
    const right = await newCollection("Race right");
    for (let round = 0; round < 4; round++) {
      const reference = await newSpace({ title: `reference ${round}`, parent: left });
      const follower = await newSpace({ title: `follower ${round}`, parent: right });
      const outcomes = await Promise.allSettled([
        api(A.token).spaces.moveSpace(reference.id, { parent: right }),
        api(A.token).spaces.moveSpace(follower.id, { position: { after: { type: "space", space: reference.id } } }),
      ]);
      expect(outcomes[0].status).toBe("fulfilled");
      if (outcomes[1].status === "rejected") {
        expect(outcomes[1].reason).toBeInstanceOf(GitBookAPIError);
        expect((outcomes[1].reason as GitBookAPIError).code).toBe(409);
      }
      // Either order is a valid outcome: the follower went next to the reference where the
      // reference was when the follower's move ran (left if first, right if second).
      expect((await row(reference.id))!.parentId).toBe(right);
      const followerParent = (await row(follower.id))!.parentId;
      if (outcomes[1].status === "fulfilled") {
        expect(followerParent).toBe(outcomes[1].value.data.parent);
        const order = await collectionOrder(followerParent!);
        if (followerParent === right) expect(order.indexOf(follower.id)).toBe(order.indexOf(reference.id) + 1);
      } else {
        expect(followerParent).toBe(right);
      }
      for (const collection of [left, right]) {
        const order = await collectionOrder(collection);
        expect(new Set(order).size).toBe(order.length);
        expect(await collectionOrderRest(collection)).toEqual(order);
      }
    }
  });

  it("two duplicates of the same space at once get distinct places right after it", async () => {
    const collection = await newCollection("Twin copies");
    const original = await newSpace({ title: "Original", parent: collection });
    const last = await newSpace({ title: "Last", parent: collection });
    const [one, two] = await Promise.all([
      api(A.token).spaces.duplicateSpace(original.id),
      gql(A.token, DUPLICATE, { input: { id: original.id } }),
    ]);
    const copies = [one.data.id, two.duplicateSpace.space.id];
    const order = await collectionOrder(collection);
    expect(order).toHaveLength(4);
    expect(order[0]).toBe(original.id);
    expect(new Set(order.slice(1, 3))).toEqual(new Set(copies));
    expect(order[3]).toBe(last.id);
    const keys = await server.database.prisma.space.findMany({ where: { parentId: collection }, select: { sortKey: true } });
    expect(new Set(keys.map((k) => k.sortKey)).size).toBe(4);
  });
});

// The order of siblings is that of their fractional sortKeys, which compare byte by byte ("Zz",
// the key before "a0", sorts first). A PostgreSQL database created with a linguistic default
// collation (en_US, the default of many installations) compares them otherwise ("a0" < "Zz"),
// so the lists must not depend on the database's default collation. The shared harness creates
// its databases from the server's template (C.UTF-8 here), so this test makes its own.
describe.runIf(Boolean(process.env.DATABASE_URL))("order on a database with a linguistic default collation (PostgreSQL)", () => {
  async function adminQuery(sql: string) {
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  }

  it("lists a collection's spaces in the order moves gave them", async () => {
    const name = `test_icu_${randomBytes(6).toString("hex")}`;
    await adminQuery(`CREATE DATABASE ${name} TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'`);
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `/${name}`;
    const database = await openDatabase({ databaseUrl: url.toString() });
    let handler: ReturnType<typeof createApp>["yoga"] | undefined;
    const http = createServer((req, res) => handler!(req, res));
    try {
      await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
      const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
      handler = createApp({ database, config: { publicUrl: base } }).yoga;
      const { organizationId, token } = await bootstrapOrganization(database.prisma, {
        organizationTitle: "Linguistic",
        email: `icu-${randomBytes(4).toString("hex")}@example.com`,
      });
      const graphql = async (query: string, variables: Record<string, unknown>) => {
        const response = await fetch(`${base}/graphql`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
          body: JSON.stringify({ query, variables }),
        });
        const result = (await response.json()) as { data?: any; errors?: unknown[] };
        expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
        return result.data;
      };
      const client = createClient({ endpoint: base, token });
      const collection = (
        await graphql(`mutation($input: CreateCollectionInput!) { createCollection(input: $input) { collection { id } } }`, {
          input: { organization: organizationId, title: "Ordered" },
        })
      ).createCollection.collection.id;
      const ids: string[] = [];
      for (const title of ["a", "b", "c"]) ids.push((await client.orgs.createSpace(organizationId, { title, parent: collection })).data.id);
      const [a, b, c] = ids;

      await client.spaces.moveSpace(c, { position: { before: { type: "space", space: a } } });
      const order = (
        await graphql(`query($id: ID!) { collection(id: $id) { spaces { nodes { id } } } }`, { id: collection })
      ).collection.spaces.nodes.map((node: { id: string }) => node.id);
      expect(order).toEqual([c, a, b]);
      expect((await client.collections.listSpacesInCollectionById(collection)).data.items.map((space) => space.id)).toEqual([c, a, b]);
    } finally {
      await new Promise((resolve) => http.close(resolve));
      await database.close();
      await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    }
  });
});
