// API tokens through GraphQL: create (secret once), list (never the secret), expire, revoke; bad
// input refused with nothing created; another user's tokens neither listed nor revocable.
import type { TestServer } from "./support/server.ts";
import { describe, expect, test } from "./support/fixtures.ts";

const CREATE = /* GraphQL */ `
  mutation ($input: CreateApiTokenInput!) {
    createApiToken(input: $input) { token apiToken { id label createdAt expiresAt lastUsedAt current } }
  }
`;
const LIST = /* GraphQL */ `{ viewer { apiTokens { id label expiresAt current } } }`;
const REVOKE = /* GraphQL */ `mutation ($id: ID!) { revokeApiToken(input: { id: $id }) { revokedTokenId } }`;

const tokenCount = (server: TestServer) => server.database.prisma.apiToken.count();

describe("API tokens", () => {
  test("creates a token whose secret is shown once and works, and lists tokens without secrets", async ({ server, admin }) => {
    const created = await server.graphql(admin.token, CREATE, { input: { label: "deploy bot" } });
    expect(created.errors).toBeUndefined();
    const { token, apiToken } = created.data.createApiToken;
    expect(token).toMatch(/^dps_/);
    expect(apiToken).toMatchObject({
      id: expect.stringMatching(/^tok_/),
      label: "deploy bot",
      expiresAt: null,
      lastUsedAt: null,
      current: false,
    });

    const viewer = await server.graphql(token, "{ viewer { id } }");
    expect(viewer.data.viewer.id).toBe(admin.userId);

    const listed = await server.graphql(token, LIST);
    const tokens = listed.data.viewer.apiTokens as { id: string; current: boolean }[];
    expect(tokens[0]).toMatchObject({ id: apiToken.id, current: true });
    expect(tokens.length).toBe(2);
    // Nothing secret is readable: the type has no field for it.
    const secret = await server.graphql(token, "{ viewer { apiTokens { tokenHash } } }");
    expect(secret.errors![0].message).toMatch(/Cannot query field "tokenHash"/);
    expect(JSON.stringify(listed)).not.toContain(token);
  });

  test("expires a token after the days asked", async ({ server, admin }) => {
    const created = await server.graphql(admin.token, CREATE, { input: { expiresInDays: 2 } });
    const { token, apiToken } = created.data.createApiToken;
    expect(apiToken.expiresAt).toBe(new Date(server.clock.now().getTime() + 2 * 86_400_000).toISOString());
    expect((await server.graphql(token, "{ viewer { id } }")).status).toBe(200);
    server.clock.advance(2 * 86_400_000);
    const expired = await server.graphql(token, "{ viewer { id } }");
    expect(expired.status).toBe(401);
    expect(expired.errors![0].message).toMatch(/expired/);
    const rest = await server.rest(token, "GET", "/v1/orgs");
    expect(rest.status).toBe(401);
  });

  test("revokes a token, and refuses it from then on", async ({ server, admin }) => {
    const { token, apiToken } = (await server.graphql(admin.token, CREATE, { input: {} })).data.createApiToken;
    const revoked = await server.graphql(admin.token, REVOKE, { id: apiToken.id });
    expect(revoked.data.revokeApiToken).toEqual({ revokedTokenId: apiToken.id });
    expect((await server.graphql(token, "{ viewer { id } }")).status).toBe(401);
    const again = await server.graphql(admin.token, REVOKE, { id: apiToken.id });
    expect(again.errors![0].extensions!.code).toBe("NOT_FOUND");
  });

  test("refuses bad input by field name and creates nothing", async ({ server, admin }) => {
    const before = await tokenCount(server);
    for (const [input, field] of [
      [{ label: "" }, /label/],
      [{ label: "x".repeat(101) }, /label/],
      [{ expiresInDays: 0 }, /expiresInDays/],
      [{ expiresInDays: 4000 }, /expiresInDays/],
    ] as const) {
      const refused = await server.graphql(admin.token, CREATE, { input });
      expect(refused.status, JSON.stringify(input)).toBe(400);
      expect(refused.errors![0].message).toMatch(field);
    }
    expect(await tokenCount(server)).toBe(before);
  });

  test("keeps users apart: another user's token is neither listed nor revocable", async ({ server, admin }) => {
    const other = await server.addMember(admin.organizationId, "read");
    const mine = (await server.graphql(admin.token, CREATE, { input: { label: "mine" } })).data.createApiToken.apiToken;
    const theirs = await server.graphql(other.token, LIST);
    expect(theirs.data.viewer.apiTokens.map((token: { id: string }) => token.id)).not.toContain(mine.id);
    const revoke = await server.graphql(other.token, REVOKE, { id: mine.id });
    expect(revoke.errors![0].extensions!.code).toBe("NOT_FOUND");
    expect(await server.database.prisma.apiToken.count({ where: { id: mine.id } })).toBe(1);
    // Reading a co-member's tokens through the user node is refused.
    const viaNode = await server.graphql(other.token, `query ($id: ID!) { node(id: $id) { ... on User { apiTokens { id } } } }`, {
      id: admin.userId,
    });
    expect(viaNode.errors![0].extensions!.code).toBe("FORBIDDEN");
  });
});
