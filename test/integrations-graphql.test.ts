// Integrations on GraphQL and the rules without a script run: public integrations installed in
// other organizations, target rules, uninstalling (events recorded), sites, error codes, and the
// statement count of lists (DataLoaders: as many statements for 25 installations as for 5).
import { GitBookAPIError } from "@gitbook/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../src/core/ids.ts";
import { publishedRest } from "./support/expect.ts";
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
    .slice(3)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "")}`;

async function publish(name: string, input: Record<string, unknown> = {}) {
  const result = await server.graphql(
    token,
    `mutation($name: String!, $input: PublishIntegrationInput!) { publishIntegration(name: $name, input: $input) { created integration { id name version } } }`,
    {
      name,
      input: { organization: org, title: "GraphQL integration", script: SCRIPT, ...input },
    },
  );
  expect(result.errors).toBeUndefined();
  return result.data.publishIntegration as { created: boolean; integration: { id: string; name: string; version: number } };
}

describe("GraphQL", () => {
  it("publishes, updates (new version), reads by name and by node id", async () => {
    const name = unique("gql");
    const first = await publish(name, {
      visibility: "public",
      categories: ["analytics"],
      externalLinks: [{ url: "https://example.com", label: "Site" }],
    });
    expect(first).toMatchObject({ created: true, integration: { name, version: 1 } });
    const second = await publish(name, { title: "Renamed integration" });
    expect(second).toMatchObject({ created: false, integration: { version: 2 } });
    const node = await server.graphql(
      token,
      `query($id: ID!) { node(id: $id) { ... on Integration { name title visibility categories externalLinks permissions { admin } } } }`,
      { id: first.integration.id },
    );
    expect(node.data.node).toEqual({
      name,
      title: "Renamed integration",
      visibility: "public",
      categories: ["analytics"],
      externalLinks: [{ url: "https://example.com", label: "Site" }],
      permissions: { admin: true },
    });
  });

  it("a public integration is listed and installable in another organization; its events are the owner's", async () => {
    const name = unique("public");
    await publish(name, { visibility: "public" });
    const other = await server.bootstrap();
    const listed = await server.graphql(
      other.token,
      `query($search: String) { integrations(search: $search, first: 10) { nodes { name ownerProfile { id } permissions { admin } } } }`,
      { search: name },
    );
    expect(listed.data.integrations.nodes).toEqual([{ name, ownerProfile: { id: org }, permissions: { admin: false } }]);
    const installed = await server.graphql(
      other.token,
      `mutation($input: InstallIntegrationInput!) { installIntegration(input: $input) { installation { id status organization { id } } } }`,
      {
        input: { integration: name, organization: other.organizationId },
      },
    );
    expect(installed.data.installIntegration.installation).toMatchObject({
      status: "ACTIVE".toLowerCase(),
      organization: { id: other.organizationId },
    });
    // Installed twice: 409.
    const again = await server.graphql(
      other.token,
      `mutation($input: InstallIntegrationInput!) { installIntegration(input: $input) { installation { id } } }`,
      {
        input: { integration: name, organization: other.organizationId },
      },
    );
    expect(again.errors?.[0]?.extensions?.code).toBe("CONFLICT");
    // The other organization cannot read the integration's events; its owner can.
    expect((await server.rest(other.token, "GET", `/v1/integrations/${name}/events`)).status).toBe(403);
    const events = await server.graphql(
      token,
      `query($name: String!) { integration(name: $name) { events(delivered: false, first: 10) { nodes { payload status } } } }`,
      { name },
    );
    expect(events.data.integration.events.nodes[0].payload).toMatchObject({ type: "installation_setup" });
    // The organization's list holds it, installed or not (the published list of what is available).
    const orgList = await server.client(other.token).orgs.listOrganizationIntegrations(other.organizationId, { search: name });
    expect(orgList.data.items.map((item) => item.name)).toEqual([name]);
  });

  it("an organization's integrations are every public one and its own private and unlisted ones, installed or not", async () => {
    const owned = { open: unique("avpublic"), closed: unique("avprivate"), hidden: unique("avunlisted") };
    await publish(owned.open, { visibility: "public" });
    await publish(owned.closed, { visibility: "private" });
    await publish(owned.hidden, { visibility: "unlisted" });
    const other = await server.bootstrap();
    const theirs = unique("avtheirs");
    const published = await server.graphql(
      other.token,
      `mutation($name: String!, $input: PublishIntegrationInput!) { publishIntegration(name: $name, input: $input) { created } }`,
      { name: theirs, input: { organization: other.organizationId, title: "Theirs", script: SCRIPT, visibility: "private" } },
    );
    expect(published.errors).toBeUndefined();
    // Nothing is installed in the other organization; what it may install is listed all the same.
    const names = async (caller: string, organization: string) => {
      const response = await publishedRest(server, caller, "GET", `/v1/orgs/${organization}/integrations?search=av&limit=100`);
      expect(response.status).toBe(200);
      return response.body.items.map((item: { name: string }) => item.name).sort();
    };
    expect(await names(token, org)).toEqual([owned.open, owned.closed, owned.hidden].sort());
    expect(await names(other.token, other.organizationId)).toEqual([owned.open, theirs].sort());
    const { data } = await server.client(other.token).orgs.listOrganizationIntegrations(other.organizationId, { search: "av", owner: org });
    expect(data.items.map((item) => item.name)).toEqual([owned.open]);
    const gql = await server.graphql(
      other.token,
      `query($org: ID!) { organization(id: $org) { integrations(search: "av", first: 100) { nodes { name } } } }`,
      { org: other.organizationId },
    );
    expect(gql.data.organization.integrations.nodes.map((node: { name: string }) => node.name).sort()).toEqual([owned.open, theirs].sort());
    // Another organization's list stays unknown to a stranger.
    expect((await server.rest(other.token, "GET", `/v1/orgs/${org}/integrations`)).status).toBe(404);
  });

  it("target rules: an organization-only integration cannot go on a space; a space one cannot go on a site", async () => {
    const name = unique("orgonly");
    await publish(name, { target: "organization" });
    const installation = (await server.client(token).integrations.installIntegration(name, { organization: org })).data.id;
    const space = (await server.rest(token, "POST", `/v1/orgs/${org}/spaces`, { title: "Target" })).body.id;
    const refused = await server.rest(token, "POST", `/v1/integrations/${name}/installations/${installation}/spaces`, { space });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain('target "organization"');
    expect((await server.client(token).integrations.listIntegrationInstallationSpaces(name, installation)).data.items).toEqual([]);
  });

  it("uninstalling records installation_deleted and revokes the installation's tokens", async () => {
    const name = unique("uninstall");
    await publish(name);
    const installation = (await server.client(token).integrations.installIntegration(name, { organization: org })).data.id;
    const space = (await server.rest(token, "POST", `/v1/orgs/${org}/spaces`, { title: "Uninstall" })).body.id;
    await server.client(token).integrations.installIntegrationOnSpace(name, installation, { space });
    const installationToken = (await server.client(token).integrations.createIntegrationInstallationToken(name, installation)).data.token;
    // No scopes: it holds no role on the space, which it therefore does not see.
    expect((await server.rest(installationToken, "GET", `/v1/spaces/${space}`)).status).toBe(404);
    expect((await server.client(token).integrations.uninstallIntegrationFromSpace(name, installation, space)).status).toBe(205);
    expect((await server.client(token).integrations.uninstallIntegration(name, installation)).status).toBe(205);
    expect((await server.rest(installationToken, "GET", `/v1/spaces/${space}`)).status).toBe(401);
    const types = (
      await server.graphql(
        token,
        `query($name: String!) { integration(name: $name) { events(delivered: false, first: 10) { nodes { payload } } } }`,
        { name },
      )
    ).data.integration.events.nodes.map((event: { payload: { type: string } }) => event.payload.type);
    expect(types).toEqual(["installation_deleted", "space_installation_deleted", "space_installation_setup", "installation_setup"]);
  });

  it("installs on a site, reads, configures and removes it", async () => {
    const name = unique("site");
    await publish(name, { configurations: { site: { properties: { color: { type: "string", enum: ["red", "blue"] } } } } });
    const installation = (await server.client(token).integrations.installIntegration(name, { organization: org })).data.id;
    const site = (await server.rest(token, "POST", `/v1/orgs/${org}/sites`, { title: "Integration site" })).body.id;
    const created = await server.client(token).integrations.installIntegrationOnSite(name, installation, { siteId: site });
    expect(created.data).toMatchObject({ site, installation, integration: name });
    const bad = await server.rest(token, "PATCH", `/v1/integrations/${name}/installations/${installation}/sites/${site}`, {
      configuration: { color: "green" },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('configuration.color must be one of "red", "blue"');
    const good = await server
      .client(token)
      .integrations.updateIntegrationSiteInstallation(name, installation, site, { configuration: { color: "red" } });
    expect(good.data.configuration).toEqual({ color: "red" });
    expect((await server.client(token).integrations.listIntegrationSiteInstallations(name)).data.items.map((item) => item.site)).toEqual([
      site,
    ]);
    expect((await server.client(token).integrations.uninstallIntegrationFromSite(name, installation, site)).status).toBe(205);
  });

  it("installation statuses: one integration's in an organization, and every installation by target (organization, space, site)", async () => {
    const status = await server.bootstrap();
    const client = server.client(status.token);
    const name = unique("status");
    const pending = unique("pending");
    await publish(name, { visibility: "public" });
    await publish(pending, {
      visibility: "public",
      configurations: { account: { properties: { key: { type: "string" } }, required: ["key"] } },
    });
    const installation = (await client.integrations.installIntegration(name, { organization: status.organizationId })).data.id;
    await client.integrations.installIntegration(pending, { organization: status.organizationId });
    const space = (await server.rest(status.token, "POST", `/v1/orgs/${status.organizationId}/spaces`, { title: "Status space" })).body.id;
    const site = (await server.rest(status.token, "POST", `/v1/orgs/${status.organizationId}/sites`, { title: "Status site" })).body.id;
    await client.integrations.installIntegrationOnSpace(name, installation, { space });
    await client.integrations.installIntegrationOnSite(name, installation, { siteId: site });

    expect((await client.orgs.getOrganizationIntegrationStatus(status.organizationId, name)).data).toEqual({ status: "active" });
    expect((await client.orgs.getOrganizationIntegrationStatus(status.organizationId, pending)).data).toEqual({ status: "pending" });
    const notInstalled = unique("absent");
    await publish(notInstalled, { visibility: "public" });
    expect(
      (await server.rest(status.token, "GET", `/v1/orgs/${status.organizationId}/integrations/${notInstalled}/installation_status`)).status,
    ).toBe(404);

    const statuses = async (query: Record<string, string> = {}) =>
      (await client.orgs.listOrganizationIntegrationsStatus(status.organizationId, query as never)).data;
    const organizationLevel = await statuses();
    expect(organizationLevel.count).toBe(2);
    // Oldest first; installed at the same instant (the test clock stands still), by id.
    expect(
      organizationLevel.items
        .map((item) => [item.integration.name, item.status, item.target])
        .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    ).toEqual(
      [
        [name, "active", { type: "organization", organizationId: status.organizationId }],
        [pending, "pending", { type: "organization", organizationId: status.organizationId }],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );
    expect((await statuses({ target: "space" })).items.map((item) => [item.integration.name, item.target])).toEqual([
      [name, { type: "space", spaceId: space }],
    ]);
    expect((await statuses({ target: "space", space })).items).toHaveLength(1);
    expect((await statuses({ target: "site", site })).items.map((item) => item.target)).toEqual([{ type: "site", siteId: site }]);
    const paged = await statuses({ limit: "1" });
    expect(paged.items).toHaveLength(1);
    const second = await statuses({ limit: "1", page: paged.next!.page });
    expect([paged.items[0]!.integration.name, second.items[0]!.integration.name]).toEqual(
      organizationLevel.items.map((item) => item.integration.name),
    );

    // GraphQL first: the same on Organization.
    const viaGraphQL = await server.graphql(
      status.token,
      `query($id: ID!, $name: String!) { organization(id: $id) {
        integrationInstallationStatus(integration: $name)
        installedIntegrations(target: "site") { totalCount nodes { status integration { name } target { type siteId spaceId } } }
      } }`,
      { id: status.organizationId, name },
    );
    expect(viaGraphQL.data.organization).toEqual({
      integrationInstallationStatus: "active",
      installedIntegrations: {
        totalCount: 1,
        nodes: [{ status: "active", integration: { name }, target: { type: "site", siteId: site, spaceId: null } }],
      },
    });

    // Bad input: 400 naming the parameter; other organizations: 404; guests: 403.
    const base = `/v1/orgs/${status.organizationId}/integrations/installations-status`;
    for (const [query, field] of [
      ["target=everything", "target"],
      [`space=${space}`, "space"],
      [`target=space&site=${site}`, "site"],
    ]) {
      const refused = await server.rest(status.token, "GET", `${base}?${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.body.error.message).toContain(field);
    }
    expect((await server.rest(status.token, "GET", `${base}?target=space&space=${newId("Space")}`)).status).toBe(404);
    expect((await server.rest(token, "GET", base)).status).toBe(404);
    expect((await server.rest(token, "GET", `/v1/orgs/${status.organizationId}/integrations/${name}/installation_status`)).status).toBe(
      404,
    );
    const guest = await server.addMember(status.organizationId, null);
    expect((await server.rest(guest.token, "GET", base)).status).toBe(403);
    const reader = await server.addMember(status.organizationId, "read");
    expect((await server.rest(reader.token, "GET", base)).status).toBe(200);
  });

  it("an installation token acts on the sites its installation is on, as its site scopes allow, on both surfaces", async () => {
    const name = unique("sitetoken");
    await publish(name, { scopes: ["site:metadata:read", "site:adaptive:read", "space:content:read"] });
    const writer = unique("adaptivewrite");
    await publish(writer, { scopes: ["site:adaptive:write"] });
    const bare = unique("noscope");
    await publish(bare, { scopes: ["space:content:read", "site:script:inject"] });
    const client = server.client(token);
    const installation = (await client.integrations.installIntegration(name, { organization: org })).data.id;
    const writerInstallation = (await client.integrations.installIntegration(writer, { organization: org })).data.id;
    const bareInstallation = (await client.integrations.installIntegration(bare, { organization: org })).data.id;
    const newSite = async (title: string) => (await client.orgs.createSite(org, { title })).data.id;
    const [installed, elsewhere] = [await newSite("Installed site"), await newSite("Other site")];
    for (const [integration, id] of [
      [name, installation],
      [writer, writerInstallation],
      [bare, bareInstallation],
    ]) {
      await client.integrations.installIntegrationOnSite(integration, id, { siteId: installed });
    }
    const tokenOf = async (integration: string, id: string) =>
      (await client.integrations.createIntegrationInstallationToken(integration, id)).data.token;
    /** The status a call of the official client ends with (its errors are GitBookAPIError). */
    const statusOf = (call: Promise<{ status: number }>) =>
      call.then(
        (response) => response.status,
        (error: unknown) => (error instanceof GitBookAPIError ? error.code : Promise.reject(error)),
      );
    const codeOf = (response: { errors?: { extensions?: { code?: string } }[] }) => response.errors?.[0]?.extensions?.code;
    const siteQuery = `query($id: ID!) { site(id: $id) { title adaptiveSchema { jsonSchema } } }`;
    const rename = `mutation($input: UpdateSiteInput!) { updateSite(input: $input) { site { title } } }`;
    const schema = {
      type: "object",
      properties: { beta: { type: "boolean", description: "Beta reader" } },
      additionalProperties: false,
    };

    // site:metadata:read and site:adaptive:read: reads the site and its adaptive schema, on both surfaces.
    const siteToken = await tokenOf(name, installation);
    const reader = server.client(siteToken);
    expect((await reader.orgs.getSiteById(org, installed)).data.title).toBe("Installed site");
    expect((await reader.orgs.getSiteAdaptiveSchema(org, installed)).data.jsonSchema).toMatchObject({ type: "object" });
    const read = await server.graphql(siteToken, siteQuery, { id: installed });
    expect(read.errors).toBeUndefined();
    expect(read.data.site.title).toBe("Installed site");
    // Site.permissions says what the token may do there (its scopes), on both surfaces: read, not change.
    const allowed = {
      view: true,
      access: true,
      edit: false,
      create: false,
      admin: false,
      installIntegration: false,
      viewAdaptiveSchema: true,
      editAdaptiveSchema: false,
    };
    expect((await reader.orgs.getSiteById(org, installed)).data.permissions).toEqual(allowed);
    const permissions = await server.graphql(
      siteToken,
      `query($id: ID!) { site(id: $id) { permissions { view access edit create admin installIntegration viewAdaptiveSchema editAdaptiveSchema } } }`,
      { id: installed },
    );
    expect(permissions.data.site.permissions).toEqual(allowed);
    // The organization's site list holds the sites of its installation only.
    expect((await reader.orgs.listSites(org)).data.items.map((site) => site.id)).toEqual([installed]);
    // Writes it has no scope for: 403, and nothing changed.
    expect(await statusOf(reader.orgs.updateSiteById(org, installed, { title: "Renamed" }))).toBe(403);
    expect(codeOf(await server.graphql(siteToken, rename, { input: { site: installed, title: "Renamed" } }))).toBe("FORBIDDEN");
    expect(await statusOf(reader.orgs.updateSiteAdaptiveSchema(org, installed, { jsonSchema: schema as never }))).toBe(403);
    expect(await statusOf(reader.orgs.publishSite(org, installed))).toBe(403);
    expect(await statusOf(reader.orgs.createSiteShareLink(org, installed, { name: "Mine" } as never))).toBe(403);
    expect((await client.orgs.getSiteById(org, installed)).data).toMatchObject({ title: "Installed site", published: false });
    // A site of the same organization it is not installed on: not found, on both surfaces.
    expect(await statusOf(reader.orgs.getSiteById(org, elsewhere))).toBe(404);
    expect(await statusOf(reader.orgs.updateSiteById(org, elsewhere, { title: "Renamed" }))).toBe(404);
    expect(codeOf(await server.graphql(siteToken, siteQuery, { id: elsewhere }))).toBe("NOT_FOUND");

    // site:adaptive:write: changes the adaptive schema of its site, and nothing else (not even reading the site's settings).
    const writerToken = await tokenOf(writer, writerInstallation);
    const written = await server.client(writerToken).orgs.updateSiteAdaptiveSchema(org, installed, { jsonSchema: schema as never });
    expect(written.data.jsonSchema).toEqual(schema);
    expect((await client.orgs.getSiteAdaptiveSchema(org, installed)).data.jsonSchema).toEqual(schema);
    const viaGraphQL = await server.graphql(
      writerToken,
      `mutation($input: UpdateSiteAdaptiveSchemaInput!) { updateSiteAdaptiveSchema(input: $input) { site { adaptiveSchema { jsonSchema } } } }`,
      { input: { site: installed, jsonSchema: schema } },
    );
    expect(viaGraphQL.data.updateSiteAdaptiveSchema.site.adaptiveSchema.jsonSchema).toEqual(schema);
    expect(await statusOf(server.client(writerToken).orgs.getSiteById(org, installed))).toBe(403);
    expect(codeOf(await server.graphql(writerToken, siteQuery, { id: installed }))).toBe("FORBIDDEN");
    expect(await statusOf(server.client(writerToken).orgs.updateSiteAdaptiveSchema(org, elsewhere, { jsonSchema: schema as never }))).toBe(
      404,
    );
    // The reader's site:adaptive:read is no write.
    expect((await reader.orgs.getSiteAdaptiveSchema(org, installed)).data.jsonSchema).toEqual(schema);

    // Installed on the site without a site scope that reads it: 403 there, 404 elsewhere.
    const bareToken = await tokenOf(bare, bareInstallation);
    expect(await statusOf(server.client(bareToken).orgs.getSiteById(org, installed))).toBe(403);
    expect(codeOf(await server.graphql(bareToken, siteQuery, { id: installed }))).toBe("FORBIDDEN");
    expect(await statusOf(server.client(bareToken).orgs.getSiteById(org, elsewhere))).toBe(404);
    expect((await server.client(bareToken).orgs.listSites(org)).data.items).toEqual([]);

    // site_selection: all reaches every site of the organization (reads, still no writes), not another organization's.
    await client.integrations.updateIntegrationInstallation(name, installation, { site_selection: "all" } as never);
    const allToken = await tokenOf(name, installation);
    const everywhere = server.client(allToken);
    expect((await everywhere.orgs.getSiteById(org, elsewhere)).data.title).toBe("Other site");
    expect((await server.graphql(allToken, siteQuery, { id: elsewhere })).data.site.title).toBe("Other site");
    expect(await statusOf(everywhere.orgs.updateSiteById(org, elsewhere, { title: "Renamed" }))).toBe(403);
    expect((await everywhere.orgs.listSites(org)).data.items.map((site) => site.id)).toEqual(
      expect.arrayContaining([installed, elsewhere]),
    );
    const stranger = await server.bootstrap();
    const strangerSite = (await server.client(stranger.token).orgs.createSite(stranger.organizationId, { title: "Stranger site" })).data.id;
    expect(await statusOf(everywhere.orgs.getSiteById(stranger.organizationId, strangerSite))).toBe(404);
    expect(codeOf(await server.graphql(allToken, siteQuery, { id: strangerSite }))).toBe("NOT_FOUND");

    // Back to selected sites, then off its site: it sees no site.
    await client.integrations.updateIntegrationInstallation(name, installation, { site_selection: "selected" } as never);
    await client.integrations.uninstallIntegrationFromSite(name, installation, installed);
    const afterToken = await tokenOf(name, installation);
    expect(await statusOf(server.client(afterToken).orgs.getSiteById(org, installed))).toBe(404);
    expect((await server.client(afterToken).orgs.listSites(org)).data.items).toEqual([]);
    // Members keep their organization role on sites.
    const member = await server.addMember(org, "read");
    expect((await server.rest(member.token, "GET", `/v1/orgs/${org}/sites/${elsewhere}`)).status).toBe(200);
    expect((await server.rest(member.token, "GET", `/v1/orgs/${org}/sites/${elsewhere}/adaptive-schema`)).status).toBe(200);
    expect((await server.rest(member.token, "PATCH", `/v1/orgs/${org}/sites/${elsewhere}`, { title: "No" })).status).toBe(403);
  });

  it("an installation with missing required settings is pending until configured", async () => {
    const name = unique("pending");
    await publish(name, { configurations: { account: { properties: { key: { type: "string" } }, required: ["key"] } } });
    const installation = await server.client(token).integrations.installIntegration(name, { organization: org });
    expect(installation.data.status).toBe("pending");
    const missing = await server.rest(token, "PATCH", `/v1/integrations/${name}/installations/${installation.data.id}`, {
      configuration: {},
    });
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toContain("misses required settings: key");
    const configured = await server
      .client(token)
      .integrations.updateIntegrationInstallation(name, installation.data.id, { configuration: { key: "k" } });
    expect(configured.data.status).toBe("active");
  });

  it("development mode settings are visible to the integration's admins only", async () => {
    const name = unique("dev");
    await publish(name, { visibility: "public" });
    await server.client(token).integrations.setIntegrationDevelopmentMode(name, { tunnelUrl: "https://tunnel.example.com/", all: true });
    const query = `query($name: String!) { integration(name: $name) { developmentMode { tunnelUrl all } signingSecret } }`;
    expect((await server.graphql(token, query, { name })).data.integration.developmentMode).toEqual({
      tunnelUrl: "https://tunnel.example.com/",
      all: true,
    });
    const other = await server.bootstrap();
    expect((await server.graphql(other.token, query, { name })).data.integration).toEqual({ developmentMode: null, signingSecret: null });
    const bad = await server.rest(token, "PUT", `/v1/integrations/${name}/dev`, { tunnelUrl: "ftp://x" });
    expect(bad.status).toBe(400);
  });
});

describe("statements", () => {
  it("listing installations with their relations costs as many statements for 25 as for 5", async () => {
    const name = unique("count");
    const { integration } = await publish(name, { visibility: "public" });
    const query = `query($name: String!, $first: Int) { integration(name: $name) { installations(first: $first) { totalCount nodes { id status spacesCount configuration urls { location } integration { name ownerProfile { id } permissions { admin } } } } } }`;
    const now = new Date();
    const addInstallations = async (count: number) => {
      for (let i = 0; i < count; i++) {
        const other = await server.bootstrap();
        await server.database.prisma.integrationInstallation.create({
          data: {
            id: newId("IntegrationInstallation"),
            integrationId: integration.id,
            organizationId: other.organizationId,
            createdAt: now,
            updatedAt: now,
          },
        });
      }
    };
    const count = async () => {
      // Deliveries of earlier tests' events run in the background and would be counted: let them end.
      while ((await server.database.prisma.job.count({ where: { failedAt: null } })) > 0) await new Promise((r) => setTimeout(r, 50));
      await server.graphql(token, query, { name, first: 50 }); // warm the token cache
      const before = server.database.statementCount;
      const result = await server.graphql(token, query, { name, first: 50 });
      expect(result.errors).toBeUndefined();
      return { statements: server.database.statementCount - before, nodes: result.data.integration.installations.nodes.length };
    };
    await addInstallations(5);
    const five = await count();
    await addInstallations(20);
    const twentyFive = await count();
    expect([five.nodes, twentyFive.nodes]).toEqual([5, 25]);
    expect(twentyFive.statements).toBe(five.statements);
  });
});
