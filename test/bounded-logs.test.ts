// Issue 34: a client error is one short line of the log, at info (warn for authentication and
// rate-limit refusals), with its request id, route pattern, status and code; none at error.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { captureLogs } from "./support/logs.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

describe("log lines of refused requests", () => {
  let server: TestServer;
  const logs = captureLogs();
  let token: string;
  let organizationId: string;

  beforeAll(async () => {
    server = await startTestServer({}, {}, { logger: logs.logger });
    ({ token, organizationId } = await server.bootstrap("Bounded logs"));
  });
  afterAll(async () => {
    await server?.close();
  });

  it("writes at most one line of at most a few KB per hostile request, none at error", async () => {
    const hostile: [string, string, unknown?][] = [
      ["GET", "/v1/orgs?page=garbage"],
      ["GET", "/v1/spaces/unknown-space"],
      ["PATCH", `/v1/orgs/${organizationId}`, { inviteLinks: "x".repeat(200_000) }],
      ["PATCH", `/v1/orgs/${organizationId}`, { title: "y".repeat(200_000) }],
      ["GET", "/v1/orgs?limit=0"],
    ];
    for (const [method, path, body] of hostile) {
      logs.clear();
      const answer = await server.rest(token, method, path, body);
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(answer.status).toBeLessThan(500);
      const lines = logs.raw();
      // Before: an error line with the GraphQL error's stack, the input in it several times.
      expect(lines.length).toBe(1);
      expect(lines[0].length).toBeLessThan(4096);
      const [line] = logs.lines();
      expect(line).toMatchObject({
        level: "info",
        status: answer.status,
        reqId: expect.any(String),
        route: expect.stringMatching(/^(GET|PATCH) \/v1/),
      });
      expect(line.code).toMatch(/^[A-Z_]+$/);
      expect(line.err).toBeUndefined();
    }
    logs.clear();
    expect((await server.rest("dps_not-a-token", "GET", "/v1/user")).status).toBe(401);
    expect(logs.lines()).toMatchObject([{ level: "warn", status: 401, code: "UNAUTHENTICATED" }]);
  });
});

describe("answers to bad values (issue 34.2, 34.3)", () => {
  let server: TestServer;
  const logs = captureLogs();
  let token: string;
  let organizationId: string;
  let spaceId: string;

  beforeAll(async () => {
    server = await startTestServer({}, {}, { logger: logs.logger });
    ({ token, organizationId } = await server.bootstrap("Bounded answers"));
    spaceId = (await server.rest(token, "POST", `/v1/orgs/${organizationId}/spaces`, { title: "Bounded" })).body.id;
  });
  afterAll(async () => {
    await server?.close();
  });

  // A value no message may repeat whole: its runs of Z would show in the answer.
  const inUrl = "Z".repeat(6_000);
  const inBody = "Z".repeat(120_000);
  const longestRun = (text: string) => Math.max(0, ...(text.match(/Z+/g) ?? []).map((run) => run.length));

  it("quote at most 100 characters of a bad value, with its length, on REST", async () => {
    const cases: [string, string, unknown?][] = [
      ["GET", `/v1/orgs/${organizationId}/members?role=${inUrl}`],
      ["GET", `/v1/orgs/${organizationId}/members?sort=${inUrl}`],
      ["GET", `/v1/spaces/${spaceId}/change-requests?orderBy=${inUrl}`],
      ["GET", `/v1/spaces/${inUrl}/nothing-here`],
      ["PATCH", `/v1/orgs/${organizationId}`, { defaultRole: inBody }],
      ["PATCH", `/v1/orgs/${organizationId}`, { inviteLinks: inBody }],
      ["POST", `/v1/orgs/${organizationId}/spaces`, { title: "Child", parent: inBody }],
    ];
    for (const [method, path, body] of cases) {
      const answer = await server.rest(token, method, path, body);
      const text = JSON.stringify(answer.body);
      expect([400, 404], `${method} ${path.slice(0, 60)}`).toContain(answer.status);
      // Before: the whole value, 6,000 or 120,000 characters, in the message.
      expect(longestRun(text), `${method} ${path.slice(0, 60)}`).toBeLessThanOrEqual(100);
      expect(answer.body.error.message).toMatch(/Z…" \(\d{4,6} characters\)/);
      expect(text.length).toBeLessThan(1200);
    }
    // Hand-written: the exact message of one of them.
    const role = await server.rest(token, "GET", `/v1/orgs/${organizationId}/members?role=${inUrl}`);
    expect(role.body.error.message).toBe(
      `role must be one of admin, create, review, edit, comment, read, guest (got "${"Z".repeat(100)}…" (6000 characters))`,
    );
  });

  it("quote at most 100 characters of a bad value on GraphQL, its own validation messages included", async () => {
    const variable = await server.graphql(token, "query($n: Int) { integrations(first: $n) { nodes { name } } }", { n: inBody });
    const field = await server.graphql(token, `{ ${"a".repeat(3_000)} }`);
    for (const answer of [variable, field]) {
      expect(answer.errors?.length).toBe(1);
      const [error] = answer.errors ?? [];
      expect(error.extensions?.code).toMatch(/^(BAD_REQUEST|GRAPHQL_VALIDATION_FAILED)$/);
      expect(error.message.length).toBeLessThan(400);
    }
    expect(variable.errors?.[0].message).toBe(
      `Variable "$n" got invalid value "${"Z".repeat(100)}…" (120000 characters); Int cannot represent non-integer value: "${"Z".repeat(100)}…" (120000 characters)`,
    );
    expect(field.errors?.[0].message).toBe(`Cannot query field "${"a".repeat(100)}…" (3000 characters) on type "Query".`);
  });

  it("refuse a 900 KB field with one short line while another request is answered, and change nothing", async () => {
    const before = await server.rest(token, "GET", `/v1/orgs/${organizationId}`);
    logs.clear();
    const [refused, other] = await Promise.all([
      server.rest(token, "PATCH", `/v1/orgs/${organizationId}`, { title: "T".repeat(900_000) }),
      server.rest(token, "GET", "/v1/user"),
    ]);
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toBe("title must be between 2 and 255 characters (got 900000)");
    expect(other.status).toBe(200);
    const lines = logs.raw();
    expect(lines.length).toBe(2);
    for (const line of lines) expect(line.length).toBeLessThan(4096);
    const after = await server.rest(token, "GET", `/v1/orgs/${organizationId}`);
    expect(after.body.title).toBe(before.body.title);
  });
});
