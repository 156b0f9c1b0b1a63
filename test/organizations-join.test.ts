// Issue 30, area 2: creating organizations (the creator is admin, a bounded number per user),
// invite links (list, create, get, patch, join with one; disabled and expired links refused),
// invitations by e-mail (stored, seen by the invitee, accepted by them), joining by e-mail domain,
// users by id (private fields to their owner only, changes by the owner only) and the notifications
// token (opens the caller's own user channels, nothing else, for ten minutes). REST answers are
// checked against the published schemas; refused writes change nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../src/core/ids.ts";
import { expectGraphQLError, expectRawRestError, expectRestError, graphqlData, publishedRest } from "./support/expect.ts";
import { openEventStream } from "./support/realtime.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let A: { organizationId: string; token: string; userId: string };
let B: { organizationId: string; token: string; userId: string };
let editor: { userId: string; token: string };

const prisma = () => server.database.prisma;
const rest = (token: string, method: string, url: string, body?: unknown) => publishedRest(server, token, method, url, body);
const gql = <T = any>(token: string, query: string, variables?: Record<string, unknown>) => graphqlData<T>(server, token, query, variables);

/** A user with a token, in an organization of their own (so in none of A's or B's), with `email`. */
async function outsider(email?: string) {
  const user = await server.bootstrap("Outsider's own");
  if (email) await prisma().user.update({ where: { id: user.userId }, data: { email } });
  return user;
}

const memberRole = async (organizationId: string, userId: string) =>
  (await prisma().member.findUnique({ where: { organizationId_userId: { organizationId, userId } } }))?.role;
const isMember = async (organizationId: string, userId: string) =>
  Boolean(await prisma().member.findUnique({ where: { organizationId_userId: { organizationId, userId } } }));

beforeAll(async () => {
  server = await startTestServer({ organizationsPerUserMax: 3 });
  A = await server.bootstrap("Joinable");
  B = await server.bootstrap("Elsewhere");
  editor = await server.addMember(A.organizationId, "edit");
});

afterAll(async () => {
  await server?.close();
});

describe("POST /v1/orgs (createOrganization)", () => {
  it("creates an organization whose only member is its creator, as admin, with a Location", async () => {
    const creator = await outsider();
    const created = await server.client(creator.token).orgs.createOrganization({ title: "Docs team", emailDomains: ["Docs.Example.com"] });
    expect(created.status).toBe(201);
    const id = created.data.id;
    expect(id).toMatch(/^org_/);
    expect(created.headers.get("location")).toBe(`${server.url}/v1/orgs/${id}`);
    expect(created.data).toMatchObject({ object: "organization", title: "Docs team", emailDomains: ["docs.example.com"] });
    const members = await prisma().member.findMany({ where: { organizationId: id } });
    expect(members.map((m) => [m.userId, m.role])).toEqual([[creator.userId, "admin"]]);
    const read = await server.client(creator.token).orgs.getOrganizationById(id);
    expect(read.data.title).toBe("Docs team");
  });

  it("creates the default site with withDefaultSite", async () => {
    const creator = await outsider();
    const created = await server.client(creator.token).orgs.createOrganization({ title: "With a site" }, { withDefaultSite: true });
    const sites = await prisma().site.findMany({ where: { organizationId: created.data.id } });
    expect(sites.map((s) => s.title)).toEqual(["With a site"]);
  });

  it("refuses bad titles, bad domains and openapiUrl with 400 naming the field, creating nothing", async () => {
    const creator = await outsider();
    const before = await prisma().organization.count();
    const cases: [unknown, string, number, string][] = [
      [{ title: " padded" }, "", 400, "title"],
      [{ title: "x" }, "", 400, "title"],
      [{ title: "y".repeat(256) }, "", 400, "title"],
      [{}, "", 400, "title"],
      [{ title: 42 }, "", 400, "title"],
      [{ title: "Fine", emailDomains: ["not a domain"] }, "", 400, "emailDomains"],
      [{ title: "Fine", emailDomains: "example.com" }, "", 400, "emailDomains"],
      [{ title: "Fine" }, "?openapiUrl=https%3A%2F%2Fexample.com%2Fopenapi.json", 400, "openapiUrl"],
    ];
    for (const [body, query, status, field] of cases) {
      await expectRawRestError(server, creator.token, "POST", `/v1/orgs${query}`, body, status, field);
    }
    expect(await prisma().organization.count()).toBe(before);
  });

  it("lets a user create at most ORGANIZATIONS_PER_USER_MAX (3 here), also when the requests race", async () => {
    const creator = await outsider();
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) => server.rest(creator.token, "POST", "/v1/orgs", { title: `Racing ${i}` })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 201, 201, 409, 409]);
    const refused = results.find((r) => r.status === 409)!;
    expect(refused.body.error.message).toContain("at most 3 organizations");
    expect(await prisma().organization.count({ where: { createdById: creator.userId } })).toBe(3);
    // The organization bootstrap made for them is not counted: it was not created through the API.
    expect(await prisma().member.count({ where: { userId: creator.userId, role: "admin" } })).toBe(4);
  });

  it("is createOrganization in GraphQL too", async () => {
    const creator = await outsider();
    const data = await gql(
      creator.token,
      `mutation { createOrganization(input: { title: "From GraphQL" }) { organization { id title } } }`,
    );
    expect(data.createOrganization.organization.title).toBe("From GraphQL");
    expect(await memberRole(data.createOrganization.organization.id, creator.userId)).toBe("admin");
  });
});

describe("invite links", () => {
  const links = (rest = "", organizationId = A.organizationId) => `/v1/orgs/${organizationId}/link-invites${rest}`;

  it("creates (201), lists, reads and changes them with the official client", async () => {
    const api = server.client(A.token).orgs;
    const created = await api.createOrganizationInvite(A.organizationId, { role: "edit" as never });
    expect(created.status).toBe(201);
    const id = created.data.id;
    expect(created.data).toEqual({ object: "invite", id: expect.stringMatching(/^inv_/), role: "edit", redundant: true });
    expect(created.headers.get("location")).toBe(`${server.url}${links(`/${id}`)}`);

    const listed = await api.listOrganizationInviteLinks(A.organizationId);
    expect(listed.data.items.map((i) => i.id)).toContain(id);

    const read = await api.getOrganizationInviteLink(A.organizationId, id);
    expect(read.data).toEqual({ object: "invite", id, role: "edit", redundant: true });

    const changed = await api.updateOrganizationInviteById(A.organizationId, id, { role: "admin" as never });
    expect(changed.data).toEqual({ object: "invite", id, role: "admin", redundant: true });
    const toGuest = await rest(A.token, "PATCH", links(`/${id}`), { level: null });
    expect(toGuest.body).toEqual({ object: "invite", id, role: null, redundant: true });
    expect((await prisma().linkInvite.findUniqueOrThrow({ where: { id } })).role).toBeNull();
  });

  it("pages the list", async () => {
    const org = await server.client((await outsider()).token).orgs.createOrganization({ title: "Paged links" });
    const id = org.data.id;
    const owner = await prisma().member.findFirstOrThrow({ where: { organizationId: id } });
    for (let i = 0; i < 3; i++) {
      await prisma().linkInvite.create({
        data: {
          id: newId("LinkInvite"),
          organizationId: id,
          role: "read",
          createdById: owner.userId,
          createdAt: new Date(Date.UTC(2026, 0, 1 + i)),
        },
      });
    }
    const admin = await server.addMember(id, "admin");
    const first = await rest(admin.token, "GET", `/v1/orgs/${id}/link-invites?limit=2`);
    expect(first.body.items).toHaveLength(2);
    expect(first.body.count).toBe(3);
    const second = await rest(admin.token, "GET", `/v1/orgs/${id}/link-invites?limit=2&page=${first.body.next.page}`);
    expect(second.body.items).toHaveLength(1);
    expect(second.body.next).toBeUndefined();
  });

  it("refuses bad input with 400 naming the field, and changes nothing", async () => {
    const { body: invite } = await rest(A.token, "POST", links(), { role: "read" });
    const before = await prisma().linkInvite.count({ where: { organizationId: A.organizationId } });
    await expectRawRestError(server, A.token, "POST", links(), { role: "owner" }, 400, "role must be one of");
    await expectRawRestError(server, A.token, "POST", links(), {}, 400, "role is required");
    await expectRawRestError(server, A.token, "POST", links(), { level: "read", space: "spc_x" }, 400, "space:");
    await expectRawRestError(server, A.token, "POST", links(), { level: "read", collection: "col_x" }, 400, "collection:");
    await expectRawRestError(server, A.token, "PATCH", links(`/${invite.id}`), { role: "ADMIN" }, 400, "role must be one of");
    await expectRawRestError(server, A.token, "PATCH", links(`/${invite.id}`), {}, 400, "role is required");
    expect(await prisma().linkInvite.count({ where: { organizationId: A.organizationId } })).toBe(before);
    expect((await prisma().linkInvite.findUniqueOrThrow({ where: { id: invite.id } })).role).toBe("read");
  });

  it("is for admins (403 for an editor, nothing changed); another organization's invite is unknown (404)", async () => {
    const { body: invite } = await rest(A.token, "POST", links(), { role: "read" });
    await expectRestError(server.client(editor.token).orgs.listOrganizationInviteLinks(A.organizationId), 403);
    await expectRestError(server.client(editor.token).orgs.createOrganizationInvite(A.organizationId, { role: "admin" as never }), 403);
    await expectRestError(
      server.client(editor.token).orgs.updateOrganizationInviteById(A.organizationId, invite.id, { role: "admin" as never }),
      403,
    );
    expect((await prisma().linkInvite.findUniqueOrThrow({ where: { id: invite.id } })).role).toBe("read");
    // B's admin, with A's invite id under B's organization or A's: unknown either way.
    await expectRawRestError(server, B.token, "GET", links(`/${invite.id}`, B.organizationId), undefined, 404, invite.id);
    await expectRawRestError(server, B.token, "PATCH", links(`/${invite.id}`, B.organizationId), { role: "admin" }, 404);
    await expectRawRestError(server, B.token, "GET", links(`/${invite.id}`), undefined, 404);
    expect((await prisma().linkInvite.findUniqueOrThrow({ where: { id: invite.id } })).role).toBe("read");
  });

  it("lets anyone with the link join with the link's role; a member keeps theirs", async () => {
    const { body: invite } = await rest(A.token, "POST", links(), { role: "comment" });
    const joiner = await outsider();
    const joined = await server.client(joiner.token).orgs.joinOrganizationWithInvite(A.organizationId, invite.id);
    expect(joined.status).toBe(200);
    expect(joined.data).toEqual({});
    expect(await memberRole(A.organizationId, joiner.userId)).toBe("comment");
    // The link stays usable; the editor who uses it stays an editor.
    await rest(editor.token, "POST", `/v1/orgs/${A.organizationId}/invites/${invite.id}`);
    expect(await memberRole(A.organizationId, editor.userId)).toBe("edit");
    // The new member now reads the organization.
    expect((await server.client(joiner.token).orgs.getOrganizationById(A.organizationId)).data.id).toBe(A.organizationId);
  });

  it("refuses a disabled or expired link clearly (409) and a link under another organization (404), joining nobody", async () => {
    const joiner = await outsider();
    const { body: invite } = await rest(A.token, "POST", links(), { role: "read" });
    await prisma().organization.update({ where: { id: A.organizationId }, data: { inviteLinks: false } });
    try {
      await expectRawRestError(
        server,
        joiner.token,
        "POST",
        `/v1/orgs/${A.organizationId}/invites/${invite.id}`,
        undefined,
        409,
        "disabled",
      );
    } finally {
      await prisma().organization.update({ where: { id: A.organizationId }, data: { inviteLinks: true } });
    }
    const expiring = await gql(
      A.token,
      `mutation($o: ID!, $at: DateTime!) { createLinkInvite(input: { organization: $o, role: READ, expiresAt: $at }) { linkInvite { id expiresAt } } }`,
      { o: A.organizationId, at: new Date(server.clock.now().getTime() + 3600_000).toISOString() },
    );
    const expiringId = expiring.createLinkInvite.linkInvite.id;
    server.clock.advance(3600_000 + 1);
    await expectRawRestError(server, joiner.token, "POST", `/v1/orgs/${A.organizationId}/invites/${expiringId}`, undefined, 409, "expired");
    await expectRawRestError(server, joiner.token, "POST", `/v1/orgs/${B.organizationId}/invites/${invite.id}`, undefined, 404);
    await expectRawRestError(server, joiner.token, "POST", `/v1/orgs/org_unknown/invites/${invite.id}`, undefined, 404);
    expect(await isMember(A.organizationId, joiner.userId)).toBe(false);
    expect(await isMember(B.organizationId, joiner.userId)).toBe(false);
    // An expiry in the past is refused at creation.
    const past = await server.graphql(
      A.token,
      `mutation($o: ID!, $at: DateTime!) { createLinkInvite(input: { organization: $o, expiresAt: $at }) { linkInvite { id } } }`,
      { o: A.organizationId, at: "2020-01-01T00:00:00Z" },
    );
    expectGraphQLError(past, "BAD_REQUEST", "expiresAt");
  });
});

describe("invitations by e-mail", () => {
  it("stores one per new e-mail; the invitee sees it and accepts it once, with its role", async () => {
    const known = await outsider(`known-${newId("User").slice(4).toLowerCase()}@example.com`);
    const knownEmail = (await prisma().user.findUniqueOrThrow({ where: { id: known.userId } })).email;
    const newcomer = `newcomer-${newId("User").slice(4).toLowerCase()}@example.com`;
    const editorEmail = (await prisma().user.findUniqueOrThrow({ where: { id: editor.userId } })).email;
    const invited = await server.client(A.token).orgs.inviteUsersToOrganization(A.organizationId, {
      emails: [knownEmail.toUpperCase(), { email: newcomer, role: "edit" as never }, editorEmail],
      role: "review" as never,
    });
    expect(invited.data).toEqual({ users: [known.userId], invited: 2 });
    const stored = await prisma().emailInvite.findMany({ where: { organizationId: A.organizationId }, orderBy: { email: "asc" } });
    expect(stored.filter((i) => [knownEmail, newcomer].includes(i.email)).map((i) => [i.email, i.role])).toEqual(
      [
        [knownEmail, "review"],
        [newcomer, "edit"],
      ].sort(),
    );
    // The member (the editor) got no invitation; nobody joined yet.
    expect(stored.some((i) => i.email === editorEmail)).toBe(false);
    expect(await isMember(A.organizationId, known.userId)).toBe(false);

    const seen = await gql(known.token, `{ viewer { invites { totalCount nodes { id organizationId email role } } } }`);
    expect(seen.viewer.invites.totalCount).toBe(1);
    const [invite] = seen.viewer.invites.nodes;
    expect(invite).toEqual({ id: expect.stringMatching(/^einv_/), organizationId: A.organizationId, email: knownEmail, role: "REVIEW" });

    // Someone else cannot use it.
    const other = await outsider();
    await expectRawRestError(server, other.token, "POST", `/v1/orgs/${A.organizationId}/invites/${invite.id}`, undefined, 404);
    expect(await isMember(A.organizationId, other.userId)).toBe(false);

    await rest(known.token, "POST", `/v1/orgs/${A.organizationId}/invites/${invite.id}`);
    expect(await memberRole(A.organizationId, known.userId)).toBe("review");
    expect(await prisma().emailInvite.findUnique({ where: { id: invite.id } })).toBeNull();
    await expectRawRestError(server, known.token, "POST", `/v1/orgs/${A.organizationId}/invites/${invite.id}`, undefined, 404);
    expect((await gql(known.token, `{ viewer { invites { totalCount } } }`)).viewer.invites.totalCount).toBe(0);
  });

  it("refuses bad input with 400 naming the field, over 100 e-mails, and non-admins (403), storing nothing", async () => {
    const invites = `/v1/orgs/${A.organizationId}/invites`;
    const before = await prisma().emailInvite.count();
    const cases: [unknown, string][] = [
      [{ emails: ["ok@example.com", "not-an-address"] }, "emails[1]"],
      [{ emails: [] }, "emails must list between 1 and 100"],
      [{ emails: "ok@example.com" }, "emails must be an array"],
      [{}, "emails must be an array"],
      [{ emails: [{ email: "ok@example.com" }] }, "emails[0]"],
      [{ emails: [{ email: "ok@example.com", role: "boss" }] }, "emails[0].role"],
      [{ emails: ["ok@example.com"], role: "boss" }, "role must be one of"],
      [{ emails: ["ok@example.com"], sso: "yes" }, "sso"],
      [{ emails: Array.from({ length: 101 }, (_, i) => `p${i}@example.com`) }, "between 1 and 100"],
    ];
    for (const [body, mention] of cases) await expectRawRestError(server, A.token, "POST", invites, body, 400, mention);
    await expectRawRestError(server, editor.token, "POST", invites, { emails: ["ok@example.com"] }, 403);
    await expectRawRestError(server, B.token, "POST", invites, { emails: ["ok@example.com"] }, 404);
    expect(await prisma().emailInvite.count()).toBe(before);
  });
});

describe("POST /v1/orgs/{organizationId}/join (joinOrganization)", () => {
  it("joins with the organization's defaultRole when the caller's e-mail domain is one of its domains", async () => {
    const org = (
      await server
        .client((await outsider()).token)
        .orgs.createOrganization({ title: "Domain joinable", emailDomains: ["join.example.com"] })
    ).data.id;
    await prisma().organization.update({ where: { id: org }, data: { defaultRole: "comment" } });
    const colleague = await outsider(`colleague-${newId("User").slice(4).toLowerCase()}@Join.Example.com`);
    const joined = await server.client(colleague.token).orgs.joinOrganization(org);
    expect(joined.status).toBe(204);
    expect(await memberRole(org, colleague.userId)).toBe("comment");

    const stranger = await outsider(`stranger-${newId("User").slice(4).toLowerCase()}@elsewhere.example.org`);
    await expectRawRestError(server, stranger.token, "POST", `/v1/orgs/${org}/join`, undefined, 400, "e-mail domain");
    expect(await isMember(org, stranger.userId)).toBe(false);
    await expectRawRestError(server, stranger.token, "POST", "/v1/orgs/org_unknown/join", undefined, 404);
  });
});

describe("users by id", () => {
  it("shows anyone's public profile, and the e-mail only to its owner", async () => {
    const own = await server.client(editor.token).users.getUserById(editor.userId);
    const email = (await prisma().user.findUniqueOrThrow({ where: { id: editor.userId } })).email;
    expect(own.data).toEqual({
      object: "user",
      id: editor.userId,
      displayName: `Member ${editor.userId}`,
      email,
      urls: { location: `${server.url}/v1/users/${editor.userId}` },
    });
    const seenByB = await rest(B.token, "GET", `/v1/users/${editor.userId}`);
    expect(seenByB.body).toEqual({
      object: "user",
      id: editor.userId,
      displayName: `Member ${editor.userId}`,
      urls: { location: `${server.url}/v1/users/${editor.userId}` },
    });
    await expectRawRestError(server, B.token, "GET", "/v1/users/usr_nobody", undefined, 404, "usr_nobody");
  });

  it("lets a user change their own name and photo only", async () => {
    const user = await outsider();
    const api = server.client(user.token).users;
    const changed = await api.updateUserById(user.userId, { displayName: "Ada L.", photoURL: "https://img.example.com/ada.png" });
    expect(changed.data).toMatchObject({ id: user.userId, displayName: "Ada L.", photoURL: "https://img.example.com/ada.png" });
    await expectRawRestError(server, B.token, "PATCH", `/v1/users/${user.userId}`, { displayName: "Hijacked" }, 403, "own account");
    await expectRawRestError(server, user.token, "PATCH", `/v1/users/usr_nobody`, { displayName: "Nobody" }, 404);
    const cases: [unknown, string][] = [
      [{ displayName: "" }, "displayName"],
      [{ displayName: "n".repeat(65) }, "displayName"],
      [{ displayName: "a\u0000b" }, "displayName"],
      [{ displayName: 7 }, "displayName"],
      [{ photoURL: "ftp://img.example.com/x.png" }, "photoURL"],
      [{}, "Nothing to change"],
    ];
    for (const [body, mention] of cases)
      await expectRawRestError(server, user.token, "PATCH", `/v1/users/${user.userId}`, body, 400, mention);
    const row = await prisma().user.findUniqueOrThrow({ where: { id: user.userId } });
    expect([row.displayName, row.photoURL]).toEqual(["Ada L.", "https://img.example.com/ada.png"]);
  });
});

describe("the notifications token", () => {
  it("opens the caller's own user channels on /v1/channels for ten minutes, and nothing else", async () => {
    const user = await outsider();
    const issued = await server.client(user.token).user.createUserNotificationsToken();
    expect(issued.status).toBe(200);
    const token = issued.data.token;
    expect(token).toMatch(/^ntf\./);
    const channel = (query: string) => `${server.url}/v1/channels?${query}&token=${encodeURIComponent(token)}`;

    const stream = await openEventStream(channel(`channel=user-profile&user=${user.userId}`), {});
    try {
      expect(stream.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await server.rest(user.token, "PATCH", `/v1/users/${user.userId}`, { displayName: "Notified" });
      const message = await stream.next();
      expect(message?.event).toBe("user-profile");
      expect(JSON.parse(message!.data)).toMatchObject({
        channel: "user-profile",
        changes: [{ object: "User", id: user.userId, change: "updated" }],
      });
    } finally {
      stream.close();
    }

    const refused = async (url: string, status: number, mention: string, headers: Record<string, string> = {}) => {
      const response = await fetch(url, { headers });
      expect(response.status, url).toBe(status);
      expect((await response.json()).error.message).toContain(mention);
    };
    await refused(channel(`channel=organization&organization=${user.organizationId}`), 403, "user-profile");
    await refused(channel(`channel=user-profile&user=${B.userId}`), 404, B.userId);
    await refused(channel(`channel=user-profile&user=${user.userId}`), 400, "either", { authorization: `Bearer ${user.token}` });
    const forged = `${token.slice(0, token.lastIndexOf(".") + 1)}AAAA`;
    await refused(`${server.url}/v1/channels?channel=user-profile&user=${user.userId}&token=${forged}`, 401, "Invalid notifications token");
    // Revoking the API token it was made with revokes it too.
    await prisma().apiToken.deleteMany({ where: { userId: user.userId } });
    await refused(channel(`channel=user-profile&user=${user.userId}`), 401, "revoked");
    server.clock.advance(10 * 60_000 + 1000);
    await refused(channel(`channel=user-profile&user=${user.userId}`), 401, "expired");
  });
});
