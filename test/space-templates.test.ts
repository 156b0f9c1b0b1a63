// Space templates (applyTemplateToSpace): a template fills an empty space, or an empty change
// request of it, with its pages as one revision, through the official client and GraphQL; content
// that has pages, an unknown template and bad parameters are refused naming the field, with
// nothing written; another organization's space is unknown, and a reader may not apply one.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectGraphQLError, expectRestError, graphqlData, publishedRest } from "./support/expect.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let A: { organizationId: string; token: string; userId: string };
let B: { organizationId: string; token: string; userId: string };
let reader: { token: string };

beforeAll(async () => {
  server = await startTestServer();
  A = await server.bootstrap("Templates");
  B = await server.bootstrap("Other templates");
  reader = await server.addMember(A.organizationId, "read");
});

afterAll(async () => {
  await server?.close();
});

async function newSpace(title: string, organization = A): Promise<string> {
  return (await server.client(organization.token).orgs.createSpace(organization.organizationId, { title })).data.id;
}

/** The page tree of a space's content (or a change request's) as "title" and "  child title" lines. */
async function outline(spaceId: string, changeRequestId?: string): Promise<string[]> {
  const path = changeRequestId
    ? `/v1/spaces/${spaceId}/change-requests/${changeRequestId}/content/pages`
    : `/v1/spaces/${spaceId}/content/pages`;
  const response = await publishedRest(server, A.token, "GET", path);
  expect(response.status).toBe(200);
  const lines = (pages: { title: string; pages?: unknown[] }[], indent: string): string[] =>
    pages.flatMap((page) => [`${indent}${page.title}`, ...lines((page.pages ?? []) as never, `${indent}  `)]);
  return lines(response.body.pages, "");
}

const headOf = async (spaceId: string) => (await server.database.prisma.space.findUniqueOrThrow({ where: { id: spaceId } })).revisionId;

describe("space templates", () => {
  it("fills a new space with the template's pages, as one revision", async () => {
    const space = await newSpace("Product");
    const before = await headOf(space);
    const response = await server.client(A.token).spaces.applyTemplateToSpace(space, { id: "product-docs" });
    expect(response.status).toBe(201);
    expect(await outline(space)).toEqual(["Overview", "Quickstart", "Guides", "  Your first project", "FAQ"]);
    const revisions = await server.database.prisma.revision.count({ where: { spaceId: space, NOT: { id: before } } });
    expect(revisions).toBe(1);
    const markdown = await server.rest(A.token, "GET", `/v1/spaces/${space}/content/path/quickstart?format=markdown`);
    expect(JSON.stringify(markdown.body)).toContain("1. Install.");
  });

  it("fills an empty change request and leaves the space's own content as it was", async () => {
    const space = await newSpace("Through a change request");
    const api = server.client(A.token);
    const { data: changeRequest } = await api.spaces.createChangeRequest(space, { subject: "Start the reference" });
    const response = await api.spaces.applyTemplateToSpace(space, { id: "api-reference", changeRequestId: changeRequest.id });
    expect(response.status).toBe(201);
    expect(await outline(space, changeRequest.id)).toEqual(["Introduction", "Authentication", "Errors", "Rate limits"]);
    expect(await outline(space)).toEqual([]);
  });

  it("answers the same through GraphQL, with the revision it wrote", async () => {
    const space = await newSpace("Through GraphQL");
    const data = await graphqlData(
      server,
      A.token,
      `mutation($input: ApplySpaceTemplateInput!) { applySpaceTemplate(input: $input) { revision { id } } }`,
      { input: { space, id: "changelog" } },
    );
    expect(data.applySpaceTemplate.revision.id).toBe(await headOf(space));
    expect(await outline(space)).toEqual(["Changelog"]);
  });

  it("refuses content that has pages, an unknown template and bad parameters, naming the field, with nothing written", async () => {
    const api = server.client(A.token);
    const filled = await newSpace("Filled");
    await api.spaces.applyTemplateToSpace(filled, { id: "knowledge-base" });
    const empty = await newSpace("Still empty");
    const heads = [await headOf(filled), await headOf(empty)];

    await expectRestError(api.spaces.applyTemplateToSpace(filled, { id: "changelog" }), 400, "already has pages");
    await expectRestError(api.spaces.applyTemplateToSpace(empty, { id: "no-such-template" }), 400, "id: no template");
    await expectRestError(api.spaces.applyTemplateToSpace(empty, { id: "__proto__" }), 400, "id: no template");
    await expectRestError(
      api.spaces.applyTemplateToSpace(empty, {
        id: "changelog",
        params: { contentRefs: { spec: { kind: "openapi", spec: "x" } } },
      } as never),
      400,
      "params.contentRefs.spec",
    );
    await expectRestError(api.spaces.applyTemplateToSpace(empty, { id: 42 } as never), 400, "id");
    await expectRestError(api.spaces.applyTemplateToSpace(empty, { id: "changelog", params: "x" } as never), 400, "params");
    const graphql = await server.graphql(
      A.token,
      `mutation($input: ApplySpaceTemplateInput!) { applySpaceTemplate(input: $input) { revision { id } } }`,
      { input: { space: empty, id: "nope" } },
    );
    expectGraphQLError(graphql, "BAD_REQUEST", "id: no template");

    expect([await headOf(filled), await headOf(empty)]).toEqual(heads);
    expect(await outline(empty)).toEqual([]);
    expect(await outline(filled)).toEqual(["Welcome", "How-to articles", "Troubleshooting"]);
  });

  it("applies once when two callers apply at the same moment", async () => {
    const space = await newSpace("Raced");
    const api = server.client(A.token);
    const outcomes = await Promise.allSettled([
      api.spaces.applyTemplateToSpace(space, { id: "changelog" }),
      api.spaces.applyTemplateToSpace(space, { id: "changelog" }),
    ]);
    expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(1);
    expect(await outline(space)).toEqual(["Changelog"]);
  });

  it("answers another organization's space as unknown and refuses a reader, with nothing written", async () => {
    const space = await newSpace("Guarded");
    const head = await headOf(space);
    await expectRestError(server.client(B.token).spaces.applyTemplateToSpace(space, { id: "changelog" }), 404);
    await expectRestError(server.client(reader.token).spaces.applyTemplateToSpace(space, { id: "changelog" }), 403);
    expect(await headOf(space)).toBe(head);
  });
});
