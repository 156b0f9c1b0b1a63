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
