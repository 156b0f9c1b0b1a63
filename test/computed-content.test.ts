// Computed content (getComputedDocument, getComputedRevision): documents and pages computed from
// an OpenAPI specification of the organization, from a translation's target, and from an
// integration's content source run in the sandbox, through the official client and the
// published schemas; bad input names its field on both surfaces and stores nothing; another
// organization's spaces, specifications and translations are unknown.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../src/core/ids.ts";
import { SOURCE_MAX_BYTES } from "../src/core/computed/index.ts";
import { expectGraphQLError, expectRestError, graphqlData, publishedRest } from "./support/expect.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let A: { organizationId: string; token: string; userId: string };
let B: { organizationId: string; token: string; userId: string };
let space: string;
let otherSpace: string;
const gql = <T = any>(query: string, variables?: Record<string, unknown>) => graphqlData<T>(server, A.token, query, variables);

const SPEC = JSON.stringify({
  openapi: "3.0.3",
  info: { title: "Pets", version: "1.2.0", description: "The pet store." },
  tags: [
    { name: "pets", description: "Everything about pets." },
    { name: "store", description: "Orders." },
  ],
  paths: {
    "/pets": {
      get: { tags: ["pets"], summary: "List pets", responses: { "200": { description: "ok" } } },
      post: { tags: ["pets"], summary: "Add a pet", responses: { "201": { description: "ok" } } },
    },
    "/orders/{id}": { get: { tags: ["store"], responses: { "200": { description: "ok" } } } },
  },
  components: { schemas: { Pet: { type: "object", description: "A pet.", properties: { name: { type: "string" } } } } },
});

const openapi = (props: Record<string, unknown>, spec = "pets") => ({
  type: "builtin:openapi",
  props,
  dependencies: { spec: { ref: { kind: "openapi", spec } } },
});
const documentPath = (id = space) => `/v1/spaces/${id}/content/computed/document`;
const revisionPath = (id = space) => `/v1/spaces/${id}/content/computed/revision`;
const embed = (method: string, path: string) => ({
  object: "block",
  type: "openapi-operation",
  isVoid: true,
  data: { ref: { kind: "openapi", spec: "pets" }, method, path },
});
const paragraph = (text: string) => ({
  object: "block",
  type: "paragraph",
  data: {},
  nodes: [{ object: "text", leaves: [{ object: "leaf", text, marks: [] }] }],
});

async function createSpace(token: string, organizationId: string, title: string): Promise<string> {
  const { data } = await server.client(token).orgs.createSpace(organizationId, { title });
  return data.id;
}

async function createPage(target: string, title: string, markdown: string): Promise<string> {
  const { createPage } = await gql(`mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, {
    input: { space: target, title, markdown },
  });
  return createPage.page.id;
}

/** What computing could have changed: the space's head and the stored blobs. */
async function stored() {
  const prisma = server.database.prisma;
  const [head, blobs, revisions] = await Promise.all([
    prisma.space.findUniqueOrThrow({ where: { id: space } }),
    prisma.blob.count(),
    prisma.revision.count({ where: { spaceId: space } }),
  ]);
  return { head: head.revisionId, blobs, revisions };
}

beforeAll(async () => {
  server = await startTestServer();
  A = await server.bootstrap("Computed");
  B = await server.bootstrap("Elsewhere");
  space = await createSpace(A.token, A.organizationId, "API");
  otherSpace = await createSpace(B.token, B.organizationId, "Theirs");
  await server.client(A.token).orgs.createOrUpdateOpenApiSpecBySlug(A.organizationId, "pets", { source: { text: SPEC } });
  await server.client(B.token).orgs.createOrUpdateOpenApiSpecBySlug(B.organizationId, "theirs", { source: { text: SPEC } });
  for (let i = 0; i < 400; i++) {
    const { body } = await server.rest(A.token, "GET", `/v1/orgs/${A.organizationId}/openapi/pets`);
    if (body.processingState === "complete" && body.lastVersion) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("the spec was not processed");
});

afterAll(async () => {
  await server?.close();
});

describe("builtin:openapi", () => {
  it("computes an operation's document through the official client, as the published JSONDocument", async () => {
    const { data, status } = await server
      .client(A.token)
      .spaces.getComputedDocument(space, { source: openapi({ doc: "operation", page: "/pets", method: "post" }) as never, seed: "s1" });
    expect(status).toBe(200);
    expect(data).toEqual({ object: "document", data: {}, nodes: [embed("post", "/pets")] });
    await publishedRest(server, A.token, "POST", documentPath(), {
      source: openapi({ doc: "operation", page: "/pets", method: "post" }),
      seed: "s1",
    });
  });

  it("computes a tag's operations, its description, the spec's info and its models", async () => {
    const compute = async (props: Record<string, unknown>) =>
      (await publishedRest(server, A.token, "POST", documentPath(), { source: openapi(props), seed: "s" })).body;
    expect((await compute({ doc: "operations", page: "pets" })).nodes).toEqual([embed("get", "/pets"), embed("post", "/pets")]);
    expect((await compute({ doc: "tag", page: "store" })).nodes).toEqual([paragraph("Orders.")]);
    expect((await compute({ doc: "info", page: "intro" })).nodes).toEqual([
      paragraph("The pet store."),
      {
        object: "block",
        type: "paragraph",
        data: {},
        nodes: [
          {
            object: "text",
            leaves: [
              { object: "leaf", text: "Version: ", marks: [] },
              { object: "leaf", text: "1.2.0", marks: [{ object: "mark", type: "code" }] },
            ],
          },
        ],
      },
    ]);
    const models = await compute({ doc: "models" });
    expect(models.nodes[0]).toMatchObject({ type: "heading-2" });
    expect(models.nodes[1]).toEqual(paragraph("A pet."));
    expect(models.nodes[2]).toMatchObject({ type: "code" });
  });

  it("computes a revision by tag, with models and the download link; the seed decides the ids", async () => {
    const body = { source: openapi({ models: true, downloadLink: true }), seed: "seed-1" };
    const { data } = await server.client(A.token).spaces.getComputedRevision(space, body as never);
    await publishedRest(server, A.token, "POST", revisionPath(), body);
    expect(data.pages.map((page: any) => [page.type, page.title, (page as any).path ?? null])).toEqual([
      ["document", "pets", "pets"],
      ["document", "store", "store"],
      ["document", "Models", "models"],
      ["link", "Download the OpenAPI specification", null],
    ]);
    const pets = data.pages[0] as any;
    expect(pets.markdown).toBe(
      "Everything about pets.\n\n```openapi-operation\nspec: pets\nmethod: get\npath: /pets\n```\n\n```openapi-operation\nspec: pets\nmethod: post\npath: /pets\n```",
    );
    expect(data.files).toEqual([]);
    expect(data.reusableContents).toEqual([]);
    const again = (await server.client(A.token).spaces.getComputedRevision(space, body as never)).data;
    expect(again.pages.map((page) => page.id)).toEqual(data.pages.map((page) => page.id));
    const otherSeed = (await server.client(A.token).spaces.getComputedRevision(space, { ...body, seed: "seed-2" } as never)).data;
    expect(otherSeed.pages[0]!.id).not.toBe(pets.id);
  });

  it("computes a revision by operation: a page per tag holding a page per operation", async () => {
    const { body } = await publishedRest(server, A.token, "POST", revisionPath(), {
      source: openapi({ models: false, grouping: "by-operation" }),
      seed: "x",
    });
    expect(body.pages.map((page: any) => [page.title, page.pages.map((child: any) => [child.title, child.path])])).toEqual([
      [
        "pets",
        [
          ["List pets", "pets/list-pets"],
          ["Add a pet", "pets/add-a-pet"],
        ],
      ],
      ["store", [["GET /orders/{id}", "store/get-orders-id"]]],
    ]);
  });

  it("refuses bad props and sources naming the field, on both surfaces, and stores nothing", async () => {
    const before = await stored();
    const cases: [unknown, string, number][] = [
      [{ source: openapi({ doc: "operation", page: "/nope", method: "get" }), seed: "s" }, "source.props.page", 400],
      [{ source: openapi({ doc: "operation", page: "/pets", method: "hook" }), seed: "s" }, "source.props.method", 400],
      [{ source: openapi({ doc: "pages" }), seed: "s" }, "source.props.doc", 400],
      [{ source: openapi({ doc: "tag", page: "birds" }), seed: "s" }, "source.props.page", 400],
      [{ source: { type: "builtin:magic", props: {} }, seed: "s" }, "source.type", 400],
      [{ source: { type: "builtin:openapi", props: { doc: "models" } }, seed: "s" }, "source.dependencies.spec", 400],
      [{ source: openapi({ doc: "models" }) }, "seed", 400],
      [{ source: openapi({ doc: "models" }), seed: "" }, "seed", 400],
      [{ seed: "s" }, "source", 400],
      [{ source: openapi({ doc: "models" }, "unknown"), seed: "s" }, "unknown", 404],
    ];
    for (const [body, field, status] of cases) {
      const response = await server.rest(A.token, "POST", documentPath(), body);
      expect(response.status, JSON.stringify(body)).toBe(status);
      expect(response.body.error.message, JSON.stringify(body)).toContain(field);
    }
    await expectRestError(
      server.client(A.token).spaces.getComputedRevision(space, { source: openapi({ grouping: "by-tag" }) as never, seed: "s" }),
      400,
      "source.props.models",
    );
    const query = `query($space: ID!, $source: JSON!, $seed: String!) { computedDocument(space: $space, source: $source, seed: $seed) }`;
    expectGraphQLError(
      await server.graphql(A.token, query, { space, source: { type: "integration:nope", props: {} }, seed: "s" }),
      "BAD_REQUEST",
      "source.type",
    );
    expectGraphQLError(
      await server.graphql(A.token, query, { space, source: openapi({ doc: "pages" }), seed: "s" }),
      "BAD_REQUEST",
      "source.props.doc",
    );
    expect(await stored()).toEqual(before);
  });

  it("bounds the source's size", async () => {
    const big = openapi({ doc: "models", filler: "x".repeat(SOURCE_MAX_BYTES) });
    await expectRestError(server.client(A.token).spaces.getComputedDocument(space, { source: big as never, seed: "s" }), 413, "source");
  });

  it("answers another organization's space and specification as unknown ones", async () => {
    await expectRestError(
      server.client(A.token).spaces.getComputedDocument(otherSpace, { source: openapi({ doc: "models" }, "theirs") as never, seed: "s" }),
      404,
    );
    await expectRestError(
      server.client(A.token).spaces.getComputedDocument(space, { source: openapi({ doc: "models" }, "theirs") as never, seed: "s" }),
      404,
      "theirs",
    );
  });
});

describe("builtin:translation", () => {
  it("computes the target's pages and the translated document of a source document", async () => {
    const source = await createSpace(A.token, A.organizationId, "Guide");
    const intro = await createPage(source, "Intro", "Hello");
    const french = await createSpace(A.token, A.organizationId, "Guide (fr)");
    const { createTranslation } = await gql(
      `mutation($input: CreateTranslationInput!) { createTranslation(input: $input) { translation { id } } }`,
      { input: { organization: A.organizationId, title: "Guide", languages: ["fr"], source } },
    );
    const translation = createTranslation.translation.id;
    await gql(`mutation($input: SetTranslationTargetInput!) { setTranslationTarget(input: $input) { target { language } } }`, {
      input: { translation, language: "fr", space: french },
    });
    await gql(`mutation($input: RunTranslationInput!) { runTranslation(input: $input) { runs { added } } }`, { input: { translation } });
    await gql(`mutation($input: UpdatePageInput!) { updatePage(input: $input) { page { id } } }`, {
      input: { space: french, page: intro, markdown: "Bonjour" },
    });
    const dependency = { translation: { ref: { kind: "translation", translation } } };

    const { body } = await publishedRest(server, A.token, "POST", revisionPath(), {
      source: { type: "builtin:translation", props: {}, dependencies: dependency },
      seed: "t",
    });
    expect(body.pages.map((page: any) => [page.id, page.title, page.markdown])).toEqual([[intro, "Intro", "Bonjour"]]);

    const sourceDocument = (await server.rest(A.token, "GET", `/v1/spaces/${source}/content/page/${intro}`)).body.documentId;
    const { body: document } = await publishedRest(server, A.token, "POST", documentPath(), {
      source: { type: "builtin:translation", props: { space: source, document: sourceDocument }, dependencies: dependency },
      seed: "t",
    });
    expect(document).toEqual({ object: "document", data: {}, nodes: [paragraph("Bonjour")] });

    const wrongLanguage = await server.rest(A.token, "POST", revisionPath(), {
      source: {
        type: "builtin:translation",
        props: {},
        dependencies: { translation: { ref: dependency.translation.ref, value: { space: french, revision: "x", language: "de" } } },
      },
      seed: "t",
    });
    expect(wrongLanguage.status).toBe(400);
    expect(wrongLanguage.body.error.message).toContain("source.dependencies.translation.value.language");
  });

  it("answers another organization's translation as unknown", async () => {
    const { createTranslation } = await graphqlData(
      server,
      B.token,
      `mutation($input: CreateTranslationInput!) { createTranslation(input: $input) { translation { id } } }`,
      { input: { organization: B.organizationId, title: "Theirs", languages: ["de"] } },
    );
    const response = await server.rest(A.token, "POST", revisionPath(), {
      source: {
        type: "builtin:translation",
        props: {},
        dependencies: { translation: { ref: { kind: "translation", translation: createTranslation.translation.id } } },
      },
      seed: "t",
    });
    expect(response.status).toBe(404);
  });
});

describe("integration content sources", () => {
  const NAME = `computed-${newId("Page")
    .slice(3, 11)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "")}`;
  /** A raw ES module speaking the runtime's protocol: it computes from its props and says what it was given. */
  const SCRIPT = `export default { async fetch(request) {
    const event = JSON.parse((await request.formData()).get("event"));
    const json = (value) => new Response(JSON.stringify(value), { headers: { "content-type": "application/json" } });
    if (event.type === "content_compute_document") {
      if (event.props.broken) return json({ document: { nodes: "no" } });
      const text = event.sourceId + ":" + event.props.word + ":" + (event.dependencies.api ? event.dependencies.api.value.object : "none");
      return json({ document: { object: "document", data: {}, nodes: [{ object: "block", type: "paragraph", data: {}, nodes: [{ object: "text", leaves: [{ object: "leaf", text, marks: [] }] }] }] } });
    }
    if (event.type === "content_compute_revision") {
      return json({
        pages: [{ type: "document", title: "Generated", document: { markdown: "# " + event.props.word }, pages: [{ type: "link", title: "Home", target: { kind: "url", url: "https://example.com" } }] }],
        files: [{ name: "a.png", contentType: "image/png", downloadURL: "https://example.com/a.png", size: 3 }],
      });
    }
    return new Response("OK");
  } };`;

  beforeAll(async () => {
    const published = await server.rest(A.token, "POST", `/v1/integrations/${NAME}`, {
      organization: A.organizationId,
      title: "Computed",
      script: SCRIPT,
      visibility: "private",
      contentSources: [{ id: "words", title: "Words" }],
    });
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    const installed = await server.rest(A.token, "POST", `/v1/integrations/${NAME}/installations`, { organization: A.organizationId });
    expect(installed.status, JSON.stringify(installed.body)).toBe(201);
    await server.client(A.token).integrations.updateIntegrationInstallation(NAME, installed.body.id, { space_selection: "all" } as never);
  });

  it("computes a document and a revision through the integration's script, its dependencies resolved here", async () => {
    const { body: document } = await publishedRest(server, A.token, "POST", documentPath(), {
      source: {
        type: `integration:${NAME}:words`,
        props: { word: "hi" },
        dependencies: { api: { ref: { kind: "openapi", spec: "pets" } } },
      },
      seed: "i",
    });
    expect(document).toEqual({ object: "document", data: {}, nodes: [paragraph("words:hi:openapi-spec")] });

    const { body } = await publishedRest(server, A.token, "POST", revisionPath(), {
      source: { type: `integration:${NAME}:words`, props: { word: "hey" } },
      seed: "i",
    });
    expect(body.pages).toHaveLength(1);
    expect(body.pages[0]).toMatchObject({ type: "document", title: "Generated", path: "generated", markdown: "# hey" });
    expect(body.pages[0].pages).toEqual([
      {
        id: expect.stringMatching(/^pg_/),
        title: "Home",
        kind: "link",
        type: "link",
        target: { kind: "url", url: "https://example.com" },
        href: "https://example.com",
      },
    ]);
    expect(body.files).toEqual([
      { id: expect.stringMatching(/^file_/), name: "a.png", contentType: "image/png", size: 3, downloadURL: "https://example.com/a.png" },
    ]);
  });

  it("refuses a source the integration does not declare or that is not installed, and a script's invalid answer", async () => {
    const unknownSource = await server.rest(A.token, "POST", documentPath(), {
      source: { type: `integration:${NAME}:nope`, props: {} },
      seed: "i",
    });
    expect(unknownSource.status).toBe(400);
    expect(unknownSource.body.error.message).toContain("source.type");
    const notInstalled = await server.rest(A.token, "POST", documentPath(), {
      source: { type: "integration:absent:words", props: {} },
      seed: "i",
    });
    expect(notInstalled.status).toBe(400);
    expect(notInstalled.body.error.message).toContain("source.type");
    const broken = await server.rest(A.token, "POST", documentPath(), {
      source: { type: `integration:${NAME}:words`, props: { broken: true } },
      seed: "i",
    });
    expect(broken.status).toBe(502);
    expect(broken.body.error.message).toContain("JSONDocument");
  });
});
