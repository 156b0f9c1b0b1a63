// Published sites as readers get them, over HTTP without a token: server-rendered HTML (title,
// GFM table, links between pages resolved to their published paths), navigation, 404s,
// `<path>.md`, sitemap.xml, robots.txt, llms.txt, ETag and the per-revision cache, visibility
// (unlisted, visitor-auth JWTs), conditions over visitor claims, and a real browser following a
// navigation link.
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser } from "./support/browser.ts";
import { graphqlData } from "./support/expect.ts";
import { requestWithHost, startTestServer, type TestServer } from "./support/server.ts";
import { ADAPTIVE_SCHEMA, serveAtHostname } from "./support/sites.ts";

let server: TestServer;
let A: { organizationId: string; token: string; userId: string };

const api = () => server.client(A.token);
const gql = <T = any>(query: string, variables?: Record<string, unknown>) => graphqlData<T>(server, A.token, query, variables);

const INTRO = `Welcome to the guide.

| Name | Value |
| --- | --- |
| alpha | 1 |

Read [the setup](setup) next, or [its steps](setup.md#steps).`;

async function spaceWithPages(title: string) {
  const { data: space } = await api().orgs.createSpace(A.organizationId, { title });
  const create = `mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`;
  await gql(create, { input: { space: space.id, title: "Introduction", markdown: INTRO, description: "Start here" } });
  await gql(create, { input: { space: space.id, title: "Setup", markdown: "## Steps\n\nInstall it.\n\n```js\nconsole.log(1)\n```" } });
  await gql(create, { input: { space: space.id, title: "Secret", markdown: "Hidden from robots", noIndex: true } });
  return space;
}

async function publishedSite(spaces: string[], visibility = "public") {
  const { data: site } = await api().orgs.createSite(A.organizationId, { title: "Reader docs", spaces, visibility: visibility as never });
  await api().orgs.publishSite(A.organizationId, site.id);
  return site;
}

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${server.url}${path}`, { headers, redirect: "manual" });

beforeAll(async () => {
  server = await startTestServer();
  A = await server.bootstrap("Readers");
});

afterAll(async () => {
  await server?.close();
});

describe("a published page over HTTP", () => {
  it("shows the page title once (HTML and .md) when the Markdown starts with it; CSS and script are hashed and cached for a year", async () => {
    const { data: space } = await api().orgs.createSpace(A.organizationId, { title: "Titled" });
    await gql(`mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, {
      input: { space: space.id, title: "Install", markdown: "# Install\n\nRun the installer.\n\n# Other heading\n" },
    });
    const site = await publishedSite([space.id]);
    const html = await (await get(`/sites/${site.id}/install`)).text();
    expect(html.match(/>Install</g)).toHaveLength(2); // the heading, and the navigation's link
    expect(html).toContain("<h1>Install</h1><p>Run the installer.</p>");
    expect(html).toContain('<h1 id="other-heading">Other heading</h1>');
    const markdown = await (await get(`/sites/${site.id}/install.md`)).text();
    expect(markdown).toBe(`# Install\n\nSource: ${server.url}/sites/${site.id}/install\n\nRun the installer.\n\n# Other heading\n`);

    const css = server.url + html.match(/<link rel="stylesheet" href="(\/sites\/[^"]+\/~assets\/site\.[A-Za-z0-9]+\.css)">/)![1];
    const script = server.url + html.match(/<script src="(\/sites\/[^"]+\/~assets\/site\.[A-Za-z0-9]+\.js)" defer>/)![1];
    for (const url of [css, script]) {
      const asset = await fetch(url);
      expect(asset.status).toBe(200);
      expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    }
    expect((await fetch(css)).headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect((await get(`/sites/${site.id}/~assets/site.old.css`)).status).toBe(404);
    // The policy allows that script and the inline theme line, nothing else.
    const policy = (await get(`/sites/${site.id}/install`)).headers.get("content-security-policy")!;
    expect(policy).toContain(`script-src 'sha256-`);
    expect(policy).toContain(script);
    // A favicon that is never a 404: inline in the page, and at /favicon.ico.
    expect(html).toContain(`<link rel="icon" href="/sites/${site.id}/favicon.ico">`);
    const icon = await get(`/sites/${site.id}/favicon.ico`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get("content-type")).toBe("image/svg+xml");
  });

  it("renders the title, a GFM table and working links to other pages; unpublished it is 404", async () => {
    const space = await spaceWithPages("Guide");
    const site = await publishedSite([space.id]);
    expect(site.urls.published).toBeUndefined();
    const url = (await api().orgs.getSiteById(A.organizationId, site.id)).data.urls.published!;
    expect(url).toBe(`${server.url}/sites/${site.id}/`);

    const home = await fetch(url);
    expect(home.status).toBe(200);
    expect(home.headers.get("content-type")).toContain("text/html");
    const html = await home.text();
    expect(html).toContain("<h1>Introduction</h1>");
    expect(html).toContain("<table>");
    expect(html).toContain("<td>alpha</td>");
    expect(html).toContain(`href="${server.url}/sites/${site.id}/setup"`);
    expect(html).toContain(`href="${server.url}/sites/${site.id}/setup#steps"`);
    expect(html).toContain('aria-label="Pages"');

    const setup = await fetch(`${server.url}/sites/${site.id}/setup`);
    expect(setup.status).toBe(200);
    const setupHtml = await setup.text();
    expect(setupHtml).toContain('<h2 id="steps">Steps</h2>');
    expect(setupHtml).toContain('<code class="language-js">');

    // Highlighted on the server (colors as classes), with a copy button the page's script shows.
    expect(setupHtml).toMatch(/<span class="k\d+">log<\/span>/);
    expect(setupHtml).toContain('<button class="copy" type="button" hidden>Copy</button>');

    const missing = await get(`/sites/${site.id}/nowhere`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain("Not found");

    await api().orgs.unpublishSite(A.organizationId, site.id);
    expect((await get(`/sites/${site.id}/`)).status).toBe(404);
    expect((await get(`/sites/${site.id}/setup`)).status).toBe(404);
    await api().orgs.publishSite(A.organizationId, site.id);
    expect((await get(`/sites/${site.id}/setup`)).status).toBe(200);
    await api().orgs.deleteSiteById(A.organizationId, site.id);
    expect((await get(`/sites/${site.id}/setup`)).status).toBe(404);
  });

  it("serves raw markdown (saying where its HTML page is), robots.txt, sitemap.xml (noIndex pages left out) and llms.txt", async () => {
    const space = await spaceWithPages("Machines");
    const site = await publishedSite([space.id]);
    const base = `${server.url}/sites/${site.id}`;
    const markdown = await get(`/sites/${site.id}/setup.md`);
    expect(markdown.headers.get("content-type")).toContain("text/markdown");
    expect(await markdown.text()).toBe(`# Setup\n\nSource: ${base}/setup\n\n## Steps\n\nInstall it.\n\n\`\`\`js\nconsole.log(1)\n\`\`\``);
    expect(markdown.headers.get("link")).toBe(`<${base}/setup>; rel="canonical"; type="text/html"`);
    expect(await (await get(`/sites/${site.id}/robots.txt`)).text()).toContain(`Sitemap: ${base}/sitemap.xml`);
    const sitemap = await (await get(`/sites/${site.id}/sitemap.xml`)).text();
    expect(sitemap).toContain(`<loc>${base}/introduction</loc>`);
    expect(sitemap).toContain(`<loc>${base}/setup</loc>`);
    expect(sitemap).not.toContain("secret");
    const llms = await (await get(`/sites/${site.id}/llms.txt`)).text();
    expect(llms).toContain("# Reader docs");
    expect(llms).toContain(`- [Introduction](${base}/introduction.md): Start here`);
  });

  it("does not index unlisted sites", async () => {
    const site = await publishedSite([(await spaceWithPages("Unlisted")).id], "unlisted");
    expect(await (await get(`/sites/${site.id}/robots.txt`)).text()).toBe("User-agent: *\nDisallow: /\n");
    expect(await (await get(`/sites/${site.id}/sitemap.xml`)).text()).not.toContain("<loc>");
    const page = await get(`/sites/${site.id}/`);
    expect(page.headers.get("x-robots-tag")).toBe("noindex");
    expect(await page.text()).toContain('<meta name="robots" content="noindex">');
  });

  it("answers 304 to a matching ETag, renders a repeat from the cache in statements that do not grow with pages, and shows a merge at once", async () => {
    const space = await spaceWithPages("Cached");
    const site = await publishedSite([space.id]);
    const first = await get(`/sites/${site.id}/setup`);
    const etag = first.headers.get("etag")!;
    // A repeat is the cached bytes: the same UTF-8 text (its title has a "·"), the same length.
    const firstBody = await first.text();
    expect(firstBody).toContain("<title>Setup · Reader docs</title>");
    const again = await get(`/sites/${site.id}/setup`);
    expect(again.headers.get("content-length")).toBe(String(Buffer.byteLength(firstBody)));
    expect(await again.text()).toBe(firstBody);
    expect(etag).toMatch(/^".+"$/);
    expect(first.headers.get("cache-control")).toContain("must-revalidate");
    expect((await get(`/sites/${site.id}/setup`, { "if-none-match": etag })).status).toBe(304);

    const statementsOf = async (path: string) => {
      const before = server.database.statementCount;
      expect((await get(path)).status).toBe(200);
      return server.database.statementCount - before;
    };
    const repeat = await statementsOf(`/sites/${site.id}/setup`);
    // Not even the fingerprint: it is kept in memory until a write of the site's tables.
    expect(repeat).toBe(0);
    // A space with ten times the pages: a repeated view costs the same statements, fewer than a first view.
    const large = await spaceWithPages("Large");
    for (let i = 0; i < 30; i++) {
      await gql(`mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, {
        input: { space: large.id, title: `Page ${i}`, markdown: `Body ${i}` },
      });
    }
    const largeSite = await publishedSite([large.id]);
    const firstView = await statementsOf(`/sites/${largeSite.id}/setup`);
    // A repeated view renders nothing: the response comes from the cache of this revision.
    const renders = server.app.siteCache.renders;
    expect(await statementsOf(`/sites/${largeSite.id}/setup`)).toBe(repeat);
    expect(server.app.siteCache.renders).toBe(renders);
    expect(repeat).toBeLessThan(firstView);

    const pages = (await api().spaces.listPages(space.id)).data.pages;
    const setup = pages.find((p) => p.title === "Setup")!;
    await gql(`mutation($input: UpdatePageInput!) { updatePage(input: $input) { page { id } } }`, {
      input: { space: space.id, page: setup.id, markdown: "Changed body" },
    });
    const after = await get(`/sites/${site.id}/setup`);
    expect(after.headers.get("etag")).not.toBe(etag);
    expect(await after.text()).toContain("Changed body");
  });
});

/** A GET with its own Host header (fetch does not let one set it). */
const getWithHost = (path: string, host: string) => requestWithHost(server.url, path, host);

/** A 1×1 PNG. */
const PIXEL = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", "base64");

describe("variants", () => {
  it("shows a section's site spaces as a variant switcher; a hidden one leaves the switcher but keeps its URL", async () => {
    const v1 = await spaceWithPages("Version one");
    const v2 = await spaceWithPages("Version two");
    const site = await publishedSite([v1.id, v2.id]);
    const [, second] = (await api().orgs.listSiteSpaces(A.organizationId, site.id)).data.items;
    const base = `${server.url}/sites/${site.id}`;
    const home = await (await get(`/sites/${site.id}/`)).text();
    expect(home).toContain(
      `<nav class="variants" aria-label="Variants"><a href="${base}/" aria-current="page">Version one</a><a href="${base}/${second.path}/">Version two</a></nav>`,
    );
    const other = await (await get(`/sites/${site.id}/${second.path}/setup`)).text();
    expect(other).toContain(`<a href="${base}/${second.path}/" aria-current="page">Version two</a>`);
    expect(other).toContain(`href="${base}/${second.path}/introduction"`);

    await api().orgs.updateSiteSpaceById(A.organizationId, site.id, second.id, { hidden: true } as never);
    expect(await (await get(`/sites/${site.id}/`)).text()).not.toContain('aria-label="Variants"');
    expect((await get(`/sites/${site.id}/${second.path}/setup`)).status).toBe(200);
  });
});

describe("the space's head revision", () => {
  it("shows a merged change request at once, and nothing of it before the merge", async () => {
    const space = await spaceWithPages("Merged");
    const site = await publishedSite([space.id]);
    const before = await get(`/sites/${site.id}/setup`);
    const etag = before.headers.get("etag")!;
    expect(await before.text()).toContain("Install it.");
    const setup = (await api().spaces.listPages(space.id)).data.pages.find((p) => p.title === "Setup")!;
    const { data: changeRequest } = await api().spaces.createChangeRequest(space.id, { subject: "Rewrite the setup" });
    await gql(`mutation($input: UpdatePageInput!) { updatePage(input: $input) { revision { id } } }`, {
      input: { space: space.id, changeRequest: changeRequest.id, page: setup.id, markdown: "## Steps\n\nRun the installer." },
    });
    const unmerged = await get(`/sites/${site.id}/setup`, { "if-none-match": etag });
    expect(unmerged.status).toBe(304);
    await api().spaces.mergeChangeRequest(space.id, changeRequest.id);
    const merged = await get(`/sites/${site.id}/setup`, { "if-none-match": etag });
    expect(merged.status).toBe(200);
    const html = await merged.text();
    expect(html).toContain("Run the installer.");
    expect(html).not.toContain("Install it.");
    expect(await (await get(`/sites/${site.id}/setup.md`)).text()).toContain("Run the installer.");
  });
});

describe("custom hostnames and images", () => {
  it("serves a site at its hostname when the request's Host is it, with links under that host; other hosts are not the site", async () => {
    const space = await spaceWithPages("Hosted");
    const site = await publishedSite([space.id]);
    const hostname = `docs-${site.id
      .slice(-6)
      .toLowerCase()
      .replace(/[^a-z0-9]/g, "x")}.example.com`;
    await serveAtHostname(server, A.token, A.organizationId, site.id, hostname);

    const home = await getWithHost("/", hostname);
    expect(home.status).toBe(200);
    expect(home.body).toContain("<h1>Introduction</h1>");
    expect(home.body).toContain(`href="http://${hostname}/setup"`);
    const setup = await getWithHost("/setup", `${hostname}:443`);
    expect(setup.status).toBe(200);
    expect(setup.body).toContain("<h1>Setup</h1>");
    expect((await getWithHost("/setup.md", hostname)).body).toContain("# Setup");
    expect((await getWithHost("/nowhere", hostname)).status).toBe(404);
    // The service's own paths stay the service's at any host.
    expect((await getWithHost("/health", hostname)).status).not.toBe(404);
    expect((await getWithHost("/setup", "unknown.example.com")).status).toBe(404);
    expect((await getWithHost("/reference", hostname)).body).toContain("swagger-ui");
    expect((await getWithHost("/openapi.json", hostname)).headers["content-type"]).toContain("application/json");
    await api().orgs.unpublishSite(A.organizationId, site.id);
    expect((await getWithHost("/setup", hostname)).status).toBe(404);
  });

  it("renders an image of a page through the signed file URL, which answers the file's bytes", async () => {
    const { data: space } = await api().orgs.createSpace(A.organizationId, { title: "Pictures" });
    const form = new FormData();
    const UPLOAD = `mutation($input: UploadFilesInput!) { uploadFiles(input: $input) { files { id } } }`;
    form.set("operations", JSON.stringify({ query: UPLOAD, variables: { input: { space: space.id, files: [null] } } }));
    form.set("map", JSON.stringify({ 0: ["variables.input.files.0"] }));
    form.set("0", new Blob([new Uint8Array(PIXEL)], { type: "image/png" }), "pixel.png");
    const uploaded = (await (
      await fetch(`${server.url}/graphql`, { method: "POST", headers: { authorization: `Bearer ${A.token}` }, body: form })
    ).json()) as any;
    const fileId = uploaded.data.uploadFiles.files[0].id;
    await gql(`mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, {
      input: { space: space.id, title: "Diagram", markdown: `Look:\n\n![A pixel](files/${fileId})` },
    });
    const site = await publishedSite([space.id]);
    const html = await (await get(`/sites/${site.id}/`)).text();
    const src = html.match(/<img src="([^"]+)" alt="A pixel">/)?.[1].replace(/&amp;/g, "&");
    expect(src, html).toBeDefined();
    expect(src!.startsWith(`${server.url}/files/`)).toBe(true);
    expect(new URL(src!).searchParams.get("sig")).toBeTruthy();
    const image = await fetch(src!);
    expect(image.status).toBe(200);
    expect(image.headers.get("content-type")).toContain("image/png");
    expect(Buffer.from(await image.arrayBuffer())).toEqual(PIXEL);
  });
});

describe("visitors", () => {
  it("opens visitor-auth sites only with a JWT signed with the site's key (then kept in a cookie)", async () => {
    const site = await publishedSite([(await spaceWithPages("Private")).id], "visitor-auth");
    const key = (await server.database.prisma.site.findUniqueOrThrow({ where: { id: site.id } })).authPrivateKey;
    // Times on the server's clock (a test clock), an hour ahead unless said.
    const serverNow = () => Math.floor(server.clock.now().getTime() / 1000);
    const sign = (secret: string, expires: number = serverNow() + 3600) =>
      new SignJWT({ plan: "pro" })
        .setProtectedHeader({ alg: "HS256" })
        .setIssuedAt(serverNow())
        .setExpirationTime(expires)
        .sign(new TextEncoder().encode(secret));
    expect((await get(`/sites/${site.id}/`)).status).toBe(401);
    expect((await get(`/sites/${site.id}/?jwt_token=${await sign("wrong-key-wrong-key-wrong-key-wrong")}`)).status).toBe(401);
    expect(
      (await get(`/sites/${site.id}/?jwt_token=${await sign(key, Math.floor(server.clock.now().getTime() / 1000) - 60)}`)).status,
    ).toBe(401);
    expect((await get(`/sites/${site.id}/?jwt_token=not.a.jwt`)).status).toBe(401);
    const ok = await get(`/sites/${site.id}/?jwt_token=${await sign(key)}`);
    expect(ok.status).toBe(200);
    expect(ok.headers.get("cache-control")).toContain("private");
    const cookie = ok.headers.get("set-cookie")!.split(";")[0];
    expect((await get(`/sites/${site.id}/setup`, { cookie })).status).toBe(200);

    // A new key: the tokens signed with the old one (and the cookie holding one) are refused at once.
    const regenerated = (await api().orgs.regenerateSitePublishingAuthById(A.organizationId, site.id)).data.privateKey;
    expect((await get(`/sites/${site.id}/setup`, { cookie })).status).toBe(401);
    expect((await get(`/sites/${site.id}/?jwt_token=${await sign(key)}`)).status).toBe(401);
    expect((await get(`/sites/${site.id}/?jwt_token=${await sign(regenerated)}`)).status).toBe(200);
    // With a fallback URL, a visitor without a valid token is sent there.
    await api().orgs.updateSitePublishingAuthById(A.organizationId, site.id, {
      backend: "custom",
      fallbackURL: "https://login.example.com/start",
    });
    const redirected = await get(`/sites/${site.id}/setup`);
    expect(redirected.status).toBe(302);
    expect(redirected.headers.get("location")).toBe("https://login.example.com/start");
  });

  it("refuses visitor tokens without exp, expiring beyond the maximum lifetime, not yet valid or issued in the future", async () => {
    const site = await publishedSite([(await spaceWithPages("Bounded tokens")).id], "visitor-auth");
    const secret = new TextEncoder().encode(
      (await server.database.prisma.site.findUniqueOrThrow({ where: { id: site.id } })).authPrivateKey,
    );
    const now = Math.floor(server.clock.now().getTime() / 1000);
    const day = 24 * 3600;
    const sign = (claims: { exp?: number; nbf?: number; iat?: number }) =>
      new SignJWT({ plan: "pro", ...claims }).setProtectedHeader({ alg: "HS256" }).sign(secret);
    const status = async (claims: { exp?: number; nbf?: number; iat?: number }) =>
      (await get(`/sites/${site.id}/?jwt_token=${await sign(claims)}`)).status;
    // Before: a token without exp opened the site until the key was regenerated.
    expect(await status({})).toBe(401);
    expect(await status({ iat: now })).toBe(401);
    // The default maximum lifetime is 7 days ahead.
    expect(await status({ exp: now + 30 * day })).toBe(401);
    expect(await status({ exp: now + 8 * day })).toBe(401);
    expect(await status({ exp: now + 6 * day, iat: now })).toBe(200);
    expect(await status({ exp: now + 3600, nbf: now + 3600 })).toBe(401);
    expect(await status({ exp: now + 3600, nbf: now - 10 })).toBe(200);
    expect(await status({ exp: now + 3600, iat: now + 3600 })).toBe(401);
    const refused = await get(`/sites/${site.id}/?jwt_token=${await sign({})}`);
    expect(await refused.text()).toContain("without `exp`");
  });

  it("opens share-link sites only with a valid, not revoked share key (then kept in a cookie)", async () => {
    const site = await publishedSite([(await spaceWithPages("Shared")).id], "share-link");
    const link = (await api().orgs.createSiteShareLink(A.organizationId, site.id, { name: "Readers" })).data;
    const key = new URL(link.urls.published!).searchParams.get("shareKey")!;
    const other = await publishedSite([(await spaceWithPages("Other shared")).id], "share-link");
    const otherKey = new URL(
      (await api().orgs.createSiteShareLink(A.organizationId, other.id, { name: "Other" })).data.urls.published!,
    ).searchParams.get("shareKey")!;

    expect((await get(`/sites/${site.id}/`)).status).toBe(401);
    expect((await get(`/sites/${site.id}/?shareKey=wrong`)).status).toBe(403);
    expect((await get(`/sites/${site.id}/?shareKey=${otherKey}`)).status).toBe(403);
    const ok = await fetch(link.urls.published!, { redirect: "manual" });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain("<h1>Introduction</h1>");
    expect(ok.headers.get("cache-control")).toContain("private");
    expect(ok.headers.get("x-robots-tag")).toBe("noindex");
    const cookie = ok.headers.get("set-cookie")!.split(";")[0];
    expect((await get(`/sites/${site.id}/setup`, { cookie })).status).toBe(200);

    await api().orgs.updateSiteShareLinkById(A.organizationId, site.id, link.id, { active: false });
    expect((await get(`/sites/${site.id}/setup`, { cookie })).status).toBe(403);
    expect((await get(`/sites/${site.id}/?shareKey=${key}`)).status).toBe(403);
    await api().orgs.updateSiteShareLinkById(A.organizationId, site.id, link.id, { active: true });
    expect((await get(`/sites/${site.id}/setup`, { cookie })).status).toBe(200);
    await api().orgs.deleteSiteShareLinkById(A.organizationId, site.id, link.id);
    expect((await get(`/sites/${site.id}/setup`, { cookie })).status).toBe(403);
  });

  it("hides a site space whose condition fails from a visitor without the claim and shows it to one with it", async () => {
    const main = await spaceWithPages("Main docs");
    const beta = await spaceWithPages("Beta docs");
    const site = await publishedSite([main.id, beta.id]);
    await api().orgs.updateSiteAdaptiveSchema(A.organizationId, site.id, { jsonSchema: ADAPTIVE_SCHEMA } as never);
    const betaSiteSpace = (await api().orgs.listSiteSpaces(A.organizationId, site.id)).data.items.find((s) => s.space.id === beta.id)!;
    await api().orgs.updateSiteSpaceById(A.organizationId, site.id, betaSiteSpace.id, {
      condition: "visitor.claims.unsigned.beta == true",
    });

    const without = await (await get(`/sites/${site.id}/`)).text();
    expect(without).not.toContain("Beta docs");
    expect((await get(`/sites/${site.id}/${betaSiteSpace.path}/setup`)).status).toBe(404);
    const claimed = await get(`/sites/${site.id}/?visitor.beta=true`);
    const withClaim = await claimed.text();
    expect(withClaim).toContain("Beta docs");
    expect((await get(`/sites/${site.id}/${betaSiteSpace.path}/setup?visitor.beta=true`)).status).toBe(200);
    // The claims are then kept in a cookie, so a link followed keeps them, until other parameters replace them.
    const cookie = claimed.headers.get("set-cookie")!.split(";")[0];
    expect(cookie).toMatch(/^site_claims_/);
    expect((await get(`/sites/${site.id}/${betaSiteSpace.path}/setup`, { cookie })).status).toBe(200);
    const replaced = await get(`/sites/${site.id}/${betaSiteSpace.path}/setup?visitor.beta=false`, { cookie });
    expect(replaced.status).toBe(404);
    const cleared = replaced.headers.get("set-cookie")!.split(";")[0];
    expect((await get(`/sites/${site.id}/${betaSiteSpace.path}/setup`, { cookie: cleared })).status).toBe(404);
    // A cookie that does not validate against the schema (forged, or an older schema's) counts for nothing.
    const forged = `site_claims_${site.id}=${encodeURIComponent(JSON.stringify({ beta: "yes" }))}`;
    expect((await get(`/sites/${site.id}/${betaSiteSpace.path}/setup`, { cookie: forged })).status).toBe(404);

    const published = (await api().orgs.getPublishedContentSite(A.organizationId, site.id)).data;
    expect(published.structure.structure.map((item: any) => item.id)).not.toContain(betaSiteSpace.id);
    const all = (await api().orgs.getSiteStructure(A.organizationId, site.id)).data;
    expect(all.structure.map((item: any) => item.id)).toContain(betaSiteSpace.id);
  });
});

describe("visitor claims", () => {
  it("takes the signed JWT claims, and unsigned visitor.<name> claims only when they validate against the adaptive schema", async () => {
    const main = await spaceWithPages("Claims main");
    const pro = await spaceWithPages("Pro docs");
    const beta = await spaceWithPages("Beta only");
    const site = await publishedSite([main.id, pro.id, beta.id], "visitor-auth");
    await api().orgs.updateSiteAdaptiveSchema(A.organizationId, site.id, { jsonSchema: ADAPTIVE_SCHEMA } as never);
    const siteSpaces = (await api().orgs.listSiteSpaces(A.organizationId, site.id)).data.items;
    const proSiteSpace = siteSpaces.find((s) => s.space.id === pro.id)!;
    const betaSiteSpace = siteSpaces.find((s) => s.space.id === beta.id)!;
    await api().orgs.updateSiteSpaceById(A.organizationId, site.id, proSiteSpace.id, { condition: 'visitor.claims.plan == "pro"' });
    await api().orgs.updateSiteSpaceById(A.organizationId, site.id, betaSiteSpace.id, {
      condition: "visitor.claims.unsigned.beta == true",
    });
    const key = (await server.database.prisma.site.findUniqueOrThrow({ where: { id: site.id } })).authPrivateKey;
    const sign = (claims: Record<string, unknown>) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: "HS256" })
        .setIssuedAt(Math.floor(server.clock.now().getTime() / 1000))
        .setExpirationTime(Math.floor(server.clock.now().getTime() / 1000) + 3600)
        .sign(new TextEncoder().encode(key));
    const free = await sign({ plan: "free" });
    const paying = await sign({ plan: "pro" });
    const view = async (path: string, token: string, extra = "") => {
      const response = await get(`/sites/${site.id}/${path}?jwt_token=${token}${extra}`);
      return { status: response.status, html: await response.text() };
    };

    // The signed claim decides: a free visitor does not see the pro site space, a pro one does.
    expect((await view("", free)).html).not.toContain("Pro docs");
    expect((await view(`${proSiteSpace.path}/setup`, free)).status).toBe(404);
    expect((await view("", paying)).html).toContain("Pro docs");
    expect((await view(`${proSiteSpace.path}/setup`, paying)).status).toBe(200);
    // An unsigned parameter cannot stand in for a signed claim.
    expect((await view("", free, "&visitor.plan=pro")).html).not.toContain("Pro docs");

    // Unsigned claims count when they validate against the schema's unsigned object, and only then.
    expect((await view("", free)).html).not.toContain("Beta only");
    expect((await view("", free, "&visitor.beta=true")).html).toContain("Beta only");
    expect((await view(`${betaSiteSpace.path}/setup`, free, "&visitor.beta=true")).status).toBe(200);
    expect((await view("", free, "&visitor.beta=yes")).html).not.toContain("Beta only");
    expect((await view("", free, "&visitor.beta=true&visitor.unknown=1")).html).not.toContain("Beta only");
    expect((await view(`${betaSiteSpace.path}/setup`, free, "&visitor.beta=1")).status).toBe(404);
  });

  it("hides a section whose condition fails (tabs, pages, GET …/published) and shows it to a visitor with the claim (HTML, GraphQL)", async () => {
    const main = await spaceWithPages("Sectioned main");
    const insiders = await spaceWithPages("Insider guide");
    const site = await publishedSite([main.id]);
    await api().orgs.updateSiteAdaptiveSchema(A.organizationId, site.id, { jsonSchema: ADAPTIVE_SCHEMA } as never);
    const section = (await api().orgs.addSectionToSite(A.organizationId, site.id, { spaceId: insiders.id, title: "Insiders" })).data;
    await api().orgs.updateSiteSectionById(A.organizationId, site.id, section.id, { condition: "visitor.claims.unsigned.beta == true" });

    const without = await (await get(`/sites/${site.id}/`)).text();
    expect(without).toContain("<h1>Introduction</h1>");
    expect(without).not.toContain("Insiders");
    expect((await get(`/sites/${site.id}/${section.path}/setup`)).status).toBe(404);
    const withClaim = await (await get(`/sites/${site.id}/?visitor.beta=true`)).text();
    // Sections are tabs: the default one has no path segment, the other its path.
    expect(withClaim).toContain(
      `<nav class="tabs" aria-label="Sections"><a href="${server.url}/sites/${site.id}/" aria-current="page">Reader docs</a><a href="${server.url}/sites/${site.id}/${section.path}/">Insiders</a></nav>`,
    );
    const inside = await get(`/sites/${site.id}/${section.path}/setup?visitor.beta=true`);
    expect(inside.status).toBe(200);
    expect(await inside.text()).toContain("<h1>Setup</h1>");

    // GET …/published answers what a visitor without claims sees; the structure route, everything.
    const published = (await api().orgs.getPublishedContentSite(A.organizationId, site.id)).data;
    expect(published.structure.structure.map((item: any) => item.id)).not.toContain(section.id);
    expect((await api().orgs.getSiteStructure(A.organizationId, site.id)).data.structure.map((item: any) => item.id)).toContain(section.id);
    const query = `query($id: ID!, $claims: JSON) { site(id: $id) { structure(claims: $claims) { items { ... on SiteSection { id } } } } }`;
    const sectionsFor = async (claims: unknown) =>
      (await gql(query, { id: site.id, claims })).site.structure.items.map((item: { id?: string }) => item.id);
    expect(await sectionsFor({})).not.toContain(section.id);
    expect(await sectionsFor({ unsigned: { beta: true } })).toContain(section.id);
  });
});

describe("site search", () => {
  it("searches the published content only, honoring conditions: a hidden site space's pages are not found", async () => {
    const main = await spaceWithPages("Searched main");
    const beta = await spaceWithPages("Searched beta");
    await gql(`mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, {
      input: { space: beta.id, title: "Quasar feature", markdown: "The quasar switch is in beta." },
    });
    const outside = await spaceWithPages("Not in the site");
    await gql(`mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, {
      input: { space: outside.id, title: "Quasar elsewhere", markdown: "Another quasar." },
    });
    const site = await publishedSite([main.id, beta.id]);
    const search = (body: Record<string, unknown>) => api().orgs.searchSiteContent(A.organizationId, site.id, body as never);
    const titles = (items: any[]) => items.flatMap((space) => space.pages.map((page: any) => page.title));

    const all = (await search({ query: "quasar", scope: { mode: "all" } })).data;
    expect(all.items.map((space: any) => space.id)).toEqual([beta.id]);
    expect(titles(all.items)).toEqual(["Quasar feature"]);
    // The default scope is each section's default site space: the main one here.
    expect((await search({ query: "quasar" })).data.items).toEqual([]);
    const [, betaSiteSpace] = (await api().orgs.listSiteSpaces(A.organizationId, site.id)).data.items;
    expect(titles((await search({ query: "quasar", scope: { mode: "specific", siteSpaceIds: [betaSiteSpace.id] } })).data.items)).toEqual([
      "Quasar feature",
    ]);
    expect(titles((await search({ query: "quasar", mode: "current", siteSpaceId: betaSiteSpace.id })).data.items)).toEqual([
      "Quasar feature",
    ]);

    // The site's search box answers the same, linking results to their published pages.
    const box = await (await get(`/sites/${site.id}/~search?q=quasar`)).text();
    expect(box).toContain(`<a href="${server.url}/sites/${site.id}/${betaSiteSpace.path}/quasar-feature">Quasar feature</a>`);
    expect(box).not.toContain("Quasar elsewhere");

    await api().orgs.updateSiteSpaceById(A.organizationId, site.id, betaSiteSpace.id, { condition: "visitor.claims.beta == true" });
    expect((await search({ query: "quasar", scope: { mode: "all" } })).data.items).toEqual([]);
    expect(await (await get(`/sites/${site.id}/~search?q=quasar`)).text()).toContain("<li>No results</li>");
    const query = `query($id: ID!, $claims: JSON) { site(id: $id) { search(query: "quasar", scope: { mode: "all" }, claims: $claims) { nodes { id pages { title } } } } }`;
    expect((await gql(query, { id: site.id, claims: {} })).site.search.nodes).toEqual([]);
    expect((await gql(query, { id: site.id, claims: { beta: true } })).site.search.nodes).toEqual([
      { id: beta.id, pages: [{ title: "Quasar feature" }] },
    ]);

    await api().orgs.unpublishSite(A.organizationId, site.id);
    expect((await search({ query: "guide", scope: { mode: "all" } })).data.items).toEqual([]);

    const path = `/v1/orgs/${A.organizationId}/sites/${site.id}/search`;
    for (const [body, mentions] of [
      [{}, "query"],
      [{ query: "x".repeat(513) }, "query"],
      [{ query: "quasar", scope: { mode: "nearby" } }, "scope.mode"],
      [{ query: "quasar", scope: { mode: "specific", siteSpaceIds: ["ssp_nope"] } }, "siteSpaceIds"],
      [{ query: "quasar", scope: { mode: "default", restrictTo: "currentSiteSpace" } }, "currentSiteSpace"],
    ] as const) {
      const response = await server.rest(A.token, "POST", path, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.message).toContain(mentions);
    }
  });
});

describe("in a browser", () => {
  it("opens a published site in headless Chromium and follows a link in the navigation", async () => {
    const site = await publishedSite([(await spaceWithPages("Browsed")).id]);
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      await page.goto(`${server.url}/sites/${site.id}/`);
      expect(await page.textContent("main h1")).toBe("Introduction");
      await page.click('nav[aria-label="Pages"] >> text=Setup');
      await page.waitForURL(`${server.url}/sites/${site.id}/setup`);
      expect(await page.textContent("main h1")).toBe("Setup");
      expect(await page.getAttribute('nav[aria-label="Pages"] a[aria-current="page"]', "href")).toBe(
        `${server.url}/sites/${site.id}/setup`,
      );
    } finally {
      await browser.close();
    }
  });
});
