// Realtime (issue 29, item 2): typed subscriptions that carry fresh data — a space's content, a
// change request, comments and replies, a site's structure, an OpenAPI specification — resolved
// through the same loaders and permission checks as the queries, over SSE and WebSocket; another
// organization's objects are never seen (refused at subscribe time, and a member who loses
// access gets an error as the last event, nothing of the object after it); the bounds hold and a
// concurrent query still answers.
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { type Client, createClient } from "graphql-ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { graphqlData } from "./support/expect.ts";
import { type EventStream, subscribeSse } from "./support/realtime.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let http: Server;
let A: { organizationId: string; userId: string; token: string };
let B: { organizationId: string; userId: string; token: string };
const open: EventStream[] = [];
const clients: Client[] = [];

beforeAll(async () => {
  server = await startTestServer({ realtime: { maxPerToken: 10 } });
  http = server.app.createServer();
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  A = await server.bootstrap("Typed A");
  B = await server.bootstrap("Typed B");
});

afterAll(async () => {
  for (const stream of open) stream.close();
  for (const client of clients) await client.dispose();
  http?.closeAllConnections();
  await new Promise((resolve) => http?.close(resolve));
  await server?.close();
});

const gql = <T = any>(token: string, query: string, variables?: Record<string, unknown>) => graphqlData<T>(server, token, query, variables);

async function newSpace(token = A.token, organization = A.organizationId): Promise<string> {
  const data = await gql(token, `mutation($input: CreateSpaceInput!) { createSpace(input: $input) { space { id } } }`, {
    input: { organization, title: "Typed" },
  });
  return data.createSpace.space.id;
}

async function waitFor(condition: () => boolean) {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(condition()).toBe(true);
}

/** Subscribes over SSE and waits until the server holds the subscription. */
async function subscribed(token: string, query: string, variables: Record<string, unknown>) {
  const bus = server.app.services.realtime;
  const before = bus.openSubscriptions;
  const stream = await subscribeSse(server.url, token, query, variables);
  open.push(stream);
  await waitFor(() => bus.openSubscriptions === before + 1);
  return stream;
}

/** The next `next` message's GraphQL result. */
async function next(stream: EventStream) {
  const message = await stream.next(3000);
  expect(message, "an event").not.toBeNull();
  expect(message!.event).toBe("next");
  return JSON.parse(message!.data);
}

const SPACE_CONTENT = `subscription($space: ID!) {
  spaceContent(space: $space) {
    at actor { id } changed { object id change fields }
    space { id title revision }
    revision { id type pages { title } }
    previousRevision
    changes(limit: 5) { changes { type page { title path } attributes } more }
  }
}`;

describe("spaceContent", () => {
  it("carries each new head revision and the pages it changed, over SSE", async () => {
    const space = await newSpace();
    const before = (await gql(A.token, `query($id: ID!) { space(id: $id) { revision } }`, { id: space })).space.revision;
    const stream = await subscribed(A.token, SPACE_CONTENT, { space });

    const created = await gql(
      A.token,
      `mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } space { revision } } }`,
      {
        input: { space, title: "Intro", markdown: "Hello.\n" },
      },
    );
    const first = await next(stream);
    const head = created.createPage.space.revision;
    expect(first.data.spaceContent).toMatchObject({
      actor: { id: A.userId },
      changed: [{ object: "Space", id: space, change: "updated", fields: ["revisionId"] }],
      space: { id: space, title: "Typed", revision: head },
      revision: { id: head, pages: [{ title: "Intro" }] },
      previousRevision: before,
      changes: { changes: [{ type: "PAGE_CREATED", page: { title: "Intro", path: "intro" }, attributes: null }], more: 0 },
    });

    // An edit: the next event counts from the previous one.
    await gql(A.token, `mutation($input: UpdatePageInput!) { updatePage(input: $input) { page { id } } }`, {
      input: { space, page: created.createPage.page.id, title: "Introduction" },
    });
    const second = await next(stream);
    expect(second.data.spaceContent.previousRevision).toBe(head);
    // Read anew for each event, not from the first event's loaders.
    expect(second.data.spaceContent.space.revision).toBe(second.data.spaceContent.revision.id);
    expect(second.data.spaceContent.space.revision).not.toBe(head);
    expect(second.data.spaceContent.revision.pages).toEqual([{ title: "Introduction" }]);
    expect(second.data.spaceContent.changes.changes).toEqual([
      {
        type: "PAGE_EDITED",
        page: { title: "Introduction", path: "intro" },
        attributes: { title: { before: "Intro", after: "Introduction" } },
      },
    ]);
    // A rename of the space is not a change of its content.
    await server.rest(A.token, "PATCH", `/v1/spaces/${space}`, { title: "Renamed" });
    expect(await stream.next(300)).toBeNull();
  });

  it("refuses another organization's space and bad ids at subscribe time, with no stream", async () => {
    const foreign = await newSpace(B.token, B.organizationId);
    const before = server.app.services.realtime.openSubscriptions;
    const cases: [string, string, string][] = [
      [foreign, "NOT_FOUND", `No space found with id "${foreign}"`],
      ["spc_unknown", "NOT_FOUND", 'No space found with id "spc_unknown"'],
      [A.organizationId, "BAD_REQUEST", `space: "${A.organizationId}" is not a Space id (spc_…)`],
    ];
    for (const [space, code, message] of cases) {
      const response = await server.graphql(A.token, SPACE_CONTENT, { space });
      expect(response.errors?.[0]).toMatchObject({ message, extensions: { code } });
      expect(response.data ?? null).toBeNull();
    }
    expect(server.app.services.realtime.openSubscriptions).toBe(before);
    // B's own subscription sees B's writes only, never A's.
    const mine = await newSpace();
    const theirs = await subscribed(B.token, SPACE_CONTENT, { space: foreign });
    await gql(A.token, `mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, {
      input: { space: mine, title: "Of A", markdown: "A.\n" },
    });
    expect(await theirs.next(300)).toBeNull();
  });

  it("ends a removed member's subscription with an error, and sends nothing of the space after it", async () => {
    const space = await newSpace();
    const member = await server.addMember(A.organizationId, "read");
    const stream = await subscribed(member.token, SPACE_CONTENT, { space });
    await server.database.prisma.member.delete({
      where: { organizationId_userId: { organizationId: A.organizationId, userId: member.userId } },
    });
    const ended = await next(stream);
    expect(ended.data ?? null).toBeNull();
    expect(ended.errors[0]).toMatchObject({ message: `No space found with id "${space}"`, extensions: { code: "NOT_FOUND" } });
    expect((await stream.next())?.event).toBe("complete");
    await gql(A.token, `mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, {
      input: { space, title: "Secret", markdown: "Not for them.\n" },
    });
    expect(await stream.next(300)).toBeNull();
  });

  it("ends a revoked token's subscription with an error at the revocation, before any further write", async () => {
    const space = await newSpace();
    const member = await server.addMember(A.organizationId, "read");
    const stream = await subscribed(member.token, SPACE_CONTENT, { space });
    const tokens = await gql(member.token, `{ viewer { apiTokens { id } } }`);
    await gql(member.token, `mutation($input: RevokeApiTokenInput!) { revokeApiToken(input: $input) { revokedTokenId } }`, {
      input: { id: tokens.viewer.apiTokens[0].id },
    });
    const ended = await next(stream);
    expect(ended.data ?? null).toBeNull();
    expect(ended.errors[0]).toMatchObject({ message: "The API token was revoked", extensions: { code: "UNAUTHENTICATED" } });
    expect((await stream.next())?.event).toBe("complete");
    await gql(A.token, `mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, {
      input: { space, title: "After", markdown: "Not for them.\n" },
    });
    expect(await stream.next(300)).toBeNull();
  });
});

describe("changeRequest and comments", () => {
  it("carry the change request through its review and merge, and each comment and reply", async () => {
    const space = await newSpace();
    const cr = await server.rest(A.token, "POST", `/v1/spaces/${space}/change-requests`, { subject: "Edit" });
    expect(cr.status, JSON.stringify(cr.body)).toBe(201);
    const changeRequest = await subscribed(
      A.token,
      `subscription($space: ID!, $cr: ID!) {
        changeRequest(space: $space, changeRequest: $cr) {
          actor { id } revision changed { object change fields }
          changeRequest { id status subject mergedBy { id } revisionMerged }
        }
      }`,
      { space, cr: cr.body.id },
    );
    const comments = await subscribed(
      A.token,
      `subscription($space: ID!, $cr: ID) {
        comments(space: $space, changeRequest: $cr) {
          actor { id } comments { id change comment { id replyCount } reply { id comment { id } } }
        }
      }`,
      { space, cr: cr.body.id },
    );

    const renamed = await server.rest(A.token, "PATCH", `/v1/spaces/${space}/change-requests/${cr.body.id}`, { subject: "Better edit" });
    expect(renamed.status, JSON.stringify(renamed.body)).toBeLessThan(300);
    expect((await next(changeRequest)).data.changeRequest).toMatchObject({
      actor: { id: A.userId },
      revision: null,
      changed: [{ object: "ChangeRequest", change: "updated", fields: ["subject"] }],
      changeRequest: { id: cr.body.id, status: "DRAFT", subject: "Better edit", mergedBy: null, revisionMerged: null },
    });

    const posted = await server.rest(A.token, "POST", `/v1/spaces/${space}/change-requests/${cr.body.id}/comments`, {
      body: { markdown: "Looks good?" },
    });
    expect(posted.status, JSON.stringify(posted.body)).toBe(200);
    expect((await next(comments)).data.comments).toEqual({
      actor: { id: A.userId },
      comments: [{ id: posted.body.id, change: "created", comment: { id: posted.body.id, replyCount: 0 }, reply: null }],
    });
    const replied = await server.rest(
      A.token,
      "POST",
      `/v1/spaces/${space}/change-requests/${cr.body.id}/comments/${posted.body.id}/replies`,
      {
        body: { markdown: "Yes." },
      },
    );
    expect(replied.status, JSON.stringify(replied.body)).toBe(200);
    expect((await next(comments)).data.comments.comments).toEqual([
      {
        id: replied.body.id,
        change: "created",
        comment: { id: posted.body.id, replyCount: 1 },
        reply: { id: replied.body.id, comment: { id: posted.body.id } },
      },
    ]);

    await gql(A.token, `mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, {
      input: { space, changeRequest: cr.body.id, title: "New page", markdown: "New.\n" },
    });
    const edit = (await next(changeRequest)).data.changeRequest;
    expect(edit.revision).toMatch(/^rev_/);
    const merged = await server.rest(A.token, "POST", `/v1/spaces/${space}/change-requests/${cr.body.id}/merge`, {});
    expect(merged.status, JSON.stringify(merged.body)).toBeLessThan(300);
    const merge = (await next(changeRequest)).data.changeRequest;
    expect(merge).toMatchObject({ actor: { id: A.userId }, changeRequest: { status: "MERGED", mergedBy: { id: A.userId } } });
    expect(merge.changeRequest.revisionMerged).toBe(merged.body.revision);
    expect(await comments.next(300)).toBeNull();
  });
});

describe("sites and OpenAPI specifications", () => {
  it("carry a site's structure, and a specification's processing, over WebSocket", async () => {
    const client = createClient({
      url: `ws://127.0.0.1:${(http.address() as AddressInfo).port}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { Authorization: `Bearer ${A.token}` },
      retryAttempts: 0,
    });
    clients.push(client);
    const results: any[] = [];
    const follow = (query: string, variables: Record<string, unknown>) => {
      const mine: any[] = [];
      client.subscribe(
        { query, variables },
        {
          next: (value) => (mine.push(value), results.push(value)),
          error: (error) => results.push({ errors: [error] }),
          complete: () => {},
        },
      );
      return mine;
    };
    const bus = server.app.services.realtime;

    const space = await newSpace();
    const site = await server.rest(A.token, "POST", `/v1/orgs/${A.organizationId}/sites`, { title: "Typed site" });
    expect(site.status, JSON.stringify(site.body)).toBe(201);
    let before = bus.openSubscriptions;
    const structure = follow(
      `subscription($site: ID!) { siteStructure(site: $site) { changed { object change } site { id siteSpaces { totalCount } } } }`,
      {
        site: site.body.id,
      },
    );
    const customization = follow(`subscription($site: ID!) { siteCustomization(site: $site) { site { id } } }`, { site: site.body.id });
    await waitFor(() => bus.openSubscriptions === before + 2 || results.length > 0);
    expect(results).toEqual([]);
    const added = await server.rest(A.token, "POST", `/v1/orgs/${A.organizationId}/sites/${site.body.id}/site-spaces`, { spaceId: space });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    await waitFor(() => structure.length === 1);
    expect(structure[0].data.siteStructure).toEqual({
      changed: [{ object: "SiteSpace", change: "created" }],
      site: { id: site.body.id, siteSpaces: { totalCount: 1 } },
    });
    expect(customization).toEqual([]);

    const slug = "typed-spec";
    const text = (title: string) => `openapi: 3.0.0\ninfo:\n  title: ${title}\n  version: "1"\npaths: {}\n`;
    const created = await server.rest(A.token, "PUT", `/v1/orgs/${A.organizationId}/openapi/${slug}`, { source: { text: text("One") } });
    expect(created.status, JSON.stringify(created.body)).toBeLessThan(300);
    for (let i = 0; i < 200; i++) {
      const { body } = await server.rest(A.token, "GET", `/v1/orgs/${A.organizationId}/openapi/${slug}`);
      if (body.processingState === "complete") break;
      await new Promise((r) => setTimeout(r, 25));
    }
    before = bus.openSubscriptions;
    const spec = follow(`subscription($spec: ID!) { openAPISpec(spec: $spec) { spec { id processingState lastVersion { id } } } }`, {
      spec: created.body.id,
    });
    await waitFor(() => bus.openSubscriptions === before + 1);
    await server.rest(A.token, "PUT", `/v1/orgs/${A.organizationId}/openapi/${slug}`, { source: { text: text("Two") } });
    // Its processing state moves on (each step one event) until it is complete again, with a new version.
    for (let i = 0; i < 300 && spec.at(-1)?.data?.openAPISpec.spec.processingState !== "COMPLETE"; i++)
      await new Promise((r) => setTimeout(r, 10));
    const last = spec.at(-1).data.openAPISpec.spec;
    expect(last).toMatchObject({ id: created.body.id, processingState: "COMPLETE" });
    expect(last.lastVersion.id).toMatch(/^oasv_/);
    expect(results.every((result) => !result.errors)).toBe(true);
  });
});

describe("bounds", () => {
  it("counts typed subscriptions against the token's maximum, and a concurrent query still answers", async () => {
    const user = await server.addMember(A.organizationId, "read");
    const space = await newSpace();
    for (let i = 0; i < 10; i++) await subscribed(user.token, SPACE_CONTENT, { space });
    const refused = await server.graphql(user.token, SPACE_CONTENT, { space });
    expect(refused.errors?.[0]).toMatchObject({
      message: "This token holds its maximum of 10 open subscriptions: close one first",
      extensions: { code: "TOO_MANY_REQUESTS" },
    });
    const query = await server.graphql(user.token, `query($id: ID!) { space(id: $id) { id } }`, { id: space });
    expect(query.data.space.id).toBe(space);
  });
});
