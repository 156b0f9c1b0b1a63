// GET and POST /urls/published (getPublishedContentByUrl, resolvePublishedContentByUrl) and GraphQL
// publishedContentByUrl: a URL of a published site resolves to the site, section, site space,
// space, revision and page its visitor sees, read by the site server's own rules (paths under
// /sites/{id}, custom hostnames, share keys, visitor tokens, unsigned claims, conditions, site
// redirects). Through the official client (answers checked against the published schemas) on both
// databases; what the visitor cannot see, and any URL that shows nothing, is 404.
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectGraphQLError, expectRestError, graphqlData, publishedRest } from "./support/expect.ts";
import { startTestServer, type TestServer } from "./support/server.ts";
import { ADAPTIVE_SCHEMA, serveAtHostname } from "./support/sites.ts";

let server: TestServer;
let A: { organizationId: string; userId: string; token: string };
let B: { organizationId: string; userId: string; token: string };
const api = (token = A.token) => server.client(token);

async function spaceWith(title: string, pages: string[]) {
  const { data: space } = await api().orgs.createSpace(A.organizationId, { title });
  for (const page of pages) {
    const created = await server.graphql(A.token, `mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, {
      input: { space: space.id, title: page, markdown: `${page} words.` },
    });
    expect(created.errors).toBeUndefined();
  }
  return space;
}

async function publishedSite(spaceIds: string[], visibility = "public") {
  const { data: site } = await api().orgs.createSite(A.organizationId, {
    title: "Resolved",
    spaces: spaceIds,
    visibility: visibility as never,
  });
  await api().orgs.publishSite(A.organizationId, site.id);
  const siteSpaces = (await api().orgs.listSiteSpaces(A.organizationId, site.id)).data.items;
  return { id: site.id, siteSpaces };
}

const lookup = (url: string, options: { visitorAuthToken?: string; redirectOnError?: boolean } = {}, token = A.token) =>
  api(token).urls.getPublishedContentByUrl({ url, ...options });

let guide: { id: string; revisionId: string };
let api2: { id: string; revisionId: string };
let site: { id: string; siteSpaces: { id: string; path: string; space: { id: string } }[] };

beforeAll(async () => {
  server = await startTestServer();
  A = await server.bootstrap("Published lookups");
  B = await server.bootstrap("Another reader");
  const guideSpace = await spaceWith("Guide", ["Welcome", "Install"]);
  const apiSpace = await spaceWith("API", ["Endpoints"]);
  site = await publishedSite([guideSpace.id, apiSpace.id]);
  const revisionOf = async (id: string) => (await api().spaces.getSpaceById(id)).data.revision;
  guide = { id: guideSpace.id, revisionId: await revisionOf(guideSpace.id) };
  api2 = { id: apiSpace.id, revisionId: await revisionOf(apiSpace.id) };
});

afterAll(async () => {
  await server?.close();
});

describe("a public site's URLs", () => {
  it("resolve to the site space and page a reader sees, for any signed-in caller, with GET and POST alike", async () => {
    const [guideSiteSpace, apiSiteSpace] = [site.siteSpaces[0]!, site.siteSpaces[1]!];
    const base = `${server.url}/sites/${site.id}`;
    const install = {
      site: site.id,
      siteSpace: guideSiteSpace.id,
      space: guide.id,
      revision: guide.revisionId,
      pathname: "install",
      basePath: `/sites/${site.id}/`,
      siteBasePath: `/sites/${site.id}/`,
      apiToken: "",
      organization: A.organizationId,
      complete: true,
      canonicalUrl: `${base}/install`,
      preview: false,
    };
    expect((await lookup(`${base}/install`)).data).toEqual(install);
    // Another organization's caller reads the same public answer; the fragment and a trailing slash change nothing.
    expect((await lookup(`${base}/install/#step-2`, {}, B.token)).data).toEqual(install);
    expect((await api().urls.resolvePublishedContentByUrl({ url: `${base}/install` })).data).toEqual(install);

    // The site's root shows the default site space's first page: another site space could have been named.
    expect((await lookup(`${base}/`)).data).toEqual({ ...install, pathname: "", canonicalUrl: base, complete: false });
    // The other site space, by its path.
    expect((await lookup(`${base}/${apiSiteSpace.path}/endpoints`)).data).toEqual({
      ...install,
      siteSpace: apiSiteSpace.id,
      space: api2.id,
      revision: api2.revisionId,
      pathname: "endpoints",
      basePath: `/sites/${site.id}/${apiSiteSpace.path}/`,
      canonicalUrl: `${base}/${apiSiteSpace.path}/endpoints`,
    });
  });

  it("answer 404 for what shows nothing: no such page, an unpublished site, a URL that is no site's", async () => {
    const base = `${server.url}/sites/${site.id}`;
    await expectRestError(lookup(`${base}/nowhere`), 404, "No published content found at url");
    await expectRestError(lookup(`${server.url}/sites/site_unknown/`), 404);
    await expectRestError(lookup(`${server.url}/app/s/${guide.id}`), 404);
    await expectRestError(lookup("https://example.com/docs"), 404);
    const hidden = await spaceWith("Draft", ["Plan"]);
    const { data: draft } = await api().orgs.createSite(A.organizationId, { title: "Draft", spaces: [hidden.id] });
    await expectRestError(lookup(`${server.url}/sites/${draft.id}/plan`), 404);
  });

  it("follow the site's redirects: one inside the site is a content redirect, one outside it external", async () => {
    const guideSiteSpace = site.siteSpaces[0]!;
    const pages = (await api().spaces.listPages(guide.id)).data.pages;
    const installId = pages.find((page) => page.title === "Install")!.id;
    await api().orgs.createSiteRedirect(A.organizationId, site.id, {
      source: "/setup",
      destination: { kind: "site-page", siteSpaceId: guideSiteSpace.id, pageId: installId },
    });
    await api().orgs.createSiteRedirect(A.organizationId, site.id, {
      source: "/elsewhere",
      destination: { kind: "external", url: "https://example.com/away" },
    });
    const base = `${server.url}/sites/${site.id}`;
    expect((await lookup(`${base}/setup`)).data).toEqual({ target: "content", redirect: `${base}/install` });
    expect((await lookup(`${base}/elsewhere`)).data).toEqual({ target: "external", site: site.id, redirect: "https://example.com/away" });
  });

  it("resolve on the site's custom hostname", async () => {
    const space = await spaceWith("Hosted", ["Start"]);
    const hosted = await publishedSite([space.id]);
    await serveAtHostname(server, A.token, A.organizationId, hosted.id, "docs.lookup.example.com");
    const { data } = await lookup("https://docs.lookup.example.com/start");
    expect(data).toMatchObject({
      site: hosted.id,
      space: space.id,
      pathname: "start",
      basePath: "/",
      siteBasePath: "/",
      canonicalUrl: "https://docs.lookup.example.com/start",
      complete: true,
    });
  });
});

describe("what the visitor may see", () => {
  it("a share-link site: only with an active key in the URL, which the answer names", async () => {
    const space = await spaceWith("Shared", ["Secret"]);
    const shared = await publishedSite([space.id], "share-link");
    const { data: link } = await api().orgs.createSiteShareLink(A.organizationId, shared.id, { name: "Readers" });
    const key = new URL(link.urls.published!).searchParams.get("shareKey")!;
    const base = `${server.url}/sites/${shared.id}`;
    await expectRestError(lookup(`${base}/secret`), 404);
    expect((await lookup(`${base}/secret?shareKey=${key}`)).data).toMatchObject({ site: shared.id, pathname: "secret", shareKey: key });
    await api().orgs.updateSiteShareLinkById(A.organizationId, shared.id, link.id, { active: false });
    await expectRestError(lookup(`${base}/secret?shareKey=${key}`), 404);
  });

  it("a visitor-auth site: the token's claims decide which site spaces it shows; refused visitors get 404 or, asked, the sign-in URL", async () => {
    const main = await spaceWith("Members", ["Home"]);
    const pro = await spaceWith("Pro", ["Limits"]);
    const guarded = await publishedSite([main.id, pro.id], "visitor-auth");
    await api().orgs.updateSiteAdaptiveSchema(A.organizationId, guarded.id, { jsonSchema: ADAPTIVE_SCHEMA } as never);
    const proSiteSpace = guarded.siteSpaces.find((s) => s.space.id === pro.id)!;
    await api().orgs.updateSiteSpaceById(A.organizationId, guarded.id, proSiteSpace.id, { condition: 'visitor.claims.plan == "pro"' });
    const key = (await server.database.prisma.site.findUniqueOrThrow({ where: { id: guarded.id } })).authPrivateKey;
    const now = Math.floor(server.clock.now().getTime() / 1000);
    const sign = (claims: Record<string, unknown>) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: "HS256" })
        .setIssuedAt(now)
        .setExpirationTime(now + 3600)
        .sign(new TextEncoder().encode(key));
    const url = `${server.url}/sites/${guarded.id}/${proSiteSpace.path}/limits`;

    const found = (await lookup(url, { visitorAuthToken: await sign({ plan: "pro" }) })).data as Record<string, unknown>;
    expect(found).toMatchObject({ site: guarded.id, siteSpace: proSiteSpace.id, space: pro.id, pathname: "limits" });
    expect(found.contextId).toMatch(/^[\w-]{16}$/);
    // The token in the URL, as a reader's link carries it, counts as well; a POST's visitor.jwtToken too.
    expect((await lookup(`${url}?jwt_token=${await sign({ plan: "pro" })}`)).data).toMatchObject({ space: pro.id });
    const posted = await api().urls.resolvePublishedContentByUrl({ url, visitor: { jwtToken: await sign({ plan: "pro" }) } });
    expect(posted.data).toMatchObject({ space: pro.id });

    await expectRestError(lookup(url, { visitorAuthToken: await sign({ plan: "free" }) }), 404);
    await expectRestError(lookup(url), 404);
    await expectRestError(lookup(url, { visitorAuthToken: "not.a.token" }), 404);
    // Without a sign-in URL, redirectOnError has nowhere to send the visitor.
    await expectRestError(lookup(url, { redirectOnError: true }), 404);
    await server.rest(A.token, "PATCH", `/v1/orgs/${A.organizationId}/sites/${guarded.id}/publishing/auth`, {
      backend: "custom",
      fallbackURL: "https://login.example.com/start",
    });
    expect((await lookup(url, { redirectOnError: true })).data).toEqual({
      target: "external",
      site: guarded.id,
      redirect: "https://login.example.com/start",
    });
    await expectRestError(lookup(url), 404);
  });

  it("unsigned claims (POST visitor.unsignedClaims) show a site space whose condition they meet, only when they validate", async () => {
    const main = await spaceWith("Open", ["Intro"]);
    const beta = await spaceWith("Beta", ["Preview"]);
    const adaptive = await publishedSite([main.id, beta.id]);
    await api().orgs.updateSiteAdaptiveSchema(A.organizationId, adaptive.id, { jsonSchema: ADAPTIVE_SCHEMA } as never);
    const betaSiteSpace = adaptive.siteSpaces.find((s) => s.space.id === beta.id)!;
    await api().orgs.updateSiteSpaceById(A.organizationId, adaptive.id, betaSiteSpace.id, {
      condition: "visitor.claims.unsigned.beta == true",
    });
    const url = `${server.url}/sites/${adaptive.id}/${betaSiteSpace.path}/preview`;
    const resolve = (unsignedClaims?: Record<string, unknown>) =>
      api().urls.resolvePublishedContentByUrl({ url, visitor: { unsignedClaims } });
    await expectRestError(resolve(), 404);
    expect((await resolve({ beta: true })).data).toMatchObject({ siteSpace: betaSiteSpace.id, space: beta.id, pathname: "preview" });
    // Claims that do not validate against the adaptive schema count for nothing.
    await expectRestError(resolve({ beta: "yes" }), 404);
    // As `visitor.<name>` parameters of the URL, as the site server reads them.
    expect((await lookup(`${url}?visitor.beta=true`)).data).toMatchObject({ space: beta.id });
  });
});

describe("bad input", () => {
  it("answers 400 naming the field, on REST and GraphQL", async () => {
    await expectRestError(lookup(""), 400, "url is required");
    await expectRestError(lookup("ftp://example.com/x"), 400, "url must be an http or https URL");
    await expectRestError(lookup(`https://example.com/${"x".repeat(2100)}`), 400, "url must be at most 2048 characters");
    const raw = (body: unknown) => server.rest(A.token, "POST", "/v1/urls/published", body);
    const big = await raw({ url: `${server.url}/sites/${site.id}/`, visitor: { unsignedClaims: { note: "x".repeat(9000) } } });
    expect(big.status).toBe(400);
    expect(big.body.error.message).toContain("visitor.unsignedClaims must be at most 8192 characters");
    const listed = await raw({ url: `${server.url}/sites/${site.id}/`, visitor: { unsignedClaims: [1] } });
    expect(listed.status).toBe(400);
    expect(listed.body.error.message).toContain("visitor.unsignedClaims must be an object");
    const missing = await raw({});
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toContain("url");

    expectGraphQLError(
      await server.graphql(A.token, `query($url: String!) { publishedContentByUrl(url: $url) { content { site } } }`, { url: "nope" }),
      "BAD_REQUEST",
      "url must be an absolute http or https URL",
    );
  });

  it("answers the same lookup in GraphQL, and validates the REST answer against the published schema", async () => {
    const base = `${server.url}/sites/${site.id}`;
    const data = await graphqlData(
      server,
      A.token,
      `query($url: String!) { publishedContentByUrl(url: $url) { content { site siteSection space pathname complete shareKey preview } redirect { target } } }`,
      { url: `${base}/install` },
    );
    expect(data.publishedContentByUrl).toEqual({
      content: { site: site.id, siteSection: null, space: guide.id, pathname: "install", complete: true, shareKey: null, preview: false },
      redirect: null,
    });
    await publishedRest(server, A.token, "GET", `/v1/urls/published?url=${encodeURIComponent(`${base}/install`)}`);
    await publishedRest(server, A.token, "POST", "/v1/urls/published", { url: `${base}/install` });
  });
});
