// Integration blocks in pages: a fenced `integration` block in a page's markdown is the published
// `integration` document block (REST format=document and GraphQL); `GET /v1/spaces/{id}/
// integration-blocks` lists the blocks of the integrations installed on the space; a published
// page renders the block through the integration's script in workerd (a ui_render event, its
// ContentKit answer as escaped HTML), only where the integration is installed (space or site),
// again after a new version or a content change, and a script that is slow or throws gives a
// small notice within the page's bound while the rest of the page renders.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../src/core/ids.ts";
import { launchBrowser } from "./support/browser.ts";
import { graphqlData } from "./support/expect.ts";
import { validateResponse } from "./support/openapi.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let A: { organizationId: string; token: string; userId: string };
const gql = <T = any>(query: string, variables?: Record<string, unknown>) => graphqlData<T>(server, A.token, query, variables);
const NAME = `blocks-${newId("Page")
  .slice(4, 12)
  .toLowerCase()
  .replace(/[^a-z0-9]/g, "")}`;
const SLOW = `${NAME}-slow`;

/** A raw ES module speaking the runtime's protocol: ui_render of `card` answers every common element. */
const script = (version: string) => `
export default {
  async fetch(request) {
    const form = await request.formData();
    const event = JSON.parse(form.get("event"));
    if (event.type !== "ui_render") return new Response("OK");
    if (event.componentId === "throws") throw new Error("block broke");
    if (event.componentId === "deep") {
      let nested = { type: "text", children: "deep" };
      for (let i = 0; i < 20000; i++) nested = { type: "box", children: [nested] };
      return new Response(JSON.stringify({ type: "element", element: { type: "block", children: [nested] }, state: {}, props: {} }));
    }
    const props = event.props;
    const element = {
      type: "block",
      children: [{
        type: "vstack",
        children: [
          { type: "text", children: ["Hello ", { type: "text", style: "bold", children: String(props.label) }, " <script>alert(1)</script>"] },
          { type: "markdown", content: "**Marked** in ${version} for " + event.context.spaceId },
          { type: "divider" },
          { type: "hstack", align: "center", children: [
            { type: "button", label: "Open docs", onPress: { action: "@ui.url.open", url: "https://example.com/open" } },
            { type: "button", label: "Click", style: "secondary", onPress: { action: "click" } },
          ] },
          { type: "image", source: { url: "https://example.com/cat.png" }, aspectRatio: 1.5 },
          { type: "image", source: { url: "javascript:alert(1)" }, aspectRatio: 1 },
          { type: "card", title: "A card", hint: "a hint", children: [{ type: "text", children: "inside the card" }] },
          { type: "textinput", state: "name" },
        ],
      }],
    };
    return new Response(JSON.stringify({ type: "element", element, state: {}, props }), { headers: { "content-type": "application/json" } });
  },
};`;

const SLOW_SCRIPT = `export default { async fetch(request) {
  const event = JSON.parse((await request.formData()).get("event"));
  if (event.type === "ui_render") await new Promise((resolve) => setTimeout(resolve, 60000));
  return new Response("OK");
} };`;

const BLOCKS = [
  { id: "card", title: "Card block", description: "Every common element", markdown: { codeblock: "card", body: "label" } },
  { id: "throws", title: "Throwing block" },
];

async function publish(name: string, source: string, blocks: unknown[] = BLOCKS) {
  const published = await server.rest(A.token, "POST", `/v1/integrations/${name}`, {
    organization: A.organizationId,
    title: `Blocks ${name.slice(-4)}`,
    script: source,
    visibility: "private",
    blocks,
  });
  expect(published.status, JSON.stringify(published.body)).toBe(200);
}

async function installation(name: string): Promise<string> {
  const installed = await server.rest(A.token, "POST", `/v1/integrations/${name}/installations`, { organization: A.organizationId });
  expect(installed.status, JSON.stringify(installed.body)).toBe(201);
  return installed.body.id;
}

const embed = (integration: string, block: string, props: string) =>
  `\`\`\`integration\nintegration: ${integration}\nblock: ${block}\nprops:\n  ${props}\n\`\`\``;

async function createPage(space: string, title: string, markdown: string): Promise<string> {
  const { createPage } = await gql(`mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, {
    input: { space, title, markdown },
  });
  return createPage.page.id;
}

async function publishedSite(spaces: string[]) {
  const { data: site } = await server.client(A.token).orgs.createSite(A.organizationId, {
    title: "Blocks docs",
    spaces,
    visibility: "public" as never,
  });
  await server.client(A.token).orgs.publishSite(A.organizationId, site.id);
  return site.id as string;
}

/** SQL statements of `run`. */
async function statementsOf(run: () => Promise<unknown>) {
  const start = server.database.statementCount;
  await run();
  return server.database.statementCount - start;
}

/** Waits until the events of installations are delivered (their statements would count in the next measure). */
async function eventsDelivered() {
  const prisma = server.database.prisma;
  for (let i = 0; i < 400; i++) {
    const [pending, running] = await Promise.all([
      prisma.integrationEvent.count({ where: { status: "pending" } }),
      prisma.job.count({ where: { lockedBy: { not: null } } }),
    ]);
    if (pending === 0 && running === 0) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("events not delivered");
}

let installationId: string;
let spaceId: string;

beforeAll(async () => {
  server = await startTestServer({ integrations: { eventAttempts: 1, timeoutMs: 8000, cpuMs: 1000, memoryMb: 128 } });
  A = await server.bootstrap("Blocks");
  await publish(NAME, script("v1"));
  await publish(SLOW, SLOW_SCRIPT, [{ id: "slow", title: "Slow block" }]);
  installationId = await installation(NAME);
  await installation(SLOW);
  spaceId = (await server.client(A.token).orgs.createSpace(A.organizationId, { title: "With blocks" })).data.id;
  await server.client(A.token).integrations.installIntegrationOnSpace(NAME, installationId, { space: spaceId });
});

afterAll(async () => {
  await server?.close();
});

describe("an integration block in page content", () => {
  it("is the published integration block in REST format=document and GraphQL, and stays in the markdown", async () => {
    const markdown = `Before.\n\n${embed(NAME, "card", "label: docs")}\n\n\`\`\`integration\nintegration: ${NAME}\nprops: {}\n\`\`\`\n`;
    const pageId = await createPage(spaceId, "Embedded", markdown);
    const { data } = await server.client(A.token).spaces.getPageById(spaceId, pageId, { format: "document" });
    const nodes = (data as any).document.nodes;
    expect(nodes.map((node: any) => node.type)).toEqual(["paragraph", "integration", "code"]);
    expect(nodes[1]).toEqual({
      object: "block",
      type: "integration",
      isVoid: true,
      data: { integration: NAME, block: "card", props: { label: "docs" } },
    });

    const { node } = await gql(
      `query($id: ID!, $page: ID!) { node(id: $id) { ... on Space { content { page(id: $page) { document markdown } } } } }`,
      { id: spaceId, page: pageId },
    );
    expect(node.content.page.document.nodes[1]).toEqual(nodes[1]);
    expect(node.content.page.markdown).toContain(embed(NAME, "card", "label: docs"));

    // An edit with JSON props (YAML's flow style) and the optional keys.
    await gql(`mutation($input: UpdatePageInput!) { updatePage(input: $input) { page { id } } }`, {
      input: {
        space: spaceId,
        page: pageId,
        markdown: `\`\`\`integration\nintegration: ${NAME}\nblock: card\nprops: {"label": "json", "n": [1, 2]}\nurl: https://example.com/x\nfullWidth: true\n\`\`\``,
      },
    });
    const edited = await server.client(A.token).spaces.getPageById(spaceId, pageId, { format: "document" });
    expect((edited.data as any).document.nodes).toEqual([
      {
        object: "block",
        type: "integration",
        isVoid: true,
        data: { integration: NAME, block: "card", props: { label: "json", n: [1, 2] }, url: "https://example.com/x", fullWidth: true },
      },
    ]);
  });

  it("GET /v1/spaces/{id}/integration-blocks lists the blocks of integrations installed on the space (GraphQL first)", async () => {
    const { data, status } = await server.client(A.token).spaces.listSpaceIntegrationsBlocks(spaceId);
    expect(status).toBe(200);
    expect(data).toEqual([{ name: NAME, blocks: BLOCKS }]);
    // The slow integration is installed in the organization, not on this space: not listed until it is on all spaces.
    const slowInstallation = (await server.client(A.token).integrations.listIntegrationInstallations(SLOW)).data.items[0]!.id;
    await server.client(A.token).integrations.updateIntegrationInstallation(SLOW, slowInstallation, { space_selection: "all" } as never);
    const both = await server.rest(A.token, "GET", `/v1/spaces/${spaceId}/integration-blocks`);
    expect(both.body.map((entry: any) => entry.name)).toEqual([NAME, SLOW].sort());
    expect(validateResponse("GET", `/v1/spaces/${spaceId}/integration-blocks`, 200, both.body)).toEqual([]);
    await server
      .client(A.token)
      .integrations.updateIntegrationInstallation(SLOW, slowInstallation, { space_selection: "selected" } as never);

    const { node } = await gql(
      `query($id: ID!) { node(id: $id) { ... on Space { integrationBlocks { name integration { version } blocks { id title markdown { codeblock body } } } } } }`,
      { id: spaceId },
    );
    expect(node.integrationBlocks).toEqual([
      {
        name: NAME,
        integration: { version: 1 },
        blocks: [
          { id: "card", title: "Card block", markdown: { codeblock: "card", body: "label" } },
          { id: "throws", title: "Throwing block", markdown: null },
        ],
      },
    ]);

    // Another space of the organization has none; a stranger gets 404.
    const other = (await server.client(A.token).orgs.createSpace(A.organizationId, { title: "Plain" })).data.id;
    expect((await server.rest(A.token, "GET", `/v1/spaces/${other}/integration-blocks`)).body).toEqual([]);
    const stranger = await server.bootstrap("Stranger");
    expect((await server.rest(stranger.token, "GET", `/v1/spaces/${spaceId}/integration-blocks`)).status).toBe(404);
  });
});

describe("on a published page", () => {
  it("renders the block through the script as escaped HTML, with the rest of the page", async () => {
    const space = (await server.client(A.token).orgs.createSpace(A.organizationId, { title: "Rendered" })).data.id;
    await server.client(A.token).integrations.installIntegrationOnSpace(NAME, installationId, { space });
    await createPage(space, "Widgets", `Intro text.\n\n${embed(NAME, "card", "label: <b>docs</b>")}\n\nOutro text.\n`);
    const site = await publishedSite([space]);
    const response = await fetch(`${server.url}/sites/${site}/`);
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain("<p>Intro text.</p>");
    expect(html).toContain("<p>Outro text.</p>");
    expect(html).toContain(`<div class="integration-block" data-integration="${NAME}" data-block="card"><div class="ck-block">`);
    expect(html).toContain(
      '<span class="ck-text">Hello <strong>&lt;b&gt;docs&lt;/b&gt;</strong> &lt;script&gt;alert(1)&lt;/script&gt;</span>',
    );
    expect(html).not.toContain("<script>alert(1)");
    expect(html).toContain(`<div class="ck-markdown"><p><strong>Marked</strong> in v1 for ${space}</p>\n</div>`);
    expect(html).toContain('<hr class="ck-divider">');
    expect(html).toContain('<div class="ck-hstack" style="display:flex;flex-direction:row;gap:0.5rem;align-items:center">');
    expect(html).toContain(
      '<a class="ck-button ck-button-primary" href="https://example.com/open" rel="noopener noreferrer nofollow">Open docs</a>',
    );
    expect(html).toContain('<button type="button" class="ck-button ck-button-secondary" disabled>Click</button>');
    expect(html).toContain('<img class="ck-image" src="https://example.com/cat.png" alt="" style="aspect-ratio:1.5" loading="lazy">');
    expect(html).not.toContain("javascript:");
    expect(html).toContain('<div class="ck-card"><p class="ck-card-title"><strong>A card</strong></p><p class="ck-card-hint">a hint</p>');
    expect(html).toContain("inside the card");
    // The text input is not rendered (nothing for it, a log line instead).
    expect(html).not.toContain("textinput");
    expect(response.headers.get("etag")).toBeTruthy();

    // In a real browser: the block is shown, and nothing the script sent runs.
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      const dialogs: string[] = [];
      page.on("dialog", (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });
      await page.goto(`${server.url}/sites/${site}/`);
      await expect.poll(() => page.locator(".integration-block a.ck-button").textContent()).toBe("Open docs");
      expect(await page.locator(".integration-block .ck-card-title").isVisible()).toBe(true);
      expect(await page.locator(".integration-block .ck-text").first().innerText()).toBe("Hello <b>docs</b> <script>alert(1)</script>");
      expect(dialogs).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  it("renders only where the integration is installed (the page's space or the site), and again after a new version or a content change", async () => {
    const space = (await server.client(A.token).orgs.createSpace(A.organizationId, { title: "Not installed" })).data.id;
    const pageId = await createPage(space, "Home", `${embed(NAME, "card", "label: here")}\n\n${embed(NAME, "nope", "a: 1")}\n`);
    const site = await publishedSite([space]);
    const page = async () => (await fetch(`${server.url}/sites/${site}/`)).text();

    let html = await page();
    expect(html).toContain(`This block of the integration “${NAME}” is not available: the integration is not installed here.`);
    expect(html).not.toContain("ck-block");

    // Installed on the site (not the space): the block renders; an unknown block id gives a notice.
    await server.client(A.token).integrations.installIntegrationOnSite(NAME, installationId, { siteId: site });
    await eventsDelivered();
    const rendered = await statementsOf(async () => {
      html = await page();
    });
    expect(html).toContain("Hello <strong>here</strong>");
    expect(html).toContain("in v1 for");
    expect(html).toContain("is not available: the integration has no such block.");

    // A repeated view is served from the page cache (fewer statements than a render); a new version renders again.
    const repeat = await statementsOf(() => page());
    expect(repeat).toBeLessThan(rendered);
    await publish(NAME, script("v2"));
    html = await page();
    expect(html).toContain("in v2 for");
    // A content change renders again.
    await gql(`mutation($input: UpdatePageInput!) { updatePage(input: $input) { page { id } } }`, {
      input: { space, page: pageId, markdown: embed(NAME, "card", "label: changed") },
    });
    expect(await page()).toContain("Hello <strong>changed</strong>");
    await publish(NAME, script("v1"));
  });

  it("a script that throws or does not answer gives a notice within the page's bound; the page still renders", async () => {
    const space = (await server.client(A.token).orgs.createSpace(A.organizationId, { title: "Failing" })).data.id;
    await server.client(A.token).integrations.installIntegrationOnSpace(NAME, installationId, { space });
    const slowInstallation = (await server.client(A.token).integrations.listIntegrationInstallations(SLOW)).data.items[0]!.id;
    await server.client(A.token).integrations.installIntegrationOnSpace(SLOW, slowInstallation, { space });
    await createPage(
      space,
      "Broken",
      `Still here.\n\n${embed(NAME, "throws", "a: 1")}\n\n${embed(SLOW, "slow", "a: 1")}\n\n${embed(NAME, "card", "label: fine")}\n`,
    );
    const site = await publishedSite([space]);
    await eventsDelivered();
    const started = performance.now();
    const response = await fetch(`${server.url}/sites/${site}/`);
    const elapsed = performance.now() - started;
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain("<p>Still here.</p>");
    expect(html).toContain(
      `data-integration="${NAME}" data-block="throws"><p>This block of the integration “${NAME}” is not available: it could not be rendered.</p>`,
    );
    expect(html).toContain(
      `data-integration="${SLOW}" data-block="slow"><p>This block of the integration “${SLOW}” is not available: it could not be rendered.</p>`,
    );
    expect(html).toContain("Hello <strong>fine</strong>");
    // Bounded by the page's block deadline (3 s), not by the sandbox's 8 s timeout.
    expect(elapsed).toBeLessThan(6000);
    // An answer nested without bound is refused by the ContentKit check (the render route: 502, not 500).
    const deep = await server.rest(A.token, "POST", `/v1/integrations/${NAME}/render`, {
      componentId: "deep",
      props: {},
      context: { type: "document", spaceId: space, editable: false, theme: "light" },
    });
    expect(deep.status).toBe(502);
    expect(deep.body.error.message).toContain("nested deeper than 100 levels");
    // Not kept as long as a page without failures: no ETag; cached for 30 s, then rendered again.
    expect(response.headers.get("etag")).toBeNull();
    const view = () => fetch(`${server.url}/sites/${site}/`).then((r) => r.text());
    const cached = await statementsOf(view);
    server.clock.advance(31_000);
    expect(await statementsOf(view)).toBeGreaterThan(cached);
  });
});

describe("scripts injected into a site", () => {
  const SCRIPTED = `${NAME}-script`;
  const SCRIPTED_SOURCE = `export default { async fetch(request) {
    const event = JSON.parse((await request.formData()).get("event"));
    if (event.type !== "fetch_published_script") return new Response("OK");
    return new Response("window.injected = " + JSON.stringify(event.siteId) + ";", { headers: { "content-type": "application/javascript" } });
  } };`;

  it("lists them (published schema), serves each script from the integration's answer with its Content-Security-Policy", async () => {
    const publish = (connectSrc: string) =>
      server.rest(A.token, "POST", `/v1/integrations/${SCRIPTED}`, {
        organization: A.organizationId,
        title: "Site script",
        script: SCRIPTED_SOURCE,
        visibility: "private",
        scopes: ["site:script:inject", "site:script:cookies"],
        contentSecurityPolicy: { "script-src": "https://cdn.example.com", "connect-src": connectSrc },
      });
    // A policy ends up in a header: a control character in it is refused, and nothing is published.
    const refused = await publish("https://api.example.com\r\nX-Evil: 1");
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/^contentSecurityPolicy\.connect-src must not contain control characters/);
    expect((await server.rest(A.token, "GET", `/v1/integrations/${SCRIPTED}`)).status).toBe(404);
    const published = await publish("https://api.example.com");
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    const scripted = await installation(SCRIPTED);
    const space = (await server.client(A.token).orgs.createSpace(A.organizationId, { title: "Scripted" })).data.id;
    const site = await publishedSite([space]);
    const path = `/v1/orgs/${A.organizationId}/sites/${site}/integration-scripts`;
    expect((await server.client(A.token).orgs.listSiteIntegrationScripts(A.organizationId, site)).data).toEqual([]);

    await server.client(A.token).integrations.installIntegrationOnSite(SCRIPTED, scripted, { siteId: site });
    // The block integration installed on the site too has no site:script:inject scope: not listed.
    await server.client(A.token).integrations.installIntegrationOnSite(NAME, installationId, { siteId: site });
    const listed = await server.rest(A.token, "GET", path);
    expect(listed.status).toBe(200);
    expect(validateResponse("GET", path, 200, listed.body)).toEqual([]);
    const csp = "script-src https://cdn.example.com; connect-src https://api.example.com";
    expect(listed.body).toEqual([
      {
        script: `${server.url}/v1/integrations/${SCRIPTED}/installations/${scripted}/sites/${site}/script.js?v=1`,
        contentSecurityPolicy: csp,
        cookies: true,
      },
    ]);
    const viaGraphQL = await gql(`query($site: ID!) { site(id: $site) { integrationScripts { script contentSecurityPolicy cookies } } }`, {
      site,
    });
    expect(viaGraphQL.site.integrationScripts).toEqual(listed.body);

    // The script itself, without a token, as a published page loads it.
    await eventsDelivered();
    const script = await fetch(listed.body[0].script);
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toBe("application/javascript; charset=utf-8");
    expect(script.headers.get("content-security-policy")).toBe(csp);
    expect(await script.text()).toBe(`window.injected = ${JSON.stringify(site)};`);

    // Elsewhere it is 404; a reader of another organization does not see the list.
    const other = await fetch(`${server.url}/v1/integrations/${SCRIPTED}/installations/${scripted}/sites/site_nowhere/script.js`);
    expect(other.status).toBe(404);
    expect((await other.json()).error.code).toBe(404);
    const blocks = await fetch(`${server.url}/v1/integrations/${NAME}/installations/${installationId}/sites/${site}/script.js`);
    expect(blocks.status).toBe(404);
    const stranger = await server.bootstrap("Script stranger");
    expect((await server.rest(stranger.token, "GET", path)).status).toBe(404);

    // A script that throws: 502 naming the problem, not a 500.
    const broken = `${SCRIPTED}-broken`;
    const brokenPublished = await server.rest(A.token, "POST", `/v1/integrations/${broken}`, {
      organization: A.organizationId,
      title: "Broken script",
      script: `export default { async fetch(request) {
        const event = JSON.parse((await request.formData()).get("event"));
        if (event.type === "fetch_published_script") throw new Error("no script today");
        return new Response("OK");
      } };`,
      visibility: "private",
      scopes: ["site:script:inject"],
    });
    expect(brokenPublished.status).toBe(200);
    const brokenInstallation = await installation(broken);
    await server.client(A.token).integrations.installIntegrationOnSite(broken, brokenInstallation, { siteId: site });
    const scripts = (await server.rest(A.token, "GET", path)).body;
    expect(scripts.map((entry: any) => entry.cookies).sort()).toEqual([false, true]);
    const failing = await fetch(scripts.find((entry: any) => entry.script.includes(broken)).script);
    expect(failing.status).toBe(502);
    expect((await failing.json()).error.message).toContain(`The integration "${broken}" could not answer its site script`);
  });
  it("a published page loads, async, the script of each integration with site:script:inject on its site, and its CSP allows exactly those", async () => {
    const INJECTED = `${NAME}-inject`;
    const UNSCOPED = `${NAME}-unscoped`;
    const source = `export default { async fetch(request) {
      const event = JSON.parse((await request.formData()).get("event"));
      if (event.type !== "fetch_published_script") return new Response("OK");
      return new Response("document.documentElement.dataset.injected = " + JSON.stringify(event.siteId) + "; document.title = 'Injected';");
    } };`;
    for (const [name, scopes] of [
      [INJECTED, ["site:script:inject"]],
      [UNSCOPED, ["site:metadata:read"]],
    ] as const) {
      const published = await server.rest(A.token, "POST", `/v1/integrations/${name}`, {
        organization: A.organizationId,
        title: `Inject ${name.slice(-4)}`,
        script: source,
        visibility: "private",
        scopes,
        // Merged into the policy of the pages that load its script (the unscoped one is loaded nowhere).
        contentSecurityPolicy: { "connect-src": `https://api.${name}.example.com`, "frame-ancestors": "*" },
      });
      expect(published.status, JSON.stringify(published.body)).toBe(200);
    }
    const injected = await installation(INJECTED);
    const unscoped = await installation(UNSCOPED);
    const space = (await server.client(A.token).orgs.createSpace(A.organizationId, { title: "Injected" })).data.id;
    await createPage(space, "Home", "Hello readers.");
    const [site, other] = [await publishedSite([space]), await publishedSite([space])];
    const view = async (id: string) => {
      const response = await fetch(`${server.url}/sites/${id}/`);
      expect(response.status).toBe(200);
      return { html: await response.text(), policy: response.headers.get("content-security-policy")! };
    };
    const scriptOf = (name: string, id: string, on: string) =>
      `${server.url}/v1/integrations/${name}/installations/${id}/sites/${on}/script.js`;
    // The page's own scripts (its theme line, allowed by hash, and its enhancement script) are always there.
    const integrationScripts = (html: string) => html.match(/<script[^>]*\basync>/g) ?? [];
    const ownScriptSources = (policy: string) => {
      const directive = policy.split(";").find((part) => part.trim().startsWith("script-src"))!;
      return directive.trim().split(" ").slice(1, 3);
    };

    // Not installed on the site yet: no script, and the policy allows none.
    let page = await view(site);
    expect(page.html).toContain("Hello readers.");
    expect(integrationScripts(page.html)).toEqual([]);
    const own = ownScriptSources(page.policy);
    expect(own[0]).toMatch(/^'sha256-[A-Za-z0-9+/=]+'$/);
    expect(own[1]).toMatch(/\/~assets\/site\.[A-Za-z0-9]+\.js$/);
    expect(page.policy.split(";").filter((part) => part.trim().startsWith("script-src"))).toEqual([` script-src ${own.join(" ")}`]);
    expect(page.policy).toContain("default-src 'none'");

    // Both installed on the site: only the one with the scope is loaded (the cache key follows installations).
    await server.client(A.token).integrations.installIntegrationOnSite(INJECTED, injected, { siteId: site });
    await server.client(A.token).integrations.installIntegrationOnSite(UNSCOPED, unscoped, { siteId: site });
    page = await view(site);
    const url = `${scriptOf(INJECTED, injected, site)}?v=1`;
    expect(integrationScripts(page.html)).toEqual([`<script src="${url}" async>`]);
    expect(page.html).not.toContain(UNSCOPED);
    const scriptSrc = page.policy
      .split(";")
      .map((part) => part.trim())
      .filter((part) => part.startsWith("script-src"));
    expect(scriptSrc).toEqual([`script-src ${own.join(" ")} ${scriptOf(INJECTED, injected, site)}`]);
    // The integration's policy widens the page's fetch directives only (not frame-ancestors).
    expect(page.policy).toContain(`connect-src https://api.${INJECTED}.example.com`);
    expect(page.policy).not.toContain(UNSCOPED);
    expect(page.policy).toContain("frame-ancestors 'none'");
    expect(page.policy).not.toContain("frame-ancestors *");
    // The same on the site's other pages (search), and the API lists the same script.
    expect((await (await fetch(`${server.url}/sites/${site}/~search?q=hello`)).text()).match(/<script[^>]*\basync>/g)).toHaveLength(1);
    expect(
      (await server.rest(A.token, "GET", `/v1/orgs/${A.organizationId}/sites/${site}/integration-scripts`)).body.map((s: any) => s.script),
    ).toEqual([url]);
    // Another site of the organization, where it is not installed: none.
    expect(integrationScripts((await view(other)).html)).toEqual([]);

    // In a real browser the script runs; an inline script does not (the policy allows only the listed URL).
    await eventsDelivered();
    const browser = await launchBrowser();
    try {
      const tab = await browser.newPage();
      await tab.goto(`${server.url}/sites/${site}/`);
      await expect.poll(() => tab.evaluate(() => document.documentElement.dataset.injected ?? null), { timeout: 10_000 }).toBe(site);
      expect(await tab.title()).toBe("Injected");
      await tab.evaluate(() => {
        const inline = document.createElement("script");
        inline.textContent = "document.documentElement.dataset.inline = 'ran';";
        document.head.append(inline);
      });
      expect(await tab.evaluate(() => document.documentElement.dataset.inline ?? null)).toBeNull();
    } finally {
      await browser.close();
    }

    // Off the site: the page loads no script again.
    await server.client(A.token).integrations.uninstallIntegrationFromSite(INJECTED, injected, site);
    page = await view(site);
    expect(integrationScripts(page.html)).toEqual([]);
    expect(page.policy.split(";").filter((part) => part.trim().startsWith("script-src"))).toEqual([` script-src ${own.join(" ")}`]);
  });
});
