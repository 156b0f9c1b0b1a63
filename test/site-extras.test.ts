// Site extras (issue 30, areas 5 to 7) through the official client and plain HTTP, answers checked
// against the published schemas: the integrations installed on a site, an organization's
// installations, subdomains. Another organization's ids answer like unknown ones; bad input is a
// 400 naming the field.
import { SiteAdsTopic } from "@gitbook/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectRestError, graphqlData, publishedRest } from "./support/expect.ts";
import { validateResponse } from "./support/openapi.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let A: { organizationId: string; token: string; userId: string };
let B: { organizationId: string; token: string; userId: string };
let reader: { token: string };

const rest = (method: string, url: string, body?: unknown, token = A.token) => publishedRest(server, token, method, url, body);
const PARTNER_KEY = "c0ffee4b1d5e7a9f2468ace013579bdf02468ace13579bdf";
const SCRIPT = "export default { async fetch() { return new Response('ok'); } };";

/** A private integration of A, published through the API. */
async function publish(name: string, title: string) {
  const response = await server.rest(A.token, "POST", `/v1/integrations/${name}`, {
    organization: A.organizationId,
    title,
    script: SCRIPT,
    visibility: "private",
    target: "all",
  });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  server.clock.advance(1000);
}

async function newSite(title: string, organization = A) {
  const api = server.client(organization.token);
  const { data: space } = await api.orgs.createSpace(organization.organizationId, { title });
  const { data: site } = await api.orgs.createSite(organization.organizationId, { title, spaces: [space.id] });
  return { siteId: site.id, spaceId: space.id, path: `/v1/orgs/${organization.organizationId}/sites/${site.id}` };
}

beforeAll(async () => {
  server = await startTestServer({ adsPartnerKey: PARTNER_KEY });
  A = await server.bootstrap("Extras");
  B = await server.bootstrap("Other extras");
  reader = await server.addMember(A.organizationId, "read");
});

afterAll(async () => {
  await server?.close();
});

describe("integrations of a site and installations of an organization", () => {
  let site: Awaited<ReturnType<typeof newSite>>;
  let other: Awaited<ReturnType<typeof newSite>>;
  let onSite: string;

  beforeAll(async () => {
    site = await newSite("With integrations");
    other = await newSite("Without integrations");
    await publish("extras-on-site", "On one site");
    await publish("extras-everywhere", "On every site");
    await publish("extras-nowhere", "Installed on no site");
    await publish("extras-uninstalled", "Not installed");
    const api = server.client(A.token);
    onSite = (await api.integrations.installIntegration("extras-on-site", { organization: A.organizationId })).data.id;
    server.clock.advance(1000);
    await api.integrations.installIntegrationOnSite("extras-on-site", onSite, { siteId: site.siteId });
    const everywhere = (await api.integrations.installIntegration("extras-everywhere", { organization: A.organizationId })).data.id;
    server.clock.advance(1000);
    await api.integrations.updateIntegrationInstallation("extras-everywhere", everywhere, { site_selection: "all" } as never);
    await api.integrations.installIntegration("extras-nowhere", { organization: A.organizationId });
  });

  it("lists the integrations installed on the site: on it, or on every site", async () => {
    const response = await rest("GET", `${site.path}/integrations`);
    expect(response.status).toBe(200);
    expect(response.body.items.map((item: { name: string }) => item.name)).toEqual(["extras-on-site", "extras-everywhere"]);
    const otherResponse = await rest("GET", `${other.path}/integrations`);
    expect(otherResponse.body.items.map((item: { name: string }) => item.name)).toEqual(["extras-everywhere"]);
    // The official client, a reader, paging and search.
    const { data } = await server.client(reader.token).orgs.listSiteIntegrations(A.organizationId, site.siteId, { search: "one site" });
    expect(data.items.map((item) => item.title)).toEqual(["On one site"]);
    const first = await rest("GET", `${site.path}/integrations?limit=1`);
    expect(first.body.items).toHaveLength(1);
    expect(first.body.next.page).toBeTruthy();
    const second = await rest("GET", `${site.path}/integrations?limit=1&page=${first.body.next.page}`);
    expect(second.body.items.map((item: { name: string }) => item.name)).toEqual(["extras-everywhere"]);
  });

  it("lists the organization's installations with their integrations, for its admins", async () => {
    const { data } = await server.client(A.token).orgs.listOrganizationInstallations(A.organizationId);
    expect(data.items.map((item) => [item.integration.name, item.installation.target.organization])).toEqual([
      ["extras-on-site", A.organizationId],
      ["extras-everywhere", A.organizationId],
      ["extras-nowhere", A.organizationId],
    ]);
    expect(data.items[0]!.installation.id).toBe(onSite);
    const checked = await rest("GET", `/v1/orgs/${A.organizationId}/installations?search=nowhere`);
    expect(checked.body.items.map((item: { integration: { title: string } }) => item.integration.title)).toEqual(["Installed on no site"]);
    // Installations carry their configuration: readers are refused, other organizations see nothing.
    await expectRestError(server.client(reader.token).orgs.listOrganizationInstallations(A.organizationId), 403);
    await expectRestError(server.client(B.token).orgs.listOrganizationInstallations(A.organizationId), 404);
    expect((await server.client(B.token).orgs.listOrganizationInstallations(B.organizationId)).data.items).toEqual([]);
  });

  it("answers another organization's site like an unknown one, and names a bad search", async () => {
    await expectRestError(server.client(B.token).orgs.listSiteIntegrations(A.organizationId, site.siteId), 404);
    await expectRestError(server.client(B.token).orgs.listSiteIntegrations(B.organizationId, site.siteId), 404);
    await expectRestError(server.client(A.token).orgs.listSiteIntegrations(A.organizationId, "site_unknown"), 404);
    await expectRestError(
      server.client(A.token).orgs.listSiteIntegrations(A.organizationId, site.siteId, { search: "x".repeat(600) }),
      400,
      "search",
    );
    const data = await graphqlData(server, A.token, `query($id: ID!) { site(id: $id) { integrations { totalCount } } }`, {
      id: site.siteId,
    });
    expect(data.site.integrations.totalCount).toBe(2);
  });
});

describe("subdomains", () => {
  beforeAll(async () => {
    await server.client(A.token).orgs.updateOrganizationById(A.organizationId, { hostname: "extras-docs" } as never);
    await server.client(B.token).orgs.updateOrganizationById(B.organizationId, { hostname: "other-extras" } as never);
  });

  it("names the organization that holds a subdomain, to its members", async () => {
    const response = await rest("GET", "/v1/subdomains/extras-docs", undefined, reader.token);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      object: "subdomain",
      subdomain: "extras-docs",
      target: { type: "organization", organization: A.organizationId },
      isActive: true,
    });
    const { data } = await server.client(A.token).subdomains.getSubdomain("extras-docs");
    expect(data.target.organization).toBe(A.organizationId);
  });

  it("answers a subdomain held by another organization exactly like a free one", async () => {
    const held = await server.rest(A.token, "GET", "/v1/subdomains/other-extras");
    const free = await server.rest(A.token, "GET", "/v1/subdomains/nobody-has-this");
    expect(held.status).toBe(404);
    expect(free.status).toBe(404);
    expect(held.body.error.message.replace("other-extras", "X")).toBe(free.body.error.message.replace("nobody-has-this", "X"));
  });

  it("names the subdomain when it is not one", async () => {
    await expectRestError(server.client(A.token).subdomains.getSubdomain("Not_A-Name"), 400, "subdomain");
    await expectRestError(server.client(A.token).subdomains.getSubdomain("ab"), 400, "subdomain");
    expect((await server.rest(undefined, "GET", "/v1/subdomains/extras-docs")).status).toBe(401);
  });
});

describe("external links of a site's header", () => {
  let published: { siteId: string; path: string; base: string; groupId: string };

  /** A published site with two sections (the second in a group). */
  async function sectionedSite(title: string, organization = A) {
    const { siteId, path, spaceId } = await newSite(title, organization);
    const api = server.client(organization.token);
    await graphqlData(server, organization.token, `mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, {
      input: { space: spaceId, title: "Home", markdown: "Welcome." },
    });
    const spaceOf = async (name: string) => {
      const id = (await api.orgs.createSpace(organization.organizationId, { title: name })).data.id;
      await graphqlData(server, organization.token, `mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, {
        input: { space: id, title: `${name} home`, markdown: `Welcome to ${name}.` },
      });
      return id;
    };
    await rest("POST", `${path}/sections`, { spaceId: await spaceOf("Guides"), title: "Guides" }, organization.token);
    const second = await rest("POST", `${path}/sections`, { spaceId: await spaceOf("Reference"), title: "Reference" }, organization.token);
    const group = await rest("POST", `${path}/section-groups`, { title: "More", sections: [second.body.id] }, organization.token);
    await api.orgs.publishSite(organization.organizationId, siteId);
    return { siteId, path, base: `${server.url}/sites/${siteId}`, groupId: group.body.id as string };
  }

  const header = async () => {
    const response = await fetch(`${published.base}/`);
    expect(response.status).toBe(200);
    const html = await response.text();
    return html.slice(html.indexOf("<header"), html.indexOf("</header>"));
  };
  const linksStored = () =>
    server.database.prisma.siteExternalLink.findMany({ where: { siteId: published.siteId }, orderBy: { id: "asc" } });

  beforeAll(async () => {
    published = await sectionedSite("Linked");
  });

  it("shows a created link in the published header, escaped, and drops the cached page when links change", async () => {
    // The page is rendered (and cached) before the link exists.
    expect(await header()).not.toContain('class="external"');
    const created = await rest("POST", `${published.path}/external-links`, {
      title: `Status <b>& "news"</b>`,
      url: `https://status.example.com/?a=1&b="x"`,
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      object: "site-external-link",
      id: expect.stringMatching(/^sxl_/),
      title: `Status <b>& "news"</b>`,
      url: "https://status.example.com/?a=1&b=%22x%22",
      draft: false,
    });
    expect(created.headers.get("location")).toContain(
      `/orgs/${A.organizationId}/sites/${published.siteId}/external-links/${created.body.id}`,
    );
    let html = await header();
    expect(html).toContain(
      `<a class="external" href="https://status.example.com/?a=1&amp;b=%22x%22" rel="noopener noreferrer">Status &lt;b&gt;&amp; &quot;news&quot;&lt;/b&gt;</a>`,
    );
    expect(html).not.toContain("<b>&");
    // After the sections' tabs.
    expect(html.indexOf("Reference")).toBeLessThan(html.indexOf('class="external"'));

    const { data: updated } = await server
      .client(A.token)
      .orgs.updateSiteExternalLinkById(A.organizationId, published.siteId, created.body.id, {
        title: "Status page",
        parent: published.groupId,
      });
    expect(updated).toMatchObject({ title: "Status page", sectionGroup: published.groupId });
    html = await header();
    expect(html).toContain(">Status page</a>");
    expect(html).not.toContain("news");

    const deleted = await server.rest(A.token, "DELETE", `${published.path}/external-links/${created.body.id}`);
    expect(deleted.status).toBe(205);
    expect(await header()).not.toContain('class="external"');
    expect((await server.rest(A.token, "DELETE", `${published.path}/external-links/${created.body.id}`)).status).toBe(204);
  });

  it("keeps drafts and links whose condition fails off the page", async () => {
    const api = server.client(A.token);
    const { data: draft } = await api.orgs.addExternalLinkToSite(A.organizationId, published.siteId, {
      title: "Draft link",
      url: "https://draft.example.com/",
      draft: true,
    });
    await rest("POST", `${published.path}/external-links`, {
      title: "Beta link",
      url: "https://beta.example.com/",
      condition: "visitor.claims.unsigned.beta == true",
      description: "For beta readers",
      localizedTitle: { fr: "Lien bêta" },
    });
    let html = await header();
    expect(html).not.toContain("Draft link");
    expect(html).not.toContain("Beta link");
    await api.orgs.updateSiteExternalLinkById(A.organizationId, published.siteId, draft.id, { draft: false });
    html = await header();
    expect(html).toContain(">Draft link</a>");
    expect(html).not.toContain("Beta link");
  });

  it("lists live links in the site's structure: the root's after its sections and groups, a group's after its sections", async () => {
    const site = await sectionedSite("Structured");
    const api = server.client(A.token);
    const add = (body: Record<string, unknown>) => api.orgs.addExternalLinkToSite(A.organizationId, site.siteId, body as never);
    const { data: rootLink } = await add({ title: "Status", url: "https://status.example.com/" });
    const { data: groupLink } = await add({ title: "Changelog", url: "https://changes.example.com/", parent: site.groupId });
    await add({ title: "Unfinished", url: "https://draft.example.com/", draft: true });
    const structure = await rest("GET", `${site.path}/structure`);
    expect(structure.status).toBe(200);
    expect(structure.body.type).toBe("sections");
    const described = structure.body.structure.map((item: { object: string; title: string }) => `${item.object} ${item.title}`);
    // The site's own space moved into a section titled after the site when the first section came.
    expect(described).toEqual(["site-section Structured", "site-section Guides", "site-section-group More", "site-external-link Status"]);
    expect(structure.body.structure[3]).toEqual({
      object: "site-external-link",
      id: rootLink.id,
      title: "Status",
      url: "https://status.example.com/",
      draft: false,
    });
    const group = structure.body.structure[2];
    expect(group.sections.map((section: { title: string }) => section.title)).toEqual(["Reference"]);
    expect(group.children.map((item: { object: string; id: string }) => `${item.object} ${item.id}`)).toEqual([
      `site-section ${group.sections[0].id}`,
      `site-external-link ${groupLink.id}`,
    ]);
    // GraphQL: the same order, and a link whose condition fails for the claims given is left out.
    await add({ title: "Beta", url: "https://beta.example.com/", condition: "visitor.claims.unsigned.beta == true" });
    const query = `query($id: ID!, $claims: JSON) { node(id: $id) { ... on Site { structure(claims: $claims) { items { __typename ... on SiteExternalLink { title } } } } } }`;
    const titles = async (claims: unknown) =>
      (await graphqlData(server, A.token, query, { id: site.siteId, claims })).node.structure.items.map(
        (item: { __typename: string; title?: string }) => item.title ?? item.__typename,
      );
    expect(await titles(null)).toEqual(["SiteSection", "SiteSection", "SiteSectionGroup", "Status", "Beta"]);
    expect(await titles({ unsigned: { beta: false } })).toEqual(["SiteSection", "SiteSection", "SiteSectionGroup", "Status"]);
  });

  it("never renders a stored URL that is not http(s)", async () => {
    await server.database.prisma.siteExternalLink.create({
      data: {
        id: "sxl_written_directly",
        siteId: published.siteId,
        title: "Sneaky",
        url: "javascript:alert(1)",
        sortKey: "zz",
        createdAt: new Date(),
      },
    });
    const html = await header();
    expect(html).not.toContain("javascript:");
    expect(html).not.toContain("Sneaky");
    await server.database.prisma.siteExternalLink.delete({ where: { id: "sxl_written_directly" } });
  });

  it("refuses bad input naming the field, with nothing changed", async () => {
    const before = await linksStored();
    const path = `${published.path}/external-links`;
    const cases: [unknown, string][] = [
      [{ title: "Bad", url: "javascript:alert(1)" }, "url"],
      [{ title: "Bad", url: "ftp://example.com/" }, "url"],
      [{ title: "Bad", url: "/relative" }, "url"],
      [{ title: "Bad" }, "url"],
      [{ url: "https://example.com/" }, "title"],
      [{ title: "B", url: "https://example.com/" }, "title"],
      [{ title: "x".repeat(129), url: "https://example.com/" }, "title"],
      [{ title: 12, url: "https://example.com/" }, "title"],
      [{ title: "Bad", url: "https://example.com/", parent: "ssg_unknown" }, "parent"],
      [{ title: "Bad", url: "https://example.com/", draft: "yes" }, "draft"],
      [{ title: "Bad", url: "https://example.com/", condition: "visitor.(" }, "condition"],
      [{ title: "Bad", url: "https://example.com/", localizedTitle: { klingon: "x" } }, "localizedTitle"],
      [{ title: "Bad", url: "https://example.com/", description: "d".repeat(257) }, "description"],
      [{ title: "Bad", url: `https://example.com/${"p".repeat(2100)}` }, "url"],
    ];
    for (const [body, field] of cases) {
      const response = await server.rest(A.token, "POST", path, body);
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(response.body.error.message).toContain(field);
    }
    const [link] = before;
    const patch = await server.rest(A.token, "PATCH", `${path}/${link!.id}`, { url: "data:text/html,hi" });
    expect(patch.status).toBe(400);
    expect(patch.body.error.message).toContain("url");
    // A site with no sections has a simple structure: no external links.
    const simple = await newSite("Simple");
    await expectRestError(
      server.client(A.token).orgs.addExternalLinkToSite(A.organizationId, simple.siteId, { title: "Link", url: "https://example.com/" }),
      400,
      "structure",
    );
    expect(await linksStored()).toEqual(before);
    expect(await server.database.prisma.siteExternalLink.count({ where: { siteId: simple.siteId } })).toBe(0);
  });

  it("answers readers 403 and other organizations 404, with nothing changed", async () => {
    const before = await linksStored();
    const [link] = before;
    const body = { title: "Intruder", url: "https://example.com/" };
    await expectRestError(server.client(reader.token).orgs.addExternalLinkToSite(A.organizationId, published.siteId, body), 403);
    await expectRestError(server.client(B.token).orgs.addExternalLinkToSite(A.organizationId, published.siteId, body), 404);
    await expectRestError(server.client(B.token).orgs.addExternalLinkToSite(B.organizationId, published.siteId, body), 404);
    await expectRestError(
      server.client(B.token).orgs.updateSiteExternalLinkById(A.organizationId, published.siteId, link!.id, { title: "Intruder" }),
      404,
    );
    expect((await server.rest(B.token, "DELETE", `${published.path}/external-links/${link!.id}`)).status).toBe(404);
    // B's own site does not hold A's link.
    const other = await sectionedSite("Other linked", B);
    await expectRestError(
      server.client(B.token).orgs.updateSiteExternalLinkById(B.organizationId, other.siteId, link!.id, { title: "Intruder" }),
      404,
    );
    expect((await server.rest(B.token, "DELETE", `${other.path}/external-links/${link!.id}`)).status).toBe(204);
    expect(await linksStored()).toEqual(before);
  });

  it("holds at most 50 links per site, and the site still answers", async () => {
    const site = await sectionedSite("Many links");
    const existing = await server.database.prisma.siteExternalLink.count({ where: { siteId: site.siteId } });
    for (let i = existing; i < 50; i++)
      expect(
        (await server.rest(A.token, "POST", `${site.path}/external-links`, { title: `Link ${i}`, url: `https://e.example.com/${i}` }))
          .status,
      ).toBe(201);
    const over = await server.rest(A.token, "POST", `${site.path}/external-links`, {
      title: "One more",
      url: "https://e.example.com/more",
    });
    expect(over.status).toBe(400);
    expect(over.body.error.message).toContain("50");
    const page = await (await fetch(`${site.base}/`)).text();
    expect(page.match(/class="external"/g)).toHaveLength(50);
  });
});

describe("publishing preview", () => {
  it("opens an unpublished site for the caller, privately, and nothing without the token", async () => {
    const { siteId, path, spaceId } = await newSite("Previewed");
    await graphqlData(server, A.token, `mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, {
      input: { space: spaceId, title: "Secret plan", markdown: "Not published yet." },
    });
    const base = `${server.url}/sites/${siteId}`;
    expect((await fetch(`${base}/`)).status).toBe(404);
    const response = await rest("GET", `${path}/publishing/preview`, undefined, reader.token);
    expect(response.status).toBe(200);
    const url = new URL(response.body.url);
    expect(url.href.startsWith(`${base}/?preview=`)).toBe(true);
    const page = await fetch(url, { redirect: "manual" });
    expect(page.status).toBe(200);
    expect(page.headers.get("cache-control")).toBe("private, no-store");
    expect(page.headers.get("x-robots-tag")).toBe("noindex");
    expect(await page.text()).toContain("Not published yet.");
    // Still 404 without it; a tampered token is refused.
    expect((await fetch(`${base}/`)).status).toBe(404);
    const token = url.searchParams.get("preview")!;
    expect((await fetch(`${base}/?preview=${token.slice(0, -2)}xx`)).status).toBe(403);
    // Another site's preview does not open this one.
    const other = await newSite("Other previewed");
    const otherUrl = new URL((await rest("GET", `${other.path}/publishing/preview`)).body.url);
    expect((await fetch(`${base}/?preview=${otherUrl.searchParams.get("preview")}`)).status).toBe(403);
    // An hour later it has expired.
    server.clock.advance(3601_000);
    expect((await fetch(url)).status).toBe(403);
    server.clock.advance(-3601_000);
  });

  it("opens the site space, target and claims asked for, and names bad ones", async () => {
    const { siteId, path } = await newSite("Previewed with options");
    const { data: siteSpaces } = await server.client(A.token).orgs.listSiteSpaces(A.organizationId, siteId);
    const siteSpaceId = siteSpaces.items[0]!.id;
    const { data } = await server.client(A.token).orgs.getSitePublishingPreviewById(A.organizationId, siteId, {
      siteSpace: siteSpaceId,
      claims: "(plan:'pro!'s',beta:!t,seats:3)",
    });
    expect(data.url.startsWith(`${server.url}/sites/${siteId}/?preview=`)).toBe(true);
    const token = new URL(data.url).searchParams.get("preview")!;
    const payload = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString());
    expect(payload.claims).toEqual({ plan: "pro's", beta: true, seats: 3 });
    expect(payload.sub).toBe(siteId);
    expect(payload.exp - payload.iat).toBe(3600);
    const targeted = await rest("GET", `${path}/publishing/preview?target=${encodeURIComponent(`${server.url}/sites/${siteId}/guide`)}`);
    expect(targeted.body.url.startsWith(`${server.url}/sites/${siteId}/guide?preview=`)).toBe(true);
    for (const [query, field] of [
      ["siteSpace=sitesp_unknown", "siteSpace"],
      ["claims=(plan:", "claims"],
      ["claims=!(1,2)", "claims"],
      [`target=${encodeURIComponent("https://evil.example.com/")}`, "target"],
    ]) {
      const response = await server.rest(A.token, "GET", `${path}/publishing/preview?${query}`);
      expect(response.status, query).toBe(400);
      expect(response.body.error.message).toContain(field);
    }
    await expectRestError(server.client(B.token).orgs.getSitePublishingPreviewById(A.organizationId, siteId), 404);
    await expectRestError(server.client(B.token).orgs.getSitePublishingPreviewById(B.organizationId, siteId), 404);
  });
});

describe("duplicating a site space", () => {
  it("adds a copy of the space next to the source, in the same section", async () => {
    const { siteId, path, spaceId } = await newSite("Duplicated");
    await graphqlData(server, A.token, `mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, {
      input: { space: spaceId, title: "Only page", markdown: "Copied text." },
    });
    const api = server.client(A.token);
    const { data: before } = await api.orgs.listSiteSpaces(A.organizationId, siteId);
    const source = before.items[0]!;
    const response = await rest("POST", `${path}/site-spaces/${source.id}/duplicate`, {});
    expect(response.status).toBe(201);
    expect(response.body.id).not.toBe(source.id);
    expect(response.body.space.id).not.toBe(spaceId);
    expect(response.body.space.title).toBe("Duplicated (copy)");
    const { data: after } = await api.orgs.listSiteSpaces(A.organizationId, siteId);
    expect(after.items.map((item) => item.id)).toEqual([source.id, response.body.id]);
    const { data: pages } = await api.spaces.listPages(response.body.space.id);
    expect(pages.pages.map((page) => page.title)).toEqual(["Only page"]);
    // draft: the copy is added hidden.
    const { data: hidden } = await api.orgs.duplicateSiteSpace(A.organizationId, siteId, source.id, { draft: true });
    expect(hidden.hidden).toBe(true);
  });

  it("refuses readers, other organizations and bad input with nothing created", async () => {
    const { siteId, path } = await newSite("Not duplicated");
    const api = server.client(A.token);
    const source = (await api.orgs.listSiteSpaces(A.organizationId, siteId)).data.items[0]!;
    const spaces = () => server.database.prisma.space.count({ where: { organizationId: A.organizationId } });
    const siteSpaces = () => server.database.prisma.siteSpace.count({ where: { siteId } });
    const [spacesBefore, siteSpacesBefore] = [await spaces(), await siteSpaces()];
    await expectRestError(server.client(reader.token).orgs.duplicateSiteSpace(A.organizationId, siteId, source.id, {}), 403);
    await expectRestError(server.client(B.token).orgs.duplicateSiteSpace(A.organizationId, siteId, source.id, {}), 404);
    await expectRestError(server.client(B.token).orgs.duplicateSiteSpace(B.organizationId, siteId, source.id, {}), 404);
    await expectRestError(api.orgs.duplicateSiteSpace(A.organizationId, siteId, "sitesp_unknown", {}), 404);
    const bad = await server.rest(A.token, "POST", `${path}/site-spaces/${source.id}/duplicate`, { draft: "yes" });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain("draft");
    // Another site's site space is unknown here.
    const other = await newSite("Other not duplicated");
    const otherSource = (await api.orgs.listSiteSpaces(A.organizationId, other.siteId)).data.items[0]!;
    await expectRestError(api.orgs.duplicateSiteSpace(A.organizationId, siteId, otherSource.id, {}), 404);
    expect([await spaces(), await siteSpaces()]).toEqual([spacesBefore + 1, siteSpacesBefore]);
  });
});

describe("site ads", () => {
  /** A raw partner call with the key given (none: no header). */
  async function partner(method: string, url: string, body?: unknown, key: string | null = PARTNER_KEY) {
    const response = await fetch(`${server.url}${url}`, {
      method,
      headers: {
        authorization: `Bearer ${A.token}`,
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
        ...(key ? { "x-gitbook-partner-key": key } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    const answer = { status: response.status, body: text ? JSON.parse(text) : undefined };
    expect(validateResponse(method, url, answer.status, answer.body)).toEqual([]);
    return answer;
  }
  const adsOf = async (siteId: string) => (await server.client(A.token).orgs.getSiteById(A.organizationId, siteId)).data.ads;
  const stored = (siteId: string) =>
    server.database.prisma.site.findUniqueOrThrow({
      where: { id: siteId },
      select: { adsStatus: true, adsTopic: true, adsZoneId: true, adsReportingId: true, adsReason: true },
    });

  async function publicSite(title: string) {
    const created = await newSite(title);
    await server.client(A.token).orgs.publishSite(A.organizationId, created.siteId);
    return created;
  }

  it("goes from pending to review, live and disabled; pages load nothing from an ad network", async () => {
    const unpublished = await newSite("Not ads ready");
    expect(await adsOf(unpublished.siteId)).toEqual({ status: "pending", submittable: false });
    const { siteId, path } = await publicSite("Ads ready");
    expect(await adsOf(siteId)).toEqual({ status: "pending", submittable: true });
    const submitted = await rest("POST", `${path}/ads`, { status: "in-review", topic: "webdev" });
    expect(submitted.status).toBe(204);
    expect(await adsOf(siteId)).toEqual({ status: "in-review", topic: "webdev" });

    // The partner lists it, with a contact, and answers.
    const listed = await publishedRest(server, A.token, "GET", "/v1/ads/sites", undefined);
    expect(listed.status).toBe(403);
    const list = await partner("GET", "/v1/ads/sites");
    expect(list.status).toBe(200);
    const item = list.body.items.find((row: { id: string }) => row.id === siteId);
    expect(item).toEqual({
      id: siteId,
      url: `${server.url}/sites/${siteId}/`,
      email: expect.stringMatching(/@example\.com$/),
      topic: "webdev",
      status: "in-review",
    });
    expect((await partner("PATCH", `/v1/ads/sites/${siteId}`, { status: "live", zoneId: "zone-1", reportingId: "rep-1" })).status).toBe(
      204,
    );
    expect(await adsOf(siteId)).toEqual({ status: "live", topic: "webdev", zoneId: "zone-1" });
    const live = await partner("GET", "/v1/ads/sites?status=live");
    expect(live.body.items.map((row: { id: string }) => row.id)).toContain(siteId);

    // The published page loads nothing of an ad network: its only scripts and frames are its own.
    const html = await (await fetch(`${server.url}/sites/${siteId}/`)).text();
    expect(html).not.toContain("zone-1");
    for (const [, src] of html.matchAll(/<(?:script|iframe|img)[^>]+src="([^"]+)"/g))
      expect(src.startsWith("/") || src.startsWith(server.url) || src.startsWith("data:"), src).toBe(true);

    await server.client(A.token).orgs.updateSiteAdsById(A.organizationId, siteId, { status: "disabled" });
    expect(await adsOf(siteId)).toEqual({ status: "disabled", topic: "webdev", zoneId: "zone-1" });
  });

  it("refuses bad input, readers, other organizations and anyone without the partner's key, with nothing changed", async () => {
    const { siteId, path } = await publicSite("Ads refused");
    const before = await stored(siteId);
    for (const [body, field] of [
      [{ status: "live" }, "status"],
      [{ status: "in-review" }, "topic"],
      [{ status: "in-review", topic: "gambling" }, "topic"],
      [{ status: "disabled" }, "status"],
      [{ status: 3 }, "status"],
    ] as const) {
      const response = await server.rest(A.token, "POST", `${path}/ads`, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.message).toContain(field);
    }
    await expectRestError(
      server.client(reader.token).orgs.updateSiteAdsById(A.organizationId, siteId, { status: "in-review", topic: SiteAdsTopic.Webdev }),
      403,
    );
    await expectRestError(
      server.client(B.token).orgs.updateSiteAdsById(A.organizationId, siteId, { status: "in-review", topic: SiteAdsTopic.Webdev }),
      404,
    );
    expect(await stored(siteId)).toEqual(before);

    // The partner: only with its key, only for submitted sites, fields named.
    await rest("POST", `${path}/ads`, { status: "in-review", topic: "crypto" });
    const submitted = await stored(siteId);
    expect((await partner("GET", "/v1/ads/sites", undefined, null)).status).toBe(403);
    expect((await partner("GET", "/v1/ads/sites", undefined, "f".repeat(48))).status).toBe(403);
    expect((await partner("PATCH", `/v1/ads/sites/${siteId}`, { status: "rejected" }, "f".repeat(48))).status).toBe(403);
    for (const [body, field] of [
      [{ status: "live", zoneId: "z" }, "reportingId"],
      [{ status: "live", reportingId: "r" }, "zoneId"],
      [{ status: "rejected", reason: "r".repeat(513) }, "reason"],
      [{ status: "in-review" }, "status"],
      [{}, "status"],
    ] as const) {
      const response = await partner("PATCH", `/v1/ads/sites/${siteId}`, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.message).toContain(field);
    }
    expect((await partner("GET", "/v1/ads/sites?status=pending")).status).toBe(400);
    // A site that was never submitted is not the partner's to answer.
    const never = await publicSite("Never submitted");
    expect((await partner("PATCH", `/v1/ads/sites/${never.siteId}`, { status: "live", zoneId: "z", reportingId: "r" })).status).toBe(404);
    expect(await stored(siteId)).toEqual(submitted);
    expect((await stored(never.siteId)).adsStatus).toBe("pending");
    // Rejected with a reason, then submitted again.
    expect((await partner("PATCH", `/v1/ads/sites/${siteId}`, { status: "rejected", reason: "Off topic" })).status).toBe(204);
    expect(await adsOf(siteId)).toEqual({ status: "rejected", reason: "Off topic" });
    expect((await rest("POST", `${path}/ads`, { status: "in-review" })).status).toBe(204);
    expect(await adsOf(siteId)).toEqual({ status: "in-review", topic: "crypto" });
  });
});

describe("site template", () => {
  it("gives a site without content a starter space with a welcome page, once", async () => {
    const api = server.client(A.token);
    const { data: site } = await api.orgs.createSite(A.organizationId, { title: "Templated" });
    const path = `/v1/orgs/${A.organizationId}/sites/${site.id}`;
    const response = await server.rest(A.token, "POST", `${path}/template`);
    expect(response.status).toBe(200);
    const { data: siteSpaces } = await api.orgs.listSiteSpaces(A.organizationId, site.id);
    expect(siteSpaces.items.map((item) => item.space.title)).toEqual(["Getting started"]);
    const { data: pages } = await api.spaces.listPages(siteSpaces.items[0]!.space.id);
    expect(pages.pages.map((page) => page.title)).toEqual(["Welcome"]);
    await api.orgs.publishSite(A.organizationId, site.id);
    expect(await (await fetch(`${server.url}/sites/${site.id}/`)).text()).toContain("This site was started from the template.");
    // A site that shows content is left as it is.
    const spaces = await server.database.prisma.space.count({ where: { organizationId: A.organizationId } });
    const again = await server.rest(A.token, "POST", `${path}/template`);
    expect(again.status).toBe(400);
    expect(again.body.error.message).toContain("site");
    expect(await server.database.prisma.space.count({ where: { organizationId: A.organizationId } })).toBe(spaces);
  });

  it("refuses readers and other organizations with nothing created", async () => {
    const { data: site } = await server.client(A.token).orgs.createSite(A.organizationId, { title: "Not templated" });
    const spaces = () => server.database.prisma.space.count();
    const before = await spaces();
    await expectRestError(server.client(reader.token).orgs.applyTemplateToSite(A.organizationId, site.id), 403);
    await expectRestError(server.client(B.token).orgs.applyTemplateToSite(A.organizationId, site.id), 404);
    await expectRestError(server.client(B.token).orgs.applyTemplateToSite(B.organizationId, site.id), 404);
    expect(await spaces()).toBe(before);
    expect(await server.database.prisma.siteSpace.count({ where: { siteId: site.id } })).toBe(0);
  });
});
