// Members through HTTP, on both surfaces: the /v1 member routes (list with filters, sort, order
// and pages; get, patch, delete, SSO; a member's spaces), ping, organizations by e-mail domain,
// `/v1/user`, GraphQL invitations and link invites, `lastSeenAt` from token use, the last-admin
// rule, and the CLI `invite` command as a real process.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MemberRole } from "@gitbook/api";
import { createApp } from "../src/app.ts";
import { openDatabase } from "../src/db/client.ts";
import { newId } from "../src/core/ids.ts";
import { issueToken } from "../src/core/auth/tokens.ts";
import { createScratchDatabase } from "./support/database.ts";
import { validateResponse } from "./support/openapi.ts";
import { startTestServer, type TestServer } from "./support/server.ts";
import { expectGraphQLError, expectRestError, graphqlData } from "./support/expect.ts";

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
}, 120_000);

afterAll(async () => {
  await server?.close();
});

const api = (token: string) => server.client(token);
const prisma = () => server.database.prisma;
const role = (value: string | null) => value as MemberRole;
const gql = <T = any>(token: string, query: string, variables?: Record<string, unknown>) => graphqlData<T>(server, token, query, variables);

/** A user with a chosen name and e-mail, member of `organizationId`, and their token. */
async function addPerson(
  organizationId: string,
  person: { displayName: string; email: string; role: string | null; joinedAt?: Date; lastSeenAt?: Date | null },
) {
  const userId = newId("User");
  await prisma().user.create({ data: { id: userId, email: person.email, displayName: person.displayName } });
  await prisma().member.create({
    data: { organizationId, userId, role: person.role, joinedAt: person.joinedAt, lastSeenAt: person.lastSeenAt ?? null },
  });
  return { userId, token: await issueToken(prisma(), userId) };
}

const ids = (items: { id: string }[]) => items.map((item) => item.id);

async function snapshot(organizationId: string) {
  const [members, teamMembers, grants] = await Promise.all([
    prisma().member.findMany({ where: { organizationId }, orderBy: { userId: "asc" } }),
    prisma().teamMember.findMany({ where: { team: { organizationId } }, orderBy: [{ teamId: "asc" }, { userId: "asc" }] }),
    prisma().permissionGrant.findMany({ where: { organizationId }, orderBy: { id: "asc" } }),
  ]);
  // lastSeenAt moves with every token use: not part of what a refused write must leave alone.
  return { members: members.map(({ lastSeenAt: _, ...rest }) => rest), teamMembers, grants };
}

describe("listing members", () => {
  let org: { organizationId: string; userId: string; token: string };
  let m: Record<"alice" | "bob" | "carol" | "dan", { userId: string; token: string }>;

  beforeAll(async () => {
    org = await server.bootstrap("Listing org");
    const day = (n: number) => new Date(Date.UTC(2020, 0, n));
    m = {
      alice: await addPerson(org.organizationId, {
        displayName: "Alice Walker",
        email: "alice@corp.test",
        role: "edit",
        joinedAt: day(1),
        lastSeenAt: new Date("2026-01-10T00:00:00Z"),
      }),
      bob: await addPerson(org.organizationId, { displayName: "Bob Stone", email: "bob@corp.test", role: "read", joinedAt: day(2) }),
      carol: await addPerson(org.organizationId, {
        displayName: "Carol ALICEson",
        email: "carol@other.test",
        role: null,
        joinedAt: day(3),
        lastSeenAt: new Date("2026-01-12T00:00:00Z"),
      }),
      dan: await addPerson(org.organizationId, {
        displayName: "Dan",
        email: "Alice.Fan@x.test".toLowerCase(),
        role: "read",
        joinedAt: day(4),
      }),
    };
    // The admin's first request records their activity at the clock's time (2026-01-15T10:00Z).
    await api(org.token).orgs.getOrganizationById(org.organizationId);
  });

  it("lists every member, newest first by default, in the published shape", async () => {
    const { data } = await api(org.token).orgs.listMembersInOrganizationById(org.organizationId);
    expect(data.count).toBe(5);
    expect(ids(data.items)).toEqual([org.userId, m.dan.userId, m.carol.userId, m.bob.userId, m.alice.userId]);
    const alice = data.items.find((item) => item.id === m.alice.userId)!;
    expect(alice).toMatchObject({
      object: "member",
      role: "edit",
      disabled: false,
      sso: false,
      joinedAt: "2020-01-01T00:00:00.000Z",
      lastSeenAt: "2026-01-10T00:00:00.000Z",
      spaces: 0,
      teams: 0,
      user: { object: "user", id: m.alice.userId, displayName: "Alice Walker", email: "alice@corp.test" },
    });
    expect(data.items.find((item) => item.id === m.carol.userId)!.role).toBeNull();
    expect(data.items.find((item) => item.id === m.bob.userId)!.lastSeenAt).toBeUndefined();
  });

  it("orders ascending on request", async () => {
    const { data } = await api(org.token).orgs.listMembersInOrganizationById(org.organizationId, { order: "asc" });
    expect(ids(data.items)).toEqual([m.alice.userId, m.bob.userId, m.carol.userId, m.dan.userId, org.userId]);
  });

  it("filters by role, guest included", async () => {
    const list = async (r: string) =>
      ids((await api(org.token).orgs.listMembersInOrganizationById(org.organizationId, { role: r as MemberRole })).data.items);
    expect(await list("read")).toEqual([m.dan.userId, m.bob.userId]);
    expect(await list("guest")).toEqual([m.carol.userId]);
    expect(await list("admin")).toEqual([org.userId]);
    expect(await list("review")).toEqual([]);
  });

  it("filters by text over display name and e-mail, case-insensitively", async () => {
    const { data } = await api(org.token).orgs.listMembersInOrganizationById(org.organizationId, { search: "ALICE" });
    expect(ids(data.items)).toEqual([m.dan.userId, m.carol.userId, m.alice.userId]);
    expect(data.count).toBe(3);
    const byDomain = await api(org.token).orgs.listMembersInOrganizationById(org.organizationId, {
      search: "corp.TEST",
      role: role("read"),
    });
    expect(ids(byDomain.data.items)).toEqual([m.bob.userId]);
  });

  it("sorts by lastSeenAt, listing only members who have been active", async () => {
    const desc = await api(org.token).orgs.listMembersInOrganizationById(org.organizationId, { sort: "lastSeenAt" });
    expect(ids(desc.data.items)).toEqual([org.userId, m.carol.userId, m.alice.userId]);
    expect(desc.data.count).toBe(3);
    const asc = await api(org.token).orgs.listMembersInOrganizationById(org.organizationId, { sort: "lastSeenAt", order: "asc" });
    expect(ids(asc.data.items)).toEqual([m.alice.userId, m.carol.userId, org.userId]);
  });

  it("pages with keyset cursors in both orders", async () => {
    for (const [order, expected] of [
      ["desc", [org.userId, m.dan.userId, m.carol.userId, m.bob.userId, m.alice.userId]],
      ["asc", [m.alice.userId, m.bob.userId, m.carol.userId, m.dan.userId, org.userId]],
    ] as const) {
      const seen: string[] = [];
      let page: string | undefined;
      let pages = 0;
      do {
        const { data } = await api(org.token).orgs.listMembersInOrganizationById(org.organizationId, { limit: 2, order, page });
        expect(data.count).toBe(5);
        seen.push(...ids(data.items));
        page = data.next?.page;
        pages++;
      } while (page);
      expect(seen).toEqual(expected);
      expect(pages).toBe(3);
    }
    const active = await api(org.token).orgs.listMembersInOrganizationById(org.organizationId, { sort: "lastSeenAt", limit: 2 });
    const rest = await api(org.token).orgs.listMembersInOrganizationById(org.organizationId, {
      sort: "lastSeenAt",
      limit: 2,
      page: active.data.next!.page,
    });
    expect([...ids(active.data.items), ...ids(rest.data.items)]).toEqual([org.userId, m.carol.userId, m.alice.userId]);
    expect(rest.data.next).toBeUndefined();
  });

  it("refuses bad filters with a 400 naming the parameter", async () => {
    await expectRestError(api(org.token).orgs.listMembersInOrganizationById(org.organizationId, { role: role("owner") }), 400, "role");
    await expectRestError(api(org.token).orgs.listMembersInOrganizationById(org.organizationId, { order: "up" as "asc" }), 400, "order");
    await expectRestError(
      api(org.token).orgs.listMembersInOrganizationById(org.organizationId, { sort: "age" as "joinedAt" }),
      400,
      "sort",
    );
  });

  it("lists the same through GraphQL, with counts and users batched", async () => {
    const data = await gql(
      org.token,
      `query($id: ID!) { organization(id: $id) {
        members(first: 10, role: READ, order: ASC) { totalCount nodes { id role spaces teams user { id displayName } } }
      } }`,
      { id: org.organizationId },
    );
    expect(data.organization.members.totalCount).toBe(2);
    expect(data.organization.members.nodes.map((n: any) => n.user.displayName)).toEqual(["Bob Stone", "Dan"]);
  });

  it("lets a read member list and read members, not guests; others' admins get 404", async () => {
    const { data } = await api(m.bob.token).orgs.listMembersInOrganizationById(org.organizationId);
    expect(data.count).toBe(5);
    await expectRestError(api(m.carol.token).orgs.listMembersInOrganizationById(org.organizationId), 403);
    const other = await server.bootstrap("Other org");
    await expectRestError(api(other.token).orgs.listMembersInOrganizationById(org.organizationId), 404);
    await expectRestError(api(other.token).orgs.getMemberInOrganizationById(org.organizationId, m.bob.userId), 404);
  });

  it("shows users to co-members only", async () => {
    const query = `query($id: ID!) { node(id: $id) { id ... on User { displayName } } }`;
    expect((await gql(m.bob.token, query, { id: m.alice.userId })).node.displayName).toBe("Alice Walker");
    const other = await server.bootstrap("Stranger org");
    const response = await server.graphql(other.token, query, { id: m.alice.userId });
    expectGraphQLError(response, "NOT_FOUND");
  });
});

describe("reading and changing a member", () => {
  let org: { organizationId: string; userId: string; token: string };

  beforeAll(async () => {
    org = await server.bootstrap("Changes org");
  });

  it("gets, patches (null makes a guest) and sets SSO", async () => {
    const member = await server.addMember(org.organizationId, "read");
    const got = await api(org.token).orgs.getMemberInOrganizationById(org.organizationId, member.userId);
    expect(got.data).toMatchObject({ object: "member", id: member.userId, role: "read", sso: false });

    const edited = await api(org.token).orgs.updateMemberInOrganizationById(org.organizationId, member.userId, { role: role("edit") });
    expect(edited.data.role).toBe("edit");
    const guest = await api(org.token).orgs.updateMemberInOrganizationById(org.organizationId, member.userId, { role: null });
    expect(guest.data.role).toBeNull();
    expect((await prisma().member.findFirstOrThrow({ where: { userId: member.userId } })).role).toBeNull();

    const sso = await api(org.token).orgs.setUserAsSsoMemberForOrganization(org.organizationId, member.userId);
    expect(sso.data.sso).toBe(true);
    await expectRestError(api(org.token).orgs.getMemberInOrganizationById(org.organizationId, "usr_nobody"), 404);
  });

  it("refuses a bogus role with a 400 naming role, and changes nothing", async () => {
    const member = await server.addMember(org.organizationId, "read");
    const before = await snapshot(org.organizationId);
    await expectRestError(
      api(org.token).orgs.updateMemberInOrganizationById(org.organizationId, member.userId, { role: role("boss") }),
      400,
      "role",
    );
    const response = await server.graphql(
      org.token,
      `mutation($input: UpdateMemberInput!) { updateMember(input: $input) { member { role } } }`,
      { input: { organization: org.organizationId, user: member.userId, role: "BOSS" } },
    );
    expectGraphQLError(response, "VALIDATION", "BOSS");
    expect(await snapshot(org.organizationId)).toEqual(before);
  });

  it("gives a read member 403 on every write", async () => {
    const reader = await server.addMember(org.organizationId, "read");
    const target = await server.addMember(org.organizationId, "read");
    const before = await snapshot(org.organizationId);
    await expectRestError(
      api(reader.token).orgs.updateMemberInOrganizationById(org.organizationId, target.userId, { role: role("admin") }),
      403,
    );
    await expectRestError(api(reader.token).orgs.removeMemberFromOrganizationById(org.organizationId, target.userId), 403);
    await expectRestError(api(reader.token).orgs.setUserAsSsoMemberForOrganization(org.organizationId, target.userId), 403);
    const other = await server.bootstrap("Foreign org");
    await expectRestError(
      api(other.token).orgs.updateMemberInOrganizationById(org.organizationId, target.userId, { role: role("admin") }),
      404,
    );
    await expectRestError(api(other.token).orgs.removeMemberFromOrganizationById(org.organizationId, target.userId), 404);
    expect(await snapshot(org.organizationId)).toEqual(before);
  });

  it("removes a member with their team memberships and grants in the organization (205)", async () => {
    const member = await server.addMember(org.organizationId, "read");
    const { data: space } = await api(org.token).orgs.createSpace(org.organizationId, { title: "Granted" });
    const teamId = newId("Team");
    await prisma().team.create({ data: { id: teamId, organizationId: org.organizationId, title: "Writers" } });
    await prisma().teamMember.create({ data: { teamId, userId: member.userId } });
    await prisma().permissionGrant.create({
      data: { id: newId("PermissionGrant"), organizationId: org.organizationId, spaceId: space.id, userId: member.userId, role: "edit" },
    });
    // A membership elsewhere is not touched.
    const elsewhere = await server.bootstrap("Elsewhere org");
    await prisma().member.create({ data: { organizationId: elsewhere.organizationId, userId: member.userId, role: "read" } });

    const response = await api(org.token).orgs.removeMemberFromOrganizationById(org.organizationId, member.userId);
    expect(response.status).toBe(205);
    expect(await prisma().member.findMany({ where: { userId: member.userId } })).toMatchObject([
      { organizationId: elsewhere.organizationId },
    ]);
    expect(await prisma().teamMember.count({ where: { userId: member.userId } })).toBe(0);
    expect(await prisma().permissionGrant.count({ where: { userId: member.userId } })).toBe(0);
    await expectRestError(api(org.token).orgs.removeMemberFromOrganizationById(org.organizationId, member.userId), 404);
  });
});

describe("the last admin", () => {
  it("cannot be demoted or removed (409), and nothing changes", async () => {
    const org = await server.bootstrap("Lonely admin org");
    await server.addMember(org.organizationId, "create");
    const before = await snapshot(org.organizationId);
    await expectRestError(
      api(org.token).orgs.updateMemberInOrganizationById(org.organizationId, org.userId, { role: role("create") }),
      409,
      "last admin",
    );
    await expectRestError(
      api(org.token).orgs.updateMemberInOrganizationById(org.organizationId, org.userId, { role: null }),
      409,
      "last admin",
    );
    await expectRestError(api(org.token).orgs.removeMemberFromOrganizationById(org.organizationId, org.userId), 409, "last admin");
    const response = await server.graphql(
      org.token,
      `mutation($input: RemoveMemberInput!) { removeMember(input: $input) { removedUserId } }`,
      { input: { organization: org.organizationId, user: org.userId } },
    );
    expectGraphQLError(response, "CONFLICT", "last admin");
    expect(await snapshot(org.organizationId)).toEqual(before);
  });

  it("can step down once another admin exists; of two admins demoting each other at once, one is refused", async () => {
    const org = await server.bootstrap("Two admins org");
    const second = await server.addMember(org.organizationId, "admin");
    const stepped = await api(org.token).orgs.updateMemberInOrganizationById(org.organizationId, org.userId, { role: role("edit") });
    expect(stepped.data.role).toBe("edit");
    await api(second.token).orgs.updateMemberInOrganizationById(org.organizationId, org.userId, { role: role("admin") });

    const results = await Promise.allSettled([
      api(org.token).orgs.updateMemberInOrganizationById(org.organizationId, second.userId, { role: role("read") }),
      api(second.token).orgs.updateMemberInOrganizationById(org.organizationId, org.userId, { role: role("read") }),
    ]);
    expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
    expect(await prisma().member.count({ where: { organizationId: org.organizationId, role: "admin" } })).toBe(1);
  });
});

describe("activity", () => {
  it("records lastSeenAt when a member's token is used, at most once a minute", async () => {
    const org = await server.bootstrap("Activity org");
    const member = await server.addMember(org.organizationId, "read");
    const seen = async () => (await prisma().member.findFirstOrThrow({ where: { userId: member.userId } })).lastSeenAt;
    expect(await seen()).toBeNull();

    const first = server.clock.now();
    await api(member.token).orgs.getOrganizationById(org.organizationId);
    expect(await seen()).toEqual(first);
    expect((await prisma().apiToken.findFirstOrThrow({ where: { userId: member.userId } })).lastUsedAt).toEqual(first);

    server.clock.advance(30_000);
    await api(member.token).orgs.getOrganizationById(org.organizationId);
    expect(await seen()).toEqual(first);

    server.clock.advance(31_000);
    await api(member.token).orgs.getOrganizationById(org.organizationId);
    expect(await seen()).toEqual(server.clock.now());
  });

  it("ping records the caller's lastSeenAt now", async () => {
    const org = await server.bootstrap("Ping org");
    const member = await server.addMember(org.organizationId, null);
    await api(member.token).orgs.getOrganizationById(org.organizationId);
    server.clock.advance(5_000);
    const { data, status } = await api(member.token).orgs.updateOrganizationMemberLastSeenAt(org.organizationId);
    expect(status).toBe(200);
    expect(data).toEqual({});
    expect((await prisma().member.findFirstOrThrow({ where: { userId: member.userId } })).lastSeenAt).toEqual(server.clock.now());
    const other = await server.bootstrap("Not ping org");
    await expectRestError(api(other.token).orgs.updateOrganizationMemberLastSeenAt(org.organizationId), 404);
  });
});

describe("a member's spaces", () => {
  it("lists the spaces reached through grants, with the effective role, and counts them", async () => {
    const org = await server.bootstrap("Spaces org");
    const member = await server.addMember(org.organizationId, "read");
    const client = api(org.token);
    const { data: direct } = await client.orgs.createSpace(org.organizationId, { title: "Direct" });
    const { data: folder } = await client.orgs.createCollection(org.organizationId, { title: "Folder" });
    const { data: inner } = await client.orgs.createSpace(org.organizationId, { title: "Inner", parent: folder.id });
    await client.orgs.createSpace(org.organizationId, { title: "Ungranted" });
    const teamId = newId("Team");
    await prisma().team.create({ data: { id: teamId, organizationId: org.organizationId, title: "Reviewers" } });
    await prisma().teamMember.create({ data: { teamId, userId: member.userId } });
    await prisma().permissionGrant.createMany({
      data: [
        { id: newId("PermissionGrant"), organizationId: org.organizationId, spaceId: direct.id, userId: member.userId, role: "edit" },
        { id: newId("PermissionGrant"), organizationId: org.organizationId, collectionId: folder.id, teamId, role: "review" },
      ],
    });

    const { data } = await client.orgs.listSpacesForOrganizationMember(org.organizationId, member.userId);
    expect(data.count).toBe(2);
    expect(data.items.map((item) => [item.space.id, item.permission])).toEqual([
      [inner.id, "review"],
      [direct.id, "edit"],
    ]);
    const asc = await client.orgs.listSpacesForOrganizationMember(org.organizationId, member.userId, { order: "asc", limit: 1 });
    expect(asc.data.items.map((item) => item.space.id)).toEqual([direct.id]);
    expect(asc.data.next).toBeDefined();

    const { data: got } = await client.orgs.getMemberInOrganizationById(org.organizationId, member.userId);
    expect(got).toMatchObject({ spaces: 2, teams: 1 });
  });
});

describe("a member's teams", () => {
  it("lists the member's teams with their role in each, filtered by title case-insensitively", async () => {
    const org = await server.bootstrap("Teams of a member org");
    const member = await server.addMember(org.organizationId, "read");
    const [alpha, beta, other] = [newId("Team"), newId("Team"), newId("Team")];
    await prisma().team.createMany({
      data: [
        { id: alpha, organizationId: org.organizationId, title: "Alpha Writers" },
        { id: beta, organizationId: org.organizationId, title: "beta readers" },
        { id: other, organizationId: org.organizationId, title: "Not theirs" },
      ],
    });
    await prisma().teamMember.createMany({
      data: [
        { teamId: alpha, userId: member.userId, role: "owner" },
        { teamId: beta, userId: member.userId, role: "member" },
        { teamId: other, userId: org.userId, role: "member" },
      ],
    });
    const client = api(org.token);
    const { data } = await client.orgs.listTeamsForOrganizationMember(org.organizationId, member.userId);
    expect(data.count).toBe(2);
    const byId = Object.fromEntries(data.items.map((item) => [item.team.id, item]));
    expect(byId[alpha]).toMatchObject({ team: { object: "team", title: "Alpha Writers", members: 1 }, member: { role: "owner" } });
    expect(byId[beta]).toMatchObject({ team: { title: "beta readers" }, member: { role: "member" } });

    const filtered = await client.orgs.listTeamsForOrganizationMember(org.organizationId, member.userId, { title: "WRITERS" });
    expect(filtered.data.items.map((item) => item.team.id)).toEqual([alpha]);
    const paged = await client.orgs.listTeamsForOrganizationMember(org.organizationId, member.userId, { limit: 1 });
    const rest = await client.orgs.listTeamsForOrganizationMember(org.organizationId, member.userId, {
      limit: 1,
      page: paged.data.next!.page,
    });
    expect([...paged.data.items, ...rest.data.items].map((item) => item.team.id).sort()).toEqual([alpha, beta].sort());
    expect((await client.orgs.getMemberInOrganizationById(org.organizationId, member.userId)).data.teams).toBe(2);
  });
});

describe("invitations", () => {
  it("inviteMembers creates the user and the member; an existing member keeps their role", async () => {
    const org = await server.bootstrap("Invite org");
    const existing = await server.addMember(org.organizationId, "edit");
    const existingEmail = (await prisma().user.findUniqueOrThrow({ where: { id: existing.userId } })).email;
    const mutation = `mutation($input: InviteMembersInput!) { inviteMembers(input: $input) { members { id role user { email displayName } } } }`;
    const data = await gql(org.token, mutation, {
      input: { organization: org.organizationId, emails: ["New.Person@Example.test", existingEmail], role: "COMMENT" },
    });
    const [created, kept] = data.inviteMembers.members;
    expect(created).toMatchObject({ role: "COMMENT", user: { email: "new.person@example.test", displayName: "new.person" } });
    expect(kept).toMatchObject({ id: existing.userId, role: "EDIT" });
    expect(await prisma().member.findFirst({ where: { organizationId: org.organizationId, userId: created.id } })).toMatchObject({
      role: "comment",
    });

    expectGraphQLError(
      await server.graphql(org.token, mutation, { input: { organization: org.organizationId, emails: ["not-an-email"], role: "READ" } }),
      "BAD_REQUEST",
      "not-an-email",
    );
    expectGraphQLError(
      await server.graphql(existing.token, mutation, { input: { organization: org.organizationId, emails: ["x@y.test"], role: "READ" } }),
      "FORBIDDEN",
    );
    expect(await prisma().user.count({ where: { email: { in: ["not-an-email", "x@y.test"] } } })).toBe(0);
  });

  it("creates and deletes link invites (205); refused when inviteLinks is false", async () => {
    const org = await server.bootstrap("Links org");
    const create = `mutation($input: CreateLinkInviteInput!) { createLinkInvite(input: $input) { linkInvite { id role } } }`;
    const { createLinkInvite } = await gql(org.token, create, { input: { organization: org.organizationId, role: "READ" } });
    expect(createLinkInvite.linkInvite).toMatchObject({ role: "READ" });
    expect(createLinkInvite.linkInvite.id).toMatch(/^inv_/);

    const response = await api(org.token).orgs.deleteOrganizationInviteById(org.organizationId, createLinkInvite.linkInvite.id);
    expect(response.status).toBe(205);
    expect(await prisma().linkInvite.count({ where: { organizationId: org.organizationId } })).toBe(0);
    await expectRestError(api(org.token).orgs.deleteOrganizationInviteById(org.organizationId, createLinkInvite.linkInvite.id), 404);

    await api(org.token).orgs.updateOrganizationById(org.organizationId, { inviteLinks: false });
    expectGraphQLError(await server.graphql(org.token, create, { input: { organization: org.organizationId } }), "CONFLICT", "inviteLinks");
    expect(await prisma().linkInvite.count({ where: { organizationId: org.organizationId } })).toBe(0);
  });
});

describe("the caller and organizations by e-mail domain", () => {
  it("GET /v1/user answers the caller", async () => {
    const org = await server.bootstrap("User org");
    const { data } = await api(org.token).user.getAuthenticatedUser();
    expect(data).toMatchObject({ object: "user", id: org.userId });
    expect(data.urls.location).toBe(`${server.url}/v1/users/${org.userId}`);
  });

  it("lists the caller's organizations with that domain, and those they could join with their own e-mail", async () => {
    const org = await server.bootstrap("Domain org");
    await api(org.token).orgs.updateOrganizationById(org.organizationId, { emailDomains: ["acme-domain.test"] });
    const mine = await api(org.token).emailDomains.getOrganizationsForEmailDomain("ACME-domain.test");
    expect(mine.data.organizations.map((o) => o.id)).toEqual([org.organizationId]);

    const outsider = await server.bootstrap("Outsider org");
    await prisma().user.update({ where: { id: outsider.userId }, data: { email: `someone-${outsider.userId}@acme-domain.test` } });
    const joinable = await api(outsider.token).emailDomains.getOrganizationsForEmailDomain("acme-domain.test");
    expect(joinable.data.organizations).toHaveLength(1);
    expect(joinable.data.organizations[0]).toMatchObject({ id: org.organizationId, permissions: { view: false, admin: false } });

    const stranger = await server.bootstrap("Stranger domain org");
    const none = await api(stranger.token).emailDomains.getOrganizationsForEmailDomain("acme-domain.test");
    expect(none.data.organizations).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// The CLI, as a real process on its own database
// ---------------------------------------------------------------------------------------------

const ROOT = fileURLToPath(new URL("..", import.meta.url));

function runCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const base = { ...process.env };
  for (const key of ["DATABASE_URL", "DATA_DIR", "PORT", "PUBLIC_URL", "SEED_DEMO"]) delete base[key];
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli.ts", ...args], {
    cwd: ROOT,
    env: { ...base, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("cli invite", () => {
  it("adds the member, prints one line of JSON, and the token works", { timeout: 180_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "members-cli-"));
    const serverUrl = process.env.DATABASE_URL;
    const scratch = serverUrl ? await createScratchDatabase(serverUrl) : undefined;
    const env = { DATA_DIR: dataDir, ...(scratch ? { DATABASE_URL: scratch.url } : {}) };
    try {
      const boot = await runCli(["bootstrap", "--org", "CLI org", "--email", "owner@cli.test"], env);
      expect(boot.code, boot.stderr).toBe(0);
      const { organizationId } = JSON.parse(boot.stdout);

      const refused = await runCli(["invite", "--org", organizationId, "--email", "new@cli.test", "--role", "boss"], env);
      expect(refused.code).not.toBe(0);
      expect(refused.stdout).toBe("");
      expect(refused.stderr).toMatch(/role/);

      const result = await runCli(["invite", "--org", organizationId, "--email", "New@cli.test", "--role", "edit"], env);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/^[^\n]+\n$/);
      const printed = JSON.parse(result.stdout);
      expect(Object.keys(printed).sort()).toEqual(["token", "userId"]);
      expect(printed.userId).toMatch(/^usr_/);
      expect(printed.token).toMatch(/^dps_/);

      const database = await openDatabase(scratch ? { databaseUrl: scratch.url } : { dataDir });
      try {
        const { yoga } = createApp({ database, config: { publicUrl: "http://localhost:4000" } });
        const call = async (path: string) => {
          const response = await yoga.fetch(`http://localhost:4000${path}`, { headers: { authorization: `Bearer ${printed.token}` } });
          return { status: response.status, body: (await response.json()) as any };
        };
        const user = await call("/v1/user");
        expect(user.status).toBe(200);
        expect(user.body).toMatchObject({ id: printed.userId, email: "new@cli.test", displayName: "new" });
        expect(validateResponse("GET", "/v1/user", 200, user.body)).toEqual([]);
        const member = await call(`/v1/orgs/${organizationId}/members/${printed.userId}`);
        expect(member.body).toMatchObject({ role: "edit" });
        expect(await database.prisma.member.count({ where: { organizationId } })).toBe(2);
      } finally {
        await database.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
      await scratch?.drop();
    }
  });
});
