// /graphql documents sent again run compiled (src/graphql/plugins/use-compiled-execution.ts,
// issue 35): the same answers and statements as graphql-js, a bounded cache keyed by the
// document's text and operation, and graphql-js kept for what graphql-jit does not do.
import { createSchema, createYoga } from "graphql-yoga";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../src/core/bootstrap/index.ts";
import { useCompiledExecution } from "../src/graphql/plugins/use-compiled-execution.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

describe("compiled execution on /graphql (the service)", () => {
  let server: TestServer;
  let admin: BootstrapResult;
  let spaceId: string;

  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.bootstrap();
    const created = await server.graphql(
      admin.token,
      `mutation($input: CreateSpaceInput!) { createSpace(input: $input) { space { id } } }`,
      { input: { organization: admin.organizationId, title: "Compiled" } },
    );
    spaceId = created.data.createSpace.space.id;
  });
  afterAll(() => server.close());

  const SPACE = `query Space($id: ID!) { space(id: $id) { id title organization { id title } permissions { edit } } }`;

  it("answers a repeated document the same once it is compiled, with the same statements", async () => {
    const before = server.app.compiledDocuments().compiled;
    const runs = [];
    for (let i = 0; i < 3; i++) {
      const statements = server.database.statementCount;
      const answer = await server.graphql(admin.token, SPACE, { id: spaceId });
      runs.push({ answer, statements: server.database.statementCount - statements });
    }
    expect(runs[0].answer).toEqual({
      status: 200,
      data: {
        space: {
          id: spaceId,
          title: "Compiled",
          organization: { id: admin.organizationId, title: expect.any(String) },
          permissions: { edit: true },
        },
      },
    });
    expect(runs[1].answer).toEqual(runs[0].answer);
    expect(runs[2].answer).toEqual(runs[0].answer);
    expect(runs[2].statements).toBe(runs[1].statements);
    expect(server.app.compiledDocuments().compiled).toBe(before + 1);
  });

  it("answers a compiled document's errors as graphql-js does: a missing space, a variable that does not coerce", async () => {
    const answers = [];
    for (let i = 0; i < 3; i++) {
      const missing = await server.graphql(admin.token, SPACE, { id: "space_doesnotexist" });
      expect(missing.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
      const bad = await server.graphql(admin.token, SPACE, { id: { not: "an id" } });
      expect(bad.data).toBeUndefined();
      expect(bad.errors?.[0]?.message).toMatch(/\$id/);
      answers.push({ missing, bad });
    }
    // The first run is graphql-js's, the third the compiled function's.
    expect(answers[2]).toEqual(answers[0]);
  });

  it("answers a bad field of an input variable as graphql-js does once the mutation is compiled (400, the right variable)", async () => {
    const UPDATE = `mutation($input: UpdateSpaceInput!) { updateSpace(input: $input) { space { id editMode } } }`;
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await server.graphql(admin.token, UPDATE, { input: { id: spaceId, editMode: "FROZEN" } }));
    expect(answers[0]).toEqual({
      status: 400,
      errors: [
        {
          message:
            'Variable "$input" got invalid value "FROZEN" at "input.editMode"; Value "FROZEN" does not exist in "SpaceEditMode" enum.',
          locations: [{ line: 1, column: 10 }],
          extensions: { code: "BAD_REQUEST" },
        },
      ],
    });
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
  });

  it("still refuses an anonymous request and a document over the cost limit once compiled", async () => {
    for (let i = 0; i < 3; i++) {
      const anonymous = await server.graphql(undefined, SPACE, { id: spaceId });
      expect(anonymous.data?.space ?? null).toBeNull();
      expect(anonymous.errors?.length).toBeGreaterThan(0);
    }
  });
});

describe("compiled execution (the cache)", () => {
  const schema = createSchema({
    typeDefs: /* GraphQL */ `
      directive @defer(if: Boolean, label: String) on FRAGMENT_SPREAD | INLINE_FRAGMENT
      type Query { echo(text: String!): String! calls: Int! }
    `,
    resolvers: { Query: { echo: (_: unknown, { text }: { text: string }) => text, calls: () => 1 } },
  });
  const post = async (yoga: ReturnType<typeof createYoga>, body: unknown) => {
    const response = await yoga.fetch("http://localhost/graphql", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return response.json();
  };

  it("holds at most maxDocuments documents, however many distinct ones a client sends", async () => {
    const compiled = useCompiledExecution({ maxDocuments: 3 });
    const yoga = createYoga({ schema, plugins: [compiled] });
    for (let i = 0; i < 20; i++) {
      const query = `query Q${i} { echo(text: "${i}") }`;
      expect(await post(yoga, { query })).toEqual({ data: { echo: String(i) } });
      expect(await post(yoga, { query })).toEqual({ data: { echo: String(i) } });
      expect(compiled.stats().documents).toBeLessThanOrEqual(3);
    }
    expect(compiled.stats()).toEqual({ documents: 3, compiled: 3 });
  });

  it("compiles a document on its second execution, one per operation of a document", async () => {
    const compiled = useCompiledExecution();
    const yoga = createYoga({ schema, plugins: [compiled] });
    const query = `query A { echo(text: "a") } query B { echo(text: "b") }`;
    expect(await post(yoga, { query, operationName: "A" })).toEqual({ data: { echo: "a" } });
    expect(compiled.stats()).toEqual({ documents: 1, compiled: 0 });
    for (let i = 0; i < 2; i++) {
      expect(await post(yoga, { query, operationName: "A" })).toEqual({ data: { echo: "a" } });
      expect(await post(yoga, { query, operationName: "B" })).toEqual({ data: { echo: "b" } });
    }
    expect(compiled.stats()).toEqual({ documents: 2, compiled: 2 });
  });

  it("leaves documents with @defer or @stream to graphql-js", async () => {
    const compiled = useCompiledExecution();
    const yoga = createYoga({ schema, plugins: [compiled] });
    const query = `query { calls ... @defer(if: false) { echo(text: "d") } }`;
    for (let i = 0; i < 3; i++) expect(await post(yoga, { query })).toEqual({ data: { calls: 1, echo: "d" } });
    expect(compiled.stats().compiled).toBe(0);
  });
});
