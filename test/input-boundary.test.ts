// The one input boundary (src/core/input.ts): NUL characters, lone surrogates, hostile nesting,
// numbers outside the database's range and forged cursors are 400s naming the field on both
// surfaces, and change nothing; unexpected failures never reach a client as text.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../src/core/bootstrap/index.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let admin: BootstrapResult;
let spaceId: string;

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.bootstrap("Boundary org");
  const created = await server.rest(admin.token, "POST", `/v1/orgs/${admin.organizationId}/spaces`, { title: "Boundary space" });
  expect(created.status).toBe(201);
  spaceId = created.body.id;
});

afterAll(async () => {
  await server?.close();
});

function expectEnvelope(response: { status: number; body: any; headers: Headers }, status: number, message?: RegExp) {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  expect(response.body).toEqual({ error: { code: status, message: expect.any(String) } });
  if (message) expect(response.body.error.message).toMatch(message);
}

const spaceTitles = async () =>
  (await server.database.prisma.space.findMany({ where: { organizationId: admin.organizationId }, orderBy: { id: "asc" } })).map(
    (s) => s.title,
  );

describe("REST", () => {
  it("refuses a NUL byte in a path id with 400 naming it", async () => {
    expectEnvelope(await server.rest(admin.token, "GET", `/v1/spaces/spc_a%00b`), 400, /spaceId must not contain NUL/);
  });

  it("refuses a NUL or a lone surrogate in a body field with 400 naming it, and changes nothing", async () => {
    const before = await spaceTitles();
    expectEnvelope(
      await server.rest(admin.token, "PATCH", `/v1/spaces/${spaceId}`, { title: "a\u0000b" }),
      400,
      /^title must not contain NUL/,
    );
    expectEnvelope(
      await server.rest(admin.token, "PATCH", `/v1/spaces/${spaceId}`, '{"title":"x\\ud800y"}'),
      400,
      /^title must not contain unpaired UTF-16 surrogates/,
    );
    expectEnvelope(
      await server.rest(admin.token, "POST", `/v1/orgs/${admin.organizationId}/spaces`, { title: "ok", emoji: { deep: ["\u0000"] } }),
      400,
      /^emoji\.deep\[0\]/,
    );
    expect(await spaceTitles()).toEqual(before);
  });

  it("refuses a lone surrogate in a query parameter", async () => {
    expectEnvelope(await server.rest(admin.token, "GET", `/v1/orgs/${admin.organizationId}/spaces?page=%ED%A0%80`), 400);
    expectEnvelope(
      await server.rest(admin.token, "GET", `/v1/orgs/${admin.organizationId}/spaces?page=a%00`),
      400,
      /^page must not contain NUL/,
    );
  });

  it("refuses JSON nested 10,000 levels with 400 (no stack overflow)", async () => {
    const body = `{"title":${"[".repeat(10_000)}${"]".repeat(10_000)}}`;
    expectEnvelope(await server.rest(admin.token, "PATCH", `/v1/spaces/${spaceId}`, body), 400, /nested more than 64 levels/);
  });

  it("answers 404 for a change request number beyond the column's range", async () => {
    expectEnvelope(await server.rest(admin.token, "GET", `/v1/spaces/${spaceId}/change-requests/9999999999`), 404);
  });

  it("refuses forged cursors: out-of-range numbers and dates, bad ids, NUL text", async () => {
    const forged = [
      { v: "9999999999", d: 2, id: "cr_x" },
      { v: "+275760-09-13T00:00:00.000Z", d: 1, id: "spc_x" },
      { v: "a", id: "spc_\u0000" },
      { v: "a\u0000", id: "spc_x" },
      [1, 2],
      null,
    ].map((cursor) => Buffer.from(JSON.stringify(cursor)).toString("base64url"));
    for (const page of forged) {
      expectEnvelope(await server.rest(admin.token, "GET", `/v1/orgs/${admin.organizationId}/spaces?page=${page}`), 400, /page cursor/);
      expectEnvelope(
        await server.rest(admin.token, "GET", `/v1/orgs/${admin.organizationId}/collections?page=${page}`),
        400,
        /page cursor/,
      );
      expectEnvelope(await server.rest(admin.token, "GET", `/v1/spaces/${spaceId}/change-requests?page=${page}`), 400, /page cursor/);
    }
  });

  it("answers file download errors as the envelope", async () => {
    expectEnvelope(await server.rest(undefined, "GET", `/files/${"0".repeat(64)}/a.txt?type=text%2Fplain&expires=1&sig=x`), 403);
    expectEnvelope(await server.rest(undefined, "POST", `/files/${"0".repeat(64)}/a.txt`), 405);
    expectEnvelope(await server.rest(undefined, "GET", `/files/nothing`), 404);
  });
});

describe("GraphQL", () => {
  it("refuses a NUL in a variable with 400 naming the variable, and changes nothing", async () => {
    const before = await spaceTitles();
    const response = await server.graphql(
      admin.token,
      `mutation($input: CreateSpaceInput!) { createSpace(input: $input) { space { id } } }`,
      {
        input: { organization: admin.organizationId, title: "a\u0000b" },
      },
    );
    expect(response.status).toBe(400);
    expect(response.errors?.[0]).toMatchObject({
      message: "Variable $input.title must not contain NUL characters",
      extensions: { code: "BAD_REQUEST" },
    });
    expect(await spaceTitles()).toEqual(before);
  });

  it("refuses a NUL written as an escape in a string literal", async () => {
    const response = await server.graphql(
      admin.token,
      `mutation { createSpace(input: { organization: "${admin.organizationId}", title: "a\\u0000b" }) { space { id } } }`,
    );
    expect(response.status).toBe(400);
    expect(response.errors?.[0]).toMatchObject({
      message: expect.stringMatching(/must not contain NUL/),
      extensions: { code: "BAD_REQUEST" },
    });
  });

  it("refuses variables nested deeper than 64 levels", async () => {
    // Written by hand: JSON.stringify itself would overflow the stack on this.
    const body = `{"query":"query($id: ID!) { space(id: $id) { id } }","variables":{"id":"${spaceId}","junk":${"[".repeat(10_000)}${"]".repeat(10_000)}}}`;
    const response = await fetch(`${server.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${admin.token}` },
      body,
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as any).errors[0].message).toMatch(/^Variable \$junk(\[0\])+ is nested more than 64 levels/);
  });
});
