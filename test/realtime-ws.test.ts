// Realtime over WebSocket (graphql-ws, `graphql-transport-ws`) on /graphql, and the writes of every
// kind that must each raise exactly one event on the right channels and none on others: an edit
// through REST, a merge, a comment, a site structure change, an import.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type Client, createClient } from "graphql-ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { graphqlData } from "./support/expect.ts";
import { CHANNEL_QUERY, openEventStream } from "./support/realtime.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let http: Server;
let wsUrl: string;
let website: Server;
let websiteUrl: string;
let A: { organizationId: string; userId: string; token: string };
const clients: Client[] = [];

beforeAll(async () => {
  server = await startTestServer();
  // The app's own server: Yoga, and graphql-ws on the upgrades to /graphql.
  http = server.app.createServer();
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  wsUrl = `ws://127.0.0.1:${(http.address() as AddressInfo).port}/graphql`;
  website = createServer((_req, res) =>
    res.writeHead(200, { "content-type": "text/html" }).end("<html><body><h1>Imported</h1><p>Text.</p></body></html>"),
  );
  await new Promise<void>((resolve) => website.listen(0, "127.0.0.1", resolve));
  websiteUrl = `http://127.0.0.1:${(website.address() as AddressInfo).port}`;
  A = await server.bootstrap("Realtime WS");
});

afterAll(async () => {
  for (const client of clients) await client.dispose();
  http?.closeAllConnections();
  await new Promise((resolve) => http?.close(resolve));
  website?.closeAllConnections();
  await new Promise((resolve) => website?.close(resolve));
  await server?.close();
});

const gql = <T = any>(query: string, variables?: Record<string, unknown>) => graphqlData<T>(server, A.token, query, variables);

function connect(token: string = A.token): Client {
  const client = createClient({
    url: wsUrl,
    webSocketImpl: WebSocket,
    connectionParams: { Authorization: `Bearer ${token}` },
    retryAttempts: 0,
    lazy: true,
  });
  clients.push(client);
  return client;
}

interface Feed {
  /** Results received so far. */
  results: any[];
  /** The error or completion that ended it, if any. */
  ended: Promise<unknown>;
  /** Waits for `count` results in all (fails after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<any[]>;
  stop(): void;
}

function subscribe(client: Client, query: string, variables: Record<string, unknown>): Feed {
  const results: any[] = [];
  let wake: (() => void) | undefined;
  let stop = () => {};
  const ended = new Promise<unknown>((resolve) => {
    stop = client.subscribe(
      { query, variables },
      {
        next: (value) => {
          results.push(value);
          wake?.();
        },
        error: (error) => resolve(error),
        complete: () => resolve("complete"),
      },
    );
  });
  return {
    results,
    ended,
    stop,
    async waitFor(count, timeoutMs = 3000) {
      const deadline = Date.now() + timeoutMs;
      while (results.length < count && Date.now() < deadline) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 50);
        });
      }
      expect(results.length, `results: ${JSON.stringify(results)}`).toBeGreaterThanOrEqual(count);
      return results;
    },
  };
}

/** Subscribes to a channel and waits until the server holds the subscription. */
async function channel(client: Client, input: Record<string, unknown>): Promise<Feed> {
  const bus = server.app.services.realtime;
  const before = bus.openSubscriptions;
  const feed = subscribe(client, CHANNEL_QUERY, { channel: input });
  for (let i = 0; i < 200 && bus.openSubscriptions === before; i++) await new Promise((r) => setTimeout(r, 10));
  expect(bus.openSubscriptions, JSON.stringify(feed.results)).toBe(before + 1);
  return feed;
}

const quiet = () => new Promise((resolve) => setTimeout(resolve, 300));

async function newSpace(): Promise<string> {
  return (
    await gql(`mutation($input: CreateSpaceInput!) { createSpace(input: $input) { space { id } } }`, {
      input: { organization: A.organizationId, title: "WS" },
    })
  ).createSpace.space.id;
}

describe("subscriptions over WebSocket", () => {
  it("delivers one event per write, of each kind, to the right channels and none to others", async () => {
    const client = connect();
    const space = await newSpace();
    const bystander = await newSpace();
    const content = await channel(client, { channel: "space-content", space });
    const comments = await channel(client, { channel: "space-comments", space });
    const others = await channel(client, { channel: "space-content", space: bystander });

    // An import through REST: the space's content, once.
    const imported = await server.rest(A.token, "POST", `/v1/spaces/${space}/content/import`, { source: "website", url: `${websiteUrl}/` });
    expect(imported.status, JSON.stringify(imported.body)).toBe(201);
    const [afterImport] = await content.waitFor(1);
    expect(afterImport.data.channel).toMatchObject({ channel: "space-content", revision: imported.body.revision });

    // A comment through REST: the comments channel, once; not the content.
    const posted = await server.rest(A.token, "POST", `/v1/spaces/${space}/comments`, { body: { markdown: "Live?" } });
    expect(posted.status, JSON.stringify(posted.body)).toBe(200);
    const [comment] = await comments.waitFor(1);
    expect(comment.data.channel).toMatchObject({
      channel: "space-comments",
      actor: A.userId,
      changes: [{ object: "Comment", id: posted.body.id, change: "created", fields: null }],
    });

    // A change request edited and merged through REST: one content event, with the merged revision.
    const cr = await server.rest(A.token, "POST", `/v1/spaces/${space}/change-requests`, { subject: "Edit" });
    expect(cr.status, JSON.stringify(cr.body)).toBe(201);
    await gql(`mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, {
      input: { space, changeRequest: cr.body.id, title: "From the change request", markdown: "New.\n" },
    });
    const merged = await server.rest(A.token, "POST", `/v1/spaces/${space}/change-requests/${cr.body.id}/merge`, {});
    expect(merged.status, JSON.stringify(merged.body)).toBeLessThan(300);
    const [, afterMerge] = await content.waitFor(2);
    expect(afterMerge.data.channel).toMatchObject({ channel: "space-content", actor: A.userId });
    expect(afterMerge.data.channel.revision).toMatch(/^rev_/);

    await quiet();
    expect(content.results).toHaveLength(2);
    expect(comments.results).toHaveLength(1);
    expect(others.results).toHaveLength(0);
  });

  it("delivers a site structure change to site-structure, not to site-customization", async () => {
    const client = connect();
    const space = await newSpace();
    const site = await server.rest(A.token, "POST", `/v1/orgs/${A.organizationId}/sites`, { title: "Live site" });
    expect(site.status, JSON.stringify(site.body)).toBe(201);
    const structure = await channel(client, { channel: "site-structure", site: site.body.id });
    const customization = await channel(client, { channel: "site-customization", site: site.body.id });
    const added = await server.rest(A.token, "POST", `/v1/orgs/${A.organizationId}/sites/${site.body.id}/site-spaces`, { spaceId: space });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const [event] = await structure.waitFor(1);
    expect(event.data.channel).toMatchObject({
      channel: "site-structure",
      ids: { site: site.body.id },
      changes: [{ object: "SiteSpace", id: added.body.id, change: "created" }],
    });
    await quiet();
    expect(structure.results).toHaveLength(1);
    expect(customization.results).toHaveLength(0);
  });

  it("refuses bad input at subscribe time, and queries, with an error and no stream", async () => {
    const client = connect();
    const open = server.app.services.realtime.openSubscriptions;
    // The subscribe's result is its error, then the operation completes.
    const unknown = subscribe(client, CHANNEL_QUERY, { channel: { channel: "nope" } });
    expect(await unknown.ended).toBe("complete");
    expect(unknown.results).toEqual([
      {
        errors: [
          {
            message: 'channel: unknown channel kind "nope"',
            path: ["channel"],
            locations: [{ line: 2, column: 3 }],
            extensions: { code: "BAD_REQUEST", http: { status: 400 } },
          },
        ],
      },
    ]);
    const query = subscribe(client, `{ viewer { id } }`, {});
    expect(((await query.ended) as { message: string }[])[0].message).toBe(
      "Only subscriptions are served over WebSocket: send queries and mutations over HTTP",
    );
    // GraphQL's own validation message quotes the document: bounded as over HTTP (issue 34.2).
    const long = subscribe(client, `subscription { ${"f".repeat(3_000)} }`, {});
    expect(((await long.ended) as { message: string }[])[0].message).toBe(
      `Cannot query field "${"f".repeat(100)}…" (3000 characters) on type "Subscription".`,
    );
    expect(server.app.services.realtime.openSubscriptions).toBe(open);
  });

  it("refuses a connection without a token, and one with an unknown token at subscribe time", async () => {
    const anonymous = new WebSocket(wsUrl, "graphql-transport-ws");
    anonymous.on("open", () => anonymous.send(JSON.stringify({ type: "connection_init", payload: {} })));
    const closed = await new Promise<[number, string]>((resolve) =>
      anonymous.on("close", (code, reason) => resolve([code, String(reason)])),
    );
    expect(closed).toEqual([4403, "Forbidden"]);
    const unknown = connect("dps_unknown");
    const refused = await subscribe(unknown, CHANNEL_QUERY, { channel: { channel: "space", space: "spc_x" } }).ended;
    expect((refused as { message: string }[])[0]).toMatchObject({ message: "Invalid API token", extensions: { code: "UNAUTHENTICATED" } });
  });

  it("sends an SSE subscriber (written at once, rendered once per document) the same event as a WebSocket one", async () => {
    const space = await newSpace();
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/graphql`;
    const bus = server.app.services.realtime;
    const before = bus.openSubscriptions;
    const body = (query: string) => ({ query, variables: { channel: { channel: "space", space } } });
    // Two SSE subscribers of one document (one rendering, shared), one of another selection (its own).
    const first = await openEventStream(url, { token: A.token, body: body(CHANNEL_QUERY) });
    const second = await openEventStream(url, { token: A.token, body: body(CHANNEL_QUERY) });
    const narrow = await openEventStream(url, {
      token: A.token,
      body: body("subscription($channel: ChannelInput!) { channel(channel: $channel) { channel changes { object change } } }"),
    });
    const feed = await channel(connect(), { channel: "space", space });
    for (let i = 0; i < 200 && bus.openSubscriptions < before + 4; i++) await new Promise((r) => setTimeout(r, 10));
    try {
      await server.rest(A.token, "PATCH", `/v1/spaces/${space}`, { title: "Once for all" });
      const [viaWs] = await feed.waitFor(1);
      const messages = [await first.next(), await second.next(), await narrow.next()];
      for (const message of messages) expect(message?.event).toBe("next");
      const [a, b, c] = messages.map((message) => JSON.parse(message!.data));
      expect(a.data.channel).toMatchObject({ channel: "space", ids: { space } });
      expect(a.data.channel.changes).toContainEqual(expect.objectContaining({ object: "Space", id: space, change: "updated" }));
      expect(a).toEqual(viaWs);
      expect(b).toEqual(viaWs);
      expect(c).toEqual({ data: { channel: { channel: "space", changes: [{ object: "Space", change: "updated" }] } } });
    } finally {
      for (const stream of [first, second, narrow]) stream.close();
      feed.stop();
      for (let i = 0; i < 300 && bus.openSubscriptions > before; i++) await new Promise((r) => setTimeout(r, 10));
    }
    // Closed by their clients: ended on the server too.
    expect(bus.openSubscriptions).toBe(before);
  });

  it("ends the subscription when the client stops it, with no event to wait for", async () => {
    const client = connect();
    const bus = server.app.services.realtime;
    const before = bus.openSubscriptions;
    const feed = await channel(client, { channel: "space", space: await newSpace() });
    feed.stop();
    for (let i = 0; i < 100 && bus.openSubscriptions > before; i++) await new Promise((r) => setTimeout(r, 10));
    expect(bus.openSubscriptions).toBe(before);
  });

  it("closes the sockets when the realtime bus closes (shutdown)", async () => {
    const other = await startTestServer();
    const otherHttp = other.app.createServer();
    await new Promise<void>((resolve) => otherHttp.listen(0, "127.0.0.1", resolve));
    try {
      const org = await other.bootstrap("WS closing");
      const created = await graphqlData(
        other,
        org.token,
        `mutation($input: CreateSpaceInput!) { createSpace(input: $input) { space { id } } }`,
        {
          input: { organization: org.organizationId, title: "Live" },
        },
      );
      const client = createClient({
        url: `ws://127.0.0.1:${(otherHttp.address() as AddressInfo).port}/graphql`,
        webSocketImpl: WebSocket,
        connectionParams: { Authorization: `Bearer ${org.token}` },
        retryAttempts: 0,
      });
      clients.push(client);
      const feed = subscribe(client, CHANNEL_QUERY, { channel: { channel: "space", space: created.createSpace.space.id } });
      for (let i = 0; i < 200 && other.app.services.realtime.openSubscriptions === 0; i++) await new Promise((r) => setTimeout(r, 10));
      other.app.services.realtime.close();
      const ended = await feed.ended;
      // The subscription completes, or the socket closes with 1001 (going away), whichever the client sees first.
      expect(ended === "complete" || (ended as { code?: number }).code === 1001).toBe(true);
    } finally {
      otherHttp.closeAllConnections();
      await new Promise((resolve) => otherHttp.close(resolve));
      await other.close();
    }
  });
});
