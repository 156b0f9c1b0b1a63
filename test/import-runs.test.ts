// Import runs: a website import started in the background as a job, through the official client
// and the published schema; its progress, completion with every page, cancellation (nothing
// written), a run that never reported back (failed), bounds (active runs per organization, a source
// that never answers), bad input naming the field with nothing changed, and another organization's
// ids unknown. The websites are served by local HTTP servers of the test.
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTIVE_IMPORT_RUNS_MAX } from "../src/core/import/runs.ts";
import { expectRestError, graphqlData, publishedRest } from "./support/expect.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let site: Server;
let siteUrl: string;
let A: { organizationId: string; token: string; userId: string };
let B: { organizationId: string; token: string; userId: string };
/** Answers of /slow held until the test releases them. */
const held: ServerResponse[] = [];

const PAGES: Record<string, string> = {
  "/": `<title>Home</title><main><h1>Welcome</h1><a href="/guide/install">Install</a></main>`,
  "/guide/install": `<title>Install</title><main><p>Run it.</p></main>`,
  "/slow-root": `<title>Slow</title><main><a href="/slow">Slow page</a></main>`,
};

beforeAll(async () => {
  site = createServer((req, res) => {
    if (req.url === "/slow") {
      held.push(res);
      return;
    }
    if (req.url === "/never") return; // never answers
    const page = PAGES[req.url ?? ""];
    if (!page) return res.writeHead(404).end();
    res.writeHead(200, { "content-type": "text/html" }).end(page);
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  server = await startTestServer({ importLimits: { requestTimeoutMs: 4000, totalTimeoutMs: 8000 } });
  A = await server.bootstrap("Imports");
  B = await server.bootstrap("Others");
});

afterAll(async () => {
  release();
  await server?.close();
  await new Promise((resolve) => site?.close(resolve));
});

function release() {
  for (const res of held.splice(0)) if (!res.writableEnded) res.writeHead(200, { "content-type": "text/html" }).end("<title>Slow</title>");
}

const base = (org = A.organizationId) => `/v1/org/${org}/imports`;

async function newSpace(token = A.token, org = A.organizationId): Promise<string> {
  return (await server.rest(token, "POST", `/v1/orgs/${org}/spaces`, { title: "Imported" })).body.id;
}

/** The run once `done` says it is where the test waits for it (polled over REST). */
async function waitFor(id: string, done: (run: any) => boolean, org = A.organizationId) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const run = (await publishedRest(server, A.token, "GET", `${base(org)}/${id}`)).body;
    if (done(run)) return run;
    if (Date.now() > deadline) throw new Error(`run ${id} is still ${JSON.stringify(run)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const revisions = (space: string) => server.database.prisma.revision.count({ where: { spaceId: space } });

describe("an import run", () => {
  it("starts pending, runs as a job and completes with every page, its revision the space's head", async () => {
    const space = await newSpace();
    const started = await server.client(A.token).org.startImportRun(A.organizationId, {
      source: { type: "website", url: `${siteUrl}/` },
      target: { space },
    });
    expect(started.status).toBe(201);
    expect(started.data).toMatchObject({
      object: "import-run",
      status: "pending",
      source: { type: "website", url: `${siteUrl}/` },
      target: { space },
      createdBy: A.userId,
      pages: [],
    });
    expect(started.data.urls!.location).toBe(`${server.url}/v1/org/${A.organizationId}/imports/${started.data.id}`);

    const run = await waitFor(started.data.id, (r) => r.status === "completed");
    expect(run.completedAt).toBeDefined();
    expect(run.pages.map(({ sourceURL, type, status }: any) => ({ sourceURL, type, status }))).toEqual([
      { sourceURL: `${siteUrl}/`, type: "page", status: "complete" },
      { sourceURL: undefined, type: "folder", status: "complete" },
      { sourceURL: `${siteUrl}/guide/install`, type: "page", status: "complete" },
    ]);
    // The ids are those of the pages in the space.
    const pages = (await publishedRest(server, A.token, "GET", `/v1/spaces/${space}/content`)).body.pages;
    const titles = (list: any[]): string[] => list.flatMap((page) => [`${page.id} ${page.title}`, ...titles(page.pages ?? [])]);
    expect(titles(pages)).toEqual([`${run.pages[0].id} Home`, `${run.pages[1].id} Guide`, `${run.pages[2].id} Install`]);

    const data = await graphqlData(
      server,
      A.token,
      `query($org: ID!, $id: ID!) { organization(id: $org) { importRun(id: $id) { status pagesFetched revision space } } }`,
      { org: A.organizationId, id: run.id },
    );
    const head = await server.database.prisma.space.findUniqueOrThrow({ where: { id: space } });
    expect(data.organization.importRun).toEqual({ status: "completed", pagesFetched: 2, revision: head.revisionId, space });

    const listed = await publishedRest(server, A.token, "GET", `${base()}?space=${space}`);
    expect(listed.body.items.map((item: any) => item.id)).toEqual([run.id]);
    expect((await publishedRest(server, A.token, "GET", `${base()}?space=${space}&status=active`)).body.items).toEqual([]);
    expect((await publishedRest(server, A.token, "GET", `${base()}?space=${space}&status=completed`)).body.count).toBe(1);
  });

  it("is cancelled at once: its import stops at the next page and writes no revision", async () => {
    const space = await newSpace();
    const before = await revisions(space);
    const { data } = await server.client(A.token).org.startImportRun(A.organizationId, {
      source: { type: "website", url: `${siteUrl}/slow-root` },
      target: { space },
    });
    // The root is read (its page pending in the progress); the next page is held.
    const running = await waitFor(data.id, (r) => r.status === "in-progress" && r.pages.length === 1);
    expect(running.pages[0]).toMatchObject({ sourceURL: `${siteUrl}/slow-root`, type: "page", status: "pending" });
    await waitFor(data.id, () => held.length > 0);

    const cancelled = await server.client(A.token).org.cancelImportRun(A.organizationId, data.id);
    expect(cancelled.data.status).toBe("cancelled");
    release();
    // The job ends (its row goes) without writing.
    const deadline = Date.now() + 30_000;
    while ((await server.database.prisma.job.count({ where: { kind: "import-run" } })) > 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await revisions(space)).toBe(before);
    expect((await publishedRest(server, A.token, "GET", `${base()}/${data.id}`)).body.status).toBe("cancelled");

    // An ended run cannot be cancelled.
    await expectRestError(server.client(A.token).org.cancelImportRun(A.organizationId, data.id), 400, "cancelled");
  });

  it("fails within the import's time bound when its source never answers, with the reason", async () => {
    const space = await newSpace();
    const { data } = await server.client(A.token).org.startImportRun(A.organizationId, {
      source: { type: "website", url: `${siteUrl}/never` },
      target: { space },
    });
    const run = await waitFor(data.id, (r) => r.status === "failed");
    expect(run.reason).toContain("no HTTP answer");
  });

  it("is failed when its job is gone without it reporting back", async () => {
    const space = await newSpace();
    const now = server.clock.now();
    await server.database.prisma.importRun.create({
      data: {
        id: "imp_abandoned",
        organizationId: A.organizationId,
        spaceId: space,
        sourceType: "website",
        sourceUrl: `${siteUrl}/`,
        status: "in-progress",
        jobId: "job_gone",
        createdById: A.userId,
        createdByTokenId: "tok_x",
        createdAt: now,
        updatedAt: now,
        startedAt: now,
      },
    });
    const run = (await publishedRest(server, A.token, "GET", `${base()}/imp_abandoned`)).body;
    expect(run.status).toBe("failed");
    expect(run.reason).toContain("without reporting back");
  });
});

describe("bounds", () => {
  it(`holds at most ${ACTIVE_IMPORT_RUNS_MAX} active runs per organization, and answers others meanwhile`, async () => {
    const space = await newSpace();
    const ids: string[] = [];
    for (let n = 0; n < ACTIVE_IMPORT_RUNS_MAX; n++) {
      const { data } = await server.client(A.token).org.startImportRun(A.organizationId, {
        source: { type: "website", url: `${siteUrl}/slow-root` },
        target: { space },
      });
      ids.push(data.id);
    }
    await expectRestError(
      server.client(A.token).org.startImportRun(A.organizationId, { source: { type: "website", url: `${siteUrl}/` }, target: { space } }),
      429,
      `at most ${ACTIVE_IMPORT_RUNS_MAX}`,
    );
    // While runs are under way, the service answers.
    const listed = await publishedRest(server, A.token, "GET", `${base()}?status=active`);
    expect(listed.body.count).toBe(ACTIVE_IMPORT_RUNS_MAX);
    for (const id of ids) await server.client(A.token).org.cancelImportRun(A.organizationId, id);
    release();
  });
});

describe("bad input", () => {
  it("names the field on both surfaces, and starts nothing", async () => {
    const space = await newSpace();
    const count = () => server.database.prisma.importRun.count({ where: { organizationId: A.organizationId } });
    const before = await count();
    const cases: [unknown, string][] = [
      [{ target: { space } }, "source is required"],
      [{ source: { type: "website", url: `${siteUrl}/` } }, "target is required"],
      [{ source: "x", target: { space } }, "source must be an object"],
      [{ source: { type: "book", url: `${siteUrl}/` }, target: { space } }, "source.type must be one of website, file"],
      [{ source: { type: "file", files: ["a"] }, target: { space } }, "source.type file is not supported"],
      [{ source: { type: "website", url: "ftp://example.com/" }, target: { space } }, "source.url"],
      [{ source: { type: "website", url: `${siteUrl}/` }, target: {} }, "target.space"],
      [{ source: { type: "website", url: `${siteUrl}/` }, target: { space, page: "pg_nope" } }, "target.page"],
    ];
    for (const [body, mentions] of cases) {
      const response = await publishedRest(server, A.token, "POST", base(), body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.message).toContain(mentions);
    }
    const graphql = await server.graphql(A.token, `mutation($input: StartImportRunInput!) { startImportRun(input: $input) { id } }`, {
      input: { organization: A.organizationId, source: { type: "website", url: "ftp://x/" }, target: { space } },
    });
    expect(graphql.errors?.[0].extensions?.code).toBe("BAD_REQUEST");
    expect(graphql.errors?.[0].message).toContain("source.url");
    const status = await publishedRest(server, A.token, "GET", `${base()}?status=running`);
    expect(status.status).toBe(400);
    expect(status.body.error.message).toContain("status must be one of");
    expect(await count()).toBe(before);
  });
});

describe("access", () => {
  it("answers another organization's ids as unknown, and refuses a reader", async () => {
    const space = await newSpace();
    const { data } = await server.client(A.token).org.startImportRun(A.organizationId, {
      source: { type: "website", url: `${siteUrl}/` },
      target: { space },
    });
    await waitFor(data.id, (r) => r.status === "completed");
    await expectRestError(server.client(B.token).org.getImportRun(A.organizationId, data.id), 404);
    await expectRestError(server.client(B.token).org.getImportRun(B.organizationId, data.id), 404);
    await expectRestError(server.client(B.token).org.cancelImportRun(B.organizationId, data.id), 404);
    await expectRestError(server.client(B.token).org.listImportRuns(A.organizationId), 404);
    // A's space named from B's organization.
    await expectRestError(
      server.client(B.token).org.startImportRun(B.organizationId, { source: { type: "website", url: `${siteUrl}/` }, target: { space } }),
      404,
    );
    const reader = await server.addMember(A.organizationId, "read");
    await expectRestError(
      server
        .client(reader.token)
        .org.startImportRun(A.organizationId, { source: { type: "website", url: `${siteUrl}/` }, target: { space } }),
      403,
    );
    expect((await server.client(reader.token).org.getImportRun(A.organizationId, data.id)).data.status).toBe("completed");
  });
});
