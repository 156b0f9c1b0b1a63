// Issue 28.1: a stored string that becomes a header or a URL. Control characters are refused at the
// input boundary on both surfaces (400 naming the field, nothing stored); a bad value already in
// the database (stored before the rule) gives a logged error and an answer, never a connection
// left open; and whatever a request's handling leaves unanswered is answered or closed, with a
// JSON error line carrying the request id.
import { request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpServer } from "../src/http/client-error.ts";
import { captureLogs } from "./support/logs.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

const CRLF_URL = "https://ok.example/\r\nSet-Cookie: x=1";

describe("URL- and header-bound fields", () => {
  let server: TestServer;
  const logs = captureLogs();
  let token: string;
  let organizationId: string;
  let siteId: string;

  beforeAll(async () => {
    server = await startTestServer({}, {}, { logger: logs.logger });
    const admin = await server.bootstrap("Header safety");
    ({ token, organizationId } = admin);
    const api = server.client(token);
    const space = (await api.orgs.createSpace(organizationId, { title: "Docs" })).data;
    const site = (await api.orgs.createSite(organizationId, { title: "Private", spaces: [space.id], visibility: "visitor-auth" as never }))
      .data;
    await api.orgs.publishSite(organizationId, site.id);
    siteId = site.id;
  });
  afterAll(async () => {
    await server?.close();
  });

  it("refuses control characters in fallbackURL and logoutURL over REST and GraphQL, and stores nothing", async () => {
    const path = `/v1/orgs/${organizationId}/sites/${siteId}/publishing/auth`;
    for (const [field, value] of [
      ["fallbackURL", CRLF_URL],
      ["fallbackURL", "https://ok.example/\u0000"],
      ["logoutURL", "https://ok.example/a\tb"],
      ["fallbackURL", "https://ok.example/\u0085"],
    ]) {
      const rest = await server.rest(token, "PATCH", path, { [field]: value });
      expect(rest.status).toBe(400);
      // NUL was refused before (the input boundary: PostgreSQL cannot store it), with its own message.
      expect(rest.body.error.message).toMatch(
        new RegExp(`^${field} must not contain (control characters \\(U\\+00[0-9A-F]{2} at position \\d+\\)|NUL characters)$`),
      );
      const gql = await server.graphql(
        token,
        `mutation($input: UpdateSitePublishingAuthInput!) { updateSitePublishingAuth(input: $input) { publishingAuth { fallbackURL } } }`,
        { input: { site: siteId, [field]: value } },
      );
      expect(gql.errors?.[0].extensions?.code).toBe("BAD_REQUEST");
      expect(gql.errors?.[0].message).toMatch(new RegExp(`${field} must not contain (control|NUL) characters`));
    }
    const stored = await server.database.prisma.site.findUniqueOrThrow({ where: { id: siteId } });
    expect([stored.authFallbackURL, stored.authLogoutURL]).toEqual([null, null]);
  });

  it("answers a visitor when a fallback URL with a line break is already stored: the 401 page, and an error line", async () => {
    await server.database.prisma.site.update({ where: { id: siteId }, data: { authFallbackURL: CRLF_URL } });
    logs.clear();
    // Before: no answer at all (the throw of writeHead swallowed); the timeout makes that a failure.
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => fetch(`${server.url}/sites/${siteId}/`, { redirect: "manual", signal: AbortSignal.timeout(5000) })),
    );
    expect(answers.map((answer) => answer.status)).toEqual([401, 401, 401, 401, 401]);
    expect(answers[0].headers.get("set-cookie")).toBeNull();
    const errors = logs.lines().filter((line) => line.level === "error");
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]).toMatchObject({ siteId, field: "fallbackURL" });
    await server.database.prisma.site.update({ where: { id: siteId }, data: { authFallbackURL: null } });
  });
});

describe("the last guard where answers are written", () => {
  /** A raw GET: its status, or "closed" when the connection ended without one, within the timeout. */
  const get = (port: number, path = "/x") =>
    new Promise<number | "closed">((resolve, reject) => {
      const request = httpRequest({ host: "127.0.0.1", port, path, headers: { "x-request-id": "req-guard-1" } }, (response) => {
        response.resume();
        response.on("end", () => resolve(response.statusCode!));
        response.on("aborted", () => resolve("closed"));
        response.on("error", () => resolve("closed"));
      });
      request.setTimeout(3000, () => reject(new Error("no answer within 3 s")));
      request.on("error", (error: NodeJS.ErrnoException) => (error.code === "ECONNRESET" ? resolve("closed") : reject(error)));
      request.end();
    });

  it("answers 500 with an error line naming the request id when the handler's work ends without an answer", async () => {
    const logs = captureLogs();
    const server = createHttpServer(
      {},
      async (_request, response) => {
        // What the server adapter did: a header Node refuses, the throw caught and only printed.
        try {
          response.writeHead(302, { Location: CRLF_URL });
        } catch {
          // swallowed, as the adapter does
        }
      },
      { logger: logs.logger },
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      expect(await get(port)).toBe(500);
      const [line] = logs.lines();
      expect(line).toMatchObject({ level: "error", reqId: "req-guard-1", method: "GET", path: "/x" });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("closes the connection when answering fails after the response began", async () => {
    const logs = captureLogs();
    const server = createHttpServer(
      {},
      async (_request, response) => {
        response.writeHead(200, { "Content-Type": "text/plain" });
        response.write("partial");
        throw new Error("failed while streaming");
      },
      { logger: logs.logger },
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const outcome = await get(port).catch((error: Error) => error.message);
      expect(outcome).toBe("closed");
      expect(logs.lines()).toMatchObject([{ level: "error", reqId: "req-guard-1", err: { message: "failed while streaming" } }]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
