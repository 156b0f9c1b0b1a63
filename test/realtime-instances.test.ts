// Realtime across instances (issue 29): events follow commits only (a rolled-back transaction
// sends nothing, on either database), and on PostgreSQL a write through one instance reaches a
// subscriber on another within a second (their LISTEN connections on the shared database).
import { afterAll, describe, expect, it } from "vitest";
import { createApp } from "../src/app.ts";
import { bootstrapOrganization } from "../src/core/bootstrap/index.ts";
import { openDatabase } from "../src/db/client.ts";
import { createHttpServer } from "../src/http/client-error.ts";
import { createScratchDatabase } from "./support/database.ts";
import { CHANNEL_QUERY, type EventStream, subscribeSse } from "./support/realtime.ts";
import { startTestServer } from "./support/server.ts";

const serverUrl = process.env.DATABASE_URL;
const opened: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const thing of opened.reverse()) await thing.close();
});

async function waitOpen(count: () => number, expected: number) {
  for (let i = 0; i < 200 && count() !== expected; i++) await new Promise((r) => setTimeout(r, 10));
  expect(count()).toBe(expected);
}

describe("events follow commits", () => {
  it("sends nothing for a rolled-back transaction, one event for a committed one", async () => {
    const server = await startTestServer();
    const streams: EventStream[] = [];
    opened.push({
      close: async () => {
        for (const stream of streams) stream.close();
        await server.close();
      },
    });
    const org = await server.bootstrap("Rollback");
    const space = (
      await server.graphql(org.token, `mutation($input: CreateSpaceInput!) { createSpace(input: $input) { space { id } } }`, {
        input: { organization: org.organizationId, title: "Before" },
      })
    ).data.createSpace.space.id;
    const stream = await subscribeSse(server.url, org.token, CHANNEL_QUERY, { channel: { channel: "space", space } });
    streams.push(stream);
    await waitOpen(() => server.app.services.realtime.openSubscriptions, 1);
    const prisma = server.database.prisma;
    await expect(
      prisma.$transaction(async (tx) => {
        await tx.space.update({ where: { id: space }, data: { title: "Never" } });
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect(await stream.next(400)).toBeNull();
    await prisma.$transaction(async (tx) => {
      await tx.space.update({ where: { id: space }, data: { title: "One" } });
      await tx.space.update({ where: { id: space }, data: { emoji: "1f600" } });
    });
    const event = JSON.parse((await stream.next())!.data).data.channel;
    // Two rows written in one transaction: one event listing both.
    expect(event.changes).toEqual([
      { object: "Space", id: space, change: "updated", fields: ["title"] },
      { object: "Space", id: space, change: "updated", fields: ["emoji"] },
    ]);
    expect(await stream.next(300)).toBeNull();
  });
});

describe.runIf(serverUrl)("two instances on one PostgreSQL", () => {
  async function instance(url: string) {
    const database = await openDatabase({ databaseUrl: url });
    const app = createApp({
      database,
      config: { publicUrl: "http://127.0.0.1", rateLimits: { perToken: 1e6, perAddress: 1e6, windowSeconds: 60 } },
      startJobs: false,
    });
    const server = createHttpServer({}, app.yoga);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    opened.push({
      close: async () => {
        app.services.realtime.close();
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
        await app.close();
        await database.close();
      },
    });
    return { database, app, url: `http://127.0.0.1:${(server.address() as { port: number }).port}` };
  }

  it("delivers a write through A to a subscriber on B within a second, and nothing of a rolled-back one", async () => {
    const scratch = await createScratchDatabase(serverUrl!);
    opened.push({ close: () => scratch.drop() });
    const a = await instance(scratch.url);
    const b = await instance(scratch.url);
    const admin = await bootstrapOrganization(a.database.prisma, { organizationTitle: "Two", email: "two-rt@example.com" });
    const created = await fetch(`${a.url}/v1/orgs/${admin.organizationId}/spaces`, {
      method: "POST",
      headers: { authorization: `Bearer ${admin.token}`, "content-type": "application/json" },
      body: JSON.stringify({ title: "Shared" }),
    });
    expect(created.status).toBe(201);
    const space = ((await created.json()) as { id: string }).id;
    const stream = await subscribeSse(b.url, admin.token, CHANNEL_QUERY, { channel: { channel: "space", space } });
    opened.push({ close: async () => stream.close() });
    await waitOpen(() => b.app.services.realtime.openSubscriptions, 1);

    // Rolled back on A: nothing on B.
    await expect(
      a.database.prisma.$transaction(async (tx) => {
        await tx.space.update({ where: { id: space }, data: { title: "Never" } });
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect(await stream.next(500)).toBeNull();

    // Committed on A (through REST): on B within a second.
    const started = Date.now();
    const renamed = await fetch(`${a.url}/v1/spaces/${space}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${admin.token}`, "content-type": "application/json" },
      body: JSON.stringify({ title: "Renamed on A" }),
    });
    expect(renamed.status).toBe(200);
    const message = await stream.next(1000);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(JSON.parse(message!.data).data.channel).toMatchObject({
      channel: "space",
      changes: [{ object: "Space", id: space, change: "updated", fields: ["title"] }],
    });
    expect(await stream.next(300)).toBeNull();
  });

  it("carries a typed event (the space's new content) written on A to a subscriber on B", async () => {
    const scratch = await createScratchDatabase(serverUrl!);
    opened.push({ close: () => scratch.drop() });
    const a = await instance(scratch.url);
    const b = await instance(scratch.url);
    const admin = await bootstrapOrganization(a.database.prisma, { organizationTitle: "Typed two", email: "typed-rt@example.com" });
    const graphql = async (url: string, query: string, variables: Record<string, unknown>) => {
      const response = await fetch(`${url}/graphql`, {
        method: "POST",
        headers: { authorization: `Bearer ${admin.token}`, "content-type": "application/json" },
        body: JSON.stringify({ query, variables }),
      });
      return ((await response.json()) as { data: any }).data;
    };
    const space = (
      await graphql(a.url, `mutation($input: CreateSpaceInput!) { createSpace(input: $input) { space { id } } }`, {
        input: { organization: admin.organizationId, title: "Typed" },
      })
    ).createSpace.space.id;
    const stream = await subscribeSse(
      b.url,
      admin.token,
      `subscription($space: ID!) { spaceContent(space: $space) { space { revision } revision { pages { title } } changes { changes { type page { title } } } } }`,
      { space },
    );
    opened.push({ close: async () => stream.close() });
    await waitOpen(() => b.app.services.realtime.openSubscriptions, 1);
    const created = await graphql(a.url, `mutation($input: CreatePageInput!) { createPage(input: $input) { space { revision } } }`, {
      input: { space, title: "From A", markdown: "Hi.\n" },
    });
    const message = await stream.next(1000);
    expect(JSON.parse(message!.data).data.spaceContent).toEqual({
      space: { revision: created.createPage.space.revision },
      revision: { pages: [{ title: "From A" }] },
      changes: { changes: [{ type: "PAGE_CREATED", page: { title: "From A" } }] },
    });
  });
});
