// The audit log (issue 30: the three audit operations answered 501): writes record their event in
// their own transaction, and organization admins list them through the official client and raw
// REST (answers checked against the published schemas) and GraphQL (Organization.auditEvents,
// auditEvent, auditEventActions). Hand-written expected events; filters and paging; another
// organization's events are unknown; bad filters name the field on both surfaces; every recorded
// action is walked once by its write; refused and rolled-back writes record nothing; the page
// size is bounded.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectGraphQLError, expectRawRestError, expectRestError, graphqlData, publishedRest } from "./support/expect.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let A: { organizationId: string; userId: string; token: string };
let B: { organizationId: string; userId: string; token: string };
let editor: { userId: string; token: string };
let tokenOfA: string;

const gql = <T = any>(token: string, query: string, variables?: Record<string, unknown>) => graphqlData<T>(server, token, query, variables);
const client = (token = A.token) => server.client(token);
const prisma = () => server.database.prisma;
const path = (query = "", organizationId = A.organizationId) => `/v1/orgs/${organizationId}/audit-events${query}`;
const eventCount = () => prisma().auditEvent.count({ where: { organizationId: A.organizationId } });

/** The next write happens one second later, at the returned time: events get distinct, known times. */
function tick(): string {
  server.clock.advance(1000);
  return server.clock.now().toISOString();
}

/** The events of one target, newest first, through the official client. */
async function eventsOf(target: string, token = A.token) {
  return (await client(token).orgs.listOrganizationAuditEvents(A.organizationId, { target })).data.items;
}

beforeAll(async () => {
  server = await startTestServer();
  A = await server.bootstrap("Audit A");
  B = await server.bootstrap("Audit B");
  editor = await server.addMember(A.organizationId, "edit");
  tokenOfA = (await prisma().apiToken.findFirstOrThrow({ where: { userId: A.userId } })).id;
});

afterAll(async () => {
  await server?.close();
});

describe("what a write records", () => {
  it("creating a space records one space.created event, as the published AuditEvent", async () => {
    const at = tick();
    const { data: space } = await client().orgs.createSpace(A.organizationId, { title: "Handbook" });
    const [event, ...others] = await eventsOf(space.id);
    expect(others).toEqual([]);
    expect(event).toEqual({
      object: "audit-event",
      id: event!.id,
      occurredAt: at,
      action: "space.created",
      actor: { type: "user", id: A.userId },
      source: "api",
      target: { type: "space", id: space.id, label: "Handbook" },
      urls: { location: `${server.url}/v1/orgs/${A.organizationId}/audit-events/${event!.id}` },
    });
    expect(event!.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const { data: details } = await client().orgs.getOrganizationAuditEvent(A.organizationId, event!.id);
    expect(details).toEqual({ ...event, schemaVersion: 1, payload: { token: tokenOfA } });
    await publishedRest(server, A.token, "GET", `/v1/orgs/${A.organizationId}/audit-events/${event!.id}`);
  });

  it("a GraphQL write records as a REST one does: renaming a space, with the fields it changed", async () => {
    const { data: space } = await client().orgs.createSpace(A.organizationId, { title: "Draft" });
    const at = tick();
    await gql(A.token, `mutation($input: UpdateSpaceInput!) { updateSpace(input: $input) { space { id } } }`, {
      input: { id: space.id, title: "Guide" },
    });
    const data = await gql(
      A.token,
      `query($id: ID!, $target: String) { organization(id: $id) { auditEvents(target: $target) { totalCount nodes {
        action occurredAt source actor { type id tokenId } target { type id label } payload } } } }`,
      { id: A.organizationId, target: space.id },
    );
    expect(data.organization.auditEvents).toEqual({
      totalCount: 2,
      nodes: [
        {
          action: "space.updated",
          occurredAt: at,
          source: "api",
          actor: { type: "user", id: A.userId, tokenId: tokenOfA },
          target: { type: "space", id: space.id, label: "Guide" },
          payload: { fields: ["title"] },
        },
        expect.objectContaining({ action: "space.created", target: { type: "space", id: space.id, label: "Draft" } }),
      ],
    });
  });

  it("merging a change request, a team and its members, a member's role: each write once", async () => {
    const { data: space } = await client().orgs.createSpace(A.organizationId, { title: "Merged" });
    const { data: changeRequest } = await client().spaces.createChangeRequest(space.id, { subject: "Fix typos" });
    const mergedAt = tick();
    await client().spaces.mergeChangeRequest(space.id, changeRequest.id);
    const [merged, ...others] = await eventsOf(changeRequest.id);
    expect(others).toEqual([]);
    expect(merged).toMatchObject({
      action: "space.change-request.merged",
      occurredAt: mergedAt,
      target: { type: "change-request", id: changeRequest.id, label: "Fix typos" },
    });
    const { data: details } = await client().orgs.getOrganizationAuditEvent(A.organizationId, merged!.id);
    expect(details.payload).toMatchObject({ space: space.id, number: changeRequest.number });

    const { data: team } = await client().orgs.createOrganizationTeam(A.organizationId, { title: "Writers", members: [editor.userId] });
    expect((await eventsOf(team.id)).map((e) => e.action)).toEqual(["organization.team.created"]);
    const roleAt = tick();
    await client().orgs.updateMemberInOrganizationById(A.organizationId, editor.userId, { role: "create" as never });
    const [role] = await eventsOf(editor.userId);
    expect(role).toMatchObject({
      action: "organization.member.updated",
      occurredAt: roleAt,
      target: { type: "member", id: editor.userId },
    });
    const { data: roleDetails } = await client().orgs.getOrganizationAuditEvent(A.organizationId, role!.id);
    expect(roleDetails.payload).toEqual({ role: { from: "edit", to: "create" }, token: tokenOfA });
    // The same role again changes nothing: no second event.
    await client().orgs.updateMemberInOrganizationById(A.organizationId, editor.userId, { role: "create" as never });
    expect(await eventsOf(editor.userId)).toHaveLength(1);
    await client().orgs.updateMemberInOrganizationById(A.organizationId, editor.userId, { role: "edit" as never });
  });

  it("transferring a space is in both organizations' logs", async () => {
    await prisma().member.create({ data: { organizationId: B.organizationId, userId: A.userId, role: "admin" } });
    const { data: space } = await client().orgs.createSpace(A.organizationId, { title: "Moving" });
    tick();
    const transfer = await server.rest(A.token, "POST", `/v1/spaces/${space.id}/transfer`, { organization: B.organizationId });
    expect(transfer.status, JSON.stringify(transfer.body)).toBe(200);
    const inB = (await client(B.token).orgs.listOrganizationAuditEvents(B.organizationId, { target: space.id })).data.items;
    expect(inB.map((e) => e.action)).toEqual(["space.transferred"]);
    expect((await eventsOf(space.id)).map((e) => e.action)).toEqual(["space.transferred", "space.created"]);
    await prisma().member.delete({ where: { organizationId_userId: { organizationId: B.organizationId, userId: A.userId } } });
  });
});

describe("every recorded action", () => {
  const SCRIPT = "export default { fetch: async () => new Response('ok') };";

  it("is recorded once by its write, naming its target: a walk through each write", async () => {
    const D = await server.bootstrap("Audit D");
    const E = await server.bootstrap("Audit E");
    const member = await server.addMember(D.organizationId, "edit");
    await prisma().member.create({ data: { organizationId: E.organizationId, userId: D.userId, role: "admin" } });
    await prisma().auditEvent.deleteMany({ where: { organizationId: D.organizationId } });
    const api = server.client(D.token);
    const seen: [string, string][] = [];
    /** Runs one write and expects exactly one new event of D's log: `action` on the target it answers. */
    const expectOne = async (action: string, write: () => Promise<string>) => {
      tick();
      const before = await prisma().auditEvent.count({ where: { organizationId: D.organizationId } });
      const target = await write();
      expect(await prisma().auditEvent.count({ where: { organizationId: D.organizationId } }), action).toBe(before + 1);
      const newest = await prisma().auditEvent.findFirstOrThrow({
        where: { organizationId: D.organizationId },
        orderBy: { occurredAt: "desc" },
      });
      expect({ action: newest.action, target: newest.targetId }).toEqual({ action, target });
      seen.push([action, target]);
    };

    await expectOne("organization.settings.updated", async () => {
      await api.orgs.updateOrganizationById(D.organizationId, { title: "Audit D renamed" });
      return D.organizationId;
    });
    await expectOne("organization.member.updated", async () => {
      await api.orgs.updateMemberInOrganizationById(D.organizationId, member.userId, { role: "create" as never });
      return member.userId;
    });
    let invite = "";
    await expectOne("organization.link-invite.created", async () => {
      invite = (await api.orgs.createOrganizationInvite(D.organizationId, { role: "edit" as never })).data.id;
      return invite;
    });
    await expectOne("organization.link-invite.updated", async () => {
      await api.orgs.updateOrganizationInviteById(D.organizationId, invite, { role: "read" as never });
      return invite;
    });
    await expectOne("organization.link-invite.deleted", async () => {
      await api.orgs.deleteOrganizationInviteById(D.organizationId, invite);
      return invite;
    });
    let team = "";
    await expectOne("organization.team.created", async () => {
      team = (await api.orgs.createOrganizationTeam(D.organizationId, { title: "Reviewers" })).data.id;
      return team;
    });
    await expectOne("organization.team.updated", async () => {
      await api.orgs.updateTeamInOrganizationById(D.organizationId, team, { title: "Editors" });
      return team;
    });
    await expectOne("organization.team.member-added", async () => {
      await api.orgs.addMemberToOrganizationTeamById(D.organizationId, team, member.userId, { role: "member" as never });
      return team;
    });
    await expectOne("organization.team.member-updated", async () => {
      await api.orgs.addMemberToOrganizationTeamById(D.organizationId, team, member.userId, { role: "owner" as never });
      return team;
    });
    await expectOne("organization.team.member-removed", async () => {
      await api.orgs.deleteMemberFromOrganizationTeamById(D.organizationId, team, member.userId);
      return team;
    });
    await expectOne("organization.team.deleted", async () => {
      await api.orgs.removeTeamFromOrganizationById(D.organizationId, team);
      return team;
    });
    const published = await server.rest(D.token, "POST", "/v1/integrations/audit-walk", {
      organization: D.organizationId,
      title: "Audit walk",
      script: SCRIPT,
      visibility: "private",
      target: "all",
    });
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    let installation = "";
    await expectOne("organization.integration.installed", async () => {
      installation = (await api.integrations.installIntegration("audit-walk", { organization: D.organizationId })).data.id;
      return installation;
    });
    await expectOne("organization.integration.uninstalled", async () => {
      await api.integrations.uninstallIntegration("audit-walk", installation);
      return installation;
    });
    let parent = "";
    let collection = "";
    await expectOne("collection.created", async () => {
      parent = (await api.orgs.createCollection(D.organizationId, { title: "Parent" })).data.id;
      return parent;
    });
    await expectOne("collection.created", async () => {
      collection = (await api.orgs.createCollection(D.organizationId, { title: "Child" })).data.id;
      return collection;
    });
    await expectOne("collection.updated", async () => {
      await api.collections.updateCollectionById(collection, { title: "Child renamed" });
      return collection;
    });
    await expectOne("collection.moved", async () => {
      await api.collections.moveCollection(collection, { parent });
      return collection;
    });
    let space = "";
    await expectOne("space.created", async () => {
      space = (await api.orgs.createSpace(D.organizationId, { title: "Walked" })).data.id;
      return space;
    });
    await expectOne("space.updated", async () => {
      await api.spaces.updateSpaceById(space, { title: "Walked twice" });
      return space;
    });
    await expectOne("space.moved", async () => {
      await api.spaces.moveSpace(space, { parent });
      return space;
    });
    await expectOne("space.deleted", async () => {
      await api.spaces.deleteSpaceById(space);
      return space;
    });
    await expectOne("space.restored", async () => {
      await api.spaces.restoreSpace(space);
      return space;
    });
    const { data: changeRequest } = await api.spaces.createChangeRequest(space, { subject: "Walk" });
    await expectOne("space.change-request.merged", async () => {
      await api.spaces.mergeChangeRequest(space, changeRequest.id);
      return changeRequest.id;
    });
    let site = "";
    await expectOne("site.created", async () => {
      site = (await api.orgs.createSite(D.organizationId, { title: "Walk site", spaces: [space] })).data.id;
      return site;
    });
    await expectOne("site.updated", async () => {
      await api.orgs.updateSiteById(D.organizationId, site, { title: "Walk site renamed" });
      return site;
    });
    await expectOne("site.published", async () => {
      await api.orgs.publishSite(D.organizationId, site);
      return site;
    });
    await expectOne("site.unpublished", async () => {
      await api.orgs.unpublishSite(D.organizationId, site);
      return site;
    });
    await expectOne("site.deleted", async () => {
      await api.orgs.deleteSiteById(D.organizationId, site);
      return site;
    });
    await expectOne("space.transferred", async () => {
      const response = await server.rest(D.token, "POST", `/v1/spaces/${space}/transfer`, { organization: E.organizationId });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return space;
    });
    await expectOne("collection.transferred", async () => {
      await api.collections.transferCollection(collection, { organization: E.organizationId });
      return collection;
    });
    await expectOne("collection.deleted", async () => {
      await api.collections.deleteCollectionById(parent);
      return parent;
    });
    await expectOne("organization.member.removed", async () => {
      await api.orgs.removeMemberFromOrganizationById(D.organizationId, member.userId);
      return member.userId;
    });

    // Every action of the published actions list was walked once, and nothing else was recorded.
    const { data: actions } = await api.orgs.listOrganizationAuditEventActions(D.organizationId);
    expect([...new Set(seen.map(([action]) => action))].sort()).toEqual(actions.items.map((item) => item.id).sort());
    const logged = (await api.orgs.listOrganizationAuditEvents(D.organizationId, { limit: 100 })).data.items;
    expect(logged.map((event) => [event.action, event.target.id]).reverse()).toEqual(seen);
  });
});

describe("refused and rolled-back writes record nothing", () => {
  it("a write refused by its checks or its permission leaves no event", async () => {
    const { data: space } = await client().orgs.createSpace(A.organizationId, { title: "Kept" });
    const before = await eventCount();
    await expectRestError(client().orgs.createSpace(A.organizationId, { title: "x".repeat(51) }), 400, "title");
    await expectRestError(client(editor.token).spaces.deleteSpaceById(space.id), 403);
    await expectRestError(client().spaces.updateSpaceById(space.id, { editMode: "nope" as never }), 400, "editMode");
    // The last admin cannot be removed: refused inside the write's transaction.
    await expectRestError(client().orgs.removeMemberFromOrganizationById(A.organizationId, A.userId), 409);
    const response = await server.graphql(editor.token, `mutation($id: ID!) { deleteSpace(input: { id: $id }) { deletedSpaceId } }`, {
      id: space.id,
    });
    expect(response.errors).toBeDefined();
    expect(await eventCount()).toBe(before);
    expect(await prisma().space.findUnique({ where: { id: space.id } })).toMatchObject({ title: "Kept", deletedAt: null });
  });

  it("a write whose event cannot be written is rolled back with it: neither the change nor the event remain", async () => {
    const { data: space } = await client().orgs.createSpace(A.organizationId, { title: "Stable" });
    // The event's insert fails after the space's update, in the same transaction: both roll back.
    await prisma().$executeRawUnsafe(`CREATE FUNCTION audit_test_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'refused at commit'; END $$`);
    await prisma().$executeRawUnsafe(`CREATE TRIGGER audit_test_refuse BEFORE INSERT ON "AuditEvent"
      FOR EACH ROW WHEN (NEW."targetLabel" = 'Refused at commit') EXECUTE FUNCTION audit_test_refuse()`);
    try {
      const before = await eventCount();
      const response = await server.rest(A.token, "PATCH", `/v1/spaces/${space.id}`, { title: "Refused at commit" });
      expect(response.status).toBe(500);
      expect(await eventCount()).toBe(before);
      expect(await prisma().space.findUniqueOrThrow({ where: { id: space.id } })).toMatchObject({ title: "Stable" });
    } finally {
      await prisma().$executeRawUnsafe(`DROP TRIGGER audit_test_refuse ON "AuditEvent"`);
      await prisma().$executeRawUnsafe(`DROP FUNCTION audit_test_refuse()`);
    }
  });
});

describe("listing and filtering", () => {
  let organizationId: string;
  let admin: { token: string; userId: string };
  let writer: { token: string; userId: string };
  const times: Record<string, string> = {};
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    const C = await server.bootstrap("Audit C");
    organizationId = C.organizationId;
    admin = C;
    writer = await server.addMember(organizationId, "admin");
    await prisma().auditEvent.deleteMany({ where: { organizationId } });
    const write = async (name: string, token: string, run: (token: string) => Promise<string>) => {
      times[name] = tick();
      ids[name] = await run(token);
    };
    await write("one", admin.token, async (t) => (await server.client(t).orgs.createCollection(organizationId, { title: "One" })).data.id);
    await write("two", writer.token, async (t) => (await server.client(t).orgs.createSpace(organizationId, { title: "Two" })).data.id);
    await write("three", admin.token, async (t) => (await server.client(t).orgs.createSpace(organizationId, { title: "Three" })).data.id);
    await write("four", writer.token, async (t) => {
      await server.client(t).collections.updateCollectionById(ids.one!, { title: "One renamed" });
      return ids.one!;
    });
    await write(
      "five",
      admin.token,
      async (t) => (await server.client(t).orgs.createCollection(organizationId, { title: "Five" })).data.id,
    );
  });

  const titles = (items: { target: { label?: string } }[]) => items.map((item) => item.target.label);
  const list = async (query: Record<string, unknown>) =>
    (await server.client(admin.token).orgs.listOrganizationAuditEvents(organizationId, query as never)).data;

  it("lists newest first; the actions list names what is recorded", async () => {
    const data = await list({});
    expect(titles(data.items)).toEqual(["Five", "One renamed", "Three", "Two", "One"]);
    expect(data.count).toBe(5);
    expect(data.items.map((item) => item.action)).toEqual([
      "collection.created",
      "collection.updated",
      "space.created",
      "space.created",
      "collection.created",
    ]);
    const { data: actions } = await server.client(admin.token).orgs.listOrganizationAuditEventActions(organizationId);
    expect(actions.items).toContainEqual({ object: "audit-event-action", id: "space.created", label: "Created space" });
    expect(actions.items).toContainEqual({ object: "audit-event-action", id: "site.published", label: "Published site" });
    expect(actions.items).toContainEqual({
      object: "audit-event-action",
      id: "organization.team.member-added",
      label: "Added organization team member",
    });
    await publishedRest(server, admin.token, "GET", `/v1/orgs/${organizationId}/audit-event-actions`);
    await publishedRest(server, admin.token, "GET", path("", organizationId));
  });

  it("filters by action, actor, target and time, on both surfaces", async () => {
    expect(titles((await list({ action: "space.created" })).items)).toEqual(["Three", "Two"]);
    expect(titles((await list({ actor: writer.userId })).items)).toEqual(["One renamed", "Two"]);
    expect(titles((await list({ target: ids.one })).items)).toEqual(["One renamed", "One"]);
    expect(titles((await list({ from: times.two, to: times.four })).items)).toEqual(["One renamed", "Three", "Two"]);
    expect(titles((await list({ actor: writer.userId, action: "space.created" })).items)).toEqual(["Two"]);
    expect((await list({ actor: "usr_nobody" })).items).toEqual([]);
    const data = await gql(
      admin.token,
      `query($id: ID!, $from: String, $action: String) { organization(id: $id) { auditEvents(from: $from, action: $action) {
        nodes { target { label } } } } }`,
      { id: organizationId, from: times.three, action: "collection.created" },
    );
    expect(data.organization.auditEvents.nodes).toEqual([{ target: { label: "Five" } }]);
  });

  it("pages by limit and next.page without skipping or repeating, at most 100 a page", async () => {
    const first = await list({ limit: 2 });
    expect(titles(first.items)).toEqual(["Five", "One renamed"]);
    expect(first.count).toBe(5);
    const second = await list({ limit: 2, page: first.next!.page });
    expect(titles(second.items)).toEqual(["Three", "Two"]);
    const third = await list({ limit: 2, page: second.next!.page });
    expect(titles(third.items)).toEqual(["One"]);
    expect(third.next).toBeUndefined();
    await expectRawRestError(server, admin.token, "GET", path("?limit=101", organizationId), undefined, 400, "limit");
    expect((await list({ limit: 100 })).items).toHaveLength(5);
    const response = await server.graphql(
      admin.token,
      `query($id: ID!) { organization(id: $id) { auditEvents(first: 101) { totalCount } } }`,
      {
        id: organizationId,
      },
    );
    expectGraphQLError(response, "BAD_REQUEST", "first");
  });

  it("bad filters are refused naming the field, on both surfaces", async () => {
    const cases: [string, string, Record<string, string>][] = [
      ["from=yesterday", "from", { from: "yesterday" }],
      ["to=2026-13-45T00:00:00Z", "to", { to: "2026-13-45T00:00:00Z" }],
      ["action=space.exploded", "action", { action: "space.exploded" }],
      [`actor=${"a".repeat(201)}`, "actor", { actor: "a".repeat(201) }],
      [`from=${encodeURIComponent(times.four!)}&to=${encodeURIComponent(times.one!)}`, "from", { from: times.four!, to: times.one! }],
    ];
    for (const [query, field, variables] of cases) {
      await expectRawRestError(server, admin.token, "GET", path(`?${query}`, organizationId), undefined, 400, field);
      const response = await server.graphql(
        admin.token,
        `query($id: ID!, $from: String, $to: String, $action: String, $actor: String) { organization(id: $id) {
          auditEvents(from: $from, to: $to, action: $action, actor: $actor) { totalCount } } }`,
        { id: organizationId, ...variables },
      );
      expectGraphQLError(response, "BAD_REQUEST", field);
    }
    await expectRawRestError(server, admin.token, "GET", path("?page=forged", organizationId), undefined, 400, "page");
  });
});

describe("who may read the audit log", () => {
  let eventOfA: string;

  beforeAll(async () => {
    eventOfA = (await prisma().auditEvent.findFirstOrThrow({ where: { organizationId: A.organizationId } })).id;
  });

  it("organization admins only: other members are refused (403)", async () => {
    const reader = await server.addMember(A.organizationId, "create");
    await expectRestError(client(reader.token).orgs.listOrganizationAuditEvents(A.organizationId), 403);
    await expectRestError(client(reader.token).orgs.getOrganizationAuditEvent(A.organizationId, eventOfA), 403);
    await expectRestError(client(reader.token).orgs.listOrganizationAuditEventActions(A.organizationId), 403);
    const response = await server.graphql(reader.token, `query($id: ID!) { organization(id: $id) { auditEvents { totalCount } } }`, {
      id: A.organizationId,
    });
    expectGraphQLError(response, "FORBIDDEN");
  });

  it("another organization's log and events are unknown (404)", async () => {
    await expectRestError(client(B.token).orgs.listOrganizationAuditEvents(A.organizationId), 404);
    await expectRestError(client(B.token).orgs.getOrganizationAuditEvent(A.organizationId, eventOfA), 404);
    // A's event through B's own log, where B's admin may read: still not found.
    await expectRestError(client(B.token).orgs.getOrganizationAuditEvent(B.organizationId, eventOfA), 404);
    await expectRestError(client().orgs.getOrganizationAuditEvent(A.organizationId, "00000000-0000-4000-8000-000000000000"), 404);
    const response = await server.graphql(
      B.token,
      `query($id: ID!, $event: String!) { organization(id: $id) { auditEvent(id: $event) { id } } }`,
      {
        id: B.organizationId,
        event: eventOfA,
      },
    );
    expectGraphQLError(response, "NOT_FOUND");
    const listed = (await client(B.token).orgs.listOrganizationAuditEvents(B.organizationId, { limit: 100 })).data.items;
    expect(listed.map((event) => event.id)).not.toContain(eventOfA);
  });
});
