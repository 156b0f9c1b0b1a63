// Realtime (issue 29): the published channel kinds, each served or refused by name; a channel
// subscription over Server-Sent Events on /graphql fed by committed writes of every surface;
// refusals at subscribe time (no stream opened); access checked again when it changes (a revoked
// token, a removed member); the bounds (per token, slow consumers); heartbeats; /metrics.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRequire } from "node:module";
import { CHANNELS, CHANNELS_BY_KIND } from "../src/core/realtime/channels.ts";
import { graphqlData } from "./support/expect.ts";
import { CHANNEL_QUERY, type EventStream, openEventStream, subscribeSse } from "./support/realtime.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

const spec = createRequire(import.meta.url)("@gitbook/api/spec/openapi.json");

let server: TestServer;
let A: { organizationId: string; userId: string; token: string };
let B: { organizationId: string; userId: string; token: string };
const open: EventStream[] = [];

beforeAll(async () => {
  server = await startTestServer({ realtime: { maxPerToken: 5, heartbeatMs: 200 } });
  A = await server.bootstrap("Realtime A");
  B = await server.bootstrap("Realtime B");
});

afterAll(async () => {
  for (const stream of open) stream.close();
  await server?.close();
});

const gql = <T = any>(token: string, query: string, variables?: Record<string, unknown>) => graphqlData<T>(server, token, query, variables);

async function newSpace(token = A.token, organization = A.organizationId): Promise<string> {
  const data = await gql(token, `mutation($input: CreateSpaceInput!) { createSpace(input: $input) { space { id } } }`, {
    input: { organization, title: "Live" },
  });
  return data.createSpace.space.id;
}

async function subscribe(token: string, channel: Record<string, unknown>): Promise<EventStream> {
  const stream = await subscribeSse(server.url, token, CHANNEL_QUERY, { channel });
  open.push(stream);
  return stream;
}

/** The next `next` event's payload (fails when none comes in time). */
async function nextEvent(stream: EventStream, timeoutMs = 3000) {
  const message = await stream.next(timeoutMs);
  expect(message, "an event").not.toBeNull();
  expect(message!.event).toBe("next");
  return JSON.parse(message!.data);
}

/** Subscribes, and waits until the subscription is open on the server (it was checked and registered). */
async function subscribed(token: string, channel: Record<string, unknown>) {
  const before = server.app.services.realtime.openSubscriptions;
  const stream = await subscribe(token, channel);
  for (let i = 0; i < 100 && server.app.services.realtime.openSubscriptions === before; i++) await new Promise((r) => setTimeout(r, 10));
  expect(server.app.services.realtime.openSubscriptions).toBe(before + 1);
  return stream;
}

describe("the channel table", () => {
  it("covers every published channel kind, each served or refused by name", () => {
    const published = (spec.components.schemas.APIChannel.oneOf as { $ref: string }[]).map((ref) => {
      const schema = spec.components.schemas[ref.$ref.split("/").pop()!];
      return { kind: schema.properties.channel.enum[0] as string, required: (schema.required as string[]).filter((n) => n !== "channel") };
    });
    expect(published).toHaveLength(72);
    expect(CHANNELS).toHaveLength(72);
    for (const { kind, required } of published) {
      const channel = CHANNELS_BY_KIND.get(kind);
      expect(channel, kind).toBeDefined();
      expect([...channel!.required], kind).toEqual(required);
    }
    const served = CHANNELS.filter((channel) => channel.served).map((channel) => channel.kind);
    expect(served).toContain("space-content");
    expect(served).toContain("site-structure");
    expect(served).toContain("space-comments");
    expect(served.length).toBeGreaterThanOrEqual(50);
  });

  it("refuses a kind it does not serve, naming it and why, with no stream", async () => {
    const space = await newSpace();
    const response = await server.graphql(A.token, CHANNEL_QUERY, { channel: { channel: "space-publishing-auth", space } });
    expect(response.errors?.[0].message).toMatch(/^channel: "space-publishing-auth" is not served: /);
    expect(response.errors?.[0].extensions?.code).toBe("BAD_REQUEST");
  });
});

describe("subscribing over SSE", () => {
  it("sends one event per committed write to the right channels, none to others", async () => {
    const space = await newSpace();
    const other = await newSpace();
    const content = await subscribed(A.token, { channel: "space-content", space });
    const info = await subscribed(A.token, { channel: "space", space });
    const elsewhere = await subscribed(A.token, { channel: "space", space: other });
    expect(content.status).toBe(200);
    expect(content.headers.get("content-type")).toContain("text/event-stream");

    // A rename through REST: the space channel, not its content's.
    const renamed = await server.rest(A.token, "PATCH", `/v1/spaces/${space}`, { title: "Renamed" });
    expect(renamed.status).toBe(200);
    const event = await nextEvent(info);
    expect(event.data.channel).toMatchObject({
      channel: "space",
      ids: { space },
      revision: null,
      changes: [{ object: "Space", id: space, change: "updated", fields: ["title"] }],
    });
    expect(await info.next(300)).toBeNull();

    // A page created: a new head revision, one event on space-content.
    const page = await gql(A.token, `mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } space { revision } } }`, {
      input: { space, title: "Intro", markdown: "Hello.\n" },
    });
    const contentEvent = await nextEvent(content);
    expect(contentEvent.data.channel).toMatchObject({
      channel: "space-content",
      ids: { space },
      revision: page.createPage.space.revision,
      // The new revision's author.
      actor: A.userId,
    });
    expect(contentEvent.data.channel.changes).toEqual([{ object: "Space", id: space, change: "updated", fields: ["revisionId"] }]);
    expect(await content.next(300)).toBeNull();
    // The space channel saw that change too (its head moved), the other space's nothing.
    expect((await nextEvent(info)).data.channel.changes[0].fields).toEqual(["revisionId"]);
    expect(await elsewhere.next(200)).toBeNull();
  });

  it("refuses bad input at subscribe time, naming the field, with no stream opened", async () => {
    const space = await newSpace();
    const foreign = await newSpace(B.token, B.organizationId);
    const cases: [Record<string, unknown>, string, string][] = [
      [{ channel: "space-contents", space }, "BAD_REQUEST", 'channel: unknown channel kind "space-contents"'],
      [{ channel: "space-content" }, "BAD_REQUEST", 'space: channel "space-content" needs the space id'],
      [{ channel: "space-content", space: A.organizationId }, "BAD_REQUEST", `space: "${A.organizationId}" is not a Space id (spc_…)`],
      [{ channel: "space-content", space, site: "site_x" }, "BAD_REQUEST", 'site: channel "space-content" takes no site (it takes space)'],
      [{ channel: "space-content", space: "spc_unknown" }, "NOT_FOUND", 'No space found with id "spc_unknown"'],
      // Another organization's space: the same answer as an unknown one.
      [{ channel: "space-content", space: foreign }, "NOT_FOUND", `No space found with id "${foreign}"`],
      [{ channel: "user-profile", user: B.userId }, "NOT_FOUND", `No user found with id "${B.userId}"`],
    ];
    const before = server.app.services.realtime.openSubscriptions;
    for (const [channel, code, message] of cases) {
      const response = await server.graphql(A.token, CHANNEL_QUERY, { channel });
      expect(response.errors?.[0].extensions?.code, JSON.stringify(channel)).toBe(code);
      expect(response.errors?.[0].message).toBe(message);
      // Over SSE too: the error, then the end of the stream.
      const stream = await subscribe(A.token, channel);
      const first = await stream.next();
      expect(JSON.parse(first!.data).errors[0].message).toBe(message);
      expect((await stream.next())?.event).toBe("complete");
    }
    expect(server.app.services.realtime.openSubscriptions).toBe(before);
    // A channel the caller's role does not cover: a reader may not follow the invite links.
    const reader = await server.addMember(A.organizationId, "read");
    const refused = await server.graphql(reader.token, CHANNEL_QUERY, {
      channel: { channel: "organization-link-invites", organization: A.organizationId },
    });
    expect(refused.errors?.[0].extensions?.code).toBe("FORBIDDEN");
    // Without a token: 401.
    expect((await server.graphql(undefined, CHANNEL_QUERY, { channel: { channel: "space", space } })).status).toBe(401);
  });

  it("ends a removed member's subscription with an error event, and a revoked token's", async () => {
    const space = await newSpace();
    const member = await server.addMember(A.organizationId, "read");
    const stream = await subscribed(member.token, { channel: "space", space });
    await server.database.prisma.member.delete({
      where: { organizationId_userId: { organizationId: A.organizationId, userId: member.userId } },
    });
    const ended = await stream.next();
    expect(JSON.parse(ended!.data).errors[0]).toMatchObject({
      message: `No space found with id "${space}"`,
      extensions: { code: "NOT_FOUND" },
    });
    expect((await stream.next())?.event).toBe("complete");
    // Nothing of the space reaches them after that.
    await server.rest(A.token, "PATCH", `/v1/spaces/${space}`, { title: "Secret" });
    expect(await stream.next(300)).toBeNull();

    const other = await server.addMember(A.organizationId, "read");
    const second = await subscribed(other.token, { channel: "space", space });
    const tokens = await gql(other.token, `{ viewer { apiTokens { id } } }`);
    await gql(other.token, `mutation($input: RevokeApiTokenInput!) { revokeApiToken(input: $input) { revokedTokenId } }`, {
      input: { id: tokens.viewer.apiTokens[0].id },
    });
    const revoked = await second.next();
    expect(JSON.parse(revoked!.data).errors[0]).toMatchObject({
      message: "The API token was revoked",
      extensions: { code: "UNAUTHENTICATED" },
    });
    expect((await second.next())?.event).toBe("complete");
  });

  it("bounds the subscriptions of one token (429), and a concurrent query still answers", async () => {
    const user = await server.addMember(A.organizationId, "read");
    const space = await newSpace();
    for (let i = 0; i < 5; i++) await subscribed(user.token, { channel: "space", space });
    const refused = await server.graphql(user.token, CHANNEL_QUERY, { channel: { channel: "space", space } });
    expect(refused.errors?.[0]).toMatchObject({
      message: "This token holds its maximum of 5 open subscriptions: close one first",
      extensions: { code: "TOO_MANY_REQUESTS" },
    });
    const query = await server.graphql(user.token, `{ viewer { id } }`);
    expect(query.data.viewer.id).toBe(user.userId);
  });

  it("ends the subscription when its client goes away, with no event to wait for", async () => {
    const space = await newSpace();
    const bus = server.app.services.realtime;
    const before = bus.openSubscriptions;
    const stream = await subscribed(A.token, { channel: "space", space });
    stream.close();
    for (let i = 0; i < 100 && bus.openSubscriptions > before; i++) await new Promise((r) => setTimeout(r, 10));
    expect(bus.openSubscriptions).toBe(before);
  });

  it("keeps an idle stream alive with heartbeats, and counts in /metrics", async () => {
    const space = await newSpace();
    const stream = await subscribed(A.token, { channel: "space", space });
    // A comment line every heartbeat (12 s by default, 200 ms here).
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(stream.comments).toBeGreaterThanOrEqual(2);
    await server.rest(A.token, "PATCH", `/v1/spaces/${space}`, { title: "Counted" });
    await nextEvent(stream);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toMatch(/^realtime_subscriptions_open [1-9]\d*$/m);
    expect(metrics).toMatch(/^realtime_events_sent_total [1-9]\d*$/m);
    expect(metrics).toMatch(/^realtime_events_dropped_total \d+$/m);
    expect(metrics).toMatch(/^realtime_subscriptions_refused_total [1-9]\d*$/m);
  });
});

describe("bounds", () => {
  it("cuts a consumer that falls behind off with an error, and counts what it dropped", async () => {
    const space = await newSpace();
    const bus = server.app.services.realtime;
    const token = await server.database.prisma.apiToken.findFirstOrThrow({ where: { userId: A.userId } });
    const ctx = bus.contextFor({ userId: A.userId, tokenId: token.id });
    const subscription = await bus.subscribe(ctx, { channel: "space", space });
    const dropped = bus.stats.dropped;
    // Nobody reads: the 101st event finds 100 waiting.
    for (let i = 0; i <= bus.limits.maxQueuedEvents; i++) {
      await server.database.prisma.space.update({ where: { id: space }, data: { title: `Title ${i}` } });
    }
    for (let i = 0; i < 100 && bus.stats.dropped === dropped; i++) await new Promise((r) => setTimeout(r, 10));
    expect(bus.stats.dropped - dropped).toBe(bus.limits.maxQueuedEvents + 1);
    const first = await subscription.next();
    expect(first.value?.error?.message).toBe(
      "This subscription fell 100 events behind and was cut off: read its events faster, or subscribe again",
    );
    expect((await subscription.next()).done).toBe(true);
  });

  it("ends every stream cleanly when the app closes", async () => {
    const other = await startTestServer();
    try {
      const org = await other.bootstrap("Closing");
      const created = await graphqlData(
        other,
        org.token,
        `mutation($input: CreateSpaceInput!) { createSpace(input: $input) { space { id } } }`,
        {
          input: { organization: org.organizationId, title: "Live" },
        },
      );
      const stream = await subscribeSse(other.url, org.token, CHANNEL_QUERY, {
        channel: { channel: "space", space: created.createSpace.space.id },
      });
      for (let i = 0; i < 100 && other.app.services.realtime.openSubscriptions === 0; i++) await new Promise((r) => setTimeout(r, 10));
      other.app.services.realtime.close();
      expect((await stream.next())?.event).toBe("complete");
      expect(other.app.services.realtime.openSubscriptions).toBe(0);
      // No new one opens meanwhile.
      const refused = await other.graphql(org.token, CHANNEL_QUERY, { channel: { channel: "space", space: created.createSpace.space.id } });
      expect(refused.errors?.[0].message).toBe("The server is shutting down; subscribe on another instance");
    } finally {
      await other.close();
    }
  });
});

describe("the REST twin, GET /v1/channels", () => {
  it("streams the same events as text/event-stream, with heartbeats", async () => {
    const space = await newSpace();
    const before = server.app.services.realtime.openSubscriptions;
    const stream = await openEventStream(`${server.url}/v1/channels?channel=space&space=${space}`, { token: A.token });
    open.push(stream);
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toBe("text/event-stream");
    await waitFor(() => server.app.services.realtime.openSubscriptions === before + 1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(stream.comments).toBeGreaterThanOrEqual(2);
    await server.rest(A.token, "PATCH", `/v1/spaces/${space}`, { title: "From a script" });
    const message = await stream.next();
    expect(message!.event).toBe("space");
    expect(JSON.parse(message!.data)).toMatchObject({
      channel: "space",
      ids: { space },
      actor: null,
      revision: null,
      changes: [{ object: "Space", id: space, change: "updated", fields: ["title"] }],
    });
    stream.close();
    await waitFor(() => server.app.services.realtime.openSubscriptions === before);
  });

  it("refuses bad input with the error envelope before any stream", async () => {
    const foreign = await newSpace(B.token, B.organizationId);
    const cases: [string, string | undefined, number, string][] = [
      ["channel=nope", A.token, 400, 'channel: unknown channel kind "nope"'],
      ["channel=space", A.token, 400, 'space: channel "space" needs the space id'],
      ["channel=space&space=org_x", A.token, 400, 'space: "org_x" is not a Space id (spc_…)'],
      [`channel=space&space=${foreign}&space=${foreign}`, A.token, 400, "space: given more than once"],
      [`channel=space&space=${foreign}`, A.token, 404, `No space found with id "${foreign}"`],
      [`channel=space&space=${foreign}`, undefined, 401, "Missing API token: send the header Authorization: Bearer <token>"],
    ];
    for (const [query, token, status, message] of cases) {
      const response = await fetch(`${server.url}/v1/channels?${query}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
      expect(response.status, query).toBe(status);
      expect(await response.json()).toEqual({ error: { code: status, message } });
    }
  });
});

async function waitFor(condition: () => boolean) {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(condition()).toBe(true);
}
