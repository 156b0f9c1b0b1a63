// Site redirects (issue 30, area 5): the six published operations through the official client
// (answers checked against the published schemas), the same redirects in GraphQL, and the site
// server honouring them over plain HTTP: 308/307 before the 404, a page that exists never hidden,
// wildcards, chains followed to their end, loops and long chains refused, drafts not served, the
// page cache dropped when redirects change, rows written past the checks never reaching Location.
// Bad input answers 400 naming the field with nothing changed; another organization's ids are
// unknown; the per-site bound holds while the site still answers.
import { SiteRedirectOrderBy } from "@gitbook/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../src/core/ids.ts";
import { REDIRECTS_PER_SITE_MAX } from "../src/core/sites/redirects.ts";
import { expectGraphQLError, expectRawRestError, expectRestError, graphqlData, publishedRest } from "./support/expect.ts";
import { CHANNEL_QUERY, type EventStream, subscribeSse } from "./support/realtime.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let A: { organizationId: string; token: string; userId: string };
let B: { organizationId: string; token: string; userId: string };
let reader: { token: string };
let editor: { token: string };

const gql = <T = any>(query: string, variables?: Record<string, unknown>, token = A.token) =>
  graphqlData<T>(server, token, query, variables);

/** A REST call whose answer must satisfy the published schema of its operation. */
const rest = (method: string, url: string, body?: unknown, token = A.token) => publishedRest(server, token, method, url, body);

const createPage = `mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`;

interface TestSite {
  siteId: string;
  siteSpaceId: string;
  spaceId: string;
  introId: string;
  guideId: string;
  /** The site's published URL, no trailing slash. */
  base: string;
  /** The API path of its redirects. */
  path: string;
}

/** A published site (public unless `visibility` says) of one space with pages Intro and Guide. */
async function newSite(title: string, organization = A, visibility?: string): Promise<TestSite> {
  const api = server.client(organization.token);
  const { data: space } = await api.orgs.createSpace(organization.organizationId, { title });
  const page = async (pageTitle: string) =>
    (await gql(createPage, { input: { space: space.id, title: pageTitle, markdown: `Text of ${pageTitle}.` } }, organization.token))
      .createPage.page.id as string;
  const introId = await page("Intro");
  const guideId = await page("Guide");
  const { data: site } = await api.orgs.createSite(organization.organizationId, { title, spaces: [space.id] });
  if (visibility) await api.orgs.updateSiteById(organization.organizationId, site.id, { visibility: visibility as never });
  await api.orgs.publishSite(organization.organizationId, site.id);
  const { data: siteSpaces } = await api.orgs.listSiteSpaces(organization.organizationId, site.id);
  return {
    siteId: site.id,
    siteSpaceId: siteSpaces.items[0]!.id,
    spaceId: space.id,
    introId,
    guideId,
    base: `${server.url}/sites/${site.id}`,
    path: `/v1/orgs/${organization.organizationId}/sites/${site.id}`,
  };
}

/** A plain HTTP request of the published site, redirects not followed. */
async function visit(site: TestSite, path: string) {
  const response = await fetch(`${site.base}${path}`, { redirect: "manual" });
  return { status: response.status, location: response.headers.get("location"), body: await response.text() };
}

const redirectsOf = async (site: TestSite, draft = false) =>
  (await server.client(A.token).orgs.listSiteRedirects(A.organizationId, site.siteId, { draft })).data.items;

beforeAll(async () => {
  server = await startTestServer();
  A = await server.bootstrap("Redirecting");
  B = await server.bootstrap("Other redirecting");
  reader = await server.addMember(A.organizationId, "read");
  editor = await server.addMember(A.organizationId, "edit");
});

afterAll(async () => {
  await server?.close();
});

describe("the published site-redirects operations", () => {
  it("create (201), list, read by source, update, delete (205, then 204) with the official client", async () => {
    const site = await newSite("Operations");
    const api = server.client(A.token);
    const created = await api.orgs.createSiteRedirect(A.organizationId, site.siteId, {
      source: "/old-intro",
      destination: { kind: "site-page", siteSpaceId: site.siteSpaceId, pageId: site.introId },
      permanent: true,
    });
    expect(created.status).toBe(201);
    const id = created.data.id;
    expect(created.headers.get("location")).toBe(`${server.url}${site.path}/redirects/${id}`);
    expect(created.data).toEqual({
      object: "site-redirect",
      id: expect.stringMatching(/^srd_/),
      source: "/old-intro",
      draft: false,
      captureWildcard: false,
      permanent: true,
      destination: { kind: "site-page", siteSpaceId: site.siteSpaceId, pageId: site.introId },
      createdAt: expect.any(String),
    });

    // A destination by path (kind path) is stored as the page it names.
    server.clock.advance(1000);
    const byPath = await api.orgs.createSiteRedirect(A.organizationId, site.siteId, {
      source: "/docs/*",
      captureWildcard: true,
      destination: { kind: "path", spaceId: site.spaceId, path: "guide" },
    });
    expect(byPath.data.destination).toEqual({ kind: "site-page", siteSpaceId: site.siteSpaceId, pageId: site.guideId });

    const list = await api.orgs.listSiteRedirects(A.organizationId, site.siteId);
    expect(list.data.items.map((redirect) => redirect.source)).toEqual(["/docs/*", "/old-intro"]);
    expect(list.data.count).toBe(2);
    const bySource = await api.orgs.listSiteRedirects(A.organizationId, site.siteId, { orderBy: SiteRedirectOrderBy.Source });
    expect(bySource.data.items.map((redirect) => redirect.source)).toEqual(["/docs/*", "/old-intro"].sort());
    expect((await api.orgs.listSiteRedirects(A.organizationId, site.siteId, { search: "INTRO" })).data.items.map((r) => r.id)).toEqual([
      id,
    ]);
    // Paged: one per page, the cursor leading to the next.
    const first = await api.orgs.listSiteRedirects(A.organizationId, site.siteId, { limit: 1 });
    expect(first.data.items).toHaveLength(1);
    const second = await api.orgs.listSiteRedirects(A.organizationId, site.siteId, { limit: 1, page: first.data.next!.page });
    expect(second.data.items.map((r) => r.id)).not.toEqual(first.data.items.map((r) => r.id));

    const resolved = await api.orgs.getSiteRedirectBySource(A.organizationId, site.siteId, { source: "/docs/a/b" });
    expect(resolved.data).toEqual({ redirect: byPath.data, target: `${site.base}/guide/a/b` });
    expect((await api.orgs.getSiteRedirectBySource(A.organizationId, site.siteId, { source: "/old-intro" })).data.target).toBe(
      `${site.base}/intro`,
    );
    await expectRestError(api.orgs.getSiteRedirectBySource(A.organizationId, site.siteId, { source: "/nowhere" }), 404, "/nowhere");

    const updated = await api.orgs.updateSiteRedirectById(A.organizationId, site.siteId, id, {
      source: "/older-intro",
      destination: { kind: "external", url: "https://example.com/intro?from=docs" },
    });
    expect(updated.status).toBe(200);
    expect(updated.data).toEqual({
      ...created.data,
      source: "/older-intro",
      destination: { kind: "external", url: "https://example.com/intro?from=docs" },
      updatedAt: expect.any(String),
    });
    expect(Date.parse(updated.data.updatedAt!)).toBeGreaterThan(Date.parse(created.data.createdAt));

    const readerApi = server.client(reader.token);
    expect((await readerApi.orgs.listSiteRedirects(A.organizationId, site.siteId)).data.count).toBe(2);

    expect((await api.orgs.deleteSiteRedirectById(A.organizationId, site.siteId, id)).status).toBe(205);
    expect((await api.orgs.deleteSiteRedirectById(A.organizationId, site.siteId, id)).status).toBe(204);
    expect((await redirectsOf(site)).map((r) => r.id)).toEqual([byPath.data.id]);
  });

  it("bulk upsert: creates, updates, deletes, drafts and publishes, one result per item", async () => {
    const site = await newSite("Bulk");
    const api = server.client(A.token);
    const external = (url: string) => ({ kind: "external" as const, url });
    const first = await api.orgs.bulkUpsertSiteRedirects(A.organizationId, site.siteId, {
      redirects: [
        { source: "/a", destination: external("https://example.com/a") },
        { source: "/b", intent: "draft", destination: external("https://example.com/b"), permanent: true },
      ],
    });
    expect(first.status).toBe(200);
    expect(first.data.results).toEqual([
      { status: "created", source: "/a", draft: false, id: expect.stringMatching(/^srd_/) },
      { status: "created", source: "/b", draft: true, id: expect.stringMatching(/^srd_/) },
    ]);
    const aId = (first.data.results[0] as { id: string }).id;
    const second = await api.orgs.bulkUpsertSiteRedirects(A.organizationId, site.siteId, {
      redirects: [
        { source: "/a", destination: external("https://example.com/a2") },
        { source: "/b", intent: "publish" },
        { source: "/c", destination: null },
      ],
    });
    expect(second.data.results).toEqual([
      { status: "updated", source: "/a", draft: false, id: aId },
      { status: "published", source: "/b", draft: false, id: expect.stringMatching(/^srd_/) },
      { status: "error", source: "/c", draft: false, error: 'no live redirect from "/c" to delete' },
    ]);
    expect(await redirectsOf(site, true)).toEqual([]);
    const live = await redirectsOf(site);
    expect(live.map((r) => [r.source, r.destination, r.permanent]).sort()).toEqual([
      ["/a", external("https://example.com/a2"), false],
      ["/b", external("https://example.com/b"), true],
    ]);
    const third = await api.orgs.bulkUpsertSiteRedirects(A.organizationId, site.siteId, {
      redirects: [{ source: "/a", destination: null }],
    });
    expect(third.data.results).toEqual([{ status: "deleted", source: "/a", draft: false }]);
    expect((await redirectsOf(site)).map((r) => r.source)).toEqual(["/b"]);
  });

  it("GraphQL: the site's redirects, the one a path follows, and the mutations", async () => {
    const site = await newSite("Graph");
    const created = await gql(
      `mutation($input: CreateSiteRedirectInput!) { createSiteRedirect(input: $input) { redirect { id source draft permanent captureWildcard destination { kind siteSpaceId pageId url } updatedAt } } }`,
      {
        input: {
          site: site.siteId,
          source: "/start",
          destination: { kind: "site-space", siteSpaceId: site.siteSpaceId },
          draft: true,
        },
      },
    );
    const redirect = created.createSiteRedirect.redirect;
    expect(redirect).toEqual({
      id: expect.stringMatching(/^srd_/),
      source: "/start",
      draft: true,
      permanent: false,
      captureWildcard: false,
      destination: { kind: "site-space", siteSpaceId: site.siteSpaceId, pageId: null, url: null },
      updatedAt: null,
    });
    const read = `query($id: ID!, $draft: Boolean) { site(id: $id) { redirects(draft: $draft) { totalCount nodes { id } } } }`;
    expect((await gql(read, { id: site.siteId })).site.redirects).toEqual({ totalCount: 0, nodes: [] });
    expect((await gql(read, { id: site.siteId, draft: true })).site.redirects).toEqual({ totalCount: 1, nodes: [{ id: redirect.id }] });
    // Promoted to live: then it is what /start follows.
    await gql(`mutation($input: UpdateSiteRedirectInput!) { updateSiteRedirect(input: $input) { redirect { id } } }`, {
      input: { site: site.siteId, id: redirect.id, draft: false },
    });
    const resolution = await gql(`query($id: ID!) { site(id: $id) { redirect(source: "/start") { target redirect { id draft } } } }`, {
      id: site.siteId,
    });
    expect(resolution.site.redirect).toEqual({ target: `${site.base}/`, redirect: { id: redirect.id, draft: false } });
    const results = await gql(
      `mutation($input: BulkUpsertSiteRedirectsInput!) { bulkUpsertSiteRedirects(input: $input) { results { status source draft id error } } }`,
      { input: { site: site.siteId, redirects: [{ source: "/start", destination: null }] } },
    );
    expect(results.bulkUpsertSiteRedirects.results).toEqual([{ status: "deleted", source: "/start", draft: false, id: null, error: null }]);
    const deleted = await gql(`mutation($input: DeleteSiteRedirectInput!) { deleteSiteRedirect(input: $input) { deletedId existed } }`, {
      input: { site: site.siteId, id: redirect.id },
    });
    expect(deleted.deleteSiteRedirect).toEqual({ deletedId: redirect.id, existed: false });
  });
});

describe("who may read and write redirects", () => {
  it("readers read, only admins write; another organization's site and redirect ids are unknown", async () => {
    const site = await newSite("Roles");
    const api = server.client(A.token);
    const { data: redirect } = await api.orgs.createSiteRedirect(A.organizationId, site.siteId, {
      source: "/roles",
      destination: { kind: "external", url: "https://example.com/" },
    });
    const body = { source: "/x", destination: { kind: "external", url: "https://example.com/x" } };
    await expectRawRestError(server, editor.token, "POST", `${site.path}/redirects`, body, 403);
    await expectRawRestError(server, reader.token, "PATCH", `${site.path}/redirects/${redirect.id}`, { permanent: true }, 403);
    await expectRawRestError(server, reader.token, "DELETE", `${site.path}/redirects/${redirect.id}`, undefined, 403);

    // B's token on A's site, A's site under B's organization: unknown.
    await expectRawRestError(server, B.token, "GET", `${site.path}/redirects`, undefined, 404);
    await expectRawRestError(server, B.token, "POST", `${site.path}/redirects`, body, 404);
    const underB = `/v1/orgs/${B.organizationId}/sites/${site.siteId}`;
    await expectRawRestError(server, A.token, "GET", `${underB}/redirects`, undefined, 404);
    // A redirect of another site (B's) through A's site: unknown, nothing changed.
    const other = await newSite("Other roles", B);
    const { data: theirs } = await server.client(B.token).orgs.createSiteRedirect(B.organizationId, other.siteId, {
      source: "/theirs",
      destination: { kind: "external", url: "https://example.com/theirs" },
    });
    await expectRawRestError(server, A.token, "PATCH", `${site.path}/redirects/${theirs.id}`, { permanent: true }, 404);
    expect((await rest("DELETE", `${site.path}/redirects/${theirs.id}`)).status).toBe(204);
    const kept = (await server.client(B.token).orgs.listSiteRedirects(B.organizationId, other.siteId)).data.items;
    expect(kept).toEqual([theirs]);
    // A destination in another organization's site: refused naming it.
    await expectRawRestError(
      server,
      A.token,
      "POST",
      `${site.path}/redirects`,
      { source: "/y", destination: { kind: "site-space", siteSpaceId: other.siteSpaceId } },
      400,
      "destination.siteSpaceId",
    );
    expectGraphQLError(
      await server.graphql(B.token, `query($id: ID!) { site(id: $id) { redirects { totalCount } } }`, { id: site.siteId }),
      "NOT_FOUND",
    );
  });
});

describe("bad input", () => {
  it("answers 400 naming the field on both surfaces, and changes nothing", async () => {
    const site = await newSite("Bad input");
    const api = server.client(A.token);
    const { data: existing } = await api.orgs.createSiteRedirect(A.organizationId, site.siteId, {
      source: "/kept",
      destination: { kind: "external", url: "https://example.com/kept" },
    });
    const good = { kind: "external", url: "https://example.com/" };
    const cases: [unknown, string][] = [
      [{ destination: good }, "source"],
      [{ source: "no-slash", destination: good }, "source"],
      [{ source: "/a/*/b", destination: good }, "source"],
      [{ source: "/a b", destination: good }, "source"],
      [{ source: `/${"a".repeat(600)}`, destination: good }, "source"],
      [{ source: "/x" }, "destination"],
      [{ source: "/x", destination: { kind: "elsewhere" } }, "destination.kind"],
      [{ source: "/x", destination: { kind: "external", url: "javascript:alert(1)" } }, "destination.url"],
      [{ source: "/x", destination: { kind: "external", url: "https://example.com/\r\nSet-Cookie: a=b" } }, "destination.url"],
      [{ source: "/x", destination: { kind: "external", url: `https://example.com/${"a".repeat(2100)}` } }, "destination.url"],
      [{ source: "/x", destination: { kind: "site-section", siteSectionId: "sec_unknown" } }, "destination.siteSectionId"],
      [{ source: "/x", destination: { kind: "site-page", siteSpaceId: site.siteSpaceId, pageId: "pg_unknown" } }, "destination.pageId"],
      [{ source: "/x", destination: { kind: "path", spaceId: site.spaceId, path: "missing" } }, "destination.path"],
      [{ source: "/x", destination: good, permanent: "yes" }, "permanent"],
      [{ source: "/x", destination: 7 }, "destination"],
    ];
    for (const [body, field] of cases) {
      await expectRawRestError(server, A.token, "POST", `${site.path}/redirects`, body, 400, field);
    }
    // A second live redirect from the same source: a conflict.
    await expectRawRestError(server, A.token, "POST", `${site.path}/redirects`, { source: "/kept", destination: good }, 409, "source");
    await expectRawRestError(server, A.token, "PATCH", `${site.path}/redirects/${existing.id}`, { source: "/../x" }, 400, "source");
    await expectRawRestError(
      server,
      A.token,
      "PATCH",
      `${site.path}/redirects/${existing.id}`,
      { destination: { kind: "external", url: "ftp://example.com/" } },
      400,
      "destination.url",
    );
    await expectRawRestError(server, A.token, "GET", `${site.path}/redirects?orderBy=title`, undefined, 400, "orderBy");
    await expectRawRestError(server, A.token, "GET", `${site.path}/redirect`, undefined, 400, "source");
    await expectRawRestError(server, A.token, "GET", `${site.path}/redirect?source=nope`, undefined, 400, "source");

    // Bulk: one bad item refuses all of them, naming it.
    const bulk: [unknown, string][] = [
      [{ redirects: [] }, "redirects"],
      [{ redirects: Array.from({ length: 501 }, (_, i) => ({ source: `/m${i}`, destination: good })) }, "redirects"],
      [
        {
          redirects: [
            { source: "/ok", destination: good },
            { source: "bad", destination: good },
          ],
        },
        "redirects[1].source",
      ],
      [{ redirects: [{ source: "/ok", destination: good }, { source: "/ok2" }] }, "redirects[1].destination"],
      [
        {
          redirects: [
            { source: "/ok", destination: good },
            { source: "/ok", destination: good },
          ],
        },
        "redirects[1].source",
      ],
      [{ redirects: [{ source: "/ok", intent: "later", destination: good }] }, "redirects[0].intent"],
      [{ redirects: [{ source: "/ok", destination: { kind: "external", url: "data:text/html,x" } }] }, "redirects[0].destination.url"],
    ];
    for (const [body, field] of bulk) {
      await expectRawRestError(server, A.token, "PUT", `${site.path}/redirects`, body, 400, field);
    }

    // GraphQL names the field too.
    const create = `mutation($input: CreateSiteRedirectInput!) { createSiteRedirect(input: $input) { redirect { id } } }`;
    expectGraphQLError(
      await server.graphql(A.token, create, {
        input: { site: site.siteId, source: "/x", destination: { kind: "external", url: "javascript:x" } },
      }),
      "BAD_REQUEST",
      "destination.url",
    );
    expectGraphQLError(
      await server.graphql(A.token, create, { input: { site: site.siteId, source: "x", destination: good } }),
      "BAD_REQUEST",
      "source",
    );
    expectGraphQLError(
      await server.graphql(
        A.token,
        `mutation($input: BulkUpsertSiteRedirectsInput!) { bulkUpsertSiteRedirects(input: $input) { results { status } } }`,
        {
          input: {
            site: site.siteId,
            redirects: [
              { source: "/fine", destination: good },
              { source: "/*x", destination: good },
            ],
          },
        },
      ),
      "BAD_REQUEST",
      "redirects[1].source",
    );

    // Nothing changed: the one redirect, as it was, and no draft.
    expect(await redirectsOf(site)).toEqual([existing]);
    expect(await redirectsOf(site, true)).toEqual([]);
  });
});

describe("the site server honours redirects", () => {
  it("answers 308 (permanent) or 307 before the 404, never hiding a page, and drops its cache when redirects change", async () => {
    const site = await newSite("Served");
    const api = server.client(A.token);
    expect((await visit(site, "/old")).status).toBe(404);
    const { data: permanent } = await api.orgs.createSiteRedirect(A.organizationId, site.siteId, {
      source: "/old",
      permanent: true,
      destination: { kind: "site-page", siteSpaceId: site.siteSpaceId, pageId: site.guideId },
    });
    // The cached 404 is gone with the write.
    expect(await visit(site, "/old")).toMatchObject({ status: 308, location: `${site.base}/guide` });
    expect(await visit(site, "/old/")).toMatchObject({ status: 308, location: `${site.base}/guide` });
    const followed = await fetch(`${site.base}/old`);
    expect(followed.status).toBe(200);
    expect(followed.url).toBe(`${site.base}/guide`);
    expect(await followed.text()).toContain("Text of Guide.");

    await api.orgs.updateSiteRedirectById(A.organizationId, site.siteId, permanent.id, { permanent: false });
    expect(await visit(site, "/old")).toMatchObject({ status: 307, location: `${site.base}/guide` });

    // A page that exists wins over a redirect from its path.
    await api.orgs.createSiteRedirect(A.organizationId, site.siteId, {
      source: "/intro",
      destination: { kind: "external", url: "https://example.com/" },
    });
    expect((await visit(site, "/intro")).status).toBe(200);

    // Wildcards: the longest prefix, the rest appended when captured (encoded).
    await api.orgs.bulkUpsertSiteRedirects(A.organizationId, site.siteId, {
      redirects: [
        { source: "/v1/*", captureWildcard: true, destination: { kind: "external", url: "https://archive.example.com/v1/" } },
        { source: "/v1/api/*", destination: { kind: "site-page", siteSpaceId: site.siteSpaceId, pageId: site.introId } },
        { source: "/blog*", captureWildcard: true, destination: { kind: "external", url: "https://blog.example.com/posts" } },
      ],
    });
    expect(await visit(site, "/v1/setup/a%20b")).toMatchObject({ status: 307, location: "https://archive.example.com/v1/setup/a%20b" });
    expect(await visit(site, "/v1/api/users")).toMatchObject({ status: 307, location: `${site.base}/intro` });
    expect(await visit(site, "/blog-2024/x")).toMatchObject({ status: 307, location: "https://blog.example.com/posts-2024/x" });
    // A captured rest cannot split the header.
    expect(await visit(site, "/v1/a%0D%0ASet-Cookie:%20x=1")).toMatchObject({
      status: 307,
      location: "https://archive.example.com/v1/a%0D%0ASet-Cookie%3A%20x%3D1",
    });

    // Drafts are not served.
    await api.orgs.createSiteRedirect(A.organizationId, site.siteId, {
      source: "/draft-only",
      draft: true,
      destination: { kind: "external", url: "https://example.com/draft" },
    });
    expect((await visit(site, "/draft-only")).status).toBe(404);

    // Deleted: the 404 again.
    await api.orgs.deleteSiteRedirectById(A.organizationId, site.siteId, permanent.id);
    expect((await visit(site, "/old")).status).toBe(404);
  });

  it("follows a chain to its end, refuses loops and chains longer than five", async () => {
    const site = await newSite("Chains");
    const api = server.client(A.token);
    const to = (path: string) => ({ kind: "external" as const, url: `${site.base}${path}` });
    await api.orgs.bulkUpsertSiteRedirects(A.organizationId, site.siteId, {
      redirects: [
        { source: "/one", permanent: true, destination: to("/two") },
        { source: "/two", permanent: true, destination: to("/three") },
        { source: "/three", permanent: true, destination: { kind: "site-page", siteSpaceId: site.siteSpaceId, pageId: site.introId } },
        // A loop through the site's own URLs.
        { source: "/ping", destination: to("/pong") },
        { source: "/pong", destination: to("/ping") },
        { source: "/self", destination: to("/self") },
        // Seven hops.
        ...Array.from({ length: 7 }, (_, i) => ({ source: `/hop${i}`, destination: to(`/hop${i + 1}`) })),
        { source: "/hop7", destination: { kind: "site-page", siteSpaceId: site.siteSpaceId, pageId: site.guideId } },
      ],
    });
    expect(await visit(site, "/one")).toMatchObject({ status: 308, location: `${site.base}/intro` });
    expect((await visit(site, "/ping")).status).toBe(404);
    expect((await visit(site, "/self")).status).toBe(404);
    expect((await visit(site, "/hop0")).status).toBe(404);
    // Three hops from the end: within the bound.
    expect(await visit(site, "/hop5")).toMatchObject({ status: 307, location: `${site.base}/guide` });
    // A chain ending on a path without page or redirect sends there (its 404 is the next request's).
    await api.orgs.createSiteRedirect(A.organizationId, site.siteId, { source: "/gone", destination: to("/nothing-here") });
    expect(await visit(site, "/gone")).toMatchObject({ status: 307, location: `${site.base}/nothing-here` });
  });

  it("a share-link site answers 307 even for a permanent redirect", async () => {
    const site = await newSite("Private", A, "share-link");
    const api = server.client(A.token);
    const { data: link } = await api.orgs.createSiteShareLink(A.organizationId, site.siteId, { name: "test" });
    await api.orgs.createSiteRedirect(A.organizationId, site.siteId, {
      source: "/old",
      permanent: true,
      destination: { kind: "site-page", siteSpaceId: site.siteSpaceId, pageId: site.guideId },
    });
    const key = new URL(link.urls.published!).searchParams.get("shareKey")!;
    const response = await fetch(`${site.base}/old?shareKey=${encodeURIComponent(key)}`, { redirect: "manual" });
    expect(response.status).toBe(307);
    expect(response.headers.get("location")).toBe(`${site.base}/guide`);
  });

  it("a row written past the checks never reaches the Location header", async () => {
    const site = await newSite("Tampered");
    const now = new Date();
    for (const [source, url] of [
      ["/script", "javascript:alert(1)"],
      ["/split", "https://example.com/\r\nSet-Cookie: a=b"],
      ["/data", "data:text/html,<script>alert(1)</script>"],
    ]) {
      await server.database.prisma.siteRedirect.create({
        data: {
          id: newId("SiteRedirect"),
          siteId: site.siteId,
          source: source!,
          destination: { kind: "external", url: url! },
          createdAt: now,
          updatedAt: now,
        },
      });
      const answer = await visit(site, source!);
      expect(answer.status).toBe(404);
      expect(answer.location).toBeNull();
    }
  });
});

describe("the site-redirects channel", () => {
  it("sends an event per write of the site's redirects; another organization cannot subscribe", async () => {
    const site = await newSite("Live redirects");
    const streams: EventStream[] = [];
    try {
      const before = server.app.services.realtime.openSubscriptions;
      const stream = await subscribeSse(server.url, A.token, CHANNEL_QUERY, { channel: { channel: "site-redirects", site: site.siteId } });
      streams.push(stream);
      await expect.poll(() => server.app.services.realtime.openSubscriptions).toBe(before + 1);
      const created = await rest("POST", `${site.path}/redirects`, {
        source: "/live",
        destination: { kind: "external", url: "https://example.com/live" },
      });
      const message = await stream.next(3000);
      expect(message?.event).toBe("next");
      expect(JSON.parse(message!.data).data.channel).toMatchObject({
        channel: "site-redirects",
        ids: { site: site.siteId },
        changes: [{ object: "SiteRedirect", id: created.body.id, change: "created" }],
      });
      const refused = await server.graphql(B.token, CHANNEL_QUERY, { channel: { channel: "site-redirects", site: site.siteId } });
      expect(refused.errors?.[0].extensions?.code).toBe("NOT_FOUND");
    } finally {
      for (const stream of streams) stream.close();
    }
  });
});

describe("prewarmSiteSearch", () => {
  it("answers 204 to whoever reads the site (search here needs no warming), 404 to another organization", async () => {
    const site = await newSite("Prewarm");
    expect((await server.client(reader.token).orgs.prewarmSiteSearch(A.organizationId, site.siteId)).status).toBe(204);
    await expectRawRestError(server, B.token, "POST", `${site.path}/search/prewarm`, undefined, 404);
    expect(
      (
        await gql(`mutation($input: PrewarmSiteSearchInput!) { prewarmSiteSearch(input: $input) { siteId } }`, {
          input: { site: site.siteId },
        })
      ).prewarmSiteSearch,
    ).toEqual({ siteId: site.siteId });
  });
});

describe("bounds", () => {
  it(`holds at most ${REDIRECTS_PER_SITE_MAX} redirects per site, refusing the one beyond with nothing changed, while the site answers`, async () => {
    const site = await newSite("Bounded");
    const api = server.client(A.token);
    const batch = (from: number) =>
      Array.from({ length: 500 }, (_, i) => ({
        source: `/r${from + i}`,
        destination: { kind: "external" as const, url: `https://example.com/${from + i}` },
      }));
    await api.orgs.bulkUpsertSiteRedirects(A.organizationId, site.siteId, { redirects: batch(0) });
    // A page view is answered while the second batch is written.
    const [second, page] = await Promise.all([
      api.orgs.bulkUpsertSiteRedirects(A.organizationId, site.siteId, { redirects: batch(500) }),
      fetch(`${site.base}/intro`),
    ]);
    expect(second.status).toBe(200);
    expect(page.status).toBe(200);
    expect((await api.orgs.listSiteRedirects(A.organizationId, site.siteId, { limit: 1 })).data.count).toBe(REDIRECTS_PER_SITE_MAX);
    const beyond = { source: "/beyond", destination: { kind: "external", url: "https://example.com/beyond" } };
    await expectRawRestError(server, A.token, "POST", `${site.path}/redirects`, beyond, 400, `at most ${REDIRECTS_PER_SITE_MAX}`);
    await expectRawRestError(
      server,
      A.token,
      "PUT",
      `${site.path}/redirects`,
      { redirects: [{ source: "/r0", destination: null }, beyond, { source: "/beyond2", destination: beyond.destination }] },
      400,
      `at most ${REDIRECTS_PER_SITE_MAX}`,
    );
    // Nothing of the refused bulk applied (/r0 is still there).
    expect(await server.database.prisma.siteRedirect.count({ where: { siteId: site.siteId } })).toBe(REDIRECTS_PER_SITE_MAX);
    expect(await server.database.prisma.siteRedirect.count({ where: { siteId: site.siteId, source: "/r0" } })).toBe(1);
    // The last of a thousand is served.
    expect(await visit(site, "/r999")).toMatchObject({ status: 307, location: "https://example.com/999" });
  });
});
