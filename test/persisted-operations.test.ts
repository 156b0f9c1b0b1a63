// Persisted operations on /graphql (src/graphql/plugins/use-persisted-operations.ts, issue 35):
// a store registered at build time (hash → document), the hash sent instead of the text, and a
// setting under which only persisted operations run; the store is checked at start.
import { createHash } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, loadConfig } from "../src/config.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../src/core/bootstrap/index.ts";
import { checkedStore } from "../src/graphql/plugins/use-persisted-operations.ts";
import { schema } from "../src/graphql/schema.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

const VIEWER = `query Viewer { viewer { displayName } }`;
const hashOf = (text: string) => createHash("sha256").update(text).digest("hex");
const store = { [hashOf(VIEWER)]: VIEWER };

async function post(server: TestServer, token: string, body: unknown) {
  const response = await server.app.yoga.fetch(`${server.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
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

  it("refuses an unknown hash with 400 PERSISTED_QUERY_NOT_IN_LIST", async () => {
    const unknown = await post(server, admin.token, persisted(hashOf("query { viewer { id } }")));
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].extensions.code).toBe("PERSISTED_QUERY_NOT_IN_LIST");
    expect(unknown.body.data).toBeUndefined();
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
