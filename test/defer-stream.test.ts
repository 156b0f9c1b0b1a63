// @defer and @stream on /graphql (issue 35, Yoga's defer-stream plugin): the slow parts of a read
// arrive after the rest, as incremental results (multipart/mixed), with the same data in the end.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BootstrapResult } from "../src/core/bootstrap/index.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

describe("@defer and @stream", () => {
  let server: TestServer;
  let admin: BootstrapResult;
  let spaceId: string;
  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.bootstrap();
    const created = await server.graphql(
      admin.token,
      `mutation($input: CreateSpaceInput!) { createSpace(input: $input) { space { id } } }`,
      { input: { organization: admin.organizationId, title: "Deferred" } },
    );
    spaceId = created.data.createSpace.space.id;
    for (const title of ["One", "Two"]) {
      await server.graphql(admin.token, `mutation($input: CreateSpaceInput!) { createSpace(input: $input) { space { id } } }`, {
        input: { organization: admin.organizationId, title },
      });
    }
  });
  afterAll(() => server.close());

  /** The parts of a multipart/mixed answer, as JSON. */
  async function parts(query: string, variables: Record<string, unknown>) {
    const response = await server.app.yoga.fetch(`${server.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "multipart/mixed", authorization: `Bearer ${admin.token}` },
      body: JSON.stringify({ query, variables }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^multipart\/mixed/);
    const text = await response.text();
    return [...text.matchAll(/\r\n\r\n(\{.*\})\r\n/g)].map((match) => JSON.parse(match[1]));
  }

  it("sends a deferred fragment after the rest of the answer", async () => {
    const answer = await parts(`query($id: ID!) { space(id: $id) { id ... @defer(label: "slow") { title changeRequestCount } } }`, {
      id: spaceId,
    });
    expect(answer[0]).toEqual({ data: { space: { id: spaceId } }, hasNext: true });
    expect(answer.at(-1)).toMatchObject({ hasNext: false });
    const incremental = answer.flatMap((part) => part.incremental ?? []);
    expect(incremental).toEqual([{ data: { title: "Deferred", changeRequestCount: 0 }, path: ["space"], label: "slow" }]);
  });

  it("streams a list's items after its first ones", async () => {
    const answer = await parts(
      `query($id: ID!) { organization(id: $id) { spaces(first: 3) { nodes @stream(initialCount: 1) { title } } } }`,
      { id: admin.organizationId },
    );
    const first = answer[0].data.organization.spaces.nodes;
    expect(first).toHaveLength(1);
    const streamed = answer.flatMap((part) => part.incremental ?? []).flatMap((part) => part.items);
    expect([...first, ...streamed].map((node: { title: string }) => node.title).sort()).toEqual(["Deferred", "One", "Two"]);
  });

  it("answers without @defer as before (one JSON result)", async () => {
    const plain = await server.graphql(admin.token, `query($id: ID!) { space(id: $id) { id title } }`, { id: spaceId });
    expect(plain).toEqual({ status: 200, data: { space: { id: spaceId, title: "Deferred" } } });
  });
});
