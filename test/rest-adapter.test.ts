// The /v1 REST adapter as a whole: list envelope and paging, query checks, success codes,
// request bodies, routing errors, authentication, error masking, body size, and the start-up
// check of the route table. Every error body is checked against the published OpenAPI spec.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { compileRoutes, MAX_BODY_BYTES } from "../rest-adapter/index.ts";
import type { RestRoute } from "../rest-adapter/route.ts";
import { routes } from "../rest-adapter/routes/index.ts";
import { createApp } from "../src/app.ts";
import type { BootstrapResult } from "../src/core/bootstrap/index.ts";
import { schema } from "../src/graphql/schema.ts";
import { validateResponse } from "./support/openapi.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let admin: BootstrapResult;

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.bootstrap("REST adapter org");
});

afterAll(async () => {
  await server?.close();
});

type RestResult = Awaited<ReturnType<TestServer["rest"]>>;

/** The response is exactly the REST error envelope for `status`, valid against the spec. */
function expectError(method: string, path: string, response: RestResult, status: number, message?: RegExp) {
  expect({ status: response.status, body: response.body }).toMatchObject({ status, body: { error: { code: status } } });
  expect(Object.keys(response.body)).toEqual(["error"]);
  expect(Object.keys(response.body.error).sort()).toEqual(["code", "message"]);
  expect(typeof response.body.error.message).toBe("string");
  expect(response.body.error.message.length).toBeGreaterThan(0);
  if (message) expect(response.body.error.message).toMatch(message);
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  expect(validateResponse(method, path, response.status, response.body, { contentType: response.headers.get("content-type") })).toEqual([]);
}

/** A successful response with the expected status, valid against the spec. */
function expectSuccess(method: string, path: string, response: RestResult, status: number) {
  expect({ status: response.status, body: response.body }).toMatchObject({ status });
  expect(validateResponse(method, path, response.status, response.body)).toEqual([]);
}

async function spaceCount(organizationId: string, token = admin.token): Promise<number> {
  const response = await server.rest(token, "GET", `/v1/orgs/${organizationId}/spaces?limit=1`);
  expect(response.status).toBe(200);
  return response.body.count;
}

describe("list envelope and paging", () => {
  let org: BootstrapResult;
  const created: string[] = [];

  beforeAll(async () => {
    org = await server.bootstrap("Paging org");
    const client = server.client(org.token);
    for (let i = 1; i <= 7; i++) {
      const { data } = await client.orgs.createSpace(org.organizationId, { title: `Space ${i}` });
      created.push(data.id);
    }
  });

  it("follows next.page through 7 spaces with limit=3: each space exactly once, count 7 on every page", async () => {
    const client = server.client(org.token);
    const seen: string[] = [];
    const pageSizes: number[] = [];
    let page: string | undefined;
    for (let round = 0; round < 10; round++) {
      const { data } = await client.orgs.listSpacesInOrganizationById(org.organizationId, { limit: 3, ...(page ? { page } : {}) });
      expect(data.count).toBe(7);
      pageSizes.push(data.items.length);
      seen.push(...data.items.map((item) => item.id));
      if (!data.next) {
        // No next page: the key is absent, not null.
        expect(Object.keys(data)).not.toContain("next");
        break;
      }
      expect(Object.keys(data.next)).toEqual(["page"]);
      expect(typeof data.next.page).toBe("string");
      page = data.next.page;
    }
    expect(pageSizes).toEqual([3, 3, 1]);
    expect(seen).toHaveLength(7);
    expect(new Set(seen).size).toBe(7);
    expect([...seen].sort()).toEqual([...created].sort());
    expect(client.violations).toEqual([]);
  });

  it("has exactly { items, count } when everything fits on one page", async () => {
    const path = `/v1/orgs/${org.organizationId}/spaces?limit=7`;
    const response = await server.rest(org.token, "GET", path);
    expectSuccess("GET", path, response, 200);
    expect(Object.keys(response.body).sort()).toEqual(["count", "items"]);
    expect(response.body.count).toBe(7);
    expect(response.body.items).toHaveLength(7);
    expect(response.body.items.every((item: any) => item.object === "space")).toBe(true);
  });

  it("has next.page when exactly one more item remains", async () => {
    const path = `/v1/orgs/${org.organizationId}/spaces?limit=6`;
    const first = await server.rest(org.token, "GET", path);
    expectSuccess("GET", path, first, 200);
    expect(first.body.items).toHaveLength(6);
    expect(first.body.next).toEqual({ page: expect.any(String) });
    const lastPath = `/v1/orgs/${org.organizationId}/spaces?limit=6&page=${encodeURIComponent(first.body.next.page)}`;
    const last = await server.rest(org.token, "GET", lastPath);
    expectSuccess("GET", lastPath, last, 200);
    expect(last.body).toEqual({ items: [expect.objectContaining({ object: "space" })], count: 7 });
  });

  it("uses the same envelope on the other lists (organizations, collections, collection spaces)", async () => {
    const collection = await server.rest(org.token, "POST", `/v1/orgs/${org.organizationId}/collections`, { title: "Shelf" });
    expect(collection.status).toBe(201);
    for (const path of [
      "/v1/orgs?limit=1",
      `/v1/orgs/${org.organizationId}/collections?limit=1`,
      `/v1/collections/${collection.body.id}/spaces?limit=1`,
    ]) {
      const response = await server.rest(org.token, "GET", path);
      expectSuccess("GET", path, response, 200);
      expect(Object.keys(response.body).sort()).toEqual(["count", "items"]);
      expect(response.body.count).toBe(path.includes("/spaces") ? 0 : 1);
    }
  });
});

describe("query parameters", () => {
  const listPaths = () => [`/v1/orgs/${admin.organizationId}/spaces`, `/v1/orgs/${admin.organizationId}/collections`, "/v1/orgs"];

  it.each(["0", "1001", "-1", "abc", "2.5", "1e3", ""])("refuses limit=%j with 400 naming limit", async (limit) => {
    for (const base of listPaths()) {
      const path = `${base}?limit=${encodeURIComponent(limit)}`;
      const response = await server.rest(admin.token, "GET", path);
      expectError("GET", path, response, 400, /\blimit\b/);
    }
  });

  it("accepts limit=1000 and limit=1", async () => {
    for (const base of listPaths()) {
      for (const limit of [1000, 1]) {
        const path = `${base}?limit=${limit}`;
        const response = await server.rest(admin.token, "GET", path);
        expectSuccess("GET", path, response, 200);
      }
    }
  });

  it.each([
    ["not base64 JSON", "garbage"],
    ["punctuation", "%%%"],
    ["base64 of non-JSON", Buffer.from("hello world").toString("base64url")],
    ["base64 of JSON without a cursor", Buffer.from(JSON.stringify({ foo: 1 })).toString("base64url")],
  ])("refuses a garbage page (%s) with 400 naming page", async (_label, page) => {
    for (const base of listPaths()) {
      const path = `${base}?limit=2&page=${encodeURIComponent(page)}`;
      const response = await server.rest(admin.token, "GET", path);
      expectError("GET", path, response, 400, /\bpage\b/);
    }
  });

  // A cursor shaped like ours but with a value of the wrong type for the sort column (a client
  // editing it, or a cursor from another list) must be a 400 too, not an internal error.
  it.each([
    ["a non-date value", { v: "yesterday", id: "spc_x" }],
    ["an invalid date", { v: "not a date", d: 1, id: "spc_x" }],
  ])("refuses a tampered page cursor (%s) with 400 naming page", async (_label, cursor) => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const page = Buffer.from(JSON.stringify(cursor)).toString("base64url");
      const path = `/v1/orgs/${admin.organizationId}/spaces?limit=2&page=${page}`;
      const response = await server.rest(admin.token, "GET", path);
      expectError("GET", path, response, 400, /\bpage\b/);
    } finally {
      errors.mockRestore();
    }
  });
});

describe("success status codes", () => {
  it("answers 200, 201 and 205 on the right routes, with bodies valid against the spec", async () => {
    const org = admin.organizationId;
    const t = admin.token;
    const call = async (method: string, path: string, status: number, body?: unknown) => {
      const response = await server.rest(t, method, path, body);
      expectSuccess(method, path, response, status);
      return response.body;
    };

    await call("GET", "/v1/orgs", 200);
    await call("GET", `/v1/orgs/${org}`, 200);
    await call("PATCH", `/v1/orgs/${org}`, 200, { title: "REST adapter org, renamed" });

    const collection = await call("POST", `/v1/orgs/${org}/collections`, 201, { title: "Handbook" });
    expect(collection).toMatchObject({ object: "collection", title: "Handbook" });
    await call("GET", `/v1/collections/${collection.id}`, 200);
    await call("PATCH", `/v1/collections/${collection.id}`, 200, { description: "All of it" });
    await call("GET", `/v1/orgs/${org}/collections`, 200);

    const space = await call("POST", `/v1/orgs/${org}/spaces`, 201, { title: "Status codes", parent: collection.id });
    expect(space).toMatchObject({ object: "space", title: "Status codes", parent: collection.id });
    await call("GET", `/v1/spaces/${space.id}`, 200);
    await call("PATCH", `/v1/spaces/${space.id}`, 200, { title: "Status codes, renamed" });
    await call("GET", `/v1/collections/${collection.id}/spaces`, 200);
    const copy = await call("POST", `/v1/spaces/${space.id}/duplicate`, 201);
    expect(copy.id).not.toBe(space.id);
    // A move within the same collection (moves to another parent: see the next test).
    await call("POST", `/v1/spaces/${space.id}/move`, 200, { position: { after: { type: "space", space: copy.id } } });
    await call("GET", `/v1/orgs/${org}/spaces`, 200);

    // Deletes answer 205 with an empty body.
    const deleted = await server.rest(t, "DELETE", `/v1/spaces/${copy.id}`);
    expect(deleted.status).toBe(205);
    expect(deleted.body).toBeUndefined();
    expect(validateResponse("DELETE", `/v1/spaces/${copy.id}`, 205, "")).toEqual([]);
    await call("POST", `/v1/spaces/${copy.id}/restore`, 200);

    const deletedCollection = await server.rest(t, "DELETE", `/v1/collections/${collection.id}`);
    expect(deletedCollection.status).toBe(205);
    expect(deletedCollection.body).toBeUndefined();
    expect(validateResponse("DELETE", `/v1/collections/${collection.id}`, 205, "")).toEqual([]);
    const gone = await server.rest(t, "GET", `/v1/collections/${collection.id}`);
    expectError("GET", `/v1/collections/${collection.id}`, gone, 404);
  });
});

describe("moves", () => {
  // Regression: on PGlite (one connection) this used to hang until the 30 s transaction timeout
  // and answer 500, because the `create` check on the new parent (DataLoaders on ctx.prisma) ran
  // inside withTreeLock's transaction and waited for the connection that transaction held.
  it("answers 200 to a move to another parent", async () => {
    const collection = await server.rest(admin.token, "POST", `/v1/orgs/${admin.organizationId}/collections`, { title: "Moves" });
    expect(collection.status).toBe(201);
    const space = await server.rest(admin.token, "POST", `/v1/orgs/${admin.organizationId}/spaces`, { title: "Mover" });
    expect(space.status).toBe(201);
    const path = `/v1/spaces/${space.body.id}/move`;
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const moved = await server.rest(admin.token, "POST", path, { parent: collection.body.id });
      expectSuccess("POST", path, moved, 200);
      expect(moved.body.parent).toBe(collection.body.id);
    } finally {
      errors.mockRestore();
    }
  });
});

describe("request bodies", () => {
  it("refuses malformed JSON with a 400 envelope and creates nothing", async () => {
    const path = `/v1/orgs/${admin.organizationId}/spaces`;
    const before = await spaceCount(admin.organizationId);
    for (const raw of ['{"title": "Broken', "{title: 'x'}", "not json at all", '{"title":"x"} trailing']) {
      const response = await server.rest(admin.token, "POST", path, raw);
      expectError("POST", path, response, 400, /JSON/);
    }
    expect(await spaceCount(admin.organizationId)).toBe(before);
  });

  it("refuses malformed JSON on an update and changes nothing", async () => {
    const space = await server.rest(admin.token, "POST", `/v1/orgs/${admin.organizationId}/spaces`, { title: "Keep me" });
    expect(space.status).toBe(201);
    const path = `/v1/spaces/${space.body.id}`;
    const response = await server.rest(admin.token, "PATCH", path, '{"title": "Changed"');
    expectError("PATCH", path, response, 400, /JSON/);
    expect((await server.rest(admin.token, "GET", path)).body.title).toBe("Keep me");
  });

  it.each([
    ["an array", '[{"title": "In an array"}]'],
    ["an empty array", "[]"],
    ["a string", '"title"'],
    ["a number", "42"],
    ["null", "null"],
  ])("refuses a JSON body that is %s with 400 and creates nothing", async (_label, raw) => {
    const path = `/v1/orgs/${admin.organizationId}/spaces`;
    const before = await spaceCount(admin.organizationId);
    const response = await server.rest(admin.token, "POST", path, raw);
    expectError("POST", path, response, 400, /object/);
    expect(await spaceCount(admin.organizationId)).toBe(before);
  });

  /** A POST body of exactly `bytes` bytes (UTF-8) that creates a space when accepted. */
  function bodyOfSize(bytes: number, filler = "a"): string {
    const shell = JSON.stringify({ title: "Big body", pad: "" });
    const fillerBytes = Buffer.byteLength(filler);
    const room = bytes - Buffer.byteLength(shell);
    const body = JSON.stringify({ title: "Big body", pad: filler.repeat(Math.floor(room / fillerBytes)) + "a".repeat(room % fillerBytes) });
    expect(Buffer.byteLength(body)).toBe(bytes);
    return body;
  }

  it("accepts a body of exactly 1 MiB", async () => {
    const path = `/v1/orgs/${admin.organizationId}/spaces`;
    const response = await server.rest(admin.token, "POST", path, bodyOfSize(MAX_BODY_BYTES));
    expectSuccess("POST", path, response, 201);
  });

  it("refuses a body over 1 MiB with 413 and creates nothing", async () => {
    expect(MAX_BODY_BYTES).toBe(1024 * 1024);
    const path = `/v1/orgs/${admin.organizationId}/spaces`;
    const before = await spaceCount(admin.organizationId);
    for (const size of [MAX_BODY_BYTES + 1, 3 * MAX_BODY_BYTES]) {
      const response = await server.rest(admin.token, "POST", path, bodyOfSize(size));
      expectError("POST", path, response, 413);
    }
    expect(await spaceCount(admin.organizationId)).toBe(before);
  });

  it("refuses a body over 1 MiB sent without Content-Length (chunked), counting bytes, not characters", async () => {
    const path = `/v1/orgs/${admin.organizationId}/spaces`;
    const before = await spaceCount(admin.organizationId);
    // "é" is 2 bytes in UTF-8: 1.2 MB of bytes but only about 600,000 characters.
    for (const body of [bodyOfSize(MAX_BODY_BYTES + 1), bodyOfSize(MAX_BODY_BYTES + 200_000, "é")]) {
      const bytes = new TextEncoder().encode(body);
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let offset = 0; offset < bytes.length; offset += 64 * 1024) controller.enqueue(bytes.slice(offset, offset + 64 * 1024));
          controller.close();
        },
      });
      const response = await fetch(`${server.url}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${admin.token}`, "content-type": "application/json" },
        body: stream,
        duplex: "half",
      } as RequestInit);
      const text = await response.text();
      expectError("POST", path, { status: response.status, body: JSON.parse(text), headers: response.headers }, 413);
    }
    expect(await spaceCount(admin.organizationId)).toBe(before);
  });

  it("decodes UTF-8 split across chunks", async () => {
    const path = `/v1/orgs/${admin.organizationId}/spaces`;
    const bytes = new TextEncoder().encode(JSON.stringify({ title: "Café 🚀 naïve" }));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        // One byte per chunk: every multi-byte character is split.
        for (const byte of bytes) controller.enqueue(Uint8Array.of(byte));
        controller.close();
      },
    });
    const response = await fetch(`${server.url}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${admin.token}`, "content-type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    const body = await response.json();
    expectSuccess("POST", path, { status: response.status, body, headers: response.headers }, 201);
    expect(body.title).toBe("Café 🚀 naïve");
  });
});

describe("routing", () => {
  it.each([
    "/v1/nope",
    "/v1/spaces",
    "/v1/orgs/org_x/nothing-here",
    "/v1/spaces/spc_x/extra/deep",
  ])("answers an unknown route (%s) with the 404 envelope", async (path) => {
    for (const method of ["GET", "POST"]) {
      const response = await server.rest(admin.token, method, path, method === "POST" ? {} : undefined);
      expectError(method, path, response, 404);
      expect(response.body).toEqual({ error: { code: 404, message: expect.any(String) } });
    }
  });

  it("answers a published operation that is not built (GET /v1/orgs/{organizationId}/sites/{siteId}/topics) with the 501 envelope", async () => {
    const response = await server.rest(admin.token, "GET", "/v1/orgs/org_x/sites/site_x/topics");
    expectError("GET", "/v1/orgs/org_x/sites/site_x/topics", response, 501);
    expect(response.body).toEqual({ error: { code: 501, message: expect.stringContaining("not built") } });
  });

  it.each([
    ["PUT", "/v1/spaces/spc_x", ["DELETE", "GET", "PATCH"]],
    ["POST", "/v1/spaces/spc_x", ["DELETE", "GET", "PATCH"]],
    ["DELETE", "/v1/orgs", ["GET", "POST"]],
    ["POST", "/v1/orgs/org_x", ["GET", "PATCH"]],
    ["GET", "/v1/spaces/spc_x/duplicate", ["POST"]],
    ["PUT", "/v1/orgs/org_x/spaces", ["GET", "POST"]],
  ])("answers %s %s with 405 and an Allow header", async (method, path, allowed) => {
    const response = await server.rest(admin.token, method, path, method === "GET" || method === "DELETE" ? undefined : {});
    expectError(method, path, response, 405, new RegExp(method));
    const allow = response.headers.get("allow");
    expect(allow).not.toBeNull();
    // HEAD is answered wherever GET is.
    expect(
      allow!
        .split(",")
        .map((m) => m.trim())
        .sort(),
    ).toEqual(allowed.includes("GET") ? [...allowed, "HEAD"].sort() : allowed);
  });

  it("does not touch paths outside /v1", async () => {
    const response = await fetch(`${server.url}/v10/orgs`);
    expect(response.status).toBe(404);
  });
});

describe("authentication", () => {
  it("answers 401 with the envelope on REST without a token, and changes nothing", async () => {
    const before = await spaceCount(admin.organizationId);
    for (const [method, path, body] of [
      ["GET", "/v1/orgs", undefined],
      ["GET", `/v1/orgs/${admin.organizationId}`, undefined],
      ["POST", `/v1/orgs/${admin.organizationId}/spaces`, { title: "Anonymous" }],
    ] as const) {
      const response = await server.rest(undefined, method, path, body);
      expectError(method, path, response, 401, /token/i);
    }
    expect(await spaceCount(admin.organizationId)).toBe(before);
  });

  it("answers 401 on GraphQL without a token, with extensions.code UNAUTHENTICATED", async () => {
    const response = await server.graphql(undefined, "{ viewer { id } }");
    expect(response.status).toBe(401);
    expect(response.data ?? null).toBeNull();
    expect(response.errors).toHaveLength(1);
    expect(response.errors![0].extensions?.code).toBe("UNAUTHENTICATED");
    expect(response.errors![0].message).toMatch(/token/i);
  });

  it("answers 401 to an invalid or malformed token on both surfaces", async () => {
    for (const authorization of [`Bearer dps_${"x".repeat(43)}`, "Bearer nope", `Basic ${admin.token}`, "Bearer", admin.token]) {
      const path = `/v1/orgs/${admin.organizationId}`;
      const response = await fetch(`${server.url}${path}`, { headers: { authorization } });
      const body = await response.json();
      expectError("GET", path, { status: response.status, body, headers: response.headers }, 401);

      const graphql = await fetch(`${server.url}/graphql`, {
        method: "POST",
        headers: { authorization, "content-type": "application/json" },
        body: JSON.stringify({ query: "{ viewer { id } }" }),
      });
      expect(graphql.status).toBe(401);
      const result = (await graphql.json()) as any;
      expect(result.errors[0].extensions.code).toBe("UNAUTHENTICATED");
    }
  });
});

describe("unexpected errors", () => {
  // An honest internal failure through a real route: the database no longer matches what the
  // code expects (a column renamed under it), so Prisma fails with an error naming the column.
  it("are logged and masked on both surfaces: 500, a generic message, no stack trace or internals", async () => {
    const space = await server.rest(admin.token, "POST", `/v1/orgs/${admin.organizationId}/spaces`, { title: "Fragile" });
    expect(space.status).toBe(201);
    const path = `/v1/spaces/${space.body.id}`;
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    await server.database.exec(`ALTER TABLE "Space" RENAME COLUMN "emoji" TO "emoji_renamed"`);
    try {
      const response = await server.rest(admin.token, "GET", path);
      expectError("GET", path, response, 500);
      const text = JSON.stringify(response.body);
      for (const leak of ["emoji", "Prisma", "column", "stack", "    at ", ".ts:"]) expect(text).not.toContain(leak);

      const graphql = await server.graphql(admin.token, `query($id: ID!) { space(id: $id) { id title } }`, { id: space.body.id });
      expect(graphql.status).toBe(500);
      expect(graphql.errors).toHaveLength(1);
      expect(graphql.errors![0].extensions?.code).toBe("INTERNAL_SERVER_ERROR");
      const graphqlText = JSON.stringify(graphql);
      for (const leak of ["emoji", "Prisma", "column", "stack", "    at ", ".ts:"]) expect(graphqlText).not.toContain(leak);
      expect(graphql.errors![0].message).toBe(response.body.error.message);

      // Logged for the operator, with the real cause (PGlite names the column, PostgreSQL through
      // Prisma says "The column `(not available)` does not exist").
      expect(logged.mock.calls.map((args) => args.map(String).join(" ")).join("\n")).toMatch(/column.*does not exist/);
    } finally {
      await server.database.exec(`ALTER TABLE "Space" RENAME COLUMN "emoji_renamed" TO "emoji"`);
      logged.mockRestore();
    }
    expectSuccess("GET", path, await server.rest(admin.token, "GET", path), 200);
  });
});

describe("route table compilation", () => {
  const broken = (document: string): RestRoute => ({
    method: "GET",
    path: "/v1/broken/:id",
    action: "space.read",
    document,
    variables: ({ params }) => ({ id: params.id }),
    status: 200,
    body: (data) => data,
  });

  it("compiles the real route table against the schema", () => {
    const compiled = compileRoutes(routes, schema);
    expect(compiled).toHaveLength(routes.length);
    expect(new Set(routes.map((route) => `${route.method} ${route.path}`)).size).toBe(routes.length);
  });

  it("throws naming the route when a document does not validate against the schema", () => {
    const route = broken(`query Broken($id: ID!) { space(id: $id) { id noSuchField } }`);
    expect(() => compileRoutes([...routes, route], schema)).toThrow(/GET \/v1\/broken\/:id/);
    expect(() => compileRoutes([route], schema)).toThrow(/noSuchField/);
    const unknownVariable = broken(`query Broken { space(id: $id) { id } }`);
    expect(() => compileRoutes([unknownVariable], schema)).toThrow(/GET \/v1\/broken\/:id.*\$id/s);
  });

  it("throws naming the route when a document does not even parse", () => {
    const route = broken(`query Broken($id: ID!) { space(id: $id) { id `);
    expect(() => compileRoutes([route], schema)).toThrow(/GET \/v1\/broken\/:id/);
  });

  it("makes createApp fail at start with such a route", () => {
    const route = broken(`query Broken($id: ID!) { nothing(id: $id) { id } }`);
    routes.push(route);
    // No job worker: these apps are never closed, and one polling after the test server closed
    // its database would log errors into other tests' output.
    try {
      expect(() => createApp({ database: server.database, config: { publicUrl: "http://localhost:1" }, startJobs: false })).toThrow(
        /GET \/v1\/broken\/:id.*nothing/s,
      );
    } finally {
      routes.splice(routes.indexOf(route), 1);
    }
    // The real table still starts.
    expect(() => createApp({ database: server.database, config: { publicUrl: "http://localhost:1" }, startJobs: false })).not.toThrow();
  });
});
