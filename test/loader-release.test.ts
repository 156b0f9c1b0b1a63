// The per-request loaders are released when an operation's result is complete
// (src/graphql/plugins/use-loader-release.ts, issue 15): not before (one operation's fields share
// its loaders, a streamed result's loaders live until the stream ends), and without changing any
// answer or the statements it takes, on /graphql and on the REST routes (which run through Yoga's
// getEnveloped).
import { createYoga, type Plugin } from "graphql-yoga";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../src/core/bootstrap/index.ts";
import { useLoaderRelease } from "../src/graphql/plugins/use-loader-release.ts";
import { schema } from "../src/graphql/schema.ts";
import { SpaceRef } from "../src/graphql/spaces.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

const CONTEXT_CACHE = Symbol.for("Pothos.contextCache");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("loader release", () => {
  let server: TestServer;
  let admin: BootstrapResult;
  let spaceId: string;

  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.bootstrap();
    const collection = await server.graphql(
      admin.token,
      `mutation($input: CreateCollectionInput!) { createCollection(input: $input) { collection { id } } }`,
      { input: { organization: admin.organizationId, title: "Parent" } },
    );
    const created = await server.graphql(
      admin.token,
      `mutation($input: CreateSpaceInput!) { createSpace(input: $input) { space { id } } }`,
      {
        input: { organization: admin.organizationId, title: "Released", parent: collection.data.createCollection.collection.id },
      },
    );
    expect(created.errors).toBeUndefined();
    spaceId = created.data.createSpace.space.id;
  });
  afterAll(() => server.close());

  async function counted<T>(work: () => Promise<T>): Promise<{ statements: number; value: T }> {
    const before = server.database.statementCount;
    const value = await work();
    return { statements: server.database.statementCount - before, value };
  }

  const SPACE_FIELDS = "title organization { id title } parent { id title } permissions { edit }";

  it("keeps one operation's loaders for all of its fields: two reads of a space cost what one does", async () => {
    const one = await counted(() =>
      server.graphql(admin.token, `query($id: ID!) { a: space(id: $id) { ${SPACE_FIELDS} } }`, { id: spaceId }),
    );
    const two = await counted(() =>
      server.graphql(admin.token, `query($id: ID!) { a: space(id: $id) { ${SPACE_FIELDS} } b: space(id: $id) { ${SPACE_FIELDS} } }`, {
        id: spaceId,
      }),
    );
    expect(one.value.errors).toBeUndefined();
    expect(two.value.data.b).toEqual(one.value.data.a);
    expect(two.value.data.a).toEqual(one.value.data.a);
    expect(two.statements).toBe(one.statements);
    // A request after a released one starts afresh and gets the same answer for the same statements.
    const again = await counted(() =>
      server.graphql(admin.token, `query($id: ID!) { a: space(id: $id) { ${SPACE_FIELDS} } }`, { id: spaceId }),
    );
    expect(again.value).toEqual(one.value);
    expect(again.statements).toBe(one.statements);
  });

  it("answers REST reads the same, with the same statements, request after request", async () => {
    const first = await counted(() => server.rest(admin.token, "GET", `/v1/spaces/${spaceId}`));
    const second = await counted(() => server.rest(admin.token, "GET", `/v1/spaces/${spaceId}`));
    expect(first.value.status).toBe(200);
    expect(second.value.body).toEqual(first.value.body);
    expect(second.statements).toBe(first.statements);
  });

  it("releases a context's loaders once its execution is over (the REST adapter's path through getEnveloped)", async () => {
    const request = new Request(`${server.url}/graphql`, { headers: { authorization: `Bearer ${admin.token}` } });
    const document = `query($id: ID!) { space(id: $id) { title organization { id } } }`;
    const { contextFactory, execute, parse } = server.app.yoga.getEnveloped({ request, params: { query: document } });
    const contextValue = (await contextFactory()) as Record<PropertyKey, unknown>;
    const running = execute({ schema, document: parse(document), variableValues: { id: spaceId }, contextValue });
    // While it runs, the context's Pothos caches have their own key, and a loader is the operation's.
    expect(contextValue[CONTEXT_CACHE]).toBeTypeOf("object");
    const during = SpaceRef.getDataloader(contextValue as never);
    expect(SpaceRef.getDataloader(contextValue as never)).toBe(during);
    const result = (await running) as { data?: { space: { title: string } }; errors?: unknown };
    expect(result.errors).toBeUndefined();
    expect(result.data?.space.title).toBe("Released");
    expect(contextValue[CONTEXT_CACHE]).toBeUndefined();
    // Used again after its end (nothing does today), the context gets a fresh loader that loads afresh.
    const after = SpaceRef.getDataloader(contextValue as never);
    expect(after).not.toBe(during);
    const reloaded = await counted(() => after.load(spaceId));
    expect(reloaded.statements).toBeGreaterThan(0);
  });
});

describe("loader release of a streamed result", () => {
  it("keeps the loaders until the stream ends, then releases them", async () => {
    const seen: unknown[] = [];
    let context: Record<PropertyKey, unknown> | undefined;
    // An execution whose result is a stream (as @defer/@stream or a subscription would give),
    // reading a loadable type's loader before, between and after its parts.
    const streaming: Plugin = {
      onExecute({ setExecuteFn }) {
        setExecuteFn(async function* (args: { contextValue: Record<PropertyKey, unknown> }) {
          context = args.contextValue;
          seen.push(SpaceRef.getDataloader(context as never));
          yield { data: { part: 1 } };
          await sleep(20);
          seen.push(SpaceRef.getDataloader(context as never));
          yield { data: { part: 2 } };
          await sleep(20);
          seen.push(SpaceRef.getDataloader(context as never));
        } as never);
      },
    };
    const yoga = createYoga({ schema, plugins: [streaming, useLoaderRelease(schema)], logging: false });
    const response = await yoga.fetch("http://localhost/graphql", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ query: "{ apiInformation { version } }" }),
    });
    const text = await response.text();
    expect(text).toContain('"part":1');
    expect(text).toContain('"part":2');
    expect(seen).toHaveLength(3);
    expect(seen[1]).toBe(seen[0]);
    expect(seen[2]).toBe(seen[0]);
    expect(context?.[CONTEXT_CACHE]).toBeUndefined();
    expect(SpaceRef.getDataloader(context as never)).not.toBe(seen[0]);
  });
});
