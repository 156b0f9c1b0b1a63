// Bounded GraphQL (src/graphql/plugins/use-graphql-limits.ts): depth, aliases, tokens, cost with
// first and nodes(ids:), document and body sizes, authentication before a large body is read.
// Each refusal names its limit in extensions.code; REST routes are not affected.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../src/core/bootstrap/index.ts";
import { DEFAULT_GRAPHQL_LIMITS } from "../src/config.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let admin: BootstrapResult;

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.bootstrap("Limits org");
});

afterAll(async () => {
  await server?.close();
});

async function expectRefused(query: string, variables: Record<string, unknown> | undefined, status: number, code: string, message: RegExp) {
  const response = await server.graphql(admin.token, query, variables);
  expect(response.status).toBe(status);
  expect(response.data ?? null).toBeNull();
  expect(response.errors?.[0]).toMatchObject({ extensions: { code } });
  expect(response.errors?.[0].message).toMatch(message);
}

const nest = (levels: number) => {
  let selection = "id";
  for (let i = 0; i < levels; i++) selection = `organization { spaces(first: 1) { nodes { ${selection} } } }`;
  return `query($id: ID!) { space(id: $id) { ${selection} } }`;
};

describe("limits", () => {
  it("refuses a query deeper than the limit", async () => {
    await expectRefused(nest(6), { id: "spc_x" }, 400, "DEPTH_LIMIT", /depth limit of 15/);
  });

  it("refuses a document nested 3,000 levels with 400, not a stack overflow", async () => {
    const query = `{ ${"viewer { organizations { nodes { ".repeat(1000)} id ${"} } }".repeat(1000)} }`;
    const response = await server.graphql(admin.token, query);
    expect(response.status).toBe(400);
    expect(response.errors?.[0].extensions?.code).toBe("DEPTH_LIMIT");
    expect(response.errors?.[0].message).toMatch(/nested more than 100 levels/);
  });

  it("refuses more aliases than the limit", async () => {
    const aliases = Array.from({ length: 31 }, (_, i) => `a${i}: viewer { id }`).join(" ");
    await expectRefused(`{ ${aliases} }`, undefined, 400, "ALIAS_LIMIT", /Aliases limit of 30/i);
  });

  it("refuses more tokens than the limit", async () => {
    const fields = Array.from({ length: 6000 }, () => "id").join(" ");
    await expectRefused(`{ viewer { ${fields} } }`, undefined, 400, "TOKEN_LIMIT", /Token limit of 5000/);
  });

  it("refuses organization→spaces→organization… by its cost, counting first and the default page size", async () => {
    const query = `query($id: ID!) { organization(id: $id) { spaces { nodes { organization { spaces { nodes { organization { spaces { nodes { id title } } } } } } } } } }`;
    await expectRefused(query, { id: admin.organizationId }, 400, "COST_LIMIT", /cost \d+ is over the limit of 50000/);
    // The same shape with small pages is allowed.
    const small = query.replaceAll("spaces {", "spaces(first: 3) {");
    const response = await server.graphql(admin.token, small, { id: admin.organizationId });
    expect(response.status).toBe(200);
    expect(response.errors).toBeUndefined();
  });

  it("counts first given in variables", async () => {
    const query = `query($id: ID!, $n: Int) { organization(id: $id) { spaces(first: $n) { nodes { organization { spaces(first: $n) { nodes { id title emoji } } } } } } }`;
    await expectRefused(query, { id: admin.organizationId, n: 1000 }, 400, "COST_LIMIT", /cost/);
    expect((await server.graphql(admin.token, query, { id: admin.organizationId, n: 10 })).status).toBe(200);
  });

  it("costs a repeated document anew with each request's variables", async () => {
    // rateLimit 2, organization 1 + spaces (1 + n × (nodes 1 + id 1)), nodes(ids:) 1 + one per id.
    const query = `query($id: ID!, $n: Int, $ids: [ID!]!) { rateLimit { cost } organization(id: $id) { spaces(first: $n) { nodes { id } } } nodes(ids: $ids) { id } }`;
    const cost = async (n: number, ids: string[]) => {
      const response = await server.graphql(admin.token, query, { id: admin.organizationId, n, ids });
      expect(response.errors).toBeUndefined();
      return response.data.rateLimit.cost;
    };
    expect(await cost(1, [])).toBe(7);
    const org = admin.organizationId;
    expect(await cost(50, [org, org, org])).toBe(108);
    expect(await cost(1, [])).toBe(7);
    const ids = Array.from({ length: 101 }, (_, i) => `spc_${i}`);
    await expectRefused(query, { id: admin.organizationId, n: 1, ids }, 400, "NODE_IDS_LIMIT", /at most 100 ids \(got 101\)/);
    expect(await cost(2, [org])).toBe(10);
  });

  it("caps nodes(ids:)", async () => {
    const ids = Array.from({ length: 101 }, (_, i) => `spc_${i}`);
    await expectRefused(`query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, { ids }, 400, "NODE_IDS_LIMIT", /at most 100 ids/);
  });

  it("refuses a field repeated more than the limit in one selection set, merged as validation merges them, before validating", async () => {
    const repeat = (times: number, field: string) => Array.from({ length: times }, () => field).join(" ");
    const organizations = "organizations(first: 5) { nodes { id title } }";
    // 200 repeats: small (about 9 KB, within tokens, aliases, depth and cost), but validation compares each pair.
    const started = Date.now();
    await expectRefused(
      `{ viewer { ${repeat(200, organizations)} } }`,
      undefined,
      400,
      "FIELD_REPEAT_LIMIT",
      /"organizations" is selected 200 times.*at most 50/,
    );
    expect(Date.now() - started).toBeLessThan(1000);
    // Same-named fields merge: 30 × viewer { organizations { nodes { id id } } } is 60 × id in one merged set.
    await expectRefused(
      `{ ${repeat(30, "viewer { organizations(first: 1) { nodes { id id } } }")} }`,
      undefined,
      400,
      "FIELD_REPEAT_LIMIT",
      /"id" is selected 60 times/,
    );
    // Fragments count where they are spread (once per name per set, as validation takes them), inline fragments too.
    const spread = `{ viewer { ...O ...O ... on User { ${repeat(50, "id")} } } } fragment O on User { id }`;
    await expectRefused(spread, undefined, 400, "FIELD_REPEAT_LIMIT", /"id" is selected 51 times/);
    // At the limit, and one fragment spread at two levels, run.
    const allowed = await server.graphql(admin.token, `{ viewer { ${repeat(50, organizations)} } }`);
    expect(allowed.status).toBe(200);
    expect(allowed.errors).toBeUndefined();
    const reused = await server.graphql(
      admin.token,
      `{ viewer { ...U organizations(first: 1) { nodes { members(first: 1) { nodes { user { ...U } } } } } } } fragment U on User { id displayName }`,
    );
    expect(reused.errors?.[0]?.extensions?.code).not.toBe("FIELD_REPEAT_LIMIT");
    expect(reused.errors?.[0]?.extensions?.code).not.toBe("COST_LIMIT");
  });

  it("refuses fragments spread within themselves without overflowing the stack", async () => {
    const query = `query($id: ID!) { organization(id: $id) { ...F } } fragment F on Organization { spaces(first: 1) { nodes { organization { ...F } } } }`;
    const response = await server.graphql(admin.token, query, { id: admin.organizationId });
    expect(response.status).toBe(400);
    expect(response.errors?.[0].message).toMatch(/spreads a fragment within itself|Cannot spread fragment/);
  });

  it("refuses a document over the size limit with 413", async () => {
    const query = `{ viewer { id } } # ${"x".repeat(DEFAULT_GRAPHQL_LIMITS.maxDocumentBytes)}`;
    await expectRefused(query, undefined, 413, "DOCUMENT_TOO_LARGE", /at most 65536 bytes/);
  });
});

describe("request bodies", () => {
  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}/graphql`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });

  it("reads a large body only once its token is known good", async () => {
    const body = JSON.stringify({ query: "{ viewer { id } }", variables: { pad: "x".repeat(200_000) } });
    const anonymous = await post(body);
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as any).errors[0].message).toMatch(/before a request body above 65536 bytes/);
    const bad = await post(body, { authorization: "Bearer nope" });
    expect(bad.status).toBe(401);
    const good = await post(body, { authorization: `Bearer ${admin.token}` });
    expect(good.status).toBe(200);
    // A small body without a token reaches the usual 401 of the operation.
    expect((await post(JSON.stringify({ query: "{ viewer { id } }" }))).status).toBe(401);
  });

  it("refuses a body above the limit with 413 before reading it", async () => {
    const response = await fetch(`${server.url}/graphql`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "content-length": String(DEFAULT_GRAPHQL_LIMITS.maxBodyBytes + 1),
        authorization: `Bearer ${admin.token}`,
      },
      body: "{}".padEnd(DEFAULT_GRAPHQL_LIMITS.maxBodyBytes + 1, " "),
    });
    expect(response.status).toBe(413);
    expect(((await response.json()) as any).errors[0].extensions.code).toBe("BODY_TOO_LARGE");
  });

  it("bounds the bodies of Yoga's other parsers too (application/graphql), counted as they arrive", async () => {
    const small = await startTestServer({ graphqlLimits: { maxBodyBytes: 10_000 } });
    try {
      const { token } = await small.bootstrap();
      const send = (body: BodyInit, headers: Record<string, string> = {}) =>
        fetch(`${small.url}/graphql`, {
          method: "POST",
          headers: { "content-type": "application/graphql", authorization: `Bearer ${token}`, ...headers },
          body,
          duplex: "half",
        } as RequestInit);
      const answered = await send("{ viewer { __typename } }");
      expect(answered.status).toBe(200);
      expect(await answered.json()).toEqual({ data: { viewer: { __typename: "User" } } });
      // Chunked (no Content-Length): refused once the bytes received pass the bound.
      const chunks = [`{ viewer { __typename } } # `, "x".repeat(6_000), "x".repeat(6_000)];
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          const chunk = chunks.shift();
          if (chunk === undefined) controller.close();
          else controller.enqueue(new TextEncoder().encode(chunk));
        },
      });
      const chunked = await send(stream);
      expect(chunked.status).toBe(413);
      expect(((await chunked.json()) as any).errors[0]).toMatchObject({ extensions: { code: "BODY_TOO_LARGE" } });
    } finally {
      await small.close();
    }
  });

  it("leaves REST routes alone: a list of 1000 costs no more than its own limit", async () => {
    const response = await server.rest(admin.token, "GET", `/v1/orgs/${admin.organizationId}/spaces?limit=1000`);
    expect(response.status).toBe(200);
  });
});
