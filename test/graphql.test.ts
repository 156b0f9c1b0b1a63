// The GraphQL surface: GraphiQL, node routing by id prefix, Relay connections and their limits,
// the committed schema file, and the N+1 guard on a nested read.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../src/core/bootstrap/index.ts";
import { INTROSPECTION_FILE, printedIntrospection, printedSchema, SCHEMA_FILE } from "../src/print-schema.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let admin: BootstrapResult;

beforeAll(async () => {
  server = await startTestServer();
  admin = await server.bootstrap("GraphQL org");
});

afterAll(async () => {
  await server?.close();
});

/** Runs a query that must succeed and returns its data. */
async function query<T = any>(token: string, document: string, variables?: Record<string, unknown>): Promise<T> {
  const response = await server.graphql<T>(token, document, variables);
  expect(response.errors, JSON.stringify(response.errors)).toBeUndefined();
  expect(response.status).toBe(200);
  return response.data as T;
}

async function createCollection(token: string, organizationId: string, title: string, parent?: string): Promise<string> {
  const response = await server.rest(token, "POST", `/v1/orgs/${organizationId}/collections`, { title, ...(parent ? { parent } : {}) });
  expect(response.status).toBe(201);
  return response.body.id;
}

async function createSpace(token: string, organizationId: string, title: string, parent?: string): Promise<string> {
  const response = await server.rest(token, "POST", `/v1/orgs/${organizationId}/spaces`, { title, ...(parent ? { parent } : {}) });
  expect(response.status).toBe(201);
  return response.body.id;
}

describe("GraphiQL", () => {
  it("is served to a browser GET /graphql (Accept: text/html), without a token", async () => {
    const response = await fetch(`${server.url}/graphql`, {
      headers: { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await response.text();
    expect(html).toMatch(/^<!doctype html>/i);
    expect(html).toContain("<title>Documentation publishing API</title>");
    expect(html.toLowerCase()).toContain("graphiql");
  });

  it("is not served to an API client: a JSON GET runs the query (and needs a token)", async () => {
    const response = await fetch(`${server.url}/graphql?query=${encodeURIComponent("{ viewer { id } }")}`, {
      headers: { accept: "application/graphql-response+json, application/json" },
    });
    expect(response.status).toBe(401);
    expect(response.headers.get("content-type")).toMatch(/json/);
    const body = (await response.json()) as any;
    expect(body.errors[0].extensions.code).toBe("UNAUTHENTICATED");
  });
});

describe("node and nodes", () => {
  let ids: { organization: string; collection: string; space: string; user: string };

  beforeAll(async () => {
    const collection = await createCollection(admin.token, admin.organizationId, "Node collection");
    const space = await createSpace(admin.token, admin.organizationId, "Node space", collection);
    ids = { organization: admin.organizationId, collection, space, user: admin.userId };
  });

  const NODE = /* GraphQL */ `
    fragment N on Node {
      __typename
      id
      ... on Organization { title }
      ... on Collection { title }
      ... on Space { title parent { id } }
      ... on User { email }
    }`;

  it("routes node(id:) by the id prefix to the right type", async () => {
    const expected = [
      [ids.organization, "Organization", { title: "GraphQL org" }],
      [ids.collection, "Collection", { title: "Node collection" }],
      [ids.space, "Space", { title: "Node space", parent: { id: ids.collection } }],
      [ids.user, "User", { email: expect.stringContaining("@example.com") }],
    ] as const;
    for (const [id, typename, fields] of expected) {
      expect(id.split("_")[0]).toBe({ Organization: "org", Collection: "col", Space: "spc", User: "usr" }[typename]);
      const data = await query(admin.token, `query($id: ID!) { node(id: $id) { ...N } } ${NODE}`, { id });
      expect(data.node).toEqual({ __typename: typename, id, ...fields });
    }
  });

  it("resolves nodes(ids:) in order, mixed types and repeats included", async () => {
    const order = [ids.space, ids.user, ids.organization, ids.collection, ids.space];
    const data = await query(admin.token, `query($ids: [ID!]!) { nodes(ids: $ids) { __typename id } } `, { ids: order });
    expect(data.nodes).toEqual([
      { __typename: "Space", id: ids.space },
      { __typename: "User", id: ids.user },
      { __typename: "Organization", id: ids.organization },
      { __typename: "Collection", id: ids.collection },
      { __typename: "Space", id: ids.space },
    ]);
  });

  it("uses the REST id as the node id", async () => {
    const rest = await server.rest(admin.token, "GET", `/v1/spaces/${ids.space}`);
    expect(rest.body.id).toBe(ids.space);
    const data = await query(admin.token, `query($id: ID!) { space(id: $id) { id } node(id: $id) { id } }`, { id: ids.space });
    expect(data).toEqual({ space: { id: ids.space }, node: { id: ids.space } });
  });

  it("answers null and NOT_FOUND for what the caller may not see, without leaking it", async () => {
    const other = await server.bootstrap("Someone else's org");
    const hidden = await createSpace(other.token, other.organizationId, "Hidden space");
    const response = await server.graphql(admin.token, `query($ids: [ID!]!, $id: ID!) { node(id: $id) { id } nodes(ids: $ids) { id } }`, {
      id: hidden,
      ids: [ids.space, hidden, other.organizationId, other.userId],
    });
    expect(response.data).toEqual({ node: null, nodes: [{ id: ids.space }, null, null, null] });
    const paths = response.errors!.map((error) => [error.path?.join("."), error.extensions?.code]);
    expect(paths).toEqual(
      expect.arrayContaining([
        ["node", "NOT_FOUND"],
        ["nodes.1", "NOT_FOUND"],
        ["nodes.2", "NOT_FOUND"],
        ["nodes.3", "NOT_FOUND"],
      ]),
    );
    expect(JSON.stringify(response)).not.toContain("Hidden space");
  });

  it.each([
    "xyz_123",
    "nounderscore",
    "",
    "tok_abc",
    "rev_abc",
  ])("answers NOT_FOUND for an id whose prefix is no node type (%j), with a clear message", async (id) => {
    const response = await server.graphql(admin.token, `query($id: ID!) { node(id: $id) { id } }`, { id });
    expect(response.data).toEqual({ node: null });
    expect(response.errors).toHaveLength(1);
    expect(response.errors![0].extensions?.code).toBe("NOT_FOUND");
    expect(response.errors![0].message).toContain(JSON.stringify(id));
  });

  it("refuses nodes(ids:) naming the id whose prefix is no node type, never with an internal error", async () => {
    const response = await server.graphql(admin.token, `query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, {
      ids: [ids.space, "xyz_123"],
    });
    expect(response.errors).toHaveLength(1);
    expect(response.errors![0].extensions?.code).toBe("NOT_FOUND");
    expect(response.errors![0].message).toBe('No node found with id "xyz_123"');
  });
});

describe("connections", () => {
  let org: BootstrapResult;
  let collection: string;
  const spaces: string[] = [];

  beforeAll(async () => {
    org = await server.bootstrap("Connections org");
    collection = await createCollection(org.token, org.organizationId, "Top");
    await createCollection(org.token, org.organizationId, "Child", collection);
    for (let i = 0; i < 3; i++) spaces.push(await createSpace(org.token, org.organizationId, `Space ${i}`, collection));
  });

  const CONNECTION = /* GraphQL */ `
    fragment Page on SpaceConnection {
      totalCount
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      edges { cursor node { id title } }
      nodes { id }
    }`;

  it("have totalCount, pageInfo, edges { cursor node } and nodes, and page forward with after", async () => {
    const page = `query($id: ID!, $after: String) { organization(id: $id) { spaces(first: 2, after: $after) { ...Page } } } ${CONNECTION}`;
    const first = (await query(org.token, page, { id: org.organizationId })).organization.spaces;
    expect(first.totalCount).toBe(3);
    expect(first.edges).toHaveLength(2);
    expect(first.nodes.map((n: any) => n.id)).toEqual(first.edges.map((e: any) => e.node.id));
    expect(first.edges.every((e: any) => typeof e.cursor === "string" && e.cursor.length > 0)).toBe(true);
    expect(first.pageInfo).toEqual({
      hasNextPage: true,
      hasPreviousPage: false,
      startCursor: first.edges[0].cursor,
      endCursor: first.edges[1].cursor,
    });

    const second = (await query(org.token, page, { id: org.organizationId, after: first.pageInfo.endCursor })).organization.spaces;
    expect(second.totalCount).toBe(3);
    expect(second.edges).toHaveLength(1);
    expect(second.pageInfo).toEqual({
      hasNextPage: false,
      hasPreviousPage: true,
      startCursor: second.edges[0].cursor,
      endCursor: second.edges[0].cursor,
    });
    expect([...first.nodes, ...second.nodes].map((n: any) => n.id).sort()).toEqual([...spaces].sort());
  });

  it("have the same shape on every list", async () => {
    const shape = `totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } edges { cursor node { id } } nodes { id }`;
    const data = await query(
      org.token,
      `query($org: ID!, $col: ID!) {
        viewer { organizations(first: 5) { ${shape} } }
        organization(id: $org) { spaces { ${shape} } collections { ${shape} } }
        collection(id: $col) { spaces(first: 1) { ${shape} } collections { ${shape} } }
      }`,
      { org: org.organizationId, col: collection },
    );
    const lists = {
      "viewer.organizations": [data.viewer.organizations, 1],
      "organization.spaces": [data.organization.spaces, 3],
      "organization.collections": [data.organization.collections, 2],
      "collection.spaces": [data.collection.spaces, 3],
      "collection.collections": [data.collection.collections, 1],
    } as const;
    for (const [name, [connection, total]] of Object.entries(lists)) {
      expect({ name, totalCount: connection.totalCount }).toEqual({ name, totalCount: total });
      expect(connection.nodes.map((n: any) => n.id)).toEqual(connection.edges.map((e: any) => e.node.id));
      expect(connection.pageInfo.endCursor).toBe(connection.edges.at(-1)?.cursor ?? null);
    }
    // first: 1 of 3 spaces in the collection.
    expect(data.collection.spaces.nodes).toHaveLength(1);
    expect(data.collection.spaces.pageInfo.hasNextPage).toBe(true);
  });

  it.each([1001, 0, -1, 100000])("refuses first: %d with a 400 naming first", async (first) => {
    const response = await server.graphql(
      org.token,
      `query($id: ID!, $first: Int) { organization(id: $id) { spaces(first: $first) { totalCount } } }`,
      { id: org.organizationId, first },
    );
    expect(response.status).toBe(400);
    expect(response.data?.organization ?? null).toBeNull();
    expect(response.errors).toHaveLength(1);
    expect(response.errors![0].extensions?.code).toBe("BAD_REQUEST");
    expect(response.errors![0].message).toMatch(/\bfirst\b/);
    expect(response.errors![0].message).toContain("1000");
  });

  it("accepts first: 1000", async () => {
    const data = await query(org.token, `query($id: ID!) { organization(id: $id) { spaces(first: 1000) { totalCount nodes { id } } } }`, {
      id: org.organizationId,
    });
    expect(data.organization.spaces.nodes).toHaveLength(3);
  });

  it.each([
    ["last: 1", "spaces(last: 1)"],
    ["before", `spaces(before: "abc")`],
    ["first and last", "spaces(first: 1, last: 1)"],
  ])("refuses %s with a clear error (lists page forward only)", async (_label, field) => {
    const response = await server.graphql(org.token, `query($id: ID!) { organization(id: $id) { ${field} { totalCount } } }`, {
      id: org.organizationId,
    });
    expect(response.status).toBe(400);
    expect(response.errors).toHaveLength(1);
    expect(response.errors![0].extensions?.code).toBe("BAD_REQUEST");
    expect(response.errors![0].message).toMatch(/\blast\b/);
    expect(response.errors![0].message).toMatch(/\bfirst\b/);
  });

  it("refuses a garbage after cursor with a 400 naming the cursor", async () => {
    const response = await server.graphql(
      org.token,
      `query($id: ID!) { organization(id: $id) { spaces(after: "garbage") { totalCount } } }`,
      {
        id: org.organizationId,
      },
    );
    expect(response.status).toBe(400);
    expect(response.errors![0].extensions?.code).toBe("BAD_REQUEST");
    expect(response.errors![0].message).toMatch(/cursor/);
  });
});

describe("schema.graphql", () => {
  it("is not stale: the printed schema equals the committed file (run `npm run schema` to update it)", () => {
    const committed = readFileSync(new URL("../schema.graphql", import.meta.url), "utf8");
    expect(SCHEMA_FILE).toBe(new URL("../schema.graphql", import.meta.url).pathname);
    expect(printedSchema()).toBe(committed);
  });

  it("has its introspection types for the typed REST documents up to date (`npm run schema`)", () => {
    expect(printedIntrospection()).toBe(readFileSync(INTROSPECTION_FILE, "utf8"));
  });
});

describe("N+1 guard", () => {
  const NESTED = /* GraphQL */ `
    query Nested($id: ID!, $first: Int!) {
      organization(id: $id) {
        spaces(first: $first) {
          nodes {
            id title
            organization { id title }
            parent { id title parent { id } }
            permissions { edit }
          }
        }
      }
    }`;

  let org: BootstrapResult;
  let reader: { userId: string; token: string };
  let top: string;
  const collections: string[] = [];

  beforeAll(async () => {
    org = await server.bootstrap("N+1 org");
    // Five collections, one at the top and four inside it, so `parent.parent` has something to load.
    top = await createCollection(org.token, org.organizationId, "C0");
    collections.push(top);
    for (let i = 1; i < 5; i++) collections.push(await createCollection(org.token, org.organizationId, `C${i}`, top));
    for (let i = 0; i < 50; i++) await createSpace(org.token, org.organizationId, `S${i}`, collections[i % 5]);
    reader = await server.addMember(org.organizationId, "read");
  });

  /** SQL statements one request of NESTED issues, and its data. */
  async function measure(token: string, first: number) {
    const before = server.database.statementCount;
    const data = await query(token, NESTED, { id: org.organizationId, first });
    return { statements: server.database.statementCount - before, nodes: data.organization.spaces.nodes as any[] };
  }

  it.each([
    ["an organization admin", () => org.token, true],
    ["a member with the read role", () => reader.token, false],
  ])("issues as many statements for 50 spaces as for 5, and few (%s)", async (label, token, canEdit) => {
    // Each request has fresh loaders; run both sizes once first so both measured runs are warm.
    await measure(token(), 5);
    await measure(token(), 50);
    const small = await measure(token(), 5);
    const large = await measure(token(), 50);
    const again = [await measure(token(), 5), await measure(token(), 50)];
    console.log(`N+1 guard (${label}, ${server.database.kind}): N=5 → ${small.statements} statements, N=50 → ${large.statements}`);

    expect(small.nodes).toHaveLength(5);
    expect(large.nodes).toHaveLength(50);
    expect(large.statements).toBe(small.statements);
    expect(again.map((run) => run.statements)).toEqual([small.statements, large.statements]);
    expect(small.statements).toBeLessThanOrEqual(12);

    // And the data is right: every nested object resolved, not just counted.
    for (const node of large.nodes) {
      expect(node.organization).toEqual({ id: org.organizationId, title: "N+1 org" });
      const index = Number(node.title.slice(1));
      const parent = collections[index % 5];
      expect(node.parent).toEqual({ id: parent, title: `C${index % 5}`, parent: parent === top ? null : { id: top } });
      expect(node.permissions).toEqual({ edit: canEdit });
    }
  });
});
