// The published `extended` parameter of an integration's space and site installation rows (list of
// an installation's, all of the integration's, install, read, update): the space or site object
// instead of its id, through the official client (responses validated against the published
// schemas); on GraphQL the same objects are the `space` and `site` fields. Bad values: 400 naming
// it, nothing installed. Statements do not grow with the number of installations listed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../src/core/ids.ts";
import { graphqlData } from "./support/expect.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let org: string;
let token: string;
const SCRIPT = `export default { async fetch() { return new Response("OK"); } };`;

beforeAll(async () => {
  server = await startTestServer({ integrations: { eventAttempts: 1 } });
  ({ organizationId: org, token } = await server.bootstrap());
});

afterAll(async () => {
  await server?.close();
});

const unique = (prefix: string) =>
  `${prefix}-${newId("Page")
    .slice(4)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "")}`;
const client = () => server.client(token).integrations;

async function installed(spaces: number, sites = 0) {
  const name = unique("extended");
  await graphqlData(
    server,
    token,
    `mutation($name: String!, $input: PublishIntegrationInput!) { publishIntegration(name: $name, input: $input) { created } }`,
    { name, input: { organization: org, title: "Extended", script: SCRIPT } },
  );
  const installation = (await client().installIntegration(name, { organization: org })).data.id;
  const spaceIds: string[] = [];
  for (let i = 0; i < spaces; i++) {
    const space = (await server.rest(token, "POST", `/v1/orgs/${org}/spaces`, { title: `Space ${i}` })).body.id;
    await client().installIntegrationOnSpace(name, installation, { space });
    spaceIds.push(space);
  }
  const siteIds: string[] = [];
  for (let i = 0; i < sites; i++) {
    const site = (await server.rest(token, "POST", `/v1/orgs/${org}/sites`, { title: `Site ${i}` })).body.id;
    await client().installIntegrationOnSite(name, installation, { siteId: site });
    siteIds.push(site);
  }
  return { name, installation, spaceIds, siteIds };
}

describe("extended on space and site installations", () => {
  it("gives the space object with extended=true and its id otherwise, on every row that publishes it", async () => {
    const { name, installation, spaceIds } = await installed(1);
    const [first] = spaceIds;
    const space = (await server.client(token).spaces.getSpaceById(first)).data;

    const plain = (await client().getIntegrationSpaceInstallation(name, installation, first)).data;
    expect(plain.space).toBe(first);
    const extended = (await client().getIntegrationSpaceInstallation(name, installation, first, { extended: true })).data;
    expect(extended.space).toEqual(space);
    expect({ ...extended, space: first }).toEqual(plain);
    expect((await client().getIntegrationSpaceInstallation(name, installation, first, { extended: false })).data.space).toBe(first);

    expect(
      (await client().listIntegrationInstallationSpaces(name, installation, { extended: true })).data.items.map((i) => i.space),
    ).toEqual([space]);
    expect((await client().listIntegrationInstallationSpaces(name, installation)).data.items.map((i) => i.space)).toEqual([first]);
    expect((await client().listIntegrationSpaceInstallations(name, { extended: true })).data.items.map((i) => i.space)).toEqual([space]);
    expect((await client().listIntegrationSpaceInstallations(name)).data.items.map((i) => i.space)).toEqual([first]);
    const updated = await client().updateIntegrationSpaceInstallation(
      name,
      installation,
      first,
      { externalIds: ["x"] },
      { extended: true },
    );
    expect(updated.data).toMatchObject({ space, externalIds: ["x"] });

    const second = (await server.rest(token, "POST", `/v1/orgs/${org}/spaces`, { title: "Second" })).body.id;
    const created = await client().installIntegrationOnSpace(name, installation, { space: second }, { extended: true });
    expect(created.status).toBe(201);
    expect(created.data.space).toMatchObject({ object: "space", id: second, title: "Second" });

    // GraphQL: the same object as the space field.
    const data = await graphqlData(
      server,
      token,
      `query($name: String!) { integration(name: $name) { spaceInstallations(first: 10) { nodes { spaceId space { id title } } } } }`,
      { name },
    );
    expect(data.integration.spaceInstallations.nodes).toEqual(
      expect.arrayContaining([{ spaceId: first, space: { id: first, title: space.title } }]),
    );
  });

  it("gives the site object on the site rows", async () => {
    const { name, installation, siteIds } = await installed(0, 1);
    const [site] = siteIds;
    const object = (await server.client(token).orgs.getSiteById(org, site)).data;
    expect((await client().getIntegrationSiteInstallation(name, installation, site, { extended: true })).data.site).toEqual(object);
    expect((await client().getIntegrationSiteInstallation(name, installation, site)).data.site).toBe(site);
    expect((await client().listIntegrationInstallationSites(name, installation, { extended: true })).data.items.map((i) => i.site)).toEqual(
      [object],
    );
    expect((await client().listIntegrationSiteInstallations(name, { extended: true })).data.items.map((i) => i.site)).toEqual([object]);
    const updated = await client().updateIntegrationSiteInstallation(name, installation, site, { externalIds: ["y"] }, { extended: true });
    expect(updated.data).toMatchObject({ site: object, externalIds: ["y"] });
    const other = (await server.rest(token, "POST", `/v1/orgs/${org}/sites`, { title: "Other site" })).body.id;
    const created = await client().installIntegrationOnSite(name, installation, { siteId: other }, { extended: true });
    expect(created.data.site).toMatchObject({ object: "site", id: other });
  });

  it("refuses a bad extended with 400 naming it and installs nothing", async () => {
    const { name, installation, spaceIds } = await installed(1);
    const fresh = (await server.rest(token, "POST", `/v1/orgs/${org}/spaces`, { title: "Not installed" })).body.id;
    const base = `/v1/integrations/${name}/installations/${installation}`;
    for (const [method, path, body] of [
      ["GET", `${base}/spaces?extended=yes`, undefined],
      ["GET", `${base}/spaces/${spaceIds[0]}?extended=1`, undefined],
      ["GET", `/v1/integrations/${name}/spaces?extended=`, undefined],
      ["POST", `${base}/spaces?extended=maybe`, { space: fresh }],
      ["PATCH", `${base}/spaces/${spaceIds[0]}?extended=TRUE`, { externalIds: ["z"] }],
    ] as const) {
      const response = await server.rest(token, method, path, body);
      expect({ path, status: response.status }).toEqual({ path, status: 400 });
      expect(response.body.error.message).toContain("extended");
    }
    const items = (await client().listIntegrationInstallationSpaces(name, installation)).data.items;
    expect(items.map((item) => [item.space, item.externalIds])).toEqual([[spaceIds[0], []]]);
  });

  it("lists 2 or 6 extended installations in as many statements", async () => {
    const count = async (spaces: number) => {
      const { name } = await installed(spaces);
      // Deliveries of the installations' events run in the background and would be counted: let them end.
      while ((await server.database.prisma.job.count({ where: { failedAt: null } })) > 0) await new Promise((r) => setTimeout(r, 50));
      await server.rest(token, "GET", `/v1/integrations/${name}/spaces`); // warm the token cache
      const before = server.database.statementCount;
      const response = await server.rest(token, "GET", `/v1/integrations/${name}/spaces?extended=true`);
      expect(response.status).toBe(200);
      expect(response.body.items).toHaveLength(spaces);
      expect(response.body.items.every((item: { space: { object: string } }) => item.space.object === "space")).toBe(true);
      return server.database.statementCount - before;
    };
    await count(1);
    expect(await count(6)).toBe(await count(2));
  });
});

describe("filters of the integration lists", () => {
  let owner: { organizationId: string; token: string };
  let space: string;
  const names = { blocks: unique("blocks"), sources: unique("sources"), plain: unique("plain") };

  beforeAll(async () => {
    owner = await server.bootstrap();
    const publish = (name: string, input: Record<string, unknown>) =>
      graphqlData(
        server,
        owner.token,
        `mutation($name: String!, $input: PublishIntegrationInput!) { publishIntegration(name: $name, input: $input) { created } }`,
        { name, input: { organization: owner.organizationId, title: `Title ${name}`, script: SCRIPT, ...input } },
      );
    await publish(names.blocks, {
      categories: ["analytics"],
      scopes: ["space:content:read"],
      target: "space",
      blocks: [{ id: "card", title: "Card", urlUnfurl: ["https://docs.example.com/*"] }],
    });
    await publish(names.sources, { categories: ["content"], target: "all", contentSources: [{ id: "feed", title: "Feed" }] });
    await publish(names.plain, { categories: ["other"], scopes: ["site:script:inject"], target: "site" });
    space = (await server.rest(owner.token, "POST", `/v1/orgs/${owner.organizationId}/spaces`, { title: "Filtered" })).body.id;
    const api = server.client(owner.token).integrations;
    for (const name of [names.blocks, names.sources, names.plain]) {
      const installation = (await api.installIntegration(name, { organization: owner.organizationId })).data.id;
      if (name !== names.plain) await api.installIntegrationOnSpace(name, installation, { space });
    }
  });

  const lists = () => [
    `/v1/integrations?owner=${owner.organizationId}&`,
    `/v1/orgs/${owner.organizationId}/integrations?owner=${owner.organizationId}&`,
    `/v1/spaces/${space}/integrations?`,
  ];

  it("filter by every published parameter on the three lists, alike on GraphQL", async () => {
    const cases: [string, string[]][] = [
      ["", [names.blocks, names.sources, names.plain]],
      [`search=${names.sources.slice(0, 12)}`, [names.sources]],
      ["category=analytics", [names.blocks]],
      ["category=content", [names.sources]],
      ["blockDomain=docs.example.com", [names.blocks]],
      ["blockDomain=elsewhere.example.com", []],
      ["blocks=true", [names.blocks]],
      ["blocks=false", [names.sources, names.plain]],
      ["contentSources=true", [names.sources]],
      ["scope=space:content:read", [names.blocks]],
      ["target=site", [names.plain]],
      ["target=all&blocks=false", [names.sources]],
    ];
    for (const [query, expected] of cases) {
      for (const list of lists()) {
        const installedOnSpace = list.startsWith(`/v1/spaces/`);
        const want = expected.filter((name) => !installedOnSpace || name !== names.plain).sort();
        const response = await server.rest(owner.token, "GET", list + query);
        expect({ list, query, status: response.status }).toEqual({ list, query, status: 200 });
        expect({ list, query, names: response.body.items.map((item: { name: string }) => item.name).sort() }).toEqual({
          list,
          query,
          names: want,
        });
      }
    }
    const { data } = await server
      .client(owner.token)
      .integrations.listIntegrations({ owner: owner.organizationId, category: "analytics" as never });
    expect(data.items.map((item) => item.name)).toEqual([names.blocks]);
    const graphql = await graphqlData(
      server,
      owner.token,
      `query($owner: ID, $org: ID!) {
        integrations(owner: $owner, blocks: false, target: "all", first: 10) { nodes { name } }
        organization(id: $org) { integrations(category: "other", owner: $owner, first: 10) { nodes { name } } }
      }`,
      { owner: owner.organizationId, org: owner.organizationId },
    );
    expect(graphql.integrations.nodes).toEqual([{ name: names.sources }]);
    expect(graphql.organization.integrations.nodes).toEqual([{ name: names.plain }]);
  });

  it("filter in the list's own statements", async () => {
    const statements = async (path: string) => {
      while ((await server.database.prisma.job.count({ where: { failedAt: null } })) > 0) await new Promise((r) => setTimeout(r, 50));
      await server.rest(owner.token, "GET", path);
      const before = server.database.statementCount;
      expect((await server.rest(owner.token, "GET", path)).status).toBe(200);
      return server.database.statementCount - before;
    };
    for (const list of lists()) {
      const plain = await statements(list);
      const filtered = await statements(
        `${list}category=analytics&blocks=true&contentSources=false&scope=space:content:read&blockDomain=docs.example.com&search=blocks`,
      );
      expect(filtered).toBeLessThanOrEqual(plain);
    }
  });

  it("refuse bad values with 400 naming the parameter (GraphQL: extensions.code)", async () => {
    for (const [query, name] of [
      ["category=docs", "category"],
      ["category=", "category"],
      ["scope=space:everything", "scope"],
      ["target=page", "target"],
      ["blockDomain=not a domain", "blockDomain"],
      [`blockDomain=${"a".repeat(101)}`, "blockDomain"],
      ["blocks=yes", "blocks"],
      ["contentSources=1", "contentSources"],
      ["owner=", "owner"],
      [`search=${"s".repeat(513)}`, "search"],
    ]) {
      for (const list of ["/v1/integrations?", `/v1/orgs/${owner.organizationId}/integrations?`, `/v1/spaces/${space}/integrations?`]) {
        const response = await server.rest(owner.token, "GET", list + query);
        expect({ list, query, status: response.status }).toEqual({ list, query, status: 400 });
        expect(response.body.error.message).toContain(name);
      }
    }
    const result = await server.graphql(owner.token, `{ integrations(category: "docs", first: 1) { nodes { name } } }`);
    expect(result.errors?.[0].extensions?.code).toBe("BAD_REQUEST");
    expect(result.errors?.[0].message).toContain("category");
  });
});
