// Sites through the official client (every response validated against the published schemas)
// and GraphQL: the whole flow (create, add spaces, sections and a group, publish, read what is
// published, unpublish), the structure rules (defaults, paths, moves, groups), adaptive schema
// and conditions, permissions and isolation, and bad inputs that change nothing.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/server.ts";
import { ADAPTIVE_SCHEMA, serveAtHostname } from "./support/sites.ts";
import { expectGraphQLError, expectRestError, graphqlData } from "./support/expect.ts";

let server: TestServer;
let A: { organizationId: string; token: string; userId: string };
let B: { organizationId: string; token: string; userId: string };

const api = (token = A.token) => server.client(token);
const gql = <T = any>(query: string, variables?: Record<string, unknown>, token = A.token) =>
  graphqlData<T>(server, token, query, variables);

let counter = 0;
async function newSpace(title = `Space ${++counter}`, owner = A) {
  const { data } = await api(owner.token).orgs.createSpace(owner.organizationId, { title });
  return data;
}

async function newSite(spaces: string[] = [], title = `Site ${++counter}`) {
  const { data } = await api().orgs.createSite(A.organizationId, { title, spaces });
  return data;
}

/** Everything stored about a site's structure, to check that a refused request changed nothing. */
async function snapshot(siteId: string) {
  const prisma = server.database.prisma;
  const [site, siteSpaces, sections, groups] = await Promise.all([
    prisma.site.findUniqueOrThrow({ where: { id: siteId } }),
    prisma.siteSpace.findMany({ where: { siteId }, orderBy: { id: "asc" } }),
    prisma.siteSection.findMany({ where: { siteId }, orderBy: { id: "asc" } }),
    prisma.siteSectionGroup.findMany({ where: { siteId }, orderBy: { id: "asc" } }),
  ]);
  return { site, siteSpaces, sections, groups };
}

beforeAll(async () => {
  server = await startTestServer();
  A = await server.bootstrap("Sites A");
  B = await server.bootstrap("Sites B");
});

afterAll(async () => {
  await server?.close();
});

describe("the whole flow through the official client", () => {
  it("creates a site, adds a space, sections and a group, publishes, reads what is published, unpublishes", async () => {
    const guide = await newSpace("Guide");
    const api2 = await newSpace("API reference");
    const changelog = await newSpace("Changelog");

    const created = await api().orgs.createSite(A.organizationId, { title: "Docs", visibility: "public" as never });
    expect(created.status).toBe(201);
    const site = created.data;
    expect(site).toMatchObject({ object: "site", title: "Docs", type: "basic", visibility: "public", published: false, siteSpaces: 0 });
    expect(site.urls.location).toBe(`${server.url}/v1/orgs/${A.organizationId}/sites/${site.id}`);
    expect(created.headers.get("location")).toBe(site.urls.location);
    expect(site.urls.published).toBeUndefined();

    const added = await api().orgs.addSpaceToSite(A.organizationId, site.id, { spaceId: guide.id });
    expect(added.status).toBe(201);
    expect(added.data).toMatchObject({ object: "site-space", path: "guide", default: true, title: "Guide" });
    expect(added.data.space.id).toBe(guide.id);
    expect(added.data.section).toBeUndefined();

    // The first section: the root site space moves into a section of its own, titled after the site.
    const section = (await api().orgs.addSectionToSite(A.organizationId, site.id, { spaceId: api2.id, title: "API" })).data;
    expect(section).toMatchObject({ object: "site-section", title: "API", path: "api", default: false });
    expect(section.siteSpaces.map((s) => s.space.id)).toEqual([api2.id]);
    const sections = (await api().orgs.listSiteSections(A.organizationId, site.id)).data;
    expect(sections.items.map((s) => s.title)).toEqual(["Docs", "API"]);
    expect(sections.items[0]).toMatchObject({ default: true });
    expect(sections.items[0].siteSpaces.map((s) => s.id)).toEqual([added.data.id]);

    const third = (await api().orgs.addSectionToSite(A.organizationId, site.id, { spaceId: changelog.id, title: "Changelog" })).data;
    const group = await api().orgs.addSectionGroupToSite(A.organizationId, site.id, { title: "More", sections: [section.id, third.id] });
    expect(group.status).toBe(201);
    expect(group.data).toMatchObject({ object: "site-section-group", title: "More" });
    expect(group.data.sections.map((s) => s.id)).toEqual([section.id, third.id]);

    const structure = (await api().orgs.getSiteStructure(A.organizationId, site.id)).data;
    expect(structure.type).toBe("sections");
    expect(structure.structure.map((item) => item.object)).toEqual(["site-section", "site-section-group"]);

    const published = await api().orgs.publishSite(A.organizationId, site.id);
    expect(published.status).toBe(200);
    expect(published.data).toMatchObject({ published: true, urls: { published: `${server.url}/sites/${site.id}/` } });

    const content = (await api().orgs.getPublishedContentSite(A.organizationId, site.id)).data;
    expect(content.object).toBe("published-content-site");
    expect(content.site.published).toBe(true);
    expect(content.structure.type).toBe("sections");
    expect(content.customizations.site.styling.theme).toBe("clean");
    const [first, more] = content.structure.structure as any[];
    expect(first.siteSpaces[0].urls.published).toBe(`${server.url}/sites/${site.id}/`);
    expect(more.sections.map((s: any) => s.urls.published)).toEqual([
      `${server.url}/sites/${site.id}/api`,
      `${server.url}/sites/${site.id}/changelog`,
    ]);

    const listed = (await api().orgs.listSites(A.organizationId, { published: true })).data;
    expect(listed.items.map((s) => s.id)).toContain(site.id);

    const unpublished = await api().orgs.unpublishSite(A.organizationId, site.id);
    expect(unpublished.data.published).toBe(false);
    expect(unpublished.data.urls.published).toBeUndefined();
    expect((await api().orgs.listSites(A.organizationId, { published: true })).data.items.map((s) => s.id)).not.toContain(site.id);

    const deleted = await api().orgs.deleteSiteById(A.organizationId, site.id);
    expect(deleted.status).toBe(205);
    await expectRestError(api().orgs.getSiteById(A.organizationId, site.id), 404);
  });

  it("answers the same through GraphQL: Organization.sites, Space.sites and node(id:)", async () => {
    const space = await newSpace("Shown");
    const site = await newSite([space.id], "GraphQL site");
    const data = await gql(
      /* GraphQL */ `query($org: ID!, $space: ID!, $site: ID!) {
        organization(id: $org) { sites(first: 100) { totalCount nodes { id } } }
        space(id: $space) { sites { id title } }
        node(id: $site) { ... on Site { title siteSpaceCount siteSpaces(first: 10) { nodes { path default space { id } } } } }
      }`,
      { org: A.organizationId, space: space.id, site: site.id },
    );
    expect(data.organization.sites.nodes.map((s: any) => s.id)).toContain(site.id);
    expect(data.space.sites).toEqual([{ id: site.id, title: "GraphQL site" }]);
    expect(data.node).toMatchObject({
      title: "GraphQL site",
      siteSpaceCount: 1,
      siteSpaces: { nodes: [{ path: "shown", default: true, space: { id: space.id } }] },
    });
  });
});

describe("the site list", () => {
  it("filters by space, title, published status and type (the published parameters), on both surfaces; a bad type is 400 naming it", async () => {
    const org = await server.bootstrap("Site filters");
    const client = api(org.token).orgs;
    const { data: shown } = await client.createSpace(org.organizationId, { title: "Shown space" });
    const alpha = (await client.createSite(org.organizationId, { title: "Alpha handbook", spaces: [shown.id] })).data;
    const beta = (await client.createSite(org.organizationId, { title: "Beta HANDBOOK", type: "premium" as never })).data;
    const gamma = (await client.createSite(org.organizationId, { title: "Gamma", type: "ultimate" as never, spaces: [shown.id] })).data;
    await client.publishSite(org.organizationId, beta.id);
    const ids = async (query: Parameters<typeof client.listSites>[1]) =>
      (await client.listSites(org.organizationId, query)).data.items.map((site) => site.id).sort();
    expect(await ids({})).toEqual([alpha.id, beta.id, gamma.id].sort());
    expect(await ids({ space: shown.id })).toEqual([alpha.id, gamma.id].sort());
    expect(await ids({ title: "handbook" })).toEqual([alpha.id, beta.id].sort());
    expect(await ids({ published: true })).toEqual([beta.id]);
    expect(await ids({ published: false })).toEqual([alpha.id, gamma.id].sort());
    expect(await ids({ type: ["premium", "ultimate"] as never })).toEqual([beta.id, gamma.id].sort());
    expect(await ids({ type: ["basic"] as never })).toEqual([alpha.id]);
    expect(await ids({ space: shown.id, type: ["ultimate"] as never })).toEqual([gamma.id]);
    const path = `/v1/orgs/${org.organizationId}/sites`;
    const listed = await server.rest(org.token, "GET", `${path}?type=premium,legacy-basic`);
    expect(listed.body.items.map((site: { id: string }) => site.id)).toEqual([beta.id]);
    const refused = await server.rest(org.token, "GET", `${path}?type=basic&type=gold`);
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain("type");

    const SITES = `query($id: ID!, $type: [SiteType!]) { organization(id: $id) { sites(type: $type) { nodes { id type } } } }`;
    const data = await gql(SITES, { id: org.organizationId, type: ["PREMIUM"] }, org.token);
    expect(data.organization.sites.nodes).toEqual([{ id: beta.id, type: "PREMIUM" }]);
    expectGraphQLError(await server.graphql(org.token, SITES, { id: org.organizationId, type: ["GOLD"] }), "VALIDATION", "GOLD");
  });
});

describe("GraphQL nodes and connections", () => {
  it("resolves site spaces, sections and groups by node(id:) with their connections, and hides them from another organization", async () => {
    const site = await newSite([(await newSpace("Noded root")).id], "Noded site");
    const section = (
      await api().orgs.addSectionToSite(A.organizationId, site.id, { spaceId: (await newSpace("Noded")).id, title: "Noded" })
    ).data;
    const group = (await api().orgs.addSectionGroupToSite(A.organizationId, site.id, { title: "Noded group", sections: [section.id] }))
      .data;
    const [siteSpace] = section.siteSpaces;
    const NODES = /* GraphQL */ `query($site: ID!, $siteSpace: ID!, $section: ID!, $group: ID!) {
      site: node(id: $site) { ... on Site { sections(first: 10) { totalCount nodes { id } } sectionGroups(first: 10) { nodes { id } } } }
      siteSpace: node(id: $siteSpace) { ... on SiteSpace { id path section { id } site { id } } }
      section: node(id: $section) { ... on SiteSection { id title sectionGroup { id } siteSpaces { id } } }
      group: node(id: $group) { ... on SiteSectionGroup { id title sections { id } site { id } } }
    }`;
    const variables = { site: site.id, siteSpace: siteSpace.id, section: section.id, group: group.id };
    const data = await gql(NODES, variables);
    expect(data.site.sections.totalCount).toBe(2);
    expect(data.site.sections.nodes.map((node: { id: string }) => node.id)).toContain(section.id);
    expect(data.site.sectionGroups.nodes).toEqual([{ id: group.id }]);
    expect(data.siteSpace).toEqual({ id: siteSpace.id, path: siteSpace.path, section: { id: section.id }, site: { id: site.id } });
    expect(data.section).toEqual({ id: section.id, title: "Noded", sectionGroup: { id: group.id }, siteSpaces: [{ id: siteSpace.id }] });
    expect(data.group).toEqual({ id: group.id, title: "Noded group", sections: [{ id: section.id }], site: { id: site.id } });
    for (const id of Object.values(variables)) {
      expectGraphQLError(await server.graphql(B.token, `query($id: ID!) { node(id: $id) { id } }`, { id }), "NOT_FOUND");
    }
  });
});

describe("structure rules", () => {
  it("numbers a taken default path, refuses a taken path with 409 and a bad one with 400, changing nothing", async () => {
    const one = await newSpace("Intro");
    const two = await newSpace("Intro");
    const site = await newSite([one.id, two.id]);
    const spaces = (await api().orgs.listSiteSpaces(A.organizationId, site.id)).data.items;
    expect(spaces.map((s) => s.path)).toEqual(["intro", "intro-2"]);
    const before = await snapshot(site.id);
    await expectRestError(api().orgs.updateSiteSpaceById(A.organizationId, site.id, spaces[1].id, { path: "intro" }), 409, "path");
    await expectRestError(api().orgs.updateSiteSpaceById(A.organizationId, site.id, spaces[1].id, { path: "" }), 400, "path");
    await expectRestError(api().orgs.updateSiteSpaceById(A.organizationId, site.id, spaces[1].id, { path: "x".repeat(101) }), 400, "path");
    await expectRestError(api().orgs.updateSiteSpaceById(A.organizationId, site.id, spaces[1].id, { path: "a/b" }), 400, "path");
    await expectRestError(api().orgs.updateSiteSpaceById(A.organizationId, site.id, spaces[1].id, { condition: "" }), 400, "condition");
    await expectRestError(
      api().orgs.updateSiteSpaceById(A.organizationId, site.id, spaces[1].id, { condition: "x".repeat(1025) }),
      400,
      "condition",
    );
    await expectRestError(
      api().orgs.updateSiteSpaceById(A.organizationId, site.id, spaces[1].id, { condition: "visitor.claims ==" }),
      400,
      "condition",
    );
    await expectRestError(
      api().orgs.updateSiteSpaceById(A.organizationId, site.id, spaces[1].id, { condition: "process.exit()" }),
      400,
      "condition",
    );
    expect(await snapshot(site.id)).toEqual(before);

    const renamed = (
      await api().orgs.updateSiteSpaceById(A.organizationId, site.id, spaces[1].id, {
        path: "v2",
        condition: "visitor.claims.beta == true",
      })
    ).data;
    expect(renamed).toMatchObject({ path: "v2", condition: "visitor.claims.beta == true" });
    const cleared = (await api().orgs.updateSiteSpaceById(A.organizationId, site.id, spaces[1].id, { condition: null })).data;
    expect(cleared.condition).toBeUndefined();
  });

  it("refuses a space of another organization (404) and an unknown section (400), changing nothing", async () => {
    const site = await newSite([(await newSpace()).id]);
    const foreign = await newSpace("Foreign", B);
    const before = await snapshot(site.id);
    await expectRestError(api().orgs.addSpaceToSite(A.organizationId, site.id, { spaceId: foreign.id }), 404, foreign.id);
    await expectRestError(api().orgs.addSectionToSite(A.organizationId, site.id, { spaceId: foreign.id }), 404);
    await expectRestError(api().orgs.createSite(A.organizationId, { title: "X site", spaces: [foreign.id] }), 404);
    await expectRestError(
      api().orgs.addSpaceToSite(A.organizationId, site.id, { spaceId: (await newSpace()).id, sectionId: "ssec_nope" }),
      400,
      "sectionId",
    );
    expect(await snapshot(site.id)).toEqual(before);
  });

  it("makes the next site space the default when the default one is deleted", async () => {
    const site = await newSite([(await newSpace()).id, (await newSpace()).id, (await newSpace()).id]);
    const [first, second] = (await api().orgs.listSiteSpaces(A.organizationId, site.id)).data.items;
    expect(first.default).toBe(true);
    await api().orgs.deleteSiteSpaceById(A.organizationId, site.id, first.id);
    const after = (await api().orgs.listSiteSpaces(A.organizationId, site.id, { default: true })).data.items;
    expect(after.map((s) => s.id)).toEqual([second.id]);
  });

  it("makes the next section the default when the default section is deleted", async () => {
    const site = await newSite();
    const a = (await api().orgs.addSectionToSite(A.organizationId, site.id, { spaceId: (await newSpace()).id, title: "First" })).data;
    const b = (await api().orgs.addSectionToSite(A.organizationId, site.id, { spaceId: (await newSpace()).id, title: "Second" })).data;
    expect(a.default).toBe(true);
    const deleted = await api().orgs.deleteSiteSectionById(A.organizationId, site.id, a.id);
    expect(deleted.status).toBe(205);
    const sections = (await api().orgs.listSiteSections(A.organizationId, site.id)).data.items;
    expect(sections.map((s) => [s.id, s.default])).toEqual([[b.id, true]]);
  });

  it("refuses a section path taken in the site (409); a section group takes only sections of its own site (400)", async () => {
    const site = await newSite();
    const other = await newSite();
    const a = (await api().orgs.addSectionToSite(A.organizationId, site.id, { spaceId: (await newSpace()).id, title: "Alpha" })).data;
    const b = (await api().orgs.addSectionToSite(A.organizationId, site.id, { spaceId: (await newSpace()).id, title: "Beta" })).data;
    const foreign = (await api().orgs.addSectionToSite(A.organizationId, other.id, { spaceId: (await newSpace()).id, title: "Gamma" }))
      .data;
    const before = await snapshot(site.id);
    await expectRestError(api().orgs.updateSiteSectionById(A.organizationId, site.id, b.id, { path: a.path }), 409, "path");
    await expectRestError(
      api().orgs.addSectionGroupToSite(A.organizationId, site.id, { title: "G", sections: [a.id, foreign.id] }),
      400,
      "sections",
    );
    await expectRestError(api().orgs.addSectionGroupToSite(A.organizationId, site.id, { title: "" }), 400, "title");
    const path = `/v1/orgs/${A.organizationId}/sites/${site.id}`;
    const group = (await api().orgs.addSectionGroupToSite(A.organizationId, site.id, { title: "Group" })).data;
    const afterGroup = await snapshot(site.id);
    const refused = await server.rest(A.token, "POST", `${path}/section-groups/${group.id}/sections`, { sectionId: foreign.id });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain("sectionId");
    expect(await snapshot(site.id)).toEqual(afterGroup);
    expect(before.sections).toEqual(afterGroup.sections);

    const joined = await server.rest(A.token, "POST", `${path}/section-groups/${group.id}/sections`, { sectionId: b.id });
    expect(joined.status).toBe(200);
    expect(joined.body.sections.map((s: any) => s.id)).toEqual([b.id]);
    const left = await server.rest(A.token, "DELETE", `${path}/section-groups/${group.id}/sections/${b.id}`);
    expect(left.status).toBe(205);
    const groups = (await api().orgs.listSiteSectionGroups(A.organizationId, site.id)).data.items;
    expect(groups[0].sections).toEqual([]);
  });

  it("puts a section in a group and takes it out by PATCH (siteSectionGroupId); another site's group is 400, changing nothing", async () => {
    const site = await newSite();
    const other = await newSite();
    const a = (await api().orgs.addSectionToSite(A.organizationId, site.id, { spaceId: (await newSpace()).id, title: "Grouped A" })).data;
    const b = (await api().orgs.addSectionToSite(A.organizationId, site.id, { spaceId: (await newSpace()).id, title: "Grouped B" })).data;
    const group = (await api().orgs.addSectionGroupToSite(A.organizationId, site.id, { title: "Holder", sections: [a.id] })).data;
    await api().orgs.addSectionToSite(A.organizationId, other.id, { spaceId: (await newSpace()).id, title: "Elsewhere" });
    const foreign = (await api().orgs.addSectionGroupToSite(A.organizationId, other.id, { title: "Foreign holder" })).data;
    const patch = (body: Record<string, unknown>) => api().orgs.updateSiteSectionById(A.organizationId, site.id, b.id, body as never);

    const before = await snapshot(site.id);
    await expectRestError(patch({ siteSectionGroupId: foreign.id }), 400, "siteSectionGroupId");
    await expectRestError(patch({ siteSectionGroupId: 3 }), 400, "siteSectionGroupId");
    expectGraphQLError(
      await server.graphql(A.token, `mutation($input: UpdateSiteSectionInput!) { updateSiteSection(input: $input) { section { id } } }`, {
        input: { site: site.id, id: b.id, sectionGroup: foreign.id },
      }),
      "BAD_REQUEST",
      "siteSectionGroupId",
    );
    expect(await snapshot(site.id)).toEqual(before);

    expect((await patch({ siteSectionGroupId: group.id })).data.sectionGroup).toBe(group.id);
    const grouped = (await api().orgs.listSiteSectionGroups(A.organizationId, site.id)).data.items[0];
    expect(grouped.sections.map((s) => s.id)).toEqual([a.id, b.id]);
    expect((await patch({ siteSectionGroupId: null })).data.sectionGroup).toBeUndefined();
    // Out of its group, the section stands at the root right after the group.
    const root = (await api().orgs.getSiteStructure(A.organizationId, site.id)).data.structure.map((item: any) => item.id);
    expect(root.slice(root.indexOf(group.id))).toEqual([group.id, b.id]);
    expect((await api().orgs.listSiteSectionGroups(A.organizationId, site.id)).data.items[0].sections.map((s) => s.id)).toEqual([a.id]);
  });

  it("moves site spaces, sections and groups, and sorts the structure", async () => {
    const site = await newSite([(await newSpace("One")).id, (await newSpace("Two")).id, (await newSpace("Three")).id]);
    const [one, two, three] = (await api().orgs.listSiteSpaces(A.organizationId, site.id)).data.items;
    const moved = await api().orgs.moveSiteSpace(A.organizationId, site.id, three.id, {
      position: { before: { type: "site-space", siteSpace: one.id } },
    });
    expect(moved.status).toBe(200);
    expect((await api().orgs.listSiteSpaces(A.organizationId, site.id)).data.items.map((s) => s.id)).toEqual([three.id, one.id, two.id]);
    const sorted = await api().orgs.sortSiteStructure(A.organizationId, site.id, {
      item: { type: "site-space", id: three.id },
      position: { after: { type: "site-space", id: two.id } },
    });
    expect(sorted.data).toMatchObject({ object: "site-space", id: three.id });
    expect((await api().orgs.getSiteStructure(A.organizationId, site.id)).data.structure.map((s: any) => s.id)).toEqual([
      one.id,
      two.id,
      three.id,
    ]);

    const sectioned = await newSite();
    const s1 = (await api().orgs.addSectionToSite(A.organizationId, sectioned.id, { spaceId: (await newSpace()).id, title: "S one" })).data;
    const s2 = (await api().orgs.addSectionToSite(A.organizationId, sectioned.id, { spaceId: (await newSpace()).id, title: "S two" })).data;
    const g = (await api().orgs.addSectionGroupToSite(A.organizationId, sectioned.id, { title: "Grouped" })).data;
    await api().orgs.moveSiteSection(A.organizationId, sectioned.id, s2.id, {
      position: { before: { type: "site-section", siteSection: s1.id } },
    });
    await api().orgs.moveSiteSectionGroup(A.organizationId, sectioned.id, g.id, {
      position: { before: { type: "site-section", id: s2.id } },
    });
    const root = (await api().orgs.getSiteStructure(A.organizationId, sectioned.id)).data.structure.map((s: any) => s.id);
    expect(root).toEqual([g.id, s2.id, s1.id]);
    await expectRestError(
      api().orgs.sortSiteStructure(A.organizationId, sectioned.id, {
        item: { type: "site-section", id: s1.id },
        position: { before: { type: "site-section", id: "ssec_nope" } },
      }),
      400,
      "position",
    );
  });

  it("keeps verified hostnames unique across the service (409) and checks the site's fields (400)", async () => {
    const one = await newSite();
    const two = await newSite();
    const patched = await api().orgs.updateSiteById(A.organizationId, one.id, {
      title: "Renamed site",
      visibility: "unlisted" as never,
      basename: "docs",
    } as never);
    expect(patched.data).toMatchObject({ title: "Renamed site", visibility: "unlisted", basename: "docs" });
    const path = `/v1/orgs/${A.organizationId}/sites`;
    await serveAtHostname(server, A.token, A.organizationId, one.id, "docs.example.com");
    const before = await snapshot(two.id);
    const taken = await server.rest(A.token, "PATCH", `${path}/${two.id}`, { hostname: "docs.example.com" });
    expect(taken.status).toBe(409);
    expect((await server.rest(A.token, "PATCH", `${path}/${two.id}`, { hostname: "localhost" })).status).toBe(400);
    await expectRestError(api().orgs.updateSiteById(A.organizationId, two.id, { title: "x" }), 400, "title");
    await expectRestError(api().orgs.updateSiteById(A.organizationId, two.id, { visibility: "secret" as never }), 400, "visibility");
    await expectRestError(api().orgs.createSite(A.organizationId, { title: "y" }), 400, "title");
    await expectRestError(api().orgs.updateSiteById(A.organizationId, two.id, { defaultSiteSpace: "ssp_nope" }), 400, "defaultSiteSpace");
    expect(await snapshot(two.id)).toEqual(before);
  });

  it("keeps a verified hostname to one site across organizations, and a claimed one to one of two sites taking it at the same moment", async () => {
    const hostname = `shared-${++counter}.docs.example.com`;
    const mine = await newSite();
    await serveAtHostname(server, A.token, A.organizationId, mine.id, hostname);
    expect((await api().orgs.getSiteById(A.organizationId, mine.id)).data).toMatchObject({ hostname });
    const { data: theirs } = await api(B.token).orgs.createSite(B.organizationId, { title: "Their site" });
    const before = await snapshot(theirs.id);
    await expectRestError(api(B.token).orgs.updateSiteById(B.organizationId, theirs.id, { hostname } as never), 409, hostname);
    const graphqlTaken = await server.graphql(B.token, `mutation($input: UpdateSiteInput!) { updateSite(input: $input) { site { id } } }`, {
      input: { site: theirs.id, hostname },
    });
    expectGraphQLError(graphqlTaken, "CONFLICT", hostname);
    expect(await snapshot(theirs.id)).toEqual(before);

    // Two sites of two organizations claim one new hostname at once: one site ends with it. A
    // pending claim may be taken over (test/host-routing.test.ts), so the second may win or get a
    // 409 naming it, depending on whether it saw the first's claim.
    const raced = `raced-${++counter}.docs.example.com`;
    const { data: another } = await api(B.token).orgs.createSite(B.organizationId, { title: "Racing site" });
    const { data: third } = await api().orgs.createSite(A.organizationId, { title: "Third racing site" });
    const attempts = await Promise.all([
      server.rest(A.token, "PATCH", `/v1/orgs/${A.organizationId}/sites/${third.id}`, { hostname: raced }),
      server.rest(B.token, "PATCH", `/v1/orgs/${B.organizationId}/sites/${another.id}`, { hostname: raced }),
    ]);
    for (const attempt of attempts) {
      expect([200, 409]).toContain(attempt.status);
      if (attempt.status === 409) expect(attempt.body.error.message).toContain(raced);
    }
    expect(attempts.some((attempt) => attempt.status === 200)).toBe(true);
    expect(await server.database.prisma.site.count({ where: { hostname: raced } })).toBe(1);
  });

  it("checks a section's path (1 to 100, unique) and condition (1 to 1024, must parse) on both surfaces, changing nothing", async () => {
    const site = await newSite();
    const a = (await api().orgs.addSectionToSite(A.organizationId, site.id, { spaceId: (await newSpace()).id, title: "Alpha" })).data;
    const b = (await api().orgs.addSectionToSite(A.organizationId, site.id, { spaceId: (await newSpace()).id, title: "Beta" })).data;
    const [siteSpace] = (await api().orgs.listSiteSpaces(A.organizationId, site.id)).data.items;
    const before = await snapshot(site.id);
    const patch = (body: Record<string, unknown>) => api().orgs.updateSiteSectionById(A.organizationId, site.id, b.id, body as never);
    await expectRestError(patch({ path: "" }), 400, "path");
    await expectRestError(patch({ path: "x".repeat(101) }), 400, "path");
    await expectRestError(patch({ path: "a/b" }), 400, "path");
    await expectRestError(patch({ path: a.path }), 409, "path");
    await expectRestError(patch({ condition: "" }), 400, "condition");
    await expectRestError(patch({ condition: "x".repeat(1025) }), 400, "condition");
    await expectRestError(patch({ condition: "visitor.claims.plan ==" }), 400, "condition");
    await expectRestError(patch({ condition: "constructor.constructor('return process')()" }), 400, "condition");
    const SECTION = `mutation($input: UpdateSiteSectionInput!) { updateSiteSection(input: $input) { section { id } } }`;
    const SITE_SPACE = `mutation($input: UpdateSiteSpaceInput!) { updateSiteSpace(input: $input) { siteSpace { id } } }`;
    expectGraphQLError(
      await server.graphql(A.token, SECTION, { input: { site: site.id, id: b.id, condition: "visitor.claims.plan ==" } }),
      "BAD_REQUEST",
      "condition",
    );
    expectGraphQLError(
      await server.graphql(A.token, SECTION, { input: { site: site.id, id: b.id, path: "x".repeat(101) } }),
      "BAD_REQUEST",
      "path",
    );
    expectGraphQLError(
      await server.graphql(A.token, SITE_SPACE, { input: { site: site.id, id: siteSpace.id, condition: "1 +" } }),
      "BAD_REQUEST",
      "condition",
    );
    expect(await snapshot(site.id)).toEqual(before);

    const valid = (await patch({ path: "beta-2", condition: 'visitor.claims.plan == "pro"' })).data;
    expect(valid).toMatchObject({ path: "beta-2", condition: 'visitor.claims.plan == "pro"' });
    expect((await patch({ condition: null })).data.condition).toBeUndefined();
  });
});

describe("adaptive schema and template conditions", () => {
  it("takes a draft-07 JSON Schema, refuses anything else with 400, and lists conditions built from it", async () => {
    const site = await newSite();
    const empty = (await api().orgs.getSiteAdaptiveSchema(A.organizationId, site.id)).data;
    expect(empty.object).toBe("site-adaptive-schema");
    const jsonSchema = ADAPTIVE_SCHEMA;
    const saved = await api().orgs.updateSiteAdaptiveSchema(A.organizationId, site.id, { jsonSchema } as never);
    expect(saved.data.jsonSchema).toEqual(jsonSchema);
    const conditions = (await api().orgs.listSiteAdaptiveTemplateConditions(A.organizationId, site.id)).data.items.map(
      (item) => item.condition,
    );
    expect(conditions).toEqual(['visitor.claims.plan == "free"', 'visitor.claims.plan == "pro"', "visitor.claims.unsigned.beta == true"]);

    const before = await snapshot(site.id);
    const path = `/v1/orgs/${A.organizationId}/sites/${site.id}/adaptive-schema`;
    for (const bad of [
      { type: "object", properties: { a: { type: "nonsense" } } },
      { type: "string" },
      "text",
      { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties: {} },
    ]) {
      const response = await server.rest(A.token, "PUT", path, { jsonSchema: bad });
      expect(response.status, JSON.stringify(bad)).toBe(400);
      expect(response.body.error.message).toContain("jsonSchema");
    }
    expect((await server.rest(A.token, "PUT", path, {})).status).toBe(400);
    expect(await snapshot(site.id)).toEqual(before);
  });
});

describe("the organization's default content and a member's sites", () => {
  it("takes a site of the organization as default content (another's is 400), cleared when the site is deleted", async () => {
    const org = await server.bootstrap("Default content");
    const { data: site } = await api(org.token).orgs.createSite(org.organizationId, { title: "Home site" });
    const foreign = await newSite();
    await expectRestError(
      api(org.token).orgs.updateOrganizationById(org.organizationId, { defaultContent: { type: "site", site: foreign.id } } as never),
      400,
      "defaultContent",
    );
    const updated = await api(org.token).orgs.updateOrganizationById(org.organizationId, {
      defaultContent: { type: "site", site: site.id },
    } as never);
    expect(updated.data.defaultContent).toEqual({ type: "site", site: site.id });
    const reader = await server.addMember(org.organizationId, "read");
    const guest = await server.addMember(org.organizationId, null);
    const members = (await api(org.token).orgs.listMembersInOrganizationById(org.organizationId)).data.items;
    expect(members.find((m) => m.id === reader.userId)?.sites).toBe(1);
    expect(members.find((m) => m.id === guest.userId)?.sites).toBe(0);
    await api(org.token).orgs.deleteSiteById(org.organizationId, site.id);
    expect((await api(org.token).orgs.getOrganizationById(org.organizationId)).data.defaultContent).toBeUndefined();
  });
});

describe("share links", () => {
  it("creates, lists, searches, renames, revokes and deletes share links (204 when already gone); the key resolves published URLs", async () => {
    const shared = await newSpace("Shared");
    const site = await newSite([shared.id]);
    await api().orgs.updateSiteById(A.organizationId, site.id, { visibility: "share-link" as never });
    await api().orgs.publishSite(A.organizationId, site.id);
    const created = await api().orgs.createSiteShareLink(A.organizationId, site.id, { name: "Partners" });
    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({ object: "share-link", name: "Partners", active: true });
    expect(created.headers.get("location")).toBe(
      `${server.url}/v1/orgs/${A.organizationId}/sites/${site.id}/share-links/${created.data.id}`,
    );
    const key = new URL(created.data.urls.published!).searchParams.get("shareKey")!;
    expect(key.length).toBeGreaterThanOrEqual(32);
    expect(created.data.urls.published).toBe(`${server.url}/sites/${site.id}/?shareKey=${key}`);
    const other = (await api().orgs.createSiteShareLink(A.organizationId, site.id, { name: "" })).data;

    const listed = (await api().orgs.listSiteShareLinks(A.organizationId, site.id)).data;
    expect(listed.items.map((link) => link.id).sort()).toEqual([created.data.id, other.id].sort());
    expect((await api().orgs.listSiteShareLinks(A.organizationId, site.id, { search: "partn" })).data.items.map((l) => l.id)).toEqual([
      created.data.id,
    ]);
    expect((await api().orgs.listSiteShareLinks(A.organizationId, site.id, { search: key })).data.items.map((l) => l.id)).toEqual([
      created.data.id,
    ]);

    // The read routes take the key: published URLs then carry it.
    const withKey = (await api().orgs.getPublishedContentSite(A.organizationId, site.id, { shareKey: key })).data;
    expect(withKey.site.urls.published).toBe(`${server.url}/sites/${site.id}/?shareKey=${key}`);
    expect((withKey.structure.structure[0] as any).urls.published).toBe(`${server.url}/sites/${site.id}/?shareKey=${key}`);
    await expectRestError(api().orgs.getPublishedContentSite(A.organizationId, site.id, { shareKey: "nope" }), 400, "shareKey");

    // GET /v1/spaces/{spaceId} takes it too: the space's published URL is then the site's, with the key.
    const space = (await api().spaces.getSpaceById(shared.id, { shareKey: key })).data;
    expect(space.urls.published).toBe(`${server.url}/sites/${site.id}/?shareKey=${key}`);
    expect((await api().spaces.getSpaceById(shared.id)).data.urls.published).toBeUndefined(); // a private space, read without the key
    await expectRestError(api().spaces.getSpaceById(shared.id, { shareKey: "nope" }), 400, "shareKey");
    const elsewhere = await newSpace("Not on the site");
    await expectRestError(api().spaces.getSpaceById(elsewhere.id, { shareKey: key }), 400, "shareKey");

    const renamed = await api().orgs.updateSiteShareLinkById(A.organizationId, site.id, other.id, { name: "Press" });
    expect(renamed.data).toMatchObject({ name: "Press", active: true });
    const revoked = await api().orgs.updateSiteShareLinkById(A.organizationId, site.id, created.data.id, { active: false });
    expect(revoked.data.active).toBe(false);
    await expectRestError(api().orgs.getSiteStructure(A.organizationId, site.id, { shareKey: key }), 400, "shareKey");
    await expectRestError(api().spaces.getSpaceById(shared.id, { shareKey: key }), 400, "shareKey");

    expect((await api().orgs.deleteSiteShareLinkById(A.organizationId, site.id, other.id)).status).toBe(205);
    expect((await api().orgs.deleteSiteShareLinkById(A.organizationId, site.id, other.id)).status).toBe(204);
    expect((await api().orgs.listSiteShareLinks(A.organizationId, site.id)).data.items.map((l) => l.id)).toEqual([created.data.id]);

    const data = await gql(`query($id: ID!) { site(id: $id) { shareLinks(first: 10) { nodes { id key active } } } }`, { id: site.id });
    expect(data.site.shareLinks.nodes).toEqual([{ id: created.data.id, key, active: false }]);
  });

  it("refuses bad names, empty patches, unknown links and readers, changing nothing", async () => {
    const site = await newSite();
    const other = await newSite();
    const link = (await api().orgs.createSiteShareLink(A.organizationId, site.id, { name: "Kept" })).data;
    const links = () =>
      server.database.prisma.siteShareLink.findMany({ where: { siteId: { in: [site.id, other.id] } }, orderBy: { id: "asc" } });
    const before = await links();
    const path = `/v1/orgs/${A.organizationId}/sites/${site.id}/share-links`;
    await expectRestError(api().orgs.createSiteShareLink(A.organizationId, site.id, { name: "x".repeat(51) }), 400, "name");
    expect((await server.rest(A.token, "POST", path, {})).status).toBe(400);
    expect((await server.rest(A.token, "POST", path, { name: 3 })).body.error.message).toContain("name");
    const empty = await server.rest(A.token, "PATCH", `${path}/${link.id}`, {});
    expect(empty.status).toBe(400);
    expect(empty.body.error.message).toContain("active");
    expect((await server.rest(A.token, "PATCH", `${path}/${link.id}`, { active: "no" })).body.error.message).toContain("active");
    await expectRestError(api().orgs.updateSiteShareLinkById(A.organizationId, site.id, "shl_nope", { name: "X" }), 404);
    // A link of another site is not this site's.
    await expectRestError(api().orgs.updateSiteShareLinkById(A.organizationId, other.id, link.id, { name: "X" }), 404);
    expect((await api().orgs.deleteSiteShareLinkById(A.organizationId, other.id, link.id)).status).toBe(204);
    const reader = await server.addMember(A.organizationId, "read");
    await expectRestError(api(reader.token).orgs.listSiteShareLinks(A.organizationId, site.id), 403);
    await expectRestError(api(reader.token).orgs.createSiteShareLink(A.organizationId, site.id, { name: "Mine" }), 403);
    await expectRestError(api(B.token).orgs.listSiteShareLinks(A.organizationId, site.id), 404);
    expect(await links()).toEqual(before);
    const response = await server.graphql(
      A.token,
      `mutation($input: UpdateSiteShareLinkInput!) { updateSiteShareLink(input: $input) { shareLink { id } } }`,
      {
        input: { site: site.id, id: link.id, name: "y".repeat(51) },
      },
    );
    expectGraphQLError(response, "BAD_REQUEST", "name");
    expect(await links()).toEqual(before);
  });
});

describe("customization", () => {
  it("replaces the site's settings (PUT), overrides them per site space (PATCH, null resets), and the published HTML uses title and color", async () => {
    const main = await newSpace("Look main");
    const variant = await newSpace("Look variant");
    const site = await newSite([main.id, variant.id], "Look site");
    const initial = (await api().orgs.getSiteCustomizationById(A.organizationId, site.id)).data;
    expect(initial.styling.theme).toBe("clean");
    expect(initial.updatedAt).toBeUndefined();

    const settings = {
      ...initial,
      title: "Branded docs",
      styling: { ...initial.styling, theme: "bold", primaryColor: { light: "#ff5500", dark: "#aa3300" } },
      themes: { default: "dark", toggeable: false },
      favicon: { emoji: "1f4d8" },
      header: { ...initial.header, links: [{ title: "Status", to: { kind: "url", url: "https://status.example.com/" }, links: [] }] },
    };
    const saved = await api().orgs.updateSiteCustomizationById(A.organizationId, site.id, settings as never);
    expect(saved.status).toBe(200);
    expect(saved.data).toMatchObject({ title: "Branded docs", styling: { theme: "bold", primaryColor: { light: "#ff5500" } } });
    expect(saved.data.updatedAt).toBeDefined();
    expect((await api().orgs.getSiteCustomizationById(A.organizationId, site.id)).data).toEqual(saved.data);

    await api().orgs.publishSite(A.organizationId, site.id);
    const html = await (await fetch(`${server.url}/sites/${site.id}/`)).text();
    expect(html).toContain("--primary:#ff5500");
    expect(html).toContain('<header class="top theme-bold">');
    expect(html).toContain(">Branded docs</a>");
    // Dark first, with no toggle; the emoji as favicon (also at /favicon.ico); the header link.
    expect(html).toContain('<html lang="en" data-theme="dark">');
    expect(html).not.toContain("theme-toggle");
    expect(html).toContain('<link rel="icon" href="data:image/svg+xml,');
    expect(html).toContain(encodeURIComponent("📘"));
    expect(html).toContain('<a href="https://status.example.com/">Status</a>');
    const icon = await fetch(`${server.url}/sites/${site.id}/favicon.ico`);
    expect(icon.headers.get("content-type")).toBe("image/svg+xml");
    expect(await icon.text()).toContain("📘");

    const [, second] = (await api().orgs.listSiteSpaces(A.organizationId, site.id)).data.items;
    expect((await api().orgs.getSiteSpaceCustomizationById(A.organizationId, site.id, second.id)).data).toEqual(saved.data);
    const overridden = await api().orgs.overrideSiteSpaceCustomizationById(A.organizationId, site.id, second.id, {
      title: "Variant docs",
      styling: { theme: "muted", primaryColor: { light: "#00aa00", dark: "#007700" } },
    } as never);
    expect(overridden.data).toMatchObject({
      title: "Variant docs",
      styling: { theme: "muted", primaryColor: { light: "#00aa00" }, corners: "rounded" },
    });
    const variantHtml = await (await fetch(`${server.url}/sites/${site.id}/${second.path}/`)).text();
    expect(variantHtml).toContain("--primary:#00aa00");
    expect(variantHtml).toContain(">Variant docs</a>");
    expect(await (await fetch(`${server.url}/sites/${site.id}/`)).text()).toContain("--primary:#ff5500");

    const reset = (
      await api().orgs.overrideSiteSpaceCustomizationById(A.organizationId, site.id, second.id, { styling: { theme: null } } as never)
    ).data;
    expect(reset).toMatchObject({ title: "Variant docs", styling: { theme: "bold", primaryColor: { light: "#00aa00" } } });
    const published = (await api().orgs.getPublishedContentSite(A.organizationId, site.id)).data;
    expect((published.customizations.siteSpaces as any)[second.id].title).toBe("Variant docs");

    expect((await api().orgs.deleteSiteSpaceCustomizationById(A.organizationId, site.id, second.id)).status).toBe(205);
    expect((await api().orgs.deleteSiteSpaceCustomizationById(A.organizationId, site.id, second.id)).status).toBe(204);
    expect((await api().orgs.getSiteSpaceCustomizationById(A.organizationId, site.id, second.id)).data).toEqual(saved.data);
  });

  it("refuses settings that do not match the published schema (400 naming the setting) and readers (403), changing nothing", async () => {
    const site = await newSite([(await newSpace()).id]);
    const [siteSpace] = (await api().orgs.listSiteSpaces(A.organizationId, site.id)).data.items;
    const initial = (await api().orgs.getSiteCustomizationById(A.organizationId, site.id)).data;
    await api().orgs.overrideSiteSpaceCustomizationById(A.organizationId, site.id, siteSpace.id, { title: "Kept variant" } as never);
    const before = await snapshot(site.id);
    const path = `/v1/orgs/${A.organizationId}/sites/${site.id}`;
    const { styling: _styling, ...withoutStyling } = initial;
    for (const [body, mentions] of [
      [withoutStyling, "styling"],
      [{ ...initial, styling: { ...initial.styling, theme: "neon" } }, "styling.theme"],
      [{ ...initial, styling: { ...initial.styling, primaryColor: { light: "red" } } }, "styling.primaryColor"],
      [{ ...initial, title: "x" }, "title"],
      [[], "object"],
    ] as const) {
      const response = await server.rest(A.token, "PUT", `${path}/customization`, body);
      expect(response.status, mentions).toBe(400);
      expect(response.body.error.message).toContain(mentions);
    }
    for (const [body, mentions] of [
      [{ styling: { theme: "neon" } }, "styling.theme"],
      [{ title: 3 }, "title"],
    ] as const) {
      const response = await server.rest(A.token, "PATCH", `${path}/site-spaces/${siteSpace.id}/customization`, body);
      expect(response.status, mentions).toBe(400);
      expect(response.body.error.message).toContain(mentions);
    }
    await expectRestError(api().orgs.getSiteSpaceCustomizationById(A.organizationId, site.id, "ssp_nope"), 404);
    const reader = await server.addMember(A.organizationId, "read");
    await expectRestError(api(reader.token).orgs.updateSiteCustomizationById(A.organizationId, site.id, initial as never), 403);
    await expectRestError(api(reader.token).orgs.deleteSiteSpaceCustomizationById(A.organizationId, site.id, siteSpace.id), 403);
    expect((await api(reader.token).orgs.getSiteCustomizationById(A.organizationId, site.id)).status).toBe(200);
    expect(await snapshot(site.id)).toEqual(before);
    const response = await server.graphql(
      A.token,
      `mutation($input: UpdateSiteCustomizationInput!) { updateSiteCustomization(input: $input) { site { id } } }`,
      {
        input: { site: site.id, customization: { ...initial, styling: { ...initial.styling, theme: "neon" } } },
      },
    );
    expectGraphQLError(response, "BAD_REQUEST", "styling.theme");
    expect(await snapshot(site.id)).toEqual(before);
  });
});

describe("publishing auth", () => {
  it("reads, updates and regenerates the key of a visitor-auth site; refuses other sites and bad URLs with 400, changing nothing", async () => {
    const site = await newSite();
    await expectRestError(api().orgs.getSitePublishingAuthById(A.organizationId, site.id), 400, "visibility");
    await api().orgs.updateSiteById(A.organizationId, site.id, { visibility: "visitor-auth" as never });
    const auth = (await api().orgs.getSitePublishingAuthById(A.organizationId, site.id)).data;
    expect(auth).toMatchObject({ object: "publishing-auth", backend: "custom" });
    expect(auth.privateKey.length).toBeGreaterThanOrEqual(32);
    expect(auth.fallbackURL).toBeUndefined();

    const updated = (
      await api().orgs.updateSitePublishingAuthById(A.organizationId, site.id, {
        backend: "custom",
        fallbackURL: "https://example.com/login",
        logoutURL: "https://example.com/logout",
      })
    ).data;
    expect(updated).toMatchObject({
      privateKey: auth.privateKey,
      fallbackURL: "https://example.com/login",
      logoutURL: "https://example.com/logout",
    });
    const cleared = (await api().orgs.updateSitePublishingAuthById(A.organizationId, site.id, { backend: "custom", logoutURL: null })).data;
    expect(cleared.logoutURL).toBeUndefined();
    expect(cleared.fallbackURL).toBe("https://example.com/login");

    const before = await snapshot(site.id);
    const path = `/v1/orgs/${A.organizationId}/sites/${site.id}/publishing/auth`;
    for (const [body, field] of [
      [{ fallbackURL: "not a url" }, "fallbackURL"],
      [{ logoutURL: "javascript:alert(1)" }, "logoutURL"],
      [{ backend: "integration" }, "backend"],
      [{ fallbackURL: 3 }, "fallbackURL"],
    ] as const) {
      const response = await server.rest(A.token, "PATCH", path, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.message).toContain(field);
    }
    const reader = await server.addMember(A.organizationId, "read");
    await expectRestError(api(reader.token).orgs.getSitePublishingAuthById(A.organizationId, site.id), 403);
    await expectRestError(api(reader.token).orgs.regenerateSitePublishingAuthById(A.organizationId, site.id), 403);
    expect(await snapshot(site.id)).toEqual(before);

    const regenerated = (await api().orgs.regenerateSitePublishingAuthById(A.organizationId, site.id)).data;
    expect(regenerated.privateKey).not.toBe(auth.privateKey);
    expect((await api().orgs.getSitePublishingAuthById(A.organizationId, site.id)).data.privateKey).toBe(regenerated.privateKey);
    const data = await gql(`query($id: ID!) { site(id: $id) { publishingAuth { privateKey fallbackURL } } }`, { id: site.id });
    expect(data.site.publishingAuth).toEqual({ privateKey: regenerated.privateKey, fallbackURL: "https://example.com/login" });
  });
});

describe("permissions and isolation", () => {
  it("lets readers read, refuses them changes (403), and hides a site from other organizations (404)", async () => {
    const site = await newSite([(await newSpace()).id]);
    const reader = await server.addMember(A.organizationId, "read");
    expect((await api(reader.token).orgs.getSiteById(A.organizationId, site.id)).data.permissions).toMatchObject({
      view: true,
      admin: false,
    });
    await expectRestError(api(reader.token).orgs.publishSite(A.organizationId, site.id), 403);
    await expectRestError(api(reader.token).orgs.addSpaceToSite(A.organizationId, site.id, { spaceId: (await newSpace()).id }), 403);
    await expectRestError(api(B.token).orgs.getSiteById(A.organizationId, site.id), 404);
    await expectRestError(api(B.token).orgs.getSiteById(B.organizationId, site.id), 404);
    const node = await server.graphql(B.token, `query($id: ID!) { node(id: $id) { id } }`, { id: site.id });
    expectGraphQLError(node, "NOT_FOUND");
  });
});

describe("statements", () => {
  it("reads 20 sites with their site spaces in as many statements as 2", async () => {
    const org = await server.bootstrap("Statements");
    const make = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const { data: space } = await api(org.token).orgs.createSpace(org.organizationId, { title: `S${i}` });
        await api(org.token).orgs.createSite(org.organizationId, { title: `Site ${i}`, spaces: [space.id] });
      }
    };
    const count = async () => {
      const statements = await countStatements(() =>
        api(org.token)
          .orgs.listSites(org.organizationId, { limit: 100 })
          .then(async (r) => {
            for (const site of r.data.items.slice(0, 1)) await api(org.token).orgs.getPublishedContentSite(org.organizationId, site.id);
          }),
      );
      return statements;
    };
    await make(2);
    const few = await count();
    await make(18);
    const many = await count();
    expect(many).toBe(few);
  });
});

/** SQL statements the database runs during `work`. */
async function countStatements(work: () => Promise<unknown>): Promise<number> {
  const start = server.database.statementCount;
  await work();
  return server.database.statementCount - start;
}
