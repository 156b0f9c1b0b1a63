// Persisted operations on /graphql (src/graphql/plugins/use-persisted-operations.ts, issue 35):
// a store registered at build time (hash → document), the hash sent instead of the text, and a
// setting under which only persisted operations run; the store is checked at start. Automatic
// Persisted Queries (use-automatic-persisted-queries.ts): a client registers a document by sending
// it once with its hash, bounded in count and size.
import { createHash } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, loadConfig } from "../src/config.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../src/core/bootstrap/index.ts";
import { APQ_DOCUMENT_MAX_BYTES, APQ_DOCUMENTS } from "../src/graphql/plugins/use-automatic-persisted-queries.ts";
import { checkedStore } from "../src/graphql/plugins/use-persisted-operations.ts";
import { schema } from "../src/graphql/schema.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

const VIEWER = `query Viewer { viewer { displayName } }`;
const hashOf = (text: string) => createHash("sha256").update(text).digest("hex");
const store = { [hashOf(VIEWER)]: VIEWER };

async function post(server: TestServer, token: string | undefined, body: unknown) {
  const response = await server.app.yoga.fetch(`${server.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}
const persisted = (hash: string) => ({ extensions: { persistedQuery: { version: 1, sha256Hash: hash } } });

describe("persisted operations, documents as text still allowed", () => {
  let server: TestServer;
  let admin: BootstrapResult;
  beforeAll(async () => {
    server = await startTestServer({ persistedOperations: { store, only: false } });
    admin = await server.bootstrap();
  });
  afterAll(() => server.close());

  it("runs a persisted operation by its hash, and a document sent as text", async () => {
    const byHash = await post(server, admin.token, persisted(hashOf(VIEWER)));
    expect(byHash).toEqual({ status: 200, body: { data: { viewer: { displayName: expect.any(String) } } } });
    expect(await post(server, admin.token, { query: VIEWER })).toEqual(byHash);
  });

  it("answers an unknown hash 404 PERSISTED_QUERY_NOT_FOUND (a client then sends the text: APQ)", async () => {
    const unknown = await post(server, admin.token, persisted(hashOf("query { viewer { id } }")));
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors[0]).toMatchObject({ message: "PersistedQueryNotFound", extensions: { code: "PERSISTED_QUERY_NOT_FOUND" } });
    expect(unknown.body.data).toBeUndefined();
  });
});

describe("automatic persisted queries (APQ)", () => {
  let server: TestServer;
  let admin: BootstrapResult;
  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.bootstrap("APQ org");
  });
  afterAll(() => server.close());

  const ORGANIZATIONS = `query Organizations { viewer { organizations { nodes { title } } } }`;

  it("registers a document sent once with its hash; the hash alone then runs it, over POST and GET", async () => {
    const hash = hashOf(ORGANIZATIONS);
    const first = await post(server, admin.token, persisted(hash));
    expect(first.status).toBe(404);
    expect(first.body.errors[0].extensions.code).toBe("PERSISTED_QUERY_NOT_FOUND");
    const registered = await post(server, admin.token, { query: ORGANIZATIONS, ...persisted(hash) });
    expect(registered).toEqual({ status: 200, body: { data: { viewer: { organizations: { nodes: [{ title: "APQ org" }] } } } } });
    expect(await post(server, admin.token, persisted(hash))).toEqual(registered);
    // Apollo's link sends hashed queries as GET.
    const extensions = encodeURIComponent(JSON.stringify(persisted(hash).extensions));
    const response = await server.app.yoga.fetch(`${server.url}/graphql?extensions=${extensions}`, {
      headers: { accept: "application/json", authorization: `Bearer ${admin.token}` },
    });
    expect({ status: response.status, body: await response.json() }).toEqual(registered);
  });

  it("refuses a text whose hash is not its own (400 PERSISTED_QUERY_MISMATCH) and keeps nothing", async () => {
    const text = `query Mismatch { viewer { id } }`;
    const wrong = hashOf(`${text} `);
    const refused = await post(server, admin.token, { query: text, ...persisted(wrong) });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].extensions.code).toBe("PERSISTED_QUERY_MISMATCH");
    expect(refused.body.data).toBeUndefined();
    expect((await post(server, admin.token, persisted(wrong))).status).toBe(404);
  });

  it("authorizes a document sent by hash as if sent in full: another caller gets only what they may read", async () => {
    const hash = hashOf(ORGANIZATIONS);
    await post(server, admin.token, { query: ORGANIZATIONS, ...persisted(hash) });
    const other = await server.bootstrap("Other org");
    expect((await post(server, other.token, persisted(hash))).body).toEqual({
      data: { viewer: { organizations: { nodes: [{ title: "Other org" }] } } },
    });
    const anonymous = await post(server, undefined, persisted(hash));
    expect(anonymous.body.data?.viewer ?? null).toBeNull();
  });

  it(`keeps at most ${APQ_DOCUMENTS} documents of at most ${APQ_DOCUMENT_MAX_BYTES} bytes, and answers others meanwhile`, async () => {
    // A long document runs, but is not kept.
    const long = `query Long { viewer { id } } # ${"x".repeat(APQ_DOCUMENT_MAX_BYTES)}`;
    const ran = await post(server, admin.token, { query: long, ...persisted(hashOf(long)) });
    expect(ran.status).toBe(200);
    expect((await post(server, admin.token, persisted(hashOf(long)))).status).toBe(404);
    // One more than the bound: the oldest is gone, the newest kept; a concurrent reader is answered.
    const documents = Array.from({ length: APQ_DOCUMENTS + 1 }, (_, index) => `query Q${index} { __typename }`);
    const filling = (async () => {
      for (let index = 0; index < documents.length; index += 50) {
        const batch = documents.slice(index, index + 50);
        const answers = await Promise.all(batch.map((query) => post(server, admin.token, { query, ...persisted(hashOf(query)) })));
        expect(answers.every((answer) => answer.status === 200)).toBe(true);
      }
    })();
    const concurrent = await post(server, admin.token, { query: VIEWER });
    expect(concurrent.status).toBe(200);
    await filling;
    expect((await post(server, admin.token, persisted(hashOf(documents[0])))).status).toBe(404);
    expect((await post(server, admin.token, persisted(hashOf(documents.at(-1)!)))).body).toEqual({ data: { __typename: "Query" } });
  });
});

describe("persisted operations only (production setting)", () => {
  let server: TestServer;
  let admin: BootstrapResult;
  beforeAll(async () => {
    server = await startTestServer({ persistedOperations: { store, only: true } });
    admin = await server.bootstrap();
  });
  afterAll(() => server.close());

  it("refuses a document sent as text with 400 CANNOT_SEND_PQ_ID_AND_BODY, and runs the persisted one", async () => {
    const text = await post(server, admin.token, { query: VIEWER });
    expect(text.status).toBe(400);
    expect(text.body.errors[0].extensions.code).toBe("CANNOT_SEND_PQ_ID_AND_BODY");
    expect(text.body.data).toBeUndefined();
    const byHash = await post(server, admin.token, persisted(hashOf(VIEWER)));
    expect(byHash.body).toEqual({ data: { viewer: { displayName: expect.any(String) } } });
  });

  it("leaves the REST routes alone (their documents are the service's own)", async () => {
    const response = await server.rest(admin.token, "GET", `/v1/orgs/${admin.organizationId}`);
    expect(response.status).toBe(200);
  });

  it("still answers a concurrent request while refusing text documents", async () => {
    const answers = await Promise.all([post(server, admin.token, { query: VIEWER }), post(server, admin.token, persisted(hashOf(VIEWER)))]);
    expect(answers.map((a) => a.status)).toEqual([400, 200]);
  });

  it("registers nothing by APQ: a text sent with its hash is refused, and its hash stays unknown", async () => {
    const text = `query Register { viewer { id } }`;
    const refused = await post(server, admin.token, { query: text, ...persisted(hashOf(text)) });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].extensions.code).toBe("CANNOT_SEND_PQ_ID_AND_BODY");
    const unknown = await post(server, admin.token, persisted(hashOf(text)));
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].extensions.code).toBe("PERSISTED_QUERY_NOT_IN_LIST");
  });
});

describe("the store, checked at start", () => {
  it("accepts documents under their own sha256, and refuses a wrong hash or an invalid document by hash", () => {
    expect([...checkedStore(store, schema).keys()]).toEqual([hashOf(VIEWER)]);
    expect(() => checkedStore({ [hashOf("x")]: VIEWER }, schema)).toThrow(/sha256/);
    const bad = `query { viewer { nope } }`;
    expect(() => checkedStore({ [hashOf(bad)]: bad }, schema)).toThrow(/nope/);
  });
});

describe("PERSISTED_OPERATIONS_FILE and PERSISTED_OPERATIONS_ONLY", () => {
  it("loads the store from the file, and refuses ONLY without a file or a file that is not an object", () => {
    const dir = mkdtempSync(join(tmpdir(), "persisted-"));
    const file = join(dir, "operations.json");
    writeFileSync(file, JSON.stringify(store));
    expect(loadConfig({ PERSISTED_OPERATIONS_FILE: file, PERSISTED_OPERATIONS_ONLY: "true" }).persistedOperations).toEqual({
      store,
      only: true,
    });
    expect(loadConfig({}).persistedOperations).toBeUndefined();
    expect(() => loadConfig({ PERSISTED_OPERATIONS_ONLY: "true" })).toThrow(ConfigError);
    writeFileSync(file, "[]");
    expect(() => loadConfig({ PERSISTED_OPERATIONS_FILE: file })).toThrow(/PERSISTED_OPERATIONS_FILE/);
  });
});
