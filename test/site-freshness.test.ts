// Readers' views keep what they read of the database (a site's fingerprint, share-link checks) in
// memory until a write of the tables it is made of (src/db/change-feed.ts): a repeated view sends
// no statement, and every kind of change still shows on the very next view of the same instance.
// Each check below first makes sure the view is served from memory (no read), then changes one
// thing, then expects the change: it fails if what was kept were stale. On PostgreSQL, two
// instances on one database: a write through one shows on the other's next view (its NOTIFY),
// and a lost listener connection drops what was kept until it is back.
import { SignJWT } from "jose";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../src/app.ts";
import { SiteCache } from "../src/core/sites/serve.ts";
import { ChangeFeed, SITE_CHANNEL, SITE_TABLES } from "../src/db/change-feed.ts";
import { openDatabase } from "../src/db/client.ts";
import { createHttpServer } from "../src/http/client-error.ts";
import { createScratchDatabase } from "./support/database.ts";
import { graphqlData } from "./support/expect.ts";
import { requestWithHost, startTestServer, type TestServer } from "./support/server.ts";
import { ADAPTIVE_SCHEMA, serveAtHostname } from "./support/sites.ts";

const serverUrl = process.env.DATABASE_URL;

describe("what a statement writes", () => {
  it("finds writes of the site tables in Prisma's statements and raw SQL, and nothing else", () => {
    const feed = new ChangeFeed(true);
    for (const sql of [
      'INSERT INTO "public"."Site" ("id","title") VALUES ($1,$2) RETURNING "public"."Site"."id"',
      'UPDATE "public"."Space" SET "revisionId" = $1 WHERE ("public"."Space"."id" = $2)',
      'DELETE FROM "public"."SiteShareLink" WHERE "id" = $1',
      'INSERT INTO "public"."IntegrationSiteInstallation" ("installationId") VALUES ($1) ON CONFLICT ("installationId") DO UPDATE SET "x" = 1',
      'WITH moved AS (SELECT 1) UPDATE "SiteSection" SET "sortKey" = $1',
      'update "Organization" set title = $1',
      'TRUNCATE TABLE "SiteSpace"',
    ])
      expect(feed.touches(sql), sql).toBe(true);
    for (const sql of [
      'SELECT "public"."Site"."id" FROM "public"."Site" WHERE "id" = $1',
      'SELECT 1 FROM "Space" WHERE "id" = $1 FOR UPDATE',
      'INSERT INTO "public"."Revision" ("id","spaceId") SELECT $1, "id" FROM "public"."Space"',
      'UPDATE "public"."Job" SET "lockedAt" = $1',
      'INSERT INTO "RateLimiterFlexible" ("key") VALUES ($1) ON CONFLICT ("key") DO UPDATE SET "points" = 1',
      "COMMIT",
    ])
      expect(feed.touches(sql), sql).toBe(false);
  });
});

describe("what a view keeps", () => {
  it("keeps nothing read while a write became visible, and nothing while the feed does not hear every process", async () => {
    const feed = new ChangeFeed(true);
    const cache = new SiteCache(feed);
    let reads = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // A view reads the old value; a write becomes visible (the bump) before the read ends.
    const slow = cache.remember("k", 0, async () => {
      reads++;
      await gate;
      return "old";
    });
    feed.changed();
    release();
    expect(await slow).toBe("old");
    // Not kept: the next view reads again, and keeps that.
    expect(await cache.remember("k", 0, async () => (reads++, "new"))).toBe("new");
    expect(await cache.remember("k", 0, async () => (reads++, "newer"))).toBe("new");
    expect(reads).toBe(2);
    // A write drops it; so does the age bound.
    feed.changed();
    expect(await cache.remember("k", 0, async () => (reads++, "after write"))).toBe("after write");
    expect(await cache.remember("k", 4_999, async () => (reads++, "young"))).toBe("after write");
    expect(await cache.remember("k", 5_000, async () => (reads++, "aged"))).toBe("aged");
    // A feed that does not hear other processes (a PostgreSQL listener down): read every time.
    feed.live = false;
    expect(await cache.remember("k", 5_000, async () => (reads++, "a"))).toBe("aged");
    feed.changed();
    expect(await cache.remember("k", 5_000, async () => (reads++, "b"))).toBe("b");
    expect(await cache.remember("k", 5_000, async () => (reads++, "c"))).toBe("c");
    expect(reads).toBe(6);
  });
});

describe(`every kind of change shows on the next view (${serverUrl ? "PostgreSQL" : "PGlite"})`, () => {
  let server: TestServer;
  let A: { organizationId: string; token: string; userId: string };
  const api = () => server.client(A.token);
  const gql = <T = any>(query: string, variables?: Record<string, unknown>) => graphqlData<T>(server, A.token, query, variables);

  beforeAll(async () => {
    server = await startTestServer();
    A = await server.bootstrap("Fresh readers");
  });
  afterAll(async () => {
    await server?.close();
  });

  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, { headers, redirect: "manual" }).then(async (response) => ({
      status: response.status,
      etag: response.headers.get("etag"),
      body: await response.text(),
    }));

  /** A view served from memory: nothing read, nothing rendered. Returns it. */
  async function kept(path: string, headers: Record<string, string> = {}) {
    let view = await get(path, headers);
    // On PostgreSQL the notification of this instance's own last write may still be on its way
    // (it drops what was kept once more): a few views until one is served from memory.
    // (Statements are not counted here: an integration's events may be delivered meanwhile.)
    await expect
      .poll(
        async () => {
          const { reads, renders } = server.app.siteCache;
          view = await get(path, headers);
          return { reads: server.app.siteCache.reads - reads, renders: server.app.siteCache.renders - renders };
        },
        { message: `${path} served from memory` },
      )
      .toEqual({ reads: 0, renders: 0 });
    return view;
  }

  it("has a NOTIFY trigger on every site table", async () => {
    const rows = await server.database.prisma.$queryRawUnsafe<{ table: string }[]>(
      `SELECT c.relname AS table FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid WHERE t.tgname = c.relname || '_notify_site_data'`,
    );
    expect(rows.map((row) => row.table).sort()).toEqual([...SITE_TABLES].sort());
  });

  async function spaceWith(title: string, markdown: string) {
    const { data: space } = await api().orgs.createSpace(A.organizationId, { title });
    const { createPage } = await gql(`mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, {
      input: { space: space.id, title: "Home", markdown },
    });
    return { id: space.id as string, pageId: createPage.page.id as string };
  }

  it("the site's row, structure and customization, its spaces' heads, titles and deletion, publishing", async () => {
    const space = await spaceWith("Fresh space", "First words.");
    const { data: site } = await api().orgs.createSite(A.organizationId, { title: "Fresh docs", spaces: [space.id] });
    await api().orgs.publishSite(A.organizationId, site.id);
    const home = `/sites/${site.id}/`;
    let before = await kept(home);
    expect(before.body).toContain("First words.");

    // An edit of the space's head.
    await gql(`mutation($input: UpdatePageInput!) { updatePage(input: $input) { page { id } } }`, {
      input: { space: space.id, page: space.pageId, markdown: "Edited words." },
    });
    expect((await get(home)).body).toContain("Edited words.");

    // A merged change request.
    before = await kept(home);
    const { data: changeRequest } = await api().spaces.createChangeRequest(space.id, { subject: "Rewrite" });
    await gql(`mutation($input: UpdatePageInput!) { updatePage(input: $input) { revision { id } } }`, {
      input: { space: space.id, changeRequest: changeRequest.id, page: space.pageId, markdown: "Merged words." },
    });
    expect((await kept(home)).etag).toBe(before.etag);
    await api().spaces.mergeChangeRequest(space.id, changeRequest.id);
    expect((await get(home)).body).toContain("Merged words.");

    // The space's title (llms.txt lists it).
    expect((await kept(`/sites/${site.id}/llms.txt`)).body).toContain("## Fresh space");
    await api().spaces.updateSpaceById(space.id, { title: "Renamed space" });
    expect((await get(`/sites/${site.id}/llms.txt`)).body).toContain("## Renamed space");

    // The site's own row.
    await kept(home);
    await api().orgs.updateSiteById(A.organizationId, site.id, { title: "Retitled docs" });
    expect((await get(home)).body).toContain(">Retitled docs</a>");

    // Its customization, and a site space's override.
    await kept(home);
    const settings = (await api().orgs.getSiteCustomizationById(A.organizationId, site.id)).data;
    await api().orgs.updateSiteCustomizationById(A.organizationId, site.id, { ...settings, title: "Branded" } as never);
    expect((await get(home)).body).toContain(">Branded</a>");
    await kept(home);
    const [siteSpace] = (await api().orgs.listSiteSpaces(A.organizationId, site.id)).data.items;
    await api().orgs.overrideSiteSpaceCustomizationById(A.organizationId, site.id, siteSpace.id, { title: "Overridden" } as never);
    expect((await get(home)).body).toContain(">Overridden</a>");

    // A site space added (the variant switcher), a section added (the tabs).
    await kept(home);
    const variant = await spaceWith("Second variant", "Variant words.");
    await api().orgs.addSpaceToSite(A.organizationId, site.id, { spaceId: variant.id });
    expect((await get(home)).body).toContain('aria-label="Variants"');
    await kept(home);
    const tab = await spaceWith("Tab space", "Tab words.");
    const section = (await api().orgs.addSectionToSite(A.organizationId, site.id, { spaceId: tab.id, title: "Reference tab" })).data;
    expect((await get(home)).body).toContain(">Reference tab</a>");

    // A section's condition: hidden from a visitor without the claim.
    await kept(home);
    await api().orgs.updateSiteSectionById(A.organizationId, site.id, section.id, { condition: 'visitor.claims.plan == "pro"' });
    expect((await get(home)).body).not.toContain(">Reference tab</a>");

    // The variant's space deleted: it leaves the switcher.
    await kept(home);
    await api().spaces.deleteSpaceById(variant.id);
    expect((await get(home)).body).not.toContain('aria-label="Variants"');

    // Unpublished, published, deleted.
    await kept(home);
    await api().orgs.unpublishSite(A.organizationId, site.id);
    expect((await get(home)).status).toBe(404);
    await kept(home);
    await api().orgs.publishSite(A.organizationId, site.id);
    expect((await get(home)).status).toBe(200);
    await kept(home);
    await api().orgs.deleteSiteById(A.organizationId, site.id);
    expect((await get(home)).status).toBe(404);
  });

  it("the adaptive schema, the publishing-auth key and share links", async () => {
    const space = await spaceWith("Claims space", "Claimed words.");
    const { data: site } = await api().orgs.createSite(A.organizationId, { title: "Claims docs", spaces: [space.id] });
    await api().orgs.publishSite(A.organizationId, site.id);
    const [siteSpace] = (await api().orgs.listSiteSpaces(A.organizationId, site.id)).data.items;
    const beta = await spaceWith("Beta space", "Beta words.");
    await api().orgs.addSpaceToSite(A.organizationId, site.id, { spaceId: beta.id });
    const betaSiteSpace = (await api().orgs.listSiteSpaces(A.organizationId, site.id)).data.items.find((s) => s.id !== siteSpace.id)!;
    await api().orgs.updateSiteSpaceById(A.organizationId, site.id, betaSiteSpace.id, {
      condition: "visitor.claims.unsigned.beta == true",
    });
    // The claim does not validate against the (empty) schema yet: the beta variant stays hidden.
    const claimed = `/sites/${site.id}/?visitor.beta=true`;
    expect((await kept(claimed)).body).not.toContain("Beta space");
    await api().orgs.updateSiteAdaptiveSchema(A.organizationId, site.id, { jsonSchema: ADAPTIVE_SCHEMA } as never);
    expect((await get(claimed)).body).toContain("Beta space");

    // Visitor auth: a new key refuses the old token at once.
    await api().orgs.updateSiteById(A.organizationId, site.id, { visibility: "visitor-auth" } as never);
    const key = (await api().orgs.getSitePublishingAuthById(A.organizationId, site.id)).data.privateKey;
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setExpirationTime(Math.floor(server.clock.now().getTime() / 1000) + 3600)
      .sign(new TextEncoder().encode(key));
    const signed = `/sites/${site.id}/?jwt_token=${token}`;
    expect((await kept(signed)).status).toBe(200);
    await api().orgs.regenerateSitePublishingAuthById(A.organizationId, site.id);
    expect((await get(signed)).status).toBe(401);

    // Share links: revoked, re-enabled, deleted.
    await api().orgs.updateSiteById(A.organizationId, site.id, { visibility: "share-link" } as never);
    const link = (await api().orgs.createSiteShareLink(A.organizationId, site.id, { name: "Fresh link" })).data;
    const shared = `/sites/${site.id}/?shareKey=${new URL(link.urls.published!).searchParams.get("shareKey")}`;
    expect((await kept(shared)).status).toBe(200);
    await api().orgs.updateSiteShareLinkById(A.organizationId, site.id, link.id, { active: false });
    expect((await kept(shared)).status).toBe(403);
    await api().orgs.updateSiteShareLinkById(A.organizationId, site.id, link.id, { active: true });
    expect((await kept(shared)).status).toBe(200);
    await api().orgs.deleteSiteShareLinkById(A.organizationId, site.id, link.id);
    expect((await get(shared)).status).toBe(403);
  });

  it("a custom hostname, set and moved", async () => {
    const space = await spaceWith("Host space", "Host words.");
    const { data: site } = await api().orgs.createSite(A.organizationId, { title: "Host docs", spaces: [space.id] });
    await api().orgs.publishSite(A.organizationId, site.id);
    // Kept under the hostname (its own key); a hostname change is a write of the site's row.
    const getWithHost = (path: string, host: string) => requestWithHost(server.url, path, host);
    await serveAtHostname(server, A.token, A.organizationId, site.id, "fresh.example.com");
    expect((await getWithHost("/", "fresh.example.com")).status).toBe(200);
    const reads = server.app.siteCache.reads;
    expect((await getWithHost("/", "fresh.example.com")).status).toBe(200);
    expect(server.app.siteCache.reads).toBe(reads);
    await serveAtHostname(server, A.token, A.organizationId, site.id, "moved.example.com");
    // The old name is no site's any more: the service's own landing page answers it.
    expect((await getWithHost("/", "fresh.example.com")).body).not.toContain("Host words.");
    expect((await getWithHost("/", "moved.example.com")).body).toContain("Host words.");
  });

  it("integrations installed on the site, configured and uninstalled", async () => {
    const name = `fresh-${Date.now().toString(36)}`;
    const published = await server.rest(A.token, "POST", `/v1/integrations/${name}`, {
      organization: A.organizationId,
      title: "Fresh script",
      script: `export default { async fetch() { return new Response("OK"); } };`,
      visibility: "private",
      scopes: ["site:script:inject"],
    });
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    const installed = await server.rest(A.token, "POST", `/v1/integrations/${name}/installations`, { organization: A.organizationId });
    expect(installed.status, JSON.stringify(installed.body)).toBe(201);
    const installation = installed.body.id as string;
    const space = await spaceWith("Scripted space", "Scripted words.");
    const { data: site } = await api().orgs.createSite(A.organizationId, { title: "Scripted docs", spaces: [space.id] });
    await api().orgs.publishSite(A.organizationId, site.id);
    const home = `/sites/${site.id}/`;

    expect((await kept(home)).body).not.toContain(`/v1/integrations/${name}/`);
    await api().integrations.installIntegrationOnSite(name, installation, { siteId: site.id });
    expect((await get(home)).body).toContain(`/v1/integrations/${name}/installations/${installation}/sites/${site.id}/script.js`);
    const before = await kept(home);
    await server.rest(A.token, "PATCH", `/v1/integrations/${name}/installations/${installation}`, { configuration: { fresh: 1 } });
    expect((await get(home)).etag).not.toBe(before.etag);
    await kept(home);
    await api().integrations.uninstallIntegrationFromSite(name, installation, site.id);
    expect((await get(home)).body).not.toContain(`/v1/integrations/${name}/`);
  });
});

describe.runIf(serverUrl)("two instances on one PostgreSQL", () => {
  const opened: { close(): Promise<void> }[] = [];
  afterAll(async () => {
    for (const thing of opened.reverse()) await thing.close();
  });

  async function instance(url: string) {
    const database = await openDatabase({ databaseUrl: url });
    const server = createHttpServer({}, (req, res) => handler(req, res));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const publicUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const app = createApp({
      database,
      config: { publicUrl, rateLimits: { perToken: 1e6, perAddress: 1e6, windowSeconds: 60 } },
      startJobs: false,
    });
    const handler = app.yoga;
    opened.push({
      close: async () => {
        await new Promise((resolve) => server.close(resolve));
        await app.close();
        await database.close();
      },
    });
    return { database, app, url: publicUrl };
  }

  it("shows a write through one on the other's next view within the bound, and keeps nothing while its listener is down", async () => {
    const scratch = await createScratchDatabase(serverUrl!);
    opened.push({ close: () => scratch.drop() });
    const a = await instance(scratch.url);
    const b = await instance(scratch.url);
    expect(a.database.changes.live && b.database.changes.live).toBe(true);
    const { bootstrapOrganization } = await import("../src/core/bootstrap/index.ts");
    const admin = await bootstrapOrganization(a.database.prisma, { organizationTitle: "Two", email: "two@example.com" });
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${a.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${admin.token}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      expect(response.status, text).toBeLessThan(300);
      return text ? JSON.parse(text) : undefined;
    };
    const space = await call("POST", `/v1/orgs/${admin.organizationId}/spaces`, { title: "Shared" });
    const site = await call("POST", `/v1/orgs/${admin.organizationId}/sites`, { title: "Two docs", spaces: [space.id] });
    await call("POST", `/v1/orgs/${admin.organizationId}/sites/${site.id}/publish`);
    const viewB = async () => (await fetch(`${b.url}/sites/${site.id}/`)).text();
    expect(await viewB()).toContain(">Two docs</a>");
    // B keeps the fingerprint (once the notifications of the set-up writes have all arrived).
    const readsOfAView = async () => {
      const before = b.app.siteCache.reads;
      await viewB();
      return b.app.siteCache.reads - before;
    };
    await expect.poll(readsOfAView).toBe(0);

    // A write through A: B's views show it once the notification arrives (well within a second here).
    await call("PATCH", `/v1/orgs/${admin.organizationId}/sites/${site.id}`, { title: "Renamed on A" });
    const started = Date.now();
    while (!(await viewB()).includes(">Renamed on A</a>")) {
      expect(Date.now() - started).toBeLessThan(1_000);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }

    // B's listener connection killed: B keeps nothing (every view reads) until it listens again.
    const admin_ = new pg.Client({ connectionString: scratch.url });
    await admin_.connect();
    try {
      await admin_.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = $1 AND datname = current_database()`, [
        `LISTEN ${SITE_CHANNEL}`,
      ]);
    } finally {
      await admin_.end();
    }
    await expect.poll(() => b.database.changes.live).toBe(false);
    const whileDown = b.app.siteCache.reads;
    await viewB();
    await viewB();
    expect(b.app.siteCache.reads).toBe(whileDown + 2);
    await expect.poll(() => b.database.changes.live, { timeout: 10_000 }).toBe(true);
    await call("PATCH", `/v1/orgs/${admin.organizationId}/sites/${site.id}`, { title: "Renamed again" });
    await expect.poll(viewB, { timeout: 1_000, interval: 20 }).toContain(">Renamed again</a>");
  });
});
