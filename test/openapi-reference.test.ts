// API reference in content: a page embeds an operation of a spec with an `openapi-operation`
// fenced block; REST `format=document` and GraphQL `document` expose it as the published
// `openapi-operation` block, and a published page renders the operation (method, path,
// parameters, request body, responses with their schemas and examples), following `$ref`s into
// the spec's other file. A missing operation renders a notice, not an error.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { graphqlData } from "./support/expect.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

const ENTRY = `openapi: 3.0.3
info: { title: Pets, version: "1.0" }
paths:
  /pets/{petId}:
    parameters:
      - name: petId
        in: path
        required: true
        description: The pet's id
        schema: { type: string }
    put:
      summary: Replace a pet
      description: Replaces every field of the pet.
      parameters:
        - name: dryRun
          in: query
          schema: { type: boolean }
      requestBody:
        required: true
        content:
          application/json:
            schema: { $ref: "schemas/pet.yaml#/Pet" }
      responses:
        "200":
          description: The pet as stored
          content:
            application/json:
              schema: { $ref: "schemas/pet.yaml#/Pet" }
        "404":
          description: No such pet
`;
const PET = `Pet:
  type: object
  required: [name]
  properties:
    name: { type: string, example: Rex, description: What the pet answers to }
    tags:
      type: array
      items: { type: string, enum: [calm, loud] }
    parent: { $ref: "#/Pet" }
`;

const EMBED = "```openapi-operation\nspec: pets\nmethod: put\npath: /pets/{petId}\n```";
const MARKDOWN = `Intro text.\n\n${EMBED}\n\n\`\`\`openapi-operation\nspec: pets\nmethod: delete\npath: /pets/{petId}\n\`\`\`\n`;

let specServer: Server;
let server: TestServer;
let A: { organizationId: string; token: string; userId: string };
const gql = <T = any>(query: string, variables?: Record<string, unknown>) => graphqlData<T>(server, A.token, query, variables);

beforeAll(async () => {
  specServer = createServer((req, res) => {
    const body = req.url === "/api/openapi.yaml" ? ENTRY : req.url === "/api/schemas/pet.yaml" ? PET : null;
    if (body === null) res.writeHead(404).end();
    else res.writeHead(200, { "content-type": "application/yaml" }).end(body);
  });
  await new Promise<void>((resolve) => specServer.listen(0, "127.0.0.1", resolve));
  server = await startTestServer();
  A = await server.bootstrap("Reference");
  const url = `http://127.0.0.1:${(specServer.address() as AddressInfo).port}/api/openapi.yaml`;
  await server.client(A.token).orgs.createOpenApiSpec(A.organizationId, { slug: "pets", source: { url } });
  for (let i = 0; i < 400; i++) {
    const { body } = await server.rest(A.token, "GET", `/v1/orgs/${A.organizationId}/openapi/pets`);
    if (body.processingState === "complete" && body.lastVersion) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("the spec was not processed");
});

afterAll(async () => {
  specServer?.closeAllConnections();
  await new Promise((resolve) => specServer?.close(resolve));
  await server?.close();
});

async function pageWithEmbed() {
  const { data: space } = await server.client(A.token).orgs.createSpace(A.organizationId, { title: "API" });
  const { createPage } = await gql(`mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, {
    input: { space: space.id, title: "Pets API", markdown: MARKDOWN },
  });
  return { spaceId: space.id as string, pageId: createPage.page.id as string };
}

describe("an embedded operation", () => {
  it("is an openapi-operation block in REST format=document and in GraphQL", async () => {
    const { spaceId, pageId } = await pageWithEmbed();
    const { data } = await server.client(A.token).spaces.getPageById(spaceId, pageId, { format: "document" });
    const nodes = (data as any).document.nodes;
    expect(nodes.map((node: any) => node.type)).toEqual(["paragraph", "openapi-operation", "openapi-operation"]);
    expect(nodes[1]).toEqual({
      object: "block",
      type: "openapi-operation",
      isVoid: true,
      data: { ref: { kind: "openapi", spec: "pets" }, method: "put", path: "/pets/{petId}" },
    });

    const { node } = await gql(
      `query($id: ID!, $page: ID!) { node(id: $id) { ... on Space { content { page(id: $page) { document } } } } }`,
      { id: spaceId, page: pageId },
    );
    expect(node.content.page.document.nodes[1]).toEqual(nodes[1]);

    // An incomplete block stays a code block.
    const { createPage } = await gql(`mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, {
      input: { space: spaceId, title: "Not an embed", markdown: "```openapi-operation\nspec: pets\n```" },
    });
    const { data: other } = await server.client(A.token).spaces.getPageById(spaceId, createPage.page.id, { format: "document" });
    expect((other as any).document.nodes[0].type).toBe("code");
  });

  it("renders on a published page as an API reference; a missing operation renders a notice", async () => {
    const { spaceId } = await pageWithEmbed();
    const api = server.client(A.token);
    const { data: site } = await api.orgs.createSite(A.organizationId, {
      title: "API docs",
      spaces: [spaceId],
      visibility: "public" as never,
    });
    await api.orgs.publishSite(A.organizationId, site.id);
    const response = await fetch(`${server.url}/sites/${site.id}/`);
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain("<p>Intro text.</p>");
    expect(html).toContain('<span class="openapi-method openapi-method-put">PUT</span> <code class="openapi-path">/pets/{petId}</code>');
    expect(html).toContain("Replace a pet");
    expect(html).toContain("Replaces every field of the pet.");
    // Parameters: the path item's and the operation's.
    expect(html).toContain("<tr><td><code>petId</code></td><td>path</td><td>string</td><td>required</td><td>The pet&#39;s id</td></tr>");
    expect(html).toContain("<tr><td><code>dryRun</code></td><td>query</td><td>boolean</td><td>optional</td>");
    // Request body and responses, with the schema of the other file, its cycle and an example.
    expect(html).toContain("<h4>Request body (required)</h4>");
    expect(html).toContain(
      '<code class="openapi-property">name</code> <span class="openapi-type">string</span> <span class="openapi-required">required</span> <span class="openapi-description">What the pet answers to</span>',
    );
    expect(html).toContain('<code class="openapi-property">tags</code> <span class="openapi-type">array of string</span>');
    expect(html).toContain("Pet (circular)");
    expect(html).toContain("&quot;name&quot;: &quot;Rex&quot;");
    expect(html).toContain('<span class="openapi-status">200</span> The pet as stored');
    expect(html).toContain('<span class="openapi-status">404</span> No such pet');
    // The second block names an operation the spec does not have.
    expect(html).toContain("This API reference is not available: the specification has no operation DELETE /pets/{petId}.");
  });
});
