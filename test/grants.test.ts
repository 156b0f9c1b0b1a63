// Who can access a space or collection, through the published permission routes (official
// client, every response validated against the published schemas) and GraphQL: invitations of
// users, e-mails and teams, updates and removals, the lists with the effective role and where it
// comes from, and refusals that change nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MemberRole } from "@gitbook/api";
import { issueToken } from "../src/core/auth/tokens.ts";
import { startTestServer, type TestServer } from "./support/server.ts";
import { expectGraphQLError, expectRawRestError, expectRestError, graphqlData } from "./support/expect.ts";

let server: TestServer;
let admin: { organizationId: string; userId: string; token: string };
let other: { organizationId: string; userId: string; token: string };

const api = (token: string) => server.client(token);
const prisma = () => server.database.prisma;
const role = (value: string) => value as MemberRole;
let counter = 0;

async function newSpace(parent?: string) {
  const { data } = await api(admin.token).orgs.createSpace(admin.organizationId, {
    title: `Space ${++counter}`,
    ...(parent ? { parent } : {}),
  });
  return data;
}

async function newCollection() {
  const { data } = await api(admin.token).orgs.createCollection(admin.organizationId, { title: `Folder ${++counter}` });
  return data;
}

async function newTeam(members: string[] = [], owner = admin) {
  const { data } = await api(owner.token).orgs.createOrganizationTeam(owner.organizationId, { title: `Team ${++counter}`, members });
  return data;
}

/** Every member, user and grant row (activity times aside): a refused request must leave them as they were. */
async function snapshot() {
  const [users, members, grants] = await Promise.all([
    prisma().user.findMany({ orderBy: { id: "asc" } }),
    prisma().member.findMany({ orderBy: [{ organizationId: "asc" }, { userId: "asc" }], omit: { lastSeenAt: true } }),
    prisma().permissionGrant.findMany({ orderBy: { id: "asc" } }),
  ]);
  return { users, members, grants };
}

async function expectNothingChanged(attempt: () => Promise<void>) {
  const before = await snapshot();
  await attempt();
  expect(await snapshot()).toEqual(before);
}

const RENAME = /* GraphQL */ `mutation($id: ID!, $title: String!) { updateSpace(input: { id: $id, title: $title }) { space { title } } }`;

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.bootstrap("Grants");
  other = await server.bootstrap("Other");
});

afterAll(async () => {
  await server?.close();
});

describe("team grants", () => {
  it("a team granted edit on a space through REST: its member edits, leaves the team, and is refused at once on both surfaces", async () => {
    const member = await server.addMember(admin.organizationId, "read");
    const space = await newSpace();
    const team = await newTeam([member.userId]);
    await expectRestError(api(member.token).spaces.updateSpaceById(space.id, { title: "Before" }), 403);

    const invited = await api(admin.token).spaces.inviteToSpace(space.id, { role: role("edit"), teams: [team.id] });
    expect(invited.status).toBe(204);
    const { data: edited } = await api(member.token).spaces.updateSpaceById(space.id, { title: "Edited by the team" });
    expect(edited.permissions.edit).toBe(true);
    await graphqlData(server, member.token, RENAME, { id: space.id, title: "Edited through GraphQL" });

    const { data: teams } = await api(admin.token).spaces.listTeamPermissionsInSpace(space.id);
    expect(teams.items.map((item) => [item.team.id, item.permission])).toEqual([[team.id, "edit"]]);
    expect(teams.items[0].team).toMatchObject({ object: "team", title: team.title, members: 1 });

    await api(admin.token).orgs.deleteMemberFromOrganizationTeamById(admin.organizationId, team.id, member.userId);
    await expectRestError(api(member.token).spaces.updateSpaceById(space.id, { title: "After" }), 403);
    expectGraphQLError(await server.graphql(member.token, RENAME, { id: space.id, title: "After" }), "FORBIDDEN");
    expect((await api(member.token).spaces.getSpaceById(space.id)).data).toMatchObject({
      title: "Edited through GraphQL",
      permissions: { edit: false },
    });
  });

  it("PATCH changes a team's role, DELETE removes it (205), and a second DELETE finds nothing to remove (204)", async () => {
    const member = await server.addMember(admin.organizationId, "read");
    const space = await newSpace();
    const team = await newTeam([member.userId]);
    await api(admin.token).spaces.inviteToSpace(space.id, { role: role("read"), teams: [team.id] });
    expect((await api(admin.token).spaces.updateTeamPermissionInSpace(space.id, team.id, { role: role("admin") })).status).toBe(204);
    expect((await api(member.token).spaces.getSpaceById(space.id)).data.permissions.admin).toBe(true);
    expect((await api(admin.token).spaces.removeTeamFromSpace(space.id, team.id)).status).toBe(205);
    expect((await api(member.token).spaces.getSpaceById(space.id)).data.permissions.admin).toBe(false);
    expect((await api(admin.token).spaces.removeTeamFromSpace(space.id, team.id)).status).toBe(204);
    expect(await prisma().permissionGrant.count({ where: { spaceId: space.id } })).toBe(0);
  });
});

describe("invitations by e-mail", () => {
  it("an e-mail invited on a collection becomes a guest who reaches the spaces beneath it and nothing else", async () => {
    const collection = await newCollection();
    const inside = await newSpace(collection.id);
    const outside = await newSpace();
    const email = `Guest-${++counter}@Example.com`;
    await api(admin.token).collections.inviteToCollection(collection.id, { role: role("comment"), users: [email] });

    const user = await prisma().user.findFirstOrThrow({ where: { email: email.toLowerCase() } });
    expect(
      await prisma().member.findUnique({ where: { organizationId_userId: { organizationId: admin.organizationId, userId: user.id } } }),
    ).toMatchObject({
      role: null,
    });
    const token = await issueToken(prisma(), user.id);
    const { data: space } = await api(token).spaces.getSpaceById(inside.id);
    expect(space.permissions).toMatchObject({ view: true, comment: true, edit: false });
    await expectRestError(api(token).spaces.getSpaceById(outside.id), 404);

    const { data: users } = await api(admin.token).collections.listUserPermissionsInCollection(collection.id);
    expect(users.items.map((item) => [item.user.id, item.permission])).toEqual([[user.id, "comment"]]);
    const { data: onSpace } = await api(admin.token).spaces.listUserPermissionsInSpace(inside.id);
    expect(onSpace.items.map((item) => [item.user.id, item.permission])).toEqual([[user.id, "comment"]]);

    // Inviting the same address again (any case) names the same user.
    await api(admin.token).collections.inviteToCollection(collection.id, { role: role("edit"), users: [email.toUpperCase()] });
    expect(await prisma().user.count({ where: { email: { equals: email, mode: "insensitive" } } })).toBe(1);
    expect((await api(token).spaces.getSpaceById(inside.id)).data.permissions.edit).toBe(true);

    // Removing the last grant that gives access takes effect at once: the space is gone for them.
    expect((await api(admin.token).collections.removeUserFromCollection(collection.id, user.id)).status).toBe(205);
    await expectRestError(api(token).spaces.getSpaceById(inside.id), 404);
    expectGraphQLError(await server.graphql(token, `query($id: ID!) { space(id: $id) { id } }`, { id: inside.id }), "NOT_FOUND");
  });
});

describe("the lists", () => {
  it("users: the effective role on the item and where it comes from; aggregate: everyone with access, filtered by role", async () => {
    const collection = await newCollection();
    const space = await newSpace(collection.id);
    const reader = await server.addMember(admin.organizationId, "read");
    const guest = await server.addMember(admin.organizationId, null);
    const teamMember = await server.addMember(admin.organizationId, "comment");
    const team = await newTeam([reader.userId, teamMember.userId]);
    await api(admin.token).spaces.inviteToSpace(space.id, { role: role("edit"), users: [reader.userId] });
    await api(admin.token).collections.inviteToCollection(collection.id, { role: role("review"), teams: [team.id] });
    await api(admin.token).collections.inviteToCollection(collection.id, { role: role("read"), users: [guest.userId] });

    const { data: users } = await api(admin.token).spaces.listUserPermissionsInSpace(space.id);
    const byUser = Object.fromEntries(users.items.map((item) => [item.user.id, item.permission]));
    // The reader's own edit grant is below the team's review grant on the collection above.
    expect(byUser).toEqual({ [reader.userId]: "review", [guest.userId]: "read" });

    const SOURCES = /* GraphQL */ `
      query($id: ID!) {
        space(id: $id) {
          userPermissions { nodes { user { id } role sources { kind role space { id } collection { id } team { id } } } }
          teamPermissions { nodes { team { id } role sources { kind collection { id } } } }
        }
      }`;
    const data = await graphqlData(server, reader.token, SOURCES, { id: space.id });
    const readerRow = data.space.userPermissions.nodes.find((node: any) => node.user.id === reader.userId);
    expect(readerRow).toEqual({
      user: { id: reader.userId },
      role: "REVIEW",
      sources: [
        { kind: "TEAM", role: "REVIEW", space: null, collection: { id: collection.id }, team: { id: team.id } },
        { kind: "USER", role: "EDIT", space: { id: space.id }, collection: null, team: null },
        { kind: "ORGANIZATION", role: "READ", space: null, collection: null, team: null },
      ],
    });
    expect(data.space.teamPermissions.nodes).toEqual([
      { team: { id: team.id }, role: "REVIEW", sources: [{ kind: "TEAM", collection: { id: collection.id } }] },
    ]);

    const { data: everyone } = await api(admin.token).spaces.listPermissionsAggregateInSpace(space.id);
    const all = Object.fromEntries(everyone.items.map((item) => [item.user.id, item.permission]));
    expect(all).toMatchObject({
      [admin.userId]: "admin",
      [reader.userId]: "review",
      [teamMember.userId]: "review",
      [guest.userId]: "read",
    });
    expect(everyone.count).toBe(everyone.items.length);
    const { data: reviewers } = await api(admin.token).spaces.listPermissionsAggregateInSpace(space.id, { role: role("review") });
    expect(reviewers.items.map((item) => item.user.id).sort()).toEqual([reader.userId, teamMember.userId].sort());

    // A default level replaces the organization role and says so.
    await prisma().space.update({ where: { id: space.id }, data: { defaultLevel: "comment" } });
    const withDefault = await graphqlData(
      server,
      admin.token,
      `query($id: ID!) { space(id: $id) { usersWithAccess(role: COMMENT) { nodes { user { id } sources { kind space { id } } } } } }`,
      {
        id: space.id,
      },
    );
    const rows = withDefault.space.usersWithAccess.nodes;
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.sources[0]).toEqual({ kind: "DEFAULT_LEVEL", space: { id: space.id } });
  });

  it("pages with page and limit; reading them needs read on the item", async () => {
    const space = await newSpace();
    const members = await Promise.all(Array.from({ length: 3 }, () => server.addMember(admin.organizationId, null)));
    await api(admin.token).spaces.inviteToSpace(space.id, { role: role("read"), users: members.map((m) => m.userId) });
    const first = await api(admin.token).spaces.listUserPermissionsInSpace(space.id, { limit: 2 });
    expect(first.data.items).toHaveLength(2);
    expect(first.data.count).toBe(3);
    const second = await api(admin.token).spaces.listUserPermissionsInSpace(space.id, { limit: 2, page: first.data.next!.page });
    expect([...first.data.items, ...second.data.items].map((item) => item.user.id)).toEqual(members.map((m) => m.userId).sort());
    expect(second.data.next).toBeUndefined();
    const outsider = await server.addMember(admin.organizationId, null);
    await expectRestError(api(outsider.token).spaces.listUserPermissionsInSpace(space.id), 404);
    const { data } = await api(members[0].token).spaces.listUserPermissionsInSpace(space.id);
    expect(data.count).toBe(3);
  });

  it("lists 25 members with access in as many SQL statements as 5", async () => {
    const { organizationId, token } = await server.bootstrap("Counting");
    const { data: space } = await api(token).orgs.createSpace(organizationId, { title: "Counted" });
    const { data: team } = await api(token).orgs.createOrganizationTeam(organizationId, { title: "Counted team" });
    // One list per query: two lists in one query load their users in one batch or in two, as
    // their statements happen to finish, which would count the timing rather than the list size.
    const QUERIES = [
      `query($id: ID!) { space(id: $id) { usersWithAccess(first: 100) { nodes { role user { id displayName } sources { kind team { id title } } } } } }`,
      `query($id: ID!) { space(id: $id) { userPermissions(first: 100) { nodes { role user { id } } } } }`,
    ];
    const add = async (count: number) => {
      for (let i = 0; i < count; i++) {
        const member = await server.addMember(organizationId, "read");
        await prisma().teamMember.create({ data: { teamId: team.id, userId: member.userId } });
        await api(token).spaces.inviteToSpace(space.id, { role: role("edit"), users: [member.userId] });
      }
      await api(token).spaces.inviteToSpace(space.id, { role: role("comment"), teams: [team.id] });
    };
    const measure = async (query: string) => {
      const before = server.database.statementCount;
      const data = await graphqlData(server, token, query, { id: space.id });
      return { statements: server.database.statementCount - before, data };
    };
    await add(5);
    await measure(QUERIES[0]);
    const small = [await measure(QUERIES[0]), await measure(QUERIES[1])];
    await add(20);
    const large = [await measure(QUERIES[0]), await measure(QUERIES[1])];
    expect(small[0].data.space.usersWithAccess.nodes).toHaveLength(6);
    expect(large[0].data.space.usersWithAccess.nodes).toHaveLength(26);
    expect(small[1].data.space.userPermissions.nodes).toHaveLength(5);
    expect(large[1].data.space.userPermissions.nodes).toHaveLength(25);
    expect(large.map((run) => run.statements)).toEqual(small.map((run) => run.statements));
  });
});

describe("refusals", () => {
  it("an unknown user or team, another organization's team, a role the lattice lacks, a missing role: a 4xx naming it, nothing changed", async () => {
    const space = await newSpace();
    const collection = await newCollection();
    const member = await server.addMember(admin.organizationId, "read");
    const foreignTeam = await newTeam([], other);
    await expectNothingChanged(async () => {
      await expectRestError(
        api(admin.token).spaces.inviteToSpace(space.id, { role: role("edit"), users: [member.userId, "usr_unknown"] }),
        404,
        "usr_unknown",
      );
      await expectRestError(
        api(admin.token).spaces.inviteToSpace(space.id, { role: role("edit"), users: [other.userId] }),
        404,
        other.userId,
      );
      await expectRestError(
        api(admin.token).collections.inviteToCollection(collection.id, { role: role("edit"), teams: [foreignTeam.id] }),
        404,
        foreignTeam.id,
      );
      await expectRestError(api(admin.token).spaces.inviteToSpace(space.id, { role: role("owner"), users: [member.userId] }), 400, "role");
      await expectRestError(api(admin.token).spaces.inviteToSpace(space.id, { role: null, users: [member.userId] }), 400, "role");
      await expectRawRestError(server, admin.token, "POST", `/v1/spaces/${space.id}/permissions`, { users: [member.userId] }, 400, "role");
      await expectRawRestError(server, admin.token, "POST", `/v1/spaces/${space.id}/permissions`, { role: "read" }, 400, "users or teams");
      await expectRawRestError(
        server,
        admin.token,
        "POST",
        `/v1/spaces/${space.id}/permissions`,
        { role: "read", users: "x" },
        400,
        "users",
      );
      await expectRawRestError(
        server,
        admin.token,
        "POST",
        `/v1/spaces/${space.id}/permissions`,
        { role: "read", users: ["not an e-mail@"] },
        404,
      );
      await expectRestError(
        api(admin.token).spaces.updateUserPermissionInSpace(space.id, "usr_unknown", { role: role("read") }),
        404,
        "usr_unknown",
      );
      await expectRestError(
        api(admin.token).spaces.updateTeamPermissionInSpace(space.id, foreignTeam.id, { role: role("read") }),
        404,
        foreignTeam.id,
      );
      await expectRestError(api(admin.token).spaces.updateUserPermissionInSpace(space.id, member.userId, {}), 400, "role");
      await expectRestError(api(admin.token).spaces.removeUserFromSpace(space.id, "usr_unknown"), 404);
      await expectRestError(api(admin.token).spaces.listPermissionsAggregateInSpace(space.id, { role: role("owner") }), 400, "role");
      // Not an admin of the space: 403; another organization's admin: 404.
      await expectRestError(api(member.token).spaces.inviteToSpace(space.id, { role: role("admin"), users: [member.userId] }), 403);
      await expectRestError(api(other.token).spaces.inviteToSpace(space.id, { role: role("admin"), users: [other.userId] }), 404);
      await expectRestError(api(other.token).spaces.listUserPermissionsInSpace(space.id), 404);
      expectGraphQLError(
        await server.graphql(admin.token, `mutation($input: InviteToSpaceInput!) { inviteToSpace(input: $input) { space { id } } }`, {
          input: { space: space.id, role: "EDIT", teams: [foreignTeam.id] },
        }),
        "NOT_FOUND",
        foreignTeam.id,
      );
    });
  });

  it("removing a user with no grant there answers 204 and changes nothing", async () => {
    const space = await newSpace();
    const member = await server.addMember(admin.organizationId, "read");
    await expectNothingChanged(async () => {
      expect((await api(admin.token).spaces.removeUserFromSpace(space.id, member.userId)).status).toBe(204);
    });
  });
});

describe("grant uniqueness", () => {
  it("stores at most one grant per subject and item, even when written at the same moment", async () => {
    const space = await newSpace();
    const collection = await newCollection();
    const { userId } = await server.addMember(admin.organizationId, null);
    const SET = `mutation($input: SetSpaceGrantInput!) { setSpaceGrant(input: $input) { __typename } }`;
    const answers = await Promise.all(
      ["read", "comment", "edit", "read", "comment", "edit"].map((role) =>
        server.graphql(admin.token, SET, { input: { space: space.id, user: userId, role: role.toUpperCase() } }),
      ),
    );
    expect(answers.map((answer) => answer.errors)).toEqual(answers.map(() => undefined));
    expect(await prisma().permissionGrant.count({ where: { spaceId: space.id, userId } })).toBe(1);

    // The database itself refuses a second row for the same subject and item.
    const row = { organizationId: admin.organizationId, userId, role: "read" };
    await expect(prisma().permissionGrant.create({ data: { id: `grt_dup_${++counter}`, spaceId: space.id, ...row } })).rejects.toThrow();
    await prisma().permissionGrant.create({ data: { id: `grt_col_${++counter}`, collectionId: collection.id, ...row } });
    await expect(
      prisma().permissionGrant.create({ data: { id: `grt_dup_${++counter}`, collectionId: collection.id, ...row } }),
    ).rejects.toThrow();
    // A grant on a collection does not collide with one on another collection (their spaceId is NULL).
    const second = await newCollection();
    await prisma().permissionGrant.create({ data: { id: `grt_col_${++counter}`, collectionId: second.id, ...row } });
  });
});

describe("sites", () => {
  async function newSite() {
    const space = await newSpace();
    const { data } = await api(admin.token).orgs.createSite(admin.organizationId, { title: `Site ${++counter}`, spaces: [space.id] });
    return data;
  }

  it("a guest granted read on a site sees it (and only it, in the list too); a team's admin grant lets a reader publish it; removal counts at once", async () => {
    const [site, otherSite] = [await newSite(), await newSite()];
    const guest = await server.addMember(admin.organizationId, null);
    const reader = await server.addMember(admin.organizationId, "read");
    const team = await newTeam([reader.userId]);
    const org = admin.organizationId;
    await expectRestError(api(guest.token).orgs.getSiteById(org, site.id), 404);
    await expectRestError(api(reader.token).orgs.publishSite(org, site.id), 403);

    expect((await api(admin.token).orgs.inviteToSite(org, site.id, { role: role("read"), users: [guest.userId] })).status).toBe(204);
    expect((await api(admin.token).orgs.inviteToSite(org, site.id, { role: role("admin"), teams: [team.id] })).status).toBe(204);

    expect((await api(guest.token).orgs.getSiteById(org, site.id)).data.id).toBe(site.id);
    expect((await api(guest.token).orgs.listSites(org)).data.items.map((item) => item.id)).toEqual([site.id]);
    await expectRestError(api(guest.token).orgs.getSiteById(org, otherSite.id), 404);
    await expectRestError(api(guest.token).orgs.updateSiteById(org, site.id, { title: "Guest's" }), 403);
    const members = (await api(admin.token).orgs.listMembersInOrganizationById(org)).data.items;
    expect(members.find((member) => member.id === guest.userId)?.sites).toBe(1);

    // The reader's team holds admin on this site only.
    expect((await api(reader.token).orgs.publishSite(org, site.id)).status).toBe(200);
    await expectRestError(api(reader.token).orgs.publishSite(org, otherSite.id), 403);

    const { data: users } = await api(admin.token).orgs.listUserPermissionsInSite(org, site.id);
    expect(users.items.map((item) => [item.user.id, item.permission])).toEqual([[guest.userId, "read"]]);
    const { data: teams } = await api(admin.token).orgs.listTeamPermissionsInSite(org, site.id);
    expect(teams.items.map((item) => [item.team.id, item.permission])).toEqual([[team.id, "admin"]]);
    const { data: everyone } = await api(admin.token).orgs.listPermissionsAggregateInSite(org, site.id);
    const byUser = Object.fromEntries(everyone.items.map((item) => [item.user.id, item]));
    expect(byUser[admin.userId]).toMatchObject({
      permission: "admin",
      origin: { type: "organization", organization: org },
      disabled: false,
    });
    expect(byUser[guest.userId]).toMatchObject({ permission: "read", origin: { type: "site", site: site.id, reason: "member" } });
    expect(byUser[reader.userId]).toMatchObject({
      permission: "admin",
      origin: { type: "site", site: site.id, reason: "team", team: team.id },
    });
    const { data: readers } = await api(admin.token).orgs.listPermissionsAggregateInSite(org, site.id, { role: role("read") });
    expect(readers.items.map((item) => item.user.id)).toContain(guest.userId);
    expect(readers.items.every((item) => item.permission === "read")).toBe(true);

    const sources = await graphqlData(
      server,
      admin.token,
      `query($id: ID!, $org: ID) { site(id: $id, organization: $org) { userPermissions { nodes { user { id } role sources { kind site { id } } } } } }`,
      { id: site.id, org },
    );
    expect(sources.site.userPermissions.nodes).toEqual([
      { user: { id: guest.userId }, role: "READ", sources: [{ kind: "USER", site: { id: site.id } }] },
    ]);

    expect((await api(admin.token).orgs.updateUserPermissionInSite(org, site.id, guest.userId, { role: role("admin") })).status).toBe(204);
    expect((await api(guest.token).orgs.updateSiteById(org, site.id, { title: "Guest's site" })).data.title).toBe("Guest's site");
    expect((await api(admin.token).orgs.removeUserFromSite(org, site.id, guest.userId)).status).toBe(205);
    expect((await api(admin.token).orgs.removeUserFromSite(org, site.id, guest.userId)).status).toBe(204);
    await expectRestError(api(guest.token).orgs.getSiteById(org, site.id), 404);
    expect((await api(guest.token).orgs.listSites(org)).data.items).toEqual([]);
    expect((await api(admin.token).orgs.removeTeamFromSite(org, site.id, team.id)).status).toBe(205);
    await expectRestError(api(reader.token).orgs.unpublishSite(org, site.id), 403);
    expect(await prisma().permissionGrant.count({ where: { siteId: site.id } })).toBe(0);
  });

  it("bad input: a 4xx naming the field, nothing changed; another organization's site is 404; a reader may not grant", async () => {
    const site = await newSite();
    const org = admin.organizationId;
    const member = await server.addMember(org, "read");
    const team = await newTeam([]);
    const foreignTeam = await newTeam([], other);
    const { data: foreignSite } = await api(other.token).orgs.createSite(other.organizationId, { title: "Foreign site" });
    await expectNothingChanged(async () => {
      await expectRestError(api(admin.token).orgs.inviteToSite(org, site.id, { role: role("owner"), users: [member.userId] }), 400, "role");
      await expectRawRestError(
        server,
        admin.token,
        "POST",
        `/v1/orgs/${org}/sites/${site.id}/permissions`,
        { users: [member.userId] },
        400,
        "role",
      );
      await expectRawRestError(
        server,
        admin.token,
        "POST",
        `/v1/orgs/${org}/sites/${site.id}/permissions`,
        { role: "read", teams: "x" },
        400,
        "teams",
      );
      await expectRestError(
        api(admin.token).orgs.inviteToSite(org, site.id, { role: role("read"), users: [member.userId, "usr_unknown"] }),
        404,
        "usr_unknown",
      );
      await expectRestError(
        api(admin.token).orgs.inviteToSite(org, site.id, { role: role("read"), teams: [foreignTeam.id] }),
        404,
        foreignTeam.id,
      );
      await expectRestError(api(admin.token).orgs.updateTeamPermissionInSite(org, site.id, team.id, {}), 400, "role");
      await expectRestError(
        api(admin.token).orgs.updateUserPermissionInSite(org, site.id, "usr_unknown", { role: role("read") }),
        404,
        "usr_unknown",
      );
      await expectRestError(api(admin.token).orgs.listPermissionsAggregateInSite(org, site.id, { role: role("owner") }), 400, "role");
      // The site under another organization's path, another organization's site, another organization's admin: 404.
      await expectRestError(
        api(admin.token).orgs.inviteToSite(other.organizationId, site.id, { role: role("read"), users: [member.userId] }),
        404,
      );
      await expectRestError(api(admin.token).orgs.listUserPermissionsInSite(org, foreignSite.id), 404);
      await expectRestError(
        api(admin.token).orgs.updateUserPermissionInSite(org, foreignSite.id, member.userId, { role: role("read") }),
        404,
      );
      await expectRestError(api(other.token).orgs.listTeamPermissionsInSite(org, site.id), 404);
      await expectRestError(api(other.token).orgs.removeTeamFromSite(org, site.id, team.id), 404);
      await expectRestError(api(member.token).orgs.inviteToSite(org, site.id, { role: role("admin"), users: [member.userId] }), 403);
      expectGraphQLError(
        await server.graphql(admin.token, `mutation($input: SetSiteGrantInput!) { setSiteGrant(input: $input) { previousRole } }`, {
          input: { site: foreignSite.id, organization: org, user: member.userId, role: "READ" },
        }),
        "NOT_FOUND",
      );
    });
  });
});

describe("the site aggregate's published parameters", () => {
  // listPermissionsAggregateInSite takes order (listOrder), role (memberRoleFilter), search
  // (memberSearch), sort (memberSort) and team: GraphQL Site.usersWithAccess first, REST through it.
  let org: { organizationId: string; userId: string; token: string };
  let site: { id: string };
  let people: Record<"alice" | "bob" | "carol" | "dave", { userId: string; token: string }>;
  let team: { id: string };
  const when = (iso: string) => new Date(iso);

  beforeAll(async () => {
    org = await server.bootstrap("Aggregate parameters");
    const { data: space } = await api(org.token).orgs.createSpace(org.organizationId, { title: "Aggregated" });
    ({ data: site } = await api(org.token).orgs.createSite(org.organizationId, { title: "Aggregated site", spaces: [space.id] }));
    people = {
      alice: await server.addMember(org.organizationId, "read"),
      bob: await server.addMember(org.organizationId, "edit"),
      carol: await server.addMember(org.organizationId, null),
      dave: await server.addMember(org.organizationId, null),
    };
    // Names, e-mails and dates of our choosing; the admin joined first, and is seen now (their token is in use).
    const rows = [
      [org.userId, "Ada Admin", `ada-${counter}@example.org`, "2020-01-01", null],
      [people.alice.userId, "alice Zephyr", `alice-${counter}@example.org`, "2021-01-01", "2024-05-01"],
      [people.bob.userId, "Bob", `robert-${counter}@mail.example.net`, "2022-01-01", "2024-01-01"],
      [people.carol.userId, "carol", `carol-${counter}@example.org`, "2023-01-01", null],
      [people.dave.userId, "Dave", `dave-${counter}@example.org`, "2024-01-01", null],
    ] as const;
    for (const [userId, displayName, email, joinedAt, lastSeenAt] of rows) {
      await prisma().user.update({ where: { id: userId }, data: { displayName, email } });
      await prisma().member.update({
        where: { organizationId_userId: { organizationId: org.organizationId, userId } },
        data: { joinedAt: when(joinedAt), ...(userId === org.userId ? {} : { lastSeenAt: lastSeenAt ? when(lastSeenAt) : null }) },
      });
    }
    ({ data: team } = await api(org.token).orgs.createOrganizationTeam(org.organizationId, {
      title: "Aggregated team",
      members: [people.alice.userId, people.carol.userId],
    }));
    // Carol, a guest, reads the site through a grant; Dave, a guest without one, does not reach it.
    await api(org.token).orgs.inviteToSite(org.organizationId, site.id, { role: role("read"), users: [people.carol.userId] });
  });

  type Query = Parameters<ReturnType<typeof api>["orgs"]["listPermissionsAggregateInSite"]>[2];
  const who = (userId: string) =>
    userId === org.userId ? "admin" : (Object.entries(people).find(([, person]) => person.userId === userId)?.[0] ?? userId);
  const list = async (query?: Query) => {
    const { data } = await api(org.token).orgs.listPermissionsAggregateInSite(org.organizationId, site.id, query);
    return data;
  };
  const listed = async (query?: Query) => (await list(query)).items.map((item) => who(item.user.id));

  it("sorts by joinedAt (default), lastSeenAt or name, descending by default, ascending with order=asc", async () => {
    expect(await listed()).toEqual(["carol", "bob", "alice", "admin"]);
    expect(await listed({ sort: "joinedAt", order: "desc" })).toEqual(["carol", "bob", "alice", "admin"]);
    expect(await listed({ order: "asc" })).toEqual(["admin", "alice", "bob", "carol"]);
    expect(await listed({ sort: "name", order: "asc" })).toEqual(["admin", "alice", "bob", "carol"]);
    expect(await listed({ sort: "name" })).toEqual(["carol", "bob", "alice", "admin"]);
    // The admin has been seen (now, by their token); carol never: the least recent.
    const adminMember = await prisma().member.findUniqueOrThrow({
      where: { organizationId_userId: { organizationId: org.organizationId, userId: org.userId } },
    });
    expect(adminMember.lastSeenAt!.getTime()).toBeGreaterThan(when("2024-05-01").getTime());
    expect(await listed({ sort: "lastSeenAt" })).toEqual(["admin", "alice", "bob", "carol"]);
    expect(await listed({ sort: "lastSeenAt", order: "asc" })).toEqual(["carol", "bob", "alice", "admin"]);
    // lastSeenAt is in each item when known, as UserSitePermission has it.
    const items = Object.fromEntries((await list()).items.map((item) => [who(item.user.id), item]));
    expect(items.alice.lastSeenAt).toBe("2024-05-01T00:00:00.000Z");
    expect(items.carol).not.toHaveProperty("lastSeenAt");

    // Pages follow the order asked for.
    const first = await list({ sort: "name", order: "asc", limit: 3 });
    expect(first.items.map((item) => who(item.user.id))).toEqual(["admin", "alice", "bob"]);
    expect(first.count).toBe(4);
    const second = await list({ sort: "name", order: "asc", limit: 3, page: first.next!.page });
    expect(second.items.map((item) => who(item.user.id))).toEqual(["carol"]);
    expect(second.next).toBeUndefined();
  });

  it("filters by effective role, guests, search in name or e-mail, and team, combined", async () => {
    expect(await listed({ role: role("read"), order: "asc" })).toEqual(["alice", "carol"]);
    expect(await listed({ role: role("edit") })).toEqual(["bob"]);
    expect(await listed({ role: role("admin") })).toEqual(["admin"]);
    expect(await listed({ role: role("review") })).toEqual([]);
    // guest: the organization's guests who reach the site (Dave has no grant).
    expect(await listed({ role: "guest" })).toEqual(["carol"]);
    expect(await listed({ search: "ALICE" })).toEqual(["alice"]);
    expect(await listed({ search: " mail.example.net " })).toEqual(["bob"]);
    expect(await listed({ search: "C", sort: "name", order: "asc" })).toEqual(["alice", "carol"]);
    const none = await list({ search: "nobody-at-all" });
    expect([none.items, none.count]).toEqual([[], 0]);
    expect(await listed({ team: team.id, sort: "name", order: "asc" })).toEqual(["alice", "carol"]);
    expect(await listed({ team: team.id, role: "guest" })).toEqual(["carol"]);
    expect(await listed({ team: team.id, search: "zephyr", role: role("read") })).toEqual(["alice"]);

    // GraphQL first: the same field, its member with the dates.
    const data = await graphqlData(
      server,
      org.token,
      `query($id: ID!, $org: ID, $team: ID) {
        site(id: $id, organization: $org) {
          usersWithAccess(team: $team, sort: NAME, order: ASC, search: "car") { totalCount nodes { role user { id } joinedAt lastSeenAt } }
        }
      }`,
      { id: site.id, org: org.organizationId, team: team.id },
    );
    expect(data.site.usersWithAccess).toEqual({
      totalCount: 1,
      nodes: [{ role: "READ", user: { id: people.carol.userId }, joinedAt: "2023-01-01T00:00:00.000Z", lastSeenAt: null }],
    });
  });

  it("refuses a bad order, sort or role with 400 naming it, and an unknown or foreign team with 404, on both surfaces", async () => {
    const path = `/v1/orgs/${org.organizationId}/sites/${site.id}/permissions/aggregate`;
    const foreignTeam = await newTeam([], other);
    const spaceId = (await api(org.token).orgs.createSpace(org.organizationId, { title: "No guests here" })).data.id;
    await expectNothingChanged(async () => {
      await expectRawRestError(server, org.token, "GET", `${path}?order=up`, undefined, 400, "order");
      await expectRawRestError(server, org.token, "GET", `${path}?sort=title`, undefined, 400, "sort");
      await expectRawRestError(server, org.token, "GET", `${path}?sort=NAME`, undefined, 400, "sort");
      await expectRawRestError(server, org.token, "GET", `${path}?role=owner`, undefined, 400, "role");
      await expectRawRestError(server, org.token, "GET", `${path}?order=`, undefined, 400, "order");
      await expectRestError(list({ team: "tm_unknown" }), 404, "team");
      await expectRestError(list({ team: foreignTeam.id }), 404, "team");
      const query = `query($id: ID!, $team: ID) { site(id: $id) { usersWithAccess(team: $team) { totalCount } } }`;
      expectGraphQLError(await server.graphql(org.token, query, { id: site.id, team: foreignTeam.id }), "NOT_FOUND", "team");
      expectGraphQLError(
        await server.graphql(
          org.token,
          `query($id: ID!, $sort: AccessSort) { site(id: $id) { usersWithAccess(sort: $sort) { totalCount } } }`,
          {
            id: site.id,
            sort: "TITLE",
          },
        ),
        "VALIDATION",
        "TITLE",
      );
      // The parameters are the site's: a space's aggregate keeps its published role filter, which has no guest.
      await expectRestError(api(org.token).spaces.listPermissionsAggregateInSpace(spaceId, { role: "guest" as MemberRole }), 400, "role");
    });
  });

  it("reads with every parameter in as many SQL statements for 25 members as for 5", async () => {
    const counted = await server.bootstrap("Aggregate counting");
    const { data: space } = await api(counted.token).orgs.createSpace(counted.organizationId, { title: "Counted" });
    const { data: countedSite } = await api(counted.token).orgs.createSite(counted.organizationId, {
      title: "Counted",
      spaces: [space.id],
    });
    const { data: countedTeam } = await api(counted.token).orgs.createOrganizationTeam(counted.organizationId, { title: "Counted team" });
    const add = async (count: number) => {
      for (let i = 0; i < count; i++) {
        const member = await server.addMember(counted.organizationId, i % 2 ? "read" : null);
        await prisma().teamMember.create({ data: { teamId: countedTeam.id, userId: member.userId } });
        if (i % 2 === 0) {
          await api(counted.token).orgs.inviteToSite(counted.organizationId, countedSite.id, {
            role: role("read"),
            users: [member.userId],
          });
        }
      }
    };
    const path = `/v1/orgs/${counted.organizationId}/sites/${countedSite.id}/permissions/aggregate?team=${countedTeam.id}&search=member&sort=name&order=asc&role=read&limit=100`;
    const measure = async () => {
      const before = server.database.statementCount;
      const response = await server.rest(counted.token, "GET", path);
      expect(response.status).toBe(200);
      return { statements: server.database.statementCount - before, count: response.body.count as number };
    };
    await add(5);
    await measure();
    const small = await measure();
    await add(20);
    const large = await measure();
    expect([small.count, large.count]).toEqual([5, 25]);
    expect(large.statements).toBe(small.statements);
  });
});
