// Data integrity: revision pointers have foreign keys, list sorts have indexes, and blobs that no
// row names any more are collected, safely with a writer that reuses one at the same moment.
import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectUnreferencedBlobs, storeBlobs } from "../src/core/blobs.ts";
import { newId } from "../src/core/ids.ts";
import { sweepDeletedSpaces } from "../src/core/spaces/index.ts";
import { graphqlData } from "./support/expect.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

let server: TestServer;
let A: { organizationId: string; userId: string; token: string };

beforeAll(async () => {
  server = await startTestServer();
  A = await server.bootstrap("Integrity");
});

afterAll(async () => {
  await server?.close();
});

const sha256 = (text: string) => createHash("sha256").update(Buffer.from(text, "utf8")).digest("hex");
const gql = (query: string, variables?: Record<string, unknown>) => graphqlData(server, A.token, query, variables);

async function newSpace(title: string): Promise<string> {
  const data = await gql(`mutation($input: CreateSpaceInput!) { createSpace(input: $input) { space { id } } }`, {
    input: { organization: A.organizationId, title },
  });
  return data.createSpace.space.id;
}

async function createPage(space: string, markdown: string): Promise<string> {
  const data = await gql(`mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, {
    input: { space, title: "Page", markdown },
  });
  return data.createPage.page.id;
}

const blobExists = async (hash: string) => (await server.database.prisma.blob.count({ where: { hash } })) === 1;

describe("foreign keys on revision pointers", () => {
  it("refuses a space head or a change-request head that names no revision", async () => {
    const space = await newSpace("Pointers");
    const { prisma } = server.database;
    // (The embedded database's adapter loses the constraint's name from the message.)
    await expect(prisma.$executeRawUnsafe(`UPDATE "Space" SET "revisionId" = 'rev_missing' WHERE id = $1`, space)).rejects.toThrow();
    const cr = await gql(`mutation($input: CreateChangeRequestInput!) { createChangeRequest(input: $input) { changeRequest { id } } }`, {
      input: { space, subject: "Pointers" },
    });
    await expect(
      prisma.$executeRawUnsafe(
        `UPDATE "ChangeRequest" SET "revisionInitialId" = 'rev_missing' WHERE id = $1`,
        cr.createChangeRequest.changeRequest.id,
      ),
    ).rejects.toThrow();
    // Unchanged: the space still reads its head.
    const read = await gql(`query($id: ID!) { space(id: $id) { id revision } }`, { id: space });
    expect(await prisma.revision.count({ where: { id: read.space.revision, spaceId: space } })).toBe(1);
  });

  it("still deletes a space with its revisions and change requests in one statement", async () => {
    const space = await newSpace("Doomed");
    await createPage(space, `# Doomed ${randomBytes(4).toString("hex")}`);
    await gql(`mutation($input: CreateChangeRequestInput!) { createChangeRequest(input: $input) { changeRequest { id } } }`, {
      input: { space, subject: "Doomed" },
    });
    await server.database.prisma.space.delete({ where: { id: space } });
    expect(await server.database.prisma.revision.count({ where: { spaceId: space } })).toBe(0);
  });
});

describe("indexes for the list sorts", () => {
  // With sequential scans off, the planner uses an index whenever one can give the order.
  async function plan(sql: string): Promise<string> {
    return server.database.prisma.$transaction(async (tx) => {
      await tx.$executeRawUnsafe("SET LOCAL enable_seqscan = off");
      await tx.$executeRawUnsafe("SET LOCAL enable_sort = off");
      const rows = await tx.$queryRawUnsafe<{ "QUERY PLAN": string }[]>(`EXPLAIN ${sql}`);
      return rows.map((row) => row["QUERY PLAN"]).join("\n");
    });
  }

  it.each([
    [
      `SELECT * FROM "Member" WHERE "organizationId" = 'o' ORDER BY "joinedAt" DESC, "userId" DESC LIMIT 10`,
      "Member_organizationId_joinedAt_userId_idx",
    ],
    [
      `SELECT * FROM "Member" WHERE "organizationId" = 'o' ORDER BY "lastSeenAt" DESC, "userId" DESC LIMIT 10`,
      "Member_organizationId_lastSeenAt_userId_idx",
    ],
    [
      `SELECT * FROM "Collection" WHERE "organizationId" = 'o' ORDER BY "createdAt", id LIMIT 10`,
      "Collection_organizationId_createdAt_id_idx",
    ],
  ])("%s reads %s in order", async (sql, index) => {
    expect(await plan(sql)).toContain(index);
  });
});

describe("unreferenced blobs", () => {
  it("are collected after their space is swept; blobs another space or a spec still names are kept", async () => {
    const marker = randomBytes(6).toString("hex");
    const doomed = await newSpace("Doomed blobs");
    const kept = await newSpace("Kept blobs");
    const shared = `# Shared ${marker}`;
    const own = `# Own ${marker}`;
    const edited = `# Own, edited ${marker}`;
    const page = await createPage(doomed, own);
    await gql(`mutation($input: UpdatePageInput!) { updatePage(input: $input) { page { id } } }`, {
      input: { space: doomed, page, markdown: edited },
    });
    await createPage(doomed, shared);
    await createPage(kept, shared);
    const specText = JSON.stringify({ openapi: "3.0.0", info: { title: marker, version: "1" }, paths: {} });
    const spec = await server.rest(A.token, "POST", `/v1/orgs/${A.organizationId}/openapi`, {
      slug: `integrity-${marker}`,
      source: { text: specText },
    });
    expect(spec.status).toBe(201);

    // Deleted, then swept 7 days later: its revisions are gone.
    await gql(`mutation($input: DeleteSpaceInput!) { deleteSpace(input: $input) { deletedSpaceId } }`, { input: { id: doomed } });
    server.clock.advance(8 * DAY_MS);
    expect(await sweepDeletedSpaces(server.app.services)).toBeGreaterThanOrEqual(1);
    expect(await blobExists(sha256(own))).toBe(true); // within the grace period

    expect(await collectUnreferencedBlobs(server.app.services, 0)).toBeGreaterThanOrEqual(2);
    expect(await blobExists(sha256(own))).toBe(false);
    expect(await blobExists(sha256(edited))).toBe(false);
    expect(await blobExists(sha256(shared))).toBe(true);
    expect(await blobExists(sha256(specText))).toBe(true);
    // The surviving space still reads its page body.
    const read = await gql(`query($id: ID!) { space(id: $id) { content { allPages { markdown } } } }`, { id: kept });
    expect(read.space.content.allPages.map((p: { markdown: string }) => p.markdown)).toContain(shared);
  });

  it("a writer reusing an old unreferenced blob while the collector runs keeps it", async () => {
    const space = await newSpace("Racing");
    const data = Buffer.from(`racing ${randomBytes(6).toString("hex")}`);
    const hash = createHash("sha256").update(data).digest("hex");
    const { prisma } = server.database;
    // Old enough to collect, and named by nothing yet.
    await prisma.$executeRawUnsafe(
      `INSERT INTO "Blob" (hash, data, size, "createdAt") VALUES ($1, $2, $3, now() - interval '2 days')`,
      hash,
      data,
      data.length,
    );

    let collecting: Promise<number> | undefined;
    await prisma.$transaction(async (tx) => {
      await storeBlobs(tx, "revision", [{ hash, data, size: data.length }]);
      // The collector starts while this writer has stored the blob but not yet named it.
      collecting = collectUnreferencedBlobs(server.app.services, DAY_MS);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await tx.revision.create({
        data: {
          id: newId("Revision"),
          spaceId: space,
          files: [{ id: "f1", name: "racing.txt", contentType: "text/plain", size: data.length, blob: hash }],
        },
      });
    });
    await collecting;
    expect(await blobExists(hash)).toBe(true);
    // Once nothing names it, the next collection takes it.
    await prisma.revision.deleteMany({ where: { spaceId: space, files: { array_contains: [{ blob: hash }] } } });
    await collectUnreferencedBlobs(server.app.services, DAY_MS);
    expect(await blobExists(hash)).toBe(false);
  });
});
