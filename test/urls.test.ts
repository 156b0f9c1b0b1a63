// URL resolution and embeds (issue 30): `GET /urls/content` resolves URLs of this service's app
// to what they name, for a caller who can read it. Through the official client (answers checked
// against the published schemas) and GraphQL, on both databases; another organization's URLs and
// what the caller cannot read answer 404, as unknown; a bad `url` answers 400 naming it.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EMBED_TIMEOUT_MS } from "../src/core/url-lookup/embeds.ts";
import { expectGraphQLError, expectRestError, graphqlData, restFailure } from "./support/expect.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let A: { organizationId: string; token: string; userId: string };
let B: { organizationId: string; token: string; userId: string };
let guest: { token: string };
let spaceId: string;
let guideId: string;
let installId: string;
let collectionId: string;
let changeRequestId: string;
/** A local website the embeds read (private hosts are allowed on this test's server). */
let web: Server;
let webUrl: string;
const MAX_BYTES = 64 * 1024;
/** The slow target's request as the target saw it: when it arrived, and when the fetch let go of it (its socket closed). */
let slowSeen: { arrived: Promise<number>; closed: Promise<number>; open: boolean };
let slowArrived: (at: number) => void = () => {};
let slowClosed: (at: number) => void = () => {};
const resetSlow = () => {
  slowSeen = {
    arrived: new Promise((resolve) => (slowArrived = resolve)),
    closed: new Promise((resolve) => (slowClosed = resolve)),
    open: true,
  };
};

const PAGE = `<!doctype html><html><head><title>Ignored title</title>
<meta property="og:title" content="The  Widget
Guide"><meta property="og:site_name" content="Widgets Inc"><meta name="description" content="All about <widgets> & more.">
<meta property="og:image" content="/cover.png"><link rel="icon" href="/favicon.svg"><link rel="stylesheet" href="/x.css"></head>
<body><h1>Body</h1></body></html>`;

function startWeb() {
  web = createServer((req, res) => {
    if (req.url === "/page") return res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(PAGE);
    if (req.url === "/plain") return res.writeHead(200, { "content-type": "text/html" }).end("<title>Plain</title><p>x</p>");
    if (req.url === "/hostile")
      return res.writeHead(200, { "content-type": "text/html" }).end('<title>Hostile</title><link rel="icon" href="javascript:alert(1)">');
    if (req.url === "/report.pdf") return res.writeHead(200, { "content-type": "application/pdf" }).end("%PDF-1.4");
    if (req.url === "/missing") return res.writeHead(404).end();
    if (req.url === "/slow") {
      // Answers, slowly, forever: a byte every 100 ms, so only the embed's whole-fetch bound ends it.
      slowArrived(performance.now());
      res.writeHead(200, { "content-type": "text/html" });
      res.write("<title>Slow");
      const drip = setInterval(() => res.write("."), 100);
      res.on("close", () => {
        clearInterval(drip);
        slowSeen.open = false;
        slowClosed(performance.now());
      });
      return;
    }
    if (req.url === "/huge") {
      res.writeHead(200, { "content-type": "text/html" });
      const chunk = `<p>${"x".repeat(8192)}</p>`;
      const pump = () => {
        while (res.write(chunk)) if (res.destroyed) return;
        res.once("drain", pump);
      };
      res.on("error", () => {});
      return pump();
    }
    res.writeHead(404).end();
  });
  return new Promise<void>((resolve) => web.listen(0, "127.0.0.1", resolve)).then(() => {
    webUrl = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
  });
}

const gql = <T = any>(query: string, variables?: Record<string, unknown>, token = A.token) =>
  graphqlData<T>(server, token, query, variables);
const createPage = `mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`;

beforeAll(async () => {
  await startWeb();
  // The import's own per-request time (10 s) is left as in production, so the embed's bound
  // (EMBED_TIMEOUT_MS) is the one that cuts a slow target; the execution deadline is raised above it
  // so that a loaded machine's slowness around the fetch cannot turn the 408 into a 503.
  server = await startTestServer({
    importLimits: { maxBytes: MAX_BYTES },
    graphqlLimits: { executionTimeoutMs: EMBED_TIMEOUT_MS + 20_000 },
  });
  A = await server.bootstrap("Resolving");
  B = await server.bootstrap("Other resolving");
  guest = await server.addMember(A.organizationId, null);
  const api = server.client(A.token);
  collectionId = (await api.orgs.createCollection(A.organizationId, { title: "Handbooks" })).data.id;
  spaceId = (await api.orgs.createSpace(A.organizationId, { title: "Manual", parent: collectionId })).data.id;
  guideId = (await gql(createPage, { input: { space: spaceId, title: "Guide", markdown: "Read me." } })).createPage.page.id;
  installId = (await gql(createPage, { input: { space: spaceId, title: "Install", parent: guideId, markdown: "Run it." } })).createPage.page
    .id;
  changeRequestId = (await api.spaces.createChangeRequest(spaceId, { subject: "Rework" })).data.id;
});

afterAll(async () => {
  web?.closeAllConnections();
  await new Promise((resolve) => web?.close(resolve));
  await server?.close();
});

describe("GET /urls/content", () => {
  const resolve = (url: string, token = A.token) => server.client(token).urls.getContentByUrl({ url });

  it("resolves a space's app URL to the space", async () => {
    const { data } = await resolve(`${server.url}/app/s/${spaceId}`);
    expect(Object.keys(data).sort()).toEqual(["space"]);
    expect(data).toMatchObject({ space: { object: "space", id: spaceId, title: "Manual", parent: collectionId } });
  });

  it("resolves a page's app URL (its urls.app) to the space and the page, with its subpages", async () => {
    const { data: page } = (await server.client(A.token).spaces.getPageById(spaceId, installId)) as { data: any };
    expect(page.urls?.app).toBe(`${server.url}/app/s/${spaceId}/guide/install`);
    const { data } = (await resolve(page.urls!.app!)) as { data: any };
    expect(data.space.id).toBe(spaceId);
    expect(data.page).toMatchObject({ id: installId, title: "Install", path: "guide/install", type: "document", markdown: "Run it." });
    const { data: parent } = (await resolve(`${server.url}/app/s/${spaceId}/guide`)) as { data: any };
    expect(parent.page.id).toBe(guideId);
    expect(parent.page.pages.map((p: { id: string }) => p.id)).toEqual([installId]);
  });

  it("resolves a change request's app URL to the space and the change request, and a page of it", async () => {
    const { data: changeRequest } = await server.client(A.token).spaces.getChangeRequestById(spaceId, changeRequestId);
    const { data } = (await resolve(changeRequest.urls.app)) as { data: any };
    expect(data.space.id).toBe(spaceId);
    expect(data.changeRequest).toMatchObject({ object: "change-request", id: changeRequestId, subject: "Rework", number: 1 });
    expect(data.page).toBeUndefined();
    const { data: page } = (await resolve(`${changeRequest.urls.app}/guide`)) as { data: any };
    expect(page.page.id).toBe(guideId);
  });

  it("resolves a collection's app URL to the collection", async () => {
    const { data } = await resolve(`${server.url}/app/o/${A.organizationId}/c/${collectionId}`);
    expect(data).toEqual({ collection: expect.objectContaining({ object: "collection", id: collectionId, title: "Handbooks" }) });
  });

  it("answers the same in GraphQL", async () => {
    const data = await gql(
      `query($url: String!) { contentByUrl(url: $url) { collection { id } space { id } changeRequest { id } page { id path } } }`,
      { url: `${server.url}/app/s/${spaceId}/~/changes/1/guide/install` },
    );
    expect(data.contentByUrl).toEqual({
      collection: null,
      space: { id: spaceId },
      changeRequest: { id: changeRequestId },
      page: { id: installId, path: "guide/install" },
    });
  });

  it("answers 404, as unknown, for another organization's URLs and what the caller cannot read", async () => {
    for (const url of [
      `${server.url}/app/s/${spaceId}`,
      `${server.url}/app/s/${spaceId}/guide`,
      `${server.url}/app/o/${A.organizationId}/c/${collectionId}`,
      `${server.url}/app/s/${spaceId}/~/changes/1`,
    ]) {
      await expectRestError(resolve(url, B.token), 404, "No content found at url");
      await expectRestError(resolve(url, guest.token), 404, "No content found at url");
    }
    // The same answer as a URL that names nothing.
    await expectRestError(resolve(`${server.url}/app/s/spc_unknown`), 404, "No content found at url");
    await expectRestError(resolve(`${server.url}/app/o/${B.organizationId}/c/${collectionId}`), 404, "No content found at url");
  });

  it("answers 404 for URLs that name no content: another host, the organization, a missing page", async () => {
    for (const url of [
      `https://example.com/app/s/${spaceId}`,
      `${server.url}/app/o/${A.organizationId}`,
      `${server.url}/app/s/${spaceId}/nowhere`,
      `${server.url}/v1/spaces/${spaceId}`,
    ])
      await expectRestError(resolve(url), 404, "No content found at url");
  });

  it("answers 400 naming url for a missing, relative, non-http or oversized url, on both surfaces", async () => {
    await expectRestError(resolve(""), 400, "url is required");
    await expectRestError(resolve("/app/s/x"), 400, "url must be an absolute http or https URL");
    await expectRestError(resolve("javascript:alert(1)"), 400, "url must be an http or https URL");
    await expectRestError(resolve(`${server.url}/app/s/${"x".repeat(2100)}`), 400, "url must be at most 2048 characters");
    expectGraphQLError(
      await server.graphql(A.token, `{ contentByUrl(url: "ftp://x/y") { space { id } } }`),
      "BAD_REQUEST",
      "url must be an http",
    );
  });
});

describe("GET /urls/embed and GET /spaces/{spaceId}/embed", () => {
  const embed = (url: string, token = A.token) => server.client(token).urls.getEmbedByUrl({ url });

  it("reads an external page's meta tags: title, site, icon, and a rich card of its description and image", async () => {
    const { data } = await embed(`${webUrl}/page`);
    expect(data).toEqual({
      type: "rich",
      title: "The Widget Guide",
      site: "Widgets Inc",
      icon: `${webUrl}/favicon.svg`,
      html: `<a class="embed-card" href="${webUrl}/page" rel="noopener noreferrer"><img src="${webUrl}/cover.png" alt="" loading="lazy"><strong>The Widget Guide</strong><p>All about &lt;widgets&gt; &amp; more.</p><span>Widgets Inc</span></a>`,
    });
  });

  it("answers a link for a page without description or image, and for a file (titled by its name)", async () => {
    expect((await embed(`${webUrl}/plain`)).data).toEqual({ type: "link", title: "Plain", site: "127.0.0.1" });
    expect((await embed(`${webUrl}/report.pdf`)).data).toEqual({ type: "link", title: "report.pdf", site: "127.0.0.1" });
  });

  it("keeps no icon that is not an http(s) URL", async () => {
    expect((await embed(`${webUrl}/hostile`)).data).toEqual({ type: "link", title: "Hostile", site: "127.0.0.1" });
  });

  it("answers our own URLs from our data, for a caller who can read them (404 otherwise)", async () => {
    const host = new URL(server.url).host;
    expect((await embed(`${server.url}/app/s/${spaceId}/guide/install`)).data).toEqual({ type: "link", title: "Install", site: host });
    expect((await embed(`${server.url}/app/s/${spaceId}`)).data).toEqual({ type: "link", title: "Manual", site: host });
    await expectRestError(embed(`${server.url}/app/s/${spaceId}`, B.token), 404, "No content found at url");
  });

  it("in a space's context: the same embed for a reader of the space, 404 for another organization", async () => {
    const { data } = await server.client(A.token).spaces.getEmbedByUrlInSpace(spaceId, { url: `${webUrl}/plain` });
    expect(data).toEqual({ type: "link", title: "Plain", site: "127.0.0.1" });
    await expectRestError(server.client(B.token).spaces.getEmbedByUrlInSpace(spaceId, { url: `${webUrl}/plain` }), 404);
  });

  it("answers the same in GraphQL", async () => {
    const data = await gql(`query($url: String!) { embedByUrl(url: $url) { type title site icon html } }`, { url: `${webUrl}/plain` });
    expect(data.embedByUrl).toEqual({ type: "link", title: "Plain", site: "127.0.0.1", icon: null, html: null });
  });

  it("answers 400 naming url for a bad url or a target that answers an error", async () => {
    await expectRestError(embed(""), 400, "url is required");
    await expectRestError(embed("file:///etc/passwd"), 400, "url must be an http or https URL");
    await expectRestError(embed(`${webUrl}/missing`), 400, "url: ");
  });

  it("cuts a target that answers slowly at the embed's bound, while a concurrent request is answered", async () => {
    resetSlow();
    const slow = restFailure(embed(`${webUrl}/slow`));
    const arrivedAt = await slowSeen.arrived;
    // While the slow target still holds its fetch, another embed is answered.
    const { data } = await embed(`${webUrl}/plain`);
    expect(data.title).toBe("Plain");
    expect(slowSeen.open).toBe(true);
    const failure = await slow;
    expect(failure.status, failure.message).toBe(408);
    expect(failure.message).toContain("url: ");
    // The target saw its connection dropped at the bound: not before it (the clock starts before the
    // request reaches the target), and well within a loaded machine's margin after it.
    const heldMs = (await slowSeen.closed) - arrivedAt;
    expect(heldMs).toBeGreaterThan(EMBED_TIMEOUT_MS - 500);
    expect(heldMs).toBeLessThan(EMBED_TIMEOUT_MS + 3000);
  });

  it("cuts a huge target at the byte bound", async () => {
    expect(await restFailure(embed(`${webUrl}/huge`))).toMatchObject({ status: 413 });
  });

  it("refuses a private host unless IMPORT_ALLOW_PRIVATE_HOSTS, naming the setting", async () => {
    const strict = await startTestServer({ importAllowPrivateHosts: false });
    try {
      const owner = await strict.bootstrap("Strict");
      await expectRestError(
        strict.client(owner.token).urls.getEmbedByUrl({ url: `${webUrl}/plain` }),
        400,
        "IMPORT_ALLOW_PRIVATE_HOSTS=true",
      );
    } finally {
      await strict.close();
    }
  });
});
