// A change request's agent conversations: no agent runs here, so the list is empty (paged as
// published) and every conversation id is unknown (404); the access checks are the real ones
// (another organization's change request is unknown, a reader lists but may not rename or
// delete, a bad title is refused naming the field). Through the official client (answers checked
// against the published schemas) and GraphQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectGraphQLError, expectRawRestError, expectRestError, graphqlData, publishedRest } from "./support/expect.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let A: { organizationId: string; token: string; userId: string };
let B: { organizationId: string; token: string; userId: string };
let reader: { token: string };
let editor: { token: string };
let space: string;
let changeRequest: { id: string; number: number };

beforeAll(async () => {
  server = await startTestServer();
  A = await server.bootstrap("Conversations A");
  B = await server.bootstrap("Conversations B");
  reader = await server.addMember(A.organizationId, "read");
  editor = await server.addMember(A.organizationId, "edit");
  const created = await graphqlData(
    server,
    A.token,
    `mutation($input: CreateSpaceInput!) { createSpace(input: $input) { space { id } } }`,
    {
      input: { organization: A.organizationId, title: "Conversations" },
    },
  );
  space = created.createSpace.space.id;
  changeRequest = (await server.client(A.token).spaces.createChangeRequest(space, { subject: "Agent edits" })).data;
});

afterAll(async () => {
  await server?.close();
});

const CR = () => `/v1/spaces/${space}/change-requests/${changeRequest.id}`;

describe("listChangeRequestConversations", () => {
  it("answers an empty list to a reader, by id and by number", async () => {
    const { data } = await server.client(reader.token).spaces.listChangeRequestConversations(space, changeRequest.id);
    expect(data).toEqual({ items: [], count: 0 });
    const byNumber = await publishedRest(
      server,
      reader.token,
      "GET",
      `/v1/spaces/${space}/change-requests/${changeRequest.number}/conversations?limit=5`,
    );
    expect(byNumber.body).toEqual({ items: [], count: 0 });
  });

  it("GraphQL reads the same empty connection", async () => {
    const data = await graphqlData(
      server,
      reader.token,
      `query($space: ID!, $cr: ID!) { space(id: $space) { changeRequest(id: $cr) { conversations(first: 10) { totalCount nodes { id } pageInfo { hasNextPage } } } } }`,
      { space, cr: changeRequest.id },
    );
    expect(data.space.changeRequest.conversations).toEqual({ totalCount: 0, nodes: [], pageInfo: { hasNextPage: false } });
  });

  it("bounds the page size and refuses a cursor it did not give, naming the parameter", async () => {
    await expectRawRestError(server, A.token, "GET", `${CR()}/conversations?limit=1001`, undefined, 400, "limit");
    await expectRawRestError(server, A.token, "GET", `${CR()}/conversations?page=bogus`, undefined, 400, "page");
  });

  it("another organization's caller and an unknown change request get 404, no token 401", async () => {
    await expectRestError(server.client(B.token).spaces.listChangeRequestConversations(space, changeRequest.id), 404);
    await expectRestError(server.client(A.token).spaces.listChangeRequestConversations(space, "cr_unknown"), 404, "cr_unknown");
    expect((await server.rest(undefined, "GET", `${CR()}/conversations`)).status).toBe(401);
  });
});

describe("updateChangeRequestConversation and deleteChangeRequestConversation", () => {
  it("an editor gets 404 naming the conversation: none exists", async () => {
    const api = server.client(editor.token);
    await expectRestError(
      api.spaces.updateChangeRequestConversation(space, changeRequest.id, "default", { title: "Intro rewrite" }),
      404,
      '"default"',
    );
    await expectRestError(api.spaces.deleteChangeRequestConversation(space, changeRequest.id, "default"), 404, '"default"');
    const response = await server.graphql(
      editor.token,
      `mutation($input: DeleteChangeRequestConversationInput!) { deleteChangeRequestConversation(input: $input) { deletedConversationId } }`,
      { input: { space, changeRequest: changeRequest.id, conversation: "default" } },
    );
    expectGraphQLError(response, "NOT_FOUND", "conversation");
  });

  it("a reader may not (403); another organization's caller does not see the change request (404)", async () => {
    await expectRestError(
      server.client(reader.token).spaces.updateChangeRequestConversation(space, changeRequest.id, "default", { title: "x" }),
      403,
    );
    await expectRestError(server.client(reader.token).spaces.deleteChangeRequestConversation(space, changeRequest.id, "default"), 403);
    await expectRestError(server.client(B.token).spaces.deleteChangeRequestConversation(space, changeRequest.id, "default"), 404, space);
    await expectRestError(
      server.client(B.token).spaces.updateChangeRequestConversation(space, changeRequest.id, "default", { title: "x" }),
      404,
      space,
    );
  });

  it("a missing, empty or overlong title is refused naming title (400), and nothing changes", async () => {
    const before = await server.client(A.token).spaces.getChangeRequestById(space, changeRequest.id);
    await expectRawRestError(server, A.token, "PATCH", `${CR()}/conversations/default`, {}, 400, "title");
    await expectRawRestError(server, A.token, "PATCH", `${CR()}/conversations/default`, { title: "" }, 400, "title");
    await expectRawRestError(server, A.token, "PATCH", `${CR()}/conversations/default`, { title: "t".repeat(257) }, 400, "title");
    const response = await server.graphql(
      A.token,
      `mutation($input: UpdateChangeRequestConversationInput!) { updateChangeRequestConversation(input: $input) { conversation { id } } }`,
      { input: { space, changeRequest: changeRequest.id, conversation: "default", title: "" } },
    );
    expectGraphQLError(response, "BAD_REQUEST", "title");
    const after = await server.client(A.token).spaces.getChangeRequestById(space, changeRequest.id);
    expect(after.data.updatedAt).toBe(before.data.updatedAt);
    expect((await server.client(A.token).spaces.listChangeRequestConversations(space, changeRequest.id)).data.count).toBe(0);
  });
});
