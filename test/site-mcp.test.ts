// The MCP server of a published site (`/~gitbook/mcp`), through the official MCP client: its tools
// (search, list_pages, get_page) read the site exactly as the caller may; a share-link site needs
// its key, an unpublished site is not there, another site's pages are never answered, and what is
// not a tool call of reasonable size is refused while the site's pages are still served.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./support/server.ts";
import { ADAPTIVE_SCHEMA } from "./support/sites.ts";

let server: TestServer;
let A: { organizationId: string; userId: string; token: string };
const api = () => server.client(A.token);

async function spaceWith(title: string, pages: Record<string, string>) {
  const { data: space } = await api().orgs.createSpace(A.organizationId, { title });
  for (const [pageTitle, markdown] of Object.entries(pages)) {
    const created = await server.graphql(A.token, `mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, {
      input: { space: space.id, title: pageTitle, markdown },
    });
    expect(created.errors).toBeUndefined();
  }
  return space;
}

async function publishedSite(spaceIds: string[], visibility = "public") {
  const { data: site } = await api().orgs.createSite(A.organizationId, {
    title: "Agent docs",
    spaces: spaceIds,
    visibility: visibility as never,
  });
  await api().orgs.publishSite(A.organizationId, site.id);
  return site;
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: "test-agent", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

const textOf = (result: Awaited<ReturnType<Client["callTool"]>>) =>
  (result.content as { type: string; text: string }[]).map((part) => part.text).join("\n");

let publicSite: { id: string };
let mcpUrl: string;

beforeAll(async () => {
  server = await startTestServer();
  A = await server.bootstrap("Agents");
  const space = await spaceWith("Handbook", {
    Quickstart: "# Quickstart\n\nCreate an account and publish your first page.",
    Webhooks: "Receive a callback when content changes.\n\n## Signature\n\nVerify the signature of each delivery.",
  });
  await spaceWith("Not published", { Roadmap: "Secret plans for webhooks." });
  publicSite = await publishedSite([space.id]);
  mcpUrl = `${server.url}/sites/${publicSite.id}/~gitbook/mcp`;
});

afterAll(async () => {
  await server?.close();
});

describe("a published site's MCP server", () => {
  it("lists its tools to the official client, and they read the site: list_pages, search (typos forgiven), get_page", async () => {
    const client = await connect(mcpUrl);
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(["ask", "get_page", "list_pages", "search"]);
      const base = `${server.url}/sites/${publicSite.id}`;
      const list = textOf(await client.callTool({ name: "list_pages", arguments: {} }));
      expect(list).toContain(`[Quickstart](${base}/quickstart.md)`);
      expect(list).toContain(`[Webhooks](${base}/webhooks.md)`);
      expect(list).not.toContain("Roadmap");

      const found = textOf(await client.callTool({ name: "search", arguments: { query: "webhoks signatre" } }));
      expect(found.split("\n")[0]).toBe(`- [Webhooks](${base}/webhooks.md)`);
      expect(found).toContain("**signature**");
      expect(found).not.toContain("Roadmap");

      const page = textOf(await client.callTool({ name: "get_page", arguments: { url: `${base}/quickstart` } }));
      // The title once, though the Markdown starts with it.
      expect(page).toBe(`Source: ${base}/quickstart\n\n# Quickstart\n\nCreate an account and publish your first page.`);
      expect(textOf(await client.callTool({ name: "get_page", arguments: { url: "quickstart.md" } }))).toBe(page);
    } finally {
      await client.close();
    }
  });

  it("answers a question with the passages that best answer it, quoted with their links (the tool and a page's .md?ask=)", async () => {
    const base = `${server.url}/sites/${publicSite.id}`;
    const expected = [
      "> How do I verify a webhook signature?",
      "",
      "The passages of Agent docs that best answer it:",
      "",
      `1. [Webhooks › Signature](${base}/webhooks#signature)`,
      "",
      "   > Verify the signature of each delivery.",
      "",
      `2. [Webhooks](${base}/webhooks)`,
      "",
      "   > Receive a callback when content changes.",
      "",
    ].join("\n");
    const client = await connect(mcpUrl);
    try {
      const answer = textOf(await client.callTool({ name: "ask", arguments: { question: "How do I verify a webhook signature?" } }));
      expect(answer).toBe(expected);
      // Nothing of a space outside the site.
      expect(textOf(await client.callTool({ name: "ask", arguments: { question: "What are the secret plans?" } }))).toBe(
        "> What are the secret plans?\n\nNo page of Agent docs answers this question.\n",
      );
    } finally {
      await client.close();
    }
    const md = await fetch(`${base}/quickstart.md?ask=${encodeURIComponent("How do I verify a webhook signature?")}`);
    expect(md.status).toBe(200);
    expect(md.headers.get("content-type")).toContain("text/markdown");
    expect(await md.text()).toBe(expected);
  });

  it("answers no page that is not the site's, and refuses bad arguments naming them", async () => {
    const client = await connect(mcpUrl);
    try {
      const missing = await client.callTool({ name: "get_page", arguments: { url: "roadmap" } });
      expect(missing.isError).toBe(true);
      expect(textOf(missing)).toContain("No page at roadmap");
      const otherSite = await client.callTool({ name: "get_page", arguments: { url: `${server.url}/sites/site_other/roadmap` } });
      expect(otherSite.isError).toBe(true);
      const bad = await client.callTool({ name: "search", arguments: { query: "x".repeat(513) } });
      expect(bad.isError).toBe(true);
      expect(textOf(bad)).toContain("query");
      const none = await client.callTool({ name: "search", arguments: {} });
      expect(none.isError).toBe(true);
      expect(textOf(none)).toContain("query");
    } finally {
      await client.close();
    }
  });

  it("needs a share-link site's key, as its pages do; an unpublished site has none", async () => {
    const space = await spaceWith("Shared handbook", { Setup: "Set it up." });
    const shared = await publishedSite([space.id], "share-link");
    const link = (await api().orgs.createSiteShareLink(A.organizationId, shared.id, { name: "Agents" })).data;
    const key = new URL(link.urls.published!).searchParams.get("shareKey")!;
    const url = `${server.url}/sites/${shared.id}/~gitbook/mcp`;
    await expect(connect(url)).rejects.toThrow(/"code":401,"message":"This site is read with its share link or a visitor token/);
    await expect(connect(`${url}?shareKey=wrong`)).rejects.toThrow(/"code":403,"message":"The share link or visitor token is not valid/);
    const client = await connect(`${url}?shareKey=${key}`);
    try {
      expect(textOf(await client.callTool({ name: "list_pages", arguments: {} }))).toContain("[Setup]");
    } finally {
      await client.close();
    }
    await api().orgs.unpublishSite(A.organizationId, shared.id);
    await expect(connect(`${url}?shareKey=${key}`)).rejects.toThrow(/"code":404,"message":"No published site here"/);
  });

  it("on a visitor-auth site, takes the visitor's JWT and its claims: a site space hidden by a condition is neither listed, found nor read", async () => {
    const main = await spaceWith("Main manual", { Overview: "The main overview." });
    const beta = await spaceWith("Beta manual", { Teleporter: "The teleporter is in beta." });
    const site = await publishedSite([main.id, beta.id], "visitor-auth");
    await api().orgs.updateSiteAdaptiveSchema(A.organizationId, site.id, { jsonSchema: ADAPTIVE_SCHEMA } as never);
    const betaSiteSpace = (await api().orgs.listSiteSpaces(A.organizationId, site.id)).data.items.find((s) => s.space.id === beta.id)!;
    await api().orgs.updateSiteSpaceById(A.organizationId, site.id, betaSiteSpace.id, { condition: 'visitor.claims.plan == "pro"' });
    const key = (await server.database.prisma.site.findUniqueOrThrow({ where: { id: site.id } })).authPrivateKey;
    const now = Math.floor(server.clock.now().getTime() / 1000);
    const token = (plan: string) =>
      new SignJWT({ plan })
        .setProtectedHeader({ alg: "HS256" })
        .setIssuedAt(now)
        .setExpirationTime(now + 3600)
        .sign(new TextEncoder().encode(key));
    const url = `${server.url}/sites/${site.id}/~gitbook/mcp`;
    await expect(connect(url)).rejects.toThrow(/"code":401/);
    await expect(connect(`${url}?jwt_token=not.a.jwt`)).rejects.toThrow(/"code":401/);

    const free = await connect(`${url}?jwt_token=${await token("free")}`);
    const pro = await connect(`${url}?jwt_token=${await token("pro")}`);
    try {
      const betaPage = `${server.url}/sites/${site.id}/${betaSiteSpace.path}/teleporter`;
      expect(textOf(await free.callTool({ name: "list_pages", arguments: {} }))).not.toContain("Teleporter");
      expect(textOf(await free.callTool({ name: "search", arguments: { query: "teleporter" } }))).not.toContain("Teleporter");
      expect((await free.callTool({ name: "get_page", arguments: { url: betaPage } })).isError).toBe(true);

      expect(textOf(await pro.callTool({ name: "list_pages", arguments: {} }))).toContain(`[Teleporter](${betaPage}.md)`);
      expect(textOf(await pro.callTool({ name: "search", arguments: { query: "teleporter" } }))).toContain(`[Teleporter](${betaPage}.md)`);
      expect(textOf(await pro.callTool({ name: "get_page", arguments: { url: betaPage } }))).toContain("The teleporter is in beta.");
    } finally {
      await free.close();
      await pro.close();
    }
  });

  it("refuses GET (no stream is kept open) and a body over 64 KiB, while the site's pages are still served", async () => {
    const get = await fetch(mcpUrl, { headers: { accept: "text/event-stream" } });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    const [large, page] = await Promise.all([
      fetch(mcpUrl, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { padding: "x".repeat(70 * 1024) } }),
      }),
      fetch(`${server.url}/sites/${publicSite.id}/quickstart`),
    ]);
    expect(large.status).toBe(413);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Create an account");
  });
});
