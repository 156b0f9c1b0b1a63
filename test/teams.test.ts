// Teams through HTTP, on both surfaces: the nine /v1 team routes (official client, validated
// against the published OpenAPI schemas), the GraphQL team queries and mutations, and the grant
// mutations (setSpaceGrant, setCollectionGrant). The key behaviour of issue 5: a team grant counts
// in the effective role of whoever is in the team, and stops counting the moment they leave it.
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import type { TeamMemberRole } from "@gitbook/api";
import { startTestServer, type TestServer } from "./support/server.ts";
import { expectGraphQLError, expectRawRestError, expectRestError, graphqlData } from "./support/expect.ts";

let server: TestServer;

interface Principal {
  organizationId: string;
  userId: string;
  token: string;
}

const api = (token: string) => server.client(token);
/** A team role as the client's types spell it (TeamMemberRole is a type-only enum). */
const as = (value: "owner" | "member") => value as TeamMemberRole;
const prisma = () => server.database.prisma;
const gql = <T = any>(token: string, query: string, variables?: Record<string, unknown>) => graphqlData<T>(server, token, query, variables);

let titles = 0;
async function newTeam(body: { title?: string; members?: string[] } = {}, token = alpha.token, organizationId = alpha.organizationId) {
  const { data } = await api(token).orgs.createOrganizationTeam(organizationId, { title: `Team ${++titles}`, ...body });
  return data;
}

async function newSpace(token = alpha.token, organizationId = alpha.organizationId, parent?: string) {
  const { data } = await api(token).orgs.createSpace(organizationId, { title: `Space ${++titles}`, ...(parent ? { parent } : {}) });
  return data;
}

async function teamMembers(teamId: string) {
  const rows = await prisma().teamMember.findMany({ where: { teamId }, orderBy: { userId: "asc" } });
  return Object.fromEntries(rows.map((row) => [row.userId, row.role]));
}

/** Every team, team member and grant row, to check that a refused request changed nothing. */
async function snapshot() {
  const [teams, teamMembers, grants] = await Promise.all([
    prisma().team.findMany({ orderBy: { id: "asc" } }),
    prisma().teamMember.findMany({ orderBy: [{ teamId: "asc" }, { userId: "asc" }] }),
    prisma().permissionGrant.findMany({ orderBy: { id: "asc" } }),
  ]);
  return { teams, teamMembers, grants };
}

async function expectNothingChanged(attempt: () => Promise<void>) {
  const before = await snapshot();
  await attempt();
  expect(await snapshot()).toEqual(before);
}

const SET_SPACE_GRANT = /* GraphQL */ `
  mutation($input: SetSpaceGrantInput!) { setSpaceGrant(input: $input) { role space { id permissions { edit } } } }`;
const SET_COLLECTION_GRANT = /* GraphQL */ `
  mutation($input: SetCollectionGrantInput!) { setCollectionGrant(input: $input) { role collection { id } } }`;

// ---------------------------------------------------------------------------
// Fixtures: Alpha (admin alice, read members, a guest), Beta (another organization's admin).
// ---------------------------------------------------------------------------

let alpha: Principal;
let beta: Principal;
let reader: { userId: string; token: string };
let guest: { userId: string; token: string };

beforeAll(async () => {
  server = await startTestServer();
  alpha = await server.bootstrap("Alpha");
  beta = await server.bootstrap("Beta");
  reader = await server.addMember(alpha.organizationId, "read");
  guest = await server.addMember(alpha.organizationId, null);
});

afterAll(async () => {
  await server?.close();
});

// ---------------------------------------------------------------------------

describe("team CRUD", () => {
  it("creates a team (201) with members, reads, renames and lists it", async () => {
    const member = await server.addMember(alpha.organizationId, "edit");
    const response = await api(alpha.token).orgs.createOrganizationTeam(alpha.organizationId, {
      title: "Writers",
      members: [member.userId, reader.userId],
    });
    expect(response.status).toBe(201);
    const team = response.data;
    expect(team).toMatchObject({
      object: "team",
      title: "Writers",
      members: 2,
      spaces: 0,
      permissions: { admin: true, view: true },
    });
    expect(team.id).toMatch(/^team_/);
    expect(await teamMembers(team.id)).toEqual({ [member.userId]: "member", [reader.userId]: "member" });

    const { data: read } = await api(reader.token).orgs.getTeamInOrganizationById(alpha.organizationId, team.id);
    expect(read).toMatchObject({ id: team.id, title: "Writers", members: 2, permissions: { admin: false, view: true } });

    const { data: renamed } = await api(alpha.token).orgs.updateTeamInOrganizationById(alpha.organizationId, team.id, { title: "Authors" });
    expect(renamed.title).toBe("Authors");
    expect((await prisma().team.findUniqueOrThrow({ where: { id: team.id } })).title).toBe("Authors");

    const { data: list } = await api(alpha.token).orgs.listTeamsInOrganizationById(alpha.organizationId, { title: "auTHO" });
    expect(list.items.map((item) => item.id)).toEqual([team.id]);
    expect(list.count).toBe(1);

    const { organization } = await gql(
      alpha.token,
      `query($id: ID!) { organization(id: $id) { teams(first: 100) { totalCount nodes { id title memberCount } } } }`,
      {
        id: alpha.organizationId,
      },
    );
    expect(organization.teams.nodes).toContainEqual({ id: team.id, title: "Authors", memberCount: 2 });
    const { node } = await gql(alpha.token, `query($id: ID!) { node(id: $id) { ... on Team { title organization { id } } } }`, {
      id: team.id,
    });
    expect(node).toEqual({ title: "Authors", organization: { id: alpha.organizationId } });
  });

  it("pages the team list and filters by the member who can manage (owner)", async () => {
    const owner = await server.addMember(alpha.organizationId, "read");
    const owned = await newTeam();
    const other = await newTeam();
    await api(alpha.token).orgs.addMemberToOrganizationTeamById(alpha.organizationId, owned.id, owner.userId, { role: as("owner") });
    await api(alpha.token).orgs.addMemberToOrganizationTeamById(alpha.organizationId, other.id, owner.userId, { role: as("member") });

    const { data: ownedList } = await api(alpha.token).orgs.listTeamsInOrganizationById(alpha.organizationId, { owner: owner.userId });
    expect(ownedList.items.map((item) => item.id)).toEqual([owned.id]);
    // An organization admin can manage every team.
    const { data: adminList } = await api(alpha.token).orgs.listTeamsInOrganizationById(alpha.organizationId, { owner: alpha.userId });
    const { data: all } = await api(alpha.token).orgs.listTeamsInOrganizationById(alpha.organizationId, {});
    expect(adminList.count).toBe(all.count);

    const first = await api(alpha.token).orgs.listTeamsInOrganizationById(alpha.organizationId, { limit: 1 });
    expect(first.data.items).toHaveLength(1);
    const second = await api(alpha.token).orgs.listTeamsInOrganizationById(alpha.organizationId, { limit: 1, page: first.data.next!.page });
    expect(second.data.items[0].id).not.toBe(first.data.items[0].id);
  });

  it("accepts a 64-character title and refuses 65, blank or missing with 400 naming title; nothing is created", async () => {
    expect((await newTeam({ title: "t".repeat(64) })).title).toBe("t".repeat(64));
    const team = await newTeam();
    await expectNothingChanged(async () => {
      for (const title of ["t".repeat(65), "", "   "]) {
        await expectRestError(api(alpha.token).orgs.createOrganizationTeam(alpha.organizationId, { title }), 400, "title");
        await expectRestError(api(alpha.token).orgs.updateTeamInOrganizationById(alpha.organizationId, team.id, { title }), 400, "title");
      }
      await expectRawRestError(server, alpha.token, "PUT", `/v1/orgs/${alpha.organizationId}/teams`, {}, 400, "title");
      await expectRawRestError(server, alpha.token, "PUT", `/v1/orgs/${alpha.organizationId}/teams`, { title: 7 }, 400, "title");
      expectGraphQLError(
        await server.graphql(alpha.token, `mutation($input: CreateTeamInput!) { createTeam(input: $input) { team { id } } }`, {
          input: { organization: alpha.organizationId, title: "t".repeat(65) },
        }),
        "BAD_REQUEST",
        "title",
      );
    });
  });

  it("refuses unknown members at creation with 400 naming them; nothing is created", async () => {
    await expectNothingChanged(async () => {
      await expectRestError(
        api(alpha.token).orgs.createOrganizationTeam(alpha.organizationId, { title: "X", members: [reader.userId, beta.userId] }),
        400,
        beta.userId,
      );
    });
  });

  it("deletes a team (205) with its memberships and grants", async () => {
    const team = await newTeam({ members: [reader.userId] });
    const space = await newSpace();
    await gql(alpha.token, SET_SPACE_GRANT, { input: { space: space.id, team: team.id, role: "EDIT" } });
    const response = await api(alpha.token).orgs.removeTeamFromOrganizationById(alpha.organizationId, team.id);
    expect(response.status).toBe(205);
    expect(await prisma().team.findUnique({ where: { id: team.id } })).toBeNull();
    expect(await prisma().teamMember.count({ where: { teamId: team.id } })).toBe(0);
    expect(await prisma().permissionGrant.count({ where: { teamId: team.id } })).toBe(0);
    await expectRestError(api(alpha.token).orgs.getTeamInOrganizationById(alpha.organizationId, team.id), 404);
  });

  it("counts members and granted spaces, in spaces of granted collections too", async () => {
    const team = await newTeam({ members: [reader.userId, guest.userId] });
    const { data: collection } = await api(alpha.token).orgs.createCollection(alpha.organizationId, { title: "Granted" });
    const { data: inner } = await api(alpha.token).orgs.createCollection(alpha.organizationId, { title: "Inner", parent: collection.id });
    await newSpace(alpha.token, alpha.organizationId, collection.id);
    await newSpace(alpha.token, alpha.organizationId, inner.id);
    const direct = await newSpace();
    await newSpace(); // not granted
    await gql(alpha.token, SET_COLLECTION_GRANT, { input: { collection: collection.id, team: team.id, role: "READ" } });
    await gql(alpha.token, SET_SPACE_GRANT, { input: { space: direct.id, team: team.id, role: "COMMENT" } });
    const { data } = await api(alpha.token).orgs.getTeamInOrganizationById(alpha.organizationId, team.id);
    expect(data).toMatchObject({ members: 2, spaces: 3 });
  });
});

describe("team members", () => {
  it("lists a team's members as { organization: Member, team: { role }, permissions }", async () => {
    const team = await newTeam({ members: [reader.userId] });
    await api(alpha.token).orgs.addMemberToOrganizationTeamById(alpha.organizationId, team.id, alpha.userId, { role: as("owner") });
    const { data } = await api(reader.token).orgs.listTeamMembersInOrganizationById(alpha.organizationId, team.id);
    expect(data.count).toBe(2);
    const byId = Object.fromEntries(data.items.map((item) => [item.organization.id, item]));
    expect(byId[alpha.userId]).toMatchObject({
      organization: { object: "member", role: "admin" },
      team: { role: as("owner") },
      permissions: { view: true },
    });
    expect(byId[reader.userId]).toMatchObject({
      organization: { role: "read", user: { id: reader.userId } },
      team: { role: as("member") },
    });
  });

  it("adds by user id or e-mail, removes, sets roles with memberships; a user in add and remove ends removed (204)", async () => {
    const a = await server.addMember(alpha.organizationId, "read");
    const b = await server.addMember(alpha.organizationId, "edit");
    const c = await server.addMember(alpha.organizationId, null);
    const team = await newTeam({ members: [c.userId] });
    const emailOfB = `${b.userId}@example.com`.toUpperCase();

    const response = await api(alpha.token).orgs.updateMembersInOrganizationTeam(alpha.organizationId, team.id, {
      add: [a.userId, emailOfB],
      memberships: { [a.userId]: { role: as("owner") } },
    });
    expect(response.status).toBe(204);
    expect(await teamMembers(team.id)).toEqual({ [a.userId]: "owner", [b.userId]: "member", [c.userId]: "member" });

    // In both add and remove: removed, whether they were in the team (b) or not (reader).
    await api(alpha.token).orgs.updateMembersInOrganizationTeam(alpha.organizationId, team.id, {
      add: [b.userId, reader.userId],
      remove: [`${b.userId}@example.com`, reader.userId, c.userId],
    });
    expect(await teamMembers(team.id)).toEqual({ [a.userId]: "owner" });

    // Adding someone already in keeps their role; memberships changes it.
    await api(alpha.token).orgs.updateMembersInOrganizationTeam(alpha.organizationId, team.id, { add: [a.userId] });
    expect(await teamMembers(team.id)).toEqual({ [a.userId]: "owner" });
    await api(alpha.token).orgs.updateMembersInOrganizationTeam(alpha.organizationId, team.id, {
      memberships: { [a.userId]: { role: as("member") } },
    });
    expect(await teamMembers(team.id)).toEqual({ [a.userId]: "member" });
  });

  it("refuses an unknown user, e-mail or role with 400 naming it; nothing changes", async () => {
    const team = await newTeam({ members: [reader.userId] });
    const outsider = await server.addMember(beta.organizationId, "read");
    await expectNothingChanged(async () => {
      for (const unknown of [outsider.userId, "nobody@example.com", "usr_doesnotexist"]) {
        await expectRestError(
          api(alpha.token).orgs.updateMembersInOrganizationTeam(alpha.organizationId, team.id, { add: [guest.userId, unknown] }),
          400,
          unknown,
        );
        await expectRestError(
          api(alpha.token).orgs.updateMembersInOrganizationTeam(alpha.organizationId, team.id, { remove: [reader.userId, unknown] }),
          400,
          unknown,
        );
      }
      await expectRawRestError(
        server,
        alpha.token,
        "PUT",
        `/v1/orgs/${alpha.organizationId}/teams/${team.id}/members`,
        { add: [guest.userId], memberships: { [guest.userId]: { role: "admin" } } },
        400,
        "role",
      );
      await expectRawRestError(
        server,
        alpha.token,
        "PUT",
        `/v1/orgs/${alpha.organizationId}/teams/${team.id}/members/${reader.userId}`,
        { role: "boss" },
        400,
        "role",
      );
      await expectRestError(
        api(alpha.token).orgs.addMemberToOrganizationTeamById(alpha.organizationId, team.id, outsider.userId, { role: as("member") }),
        404,
      );
    });
  });

  it("adds one member with a role (204), keeps the role when absent, and removes them (204)", async () => {
    const team = await newTeam();
    const member = await server.addMember(alpha.organizationId, "read");
    let response = await api(alpha.token).orgs.addMemberToOrganizationTeamById(alpha.organizationId, team.id, member.userId, {});
    expect(response.status).toBe(204);
    expect(await teamMembers(team.id)).toEqual({ [member.userId]: "member" });
    await api(alpha.token).orgs.addMemberToOrganizationTeamById(alpha.organizationId, team.id, member.userId, { role: as("owner") });
    await api(alpha.token).orgs.addMemberToOrganizationTeamById(alpha.organizationId, team.id, member.userId, {});
    expect(await teamMembers(team.id)).toEqual({ [member.userId]: "owner" });
    response = await api(alpha.token).orgs.deleteMemberFromOrganizationTeamById(alpha.organizationId, team.id, member.userId);
    expect(response.status).toBe(204);
    expect(await teamMembers(team.id)).toEqual({});
  });
});

describe("team permissions", () => {
  it("lets a team owner (not an organization admin) rename the team and manage its members, not a plain team member", async () => {
    const owner = await server.addMember(alpha.organizationId, "read");
    const plain = await server.addMember(alpha.organizationId, "read");
    const newcomer = await server.addMember(alpha.organizationId, "read");
    const team = await newTeam({ members: [plain.userId] });
    await api(alpha.token).orgs.addMemberToOrganizationTeamById(alpha.organizationId, team.id, owner.userId, { role: as("owner") });

    const { data } = await api(owner.token).orgs.getTeamInOrganizationById(alpha.organizationId, team.id);
    expect(data.permissions).toEqual({ admin: true, view: true });
    await api(owner.token).orgs.updateMembersInOrganizationTeam(alpha.organizationId, team.id, { add: [newcomer.userId] });
    await api(owner.token).orgs.updateTeamInOrganizationById(alpha.organizationId, team.id, { title: "Owned" });
    expect(await teamMembers(team.id)).toMatchObject({ [newcomer.userId]: "member" });

    const { data: plainView } = await api(plain.token).orgs.getTeamInOrganizationById(alpha.organizationId, team.id);
    expect(plainView.permissions).toEqual({ admin: false, view: true });
    await expectNothingChanged(async () => {
      await expectRestError(
        api(plain.token).orgs.updateMembersInOrganizationTeam(alpha.organizationId, team.id, { remove: [newcomer.userId] }),
        403,
      );
      await expectRestError(
        api(plain.token).orgs.addMemberToOrganizationTeamById(alpha.organizationId, team.id, plain.userId, { role: as("owner") }),
        403,
      );
      await expectRestError(
        api(plain.token).orgs.deleteMemberFromOrganizationTeamById(alpha.organizationId, team.id, newcomer.userId),
        403,
      );
      await expectRestError(api(plain.token).orgs.updateTeamInOrganizationById(alpha.organizationId, team.id, { title: "Mine" }), 403);
      // Owning a team does not make one an organization admin.
      await expectRestError(api(owner.token).orgs.removeTeamFromOrganizationById(alpha.organizationId, team.id), 403);
      await expectRestError(api(owner.token).orgs.createOrganizationTeam(alpha.organizationId, { title: "Another" }), 403);
    });
  });

  it("refuses a read member creating or deleting teams (403), a guest reading them (403), another organization's admin (404)", async () => {
    const team = await newTeam({ members: [reader.userId] });
    await expectNothingChanged(async () => {
      await expectRestError(api(reader.token).orgs.createOrganizationTeam(alpha.organizationId, { title: "Mine" }), 403);
      await expectRestError(api(reader.token).orgs.removeTeamFromOrganizationById(alpha.organizationId, team.id), 403);
      await expectRestError(api(guest.token).orgs.listTeamsInOrganizationById(alpha.organizationId), 403);
      await expectRestError(api(guest.token).orgs.getTeamInOrganizationById(alpha.organizationId, team.id), 403);
      await expectRestError(api(beta.token).orgs.listTeamsInOrganizationById(alpha.organizationId), 404);
      await expectRestError(api(beta.token).orgs.getTeamInOrganizationById(alpha.organizationId, team.id), 404);
      await expectRestError(api(beta.token).orgs.createOrganizationTeam(alpha.organizationId, { title: "Theirs" }), 404);
      await expectRestError(
        api(beta.token).orgs.updateMembersInOrganizationTeam(alpha.organizationId, team.id, { add: [beta.userId] }),
        404,
      );
      await expectRestError(api(beta.token).orgs.removeTeamFromOrganizationById(alpha.organizationId, team.id), 404);
      // A team through another organization's path is not found, even for its own admin.
      await expectRestError(api(beta.token).orgs.getTeamInOrganizationById(beta.organizationId, team.id), 404);
      expectGraphQLError(await server.graphql(beta.token, `query($id: ID!) { node(id: $id) { id } }`, { id: team.id }), "NOT_FOUND");
    });
  });
});

describe("grants", () => {
  it("a member added to a team with an edit grant can edit the space, and loses it the moment they leave", async () => {
    const member = await server.addMember(alpha.organizationId, "read");
    const space = await newSpace();
    const team = await newTeam();
    const { setSpaceGrant } = await gql(alpha.token, SET_SPACE_GRANT, { input: { space: space.id, team: team.id, role: "EDIT" } });
    expect(setSpaceGrant.role).toBe("EDIT");

    await expectRestError(api(member.token).spaces.updateSpaceById(space.id, { title: "Before" }), 403);

    await api(alpha.token).orgs.updateMembersInOrganizationTeam(alpha.organizationId, team.id, { add: [member.userId] });
    const { data: edited } = await api(member.token).spaces.updateSpaceById(space.id, { title: "Edited by the team" });
    expect(edited.title).toBe("Edited by the team");
    expect(edited.permissions.edit).toBe(true);

    await api(alpha.token).orgs.deleteMemberFromOrganizationTeamById(alpha.organizationId, team.id, member.userId);
    await expectRestError(api(member.token).spaces.updateSpaceById(space.id, { title: "After" }), 403);
    const { data: read } = await api(member.token).spaces.getSpaceById(space.id);
    expect(read).toMatchObject({ title: "Edited by the team", permissions: { view: true, edit: false } });
  });

  it("a team grant on a collection reaches spaces beneath it; removing the grant (role null) ends it", async () => {
    const member = await server.addMember(alpha.organizationId, "read");
    const { data: collection } = await api(alpha.token).orgs.createCollection(alpha.organizationId, { title: "Team folder" });
    const space = await newSpace(alpha.token, alpha.organizationId, collection.id);
    const team = await newTeam({ members: [member.userId] });
    await gql(alpha.token, SET_COLLECTION_GRANT, { input: { collection: collection.id, team: team.id, role: "EDIT" } });
    await api(member.token).spaces.updateSpaceById(space.id, { title: "Via the collection" });

    const { setCollectionGrant } = await gql(alpha.token, SET_COLLECTION_GRANT, {
      input: { collection: collection.id, team: team.id, role: null },
    });
    expect(setCollectionGrant.role).toBeNull();
    expect(await prisma().permissionGrant.count({ where: { collectionId: collection.id } })).toBe(0);
    await expectRestError(api(member.token).spaces.updateSpaceById(space.id, { title: "No more" }), 403);
  });

  it("a user grant replaces the previous one and can be removed", async () => {
    const member = await server.addMember(alpha.organizationId, "read");
    const space = await newSpace();
    await gql(alpha.token, SET_SPACE_GRANT, { input: { space: space.id, user: member.userId, role: "EDIT" } });
    await gql(alpha.token, SET_SPACE_GRANT, { input: { space: space.id, user: member.userId, role: "ADMIN" } });
    expect(await prisma().permissionGrant.findMany({ where: { spaceId: space.id }, select: { role: true, userId: true } })).toEqual([
      { role: "admin", userId: member.userId },
    ]);
    expect((await api(member.token).spaces.getSpaceById(space.id)).data.permissions.admin).toBe(true);
    await gql(alpha.token, SET_SPACE_GRANT, { input: { space: space.id, user: member.userId, role: null } });
    expect(await prisma().permissionGrant.count({ where: { spaceId: space.id } })).toBe(0);
  });

  it("needs admin on the item (403), refuses bad subjects and roles (400), a non-member or another organization's team (404) and others' items (404); nothing changes", async () => {
    const editor = await server.addMember(alpha.organizationId, "edit");
    const space = await newSpace();
    const team = await newTeam();
    const foreignTeam = await newTeam({}, beta.token, beta.organizationId);
    const { data: collection } = await api(alpha.token).orgs.createCollection(alpha.organizationId, { title: "Locked" });
    await expectNothingChanged(async () => {
      expectGraphQLError(
        await server.graphql(editor.token, SET_SPACE_GRANT, { input: { space: space.id, user: editor.userId, role: "ADMIN" } }),
        "FORBIDDEN",
      );
      expectGraphQLError(
        await server.graphql(editor.token, SET_COLLECTION_GRANT, { input: { collection: collection.id, team: team.id, role: "ADMIN" } }),
        "FORBIDDEN",
      );
      expectGraphQLError(
        await server.graphql(alpha.token, SET_SPACE_GRANT, { input: { space: space.id, role: "READ" } }),
        "BAD_REQUEST",
        "Exactly one",
      );
      expectGraphQLError(
        await server.graphql(alpha.token, SET_SPACE_GRANT, {
          input: { space: space.id, user: reader.userId, team: team.id, role: "READ" },
        }),
        "BAD_REQUEST",
        "Exactly one",
      );
      expectGraphQLError(
        await server.graphql(alpha.token, SET_SPACE_GRANT, { input: { space: space.id, team: foreignTeam.id, role: "READ" } }),
        "NOT_FOUND",
        foreignTeam.id,
      );
      expectGraphQLError(
        await server.graphql(alpha.token, SET_SPACE_GRANT, { input: { space: space.id, user: beta.userId, role: "READ" } }),
        "NOT_FOUND",
        beta.userId,
      );
      expectGraphQLError(
        await server.graphql(alpha.token, SET_SPACE_GRANT, { input: { space: space.id, user: reader.userId } }),
        "BAD_REQUEST",
        "role",
      );
      expectGraphQLError(
        await server.graphql(beta.token, SET_SPACE_GRANT, { input: { space: space.id, team: foreignTeam.id, role: "READ" } }),
        "NOT_FOUND",
      );
    });
  });
});

describe("batching", () => {
  it("lists 25 teams with their counts and permissions in as many statements as 5, and 12 team members as 3", async () => {
    const { organizationId, token } = await server.bootstrap("Batching");
    const viewer = await server.addMember(organizationId, "read");
    const space = await newSpace(token, organizationId);
    const createTeams = async (count: number) => {
      for (let i = 0; i < count; i++) {
        const team = await newTeam({ members: [viewer.userId] }, token, organizationId);
        await gql(token, SET_SPACE_GRANT, { input: { space: space.id, team: team.id, role: "READ" } });
      }
    };
    const measure = async (query: string, variables: Record<string, unknown>) => {
      const before = server.database.statementCount;
      const data = await gql(viewer.token, query, variables);
      return { statements: server.database.statementCount - before, data };
    };
    const TEAMS = /* GraphQL */ `
      query($id: ID!) {
        organization(id: $id) { teams(first: 100) { nodes { id memberCount spaceCount permissions { admin view } } } }
      }`;
    await createTeams(5);
    await measure(TEAMS, { id: organizationId }); // warm-up: the first use of a token records activity
    const small = await measure(TEAMS, { id: organizationId });
    await createTeams(20);
    const large = await measure(TEAMS, { id: organizationId });
    expect(small.data.organization.teams.nodes).toHaveLength(5);
    expect(large.data.organization.teams.nodes).toHaveLength(25);
    expect(large.data.organization.teams.nodes[0]).toMatchObject({
      memberCount: 1,
      spaceCount: 1,
      permissions: { admin: false, view: true },
    });
    expect(large.statements).toBe(small.statements);

    const MEMBERS = /* GraphQL */ `
      query($id: ID!, $team: ID!) {
        organization(id: $id) {
          team(id: $team) { members(first: 100) { nodes { role permissions { view } member { id role spaces teams user { id } } } } }
        }
      }`;
    const team = await newTeam({}, token, organizationId);
    const addMembers = async (count: number) => {
      const added = await Promise.all(Array.from({ length: count }, () => server.addMember(organizationId, "read")));
      await api(token).orgs.updateMembersInOrganizationTeam(organizationId, team.id, { add: added.map((m) => m.userId) });
    };
    await addMembers(3);
    const few = await measure(MEMBERS, { id: organizationId, team: team.id });
    await addMembers(9);
    const many = await measure(MEMBERS, { id: organizationId, team: team.id });
    expect(few.data.organization.team.members.nodes).toHaveLength(3);
    expect(many.data.organization.team.members.nodes).toHaveLength(12);
    expect(many.statements).toBe(few.statements);
  });
});
