// The authors' MCP server (`/v1/mcp`), through the official MCP client with an API token: its
// tools are the served REST routes whose published operation is flagged `x-gitbook-mcp`, and a
// call runs that route, so it answers what REST answers, refuses what REST refuses (naming the
// field, changing nothing), and counts against the token's rate limit. Another organization's ids
// are unknown; without a token there is nothing; an operation answering 501 is no tool.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { captureLogs } from "./support/logs.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let A: { organizationId: string; token: string };
let B: { organizationId: string; token: string };

/** A tool's answer is cut beyond this here (256 KiB by default), so a list of a few spaces is cut. */
const ANSWER_MAX_BYTES = 4096;

async function connect(token: string | undefined, url = `${server.url}/v1/mcp`): Promise<Client> {
  const client = new Client({ name: "test-author", version: "1.0.0" });
  const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

type ToolResult = Awaited<ReturnType<Client["callTool"]>>;
const textOf = (result: ToolResult) => (result.content as { type: string; text: string }[]).map((part) => part.text).join("\n");
const jsonOf = (result: ToolResult) => {
  expect(result.isError, textOf(result)).toBeFalsy();
  return JSON.parse(textOf(result));
};

let client: Client;

beforeAll(async () => {
  server = await startTestServer({ mcp: { answerMaxBytes: ANSWER_MAX_BYTES } });
  A = await server.bootstrap("Authors");
  B = await server.bootstrap("Others");
  client = await connect(A.token);
});

afterAll(async () => {
  await client?.close();
  await server?.close();
});

async function createSpace(token: string, organizationId: string, title: string): Promise<string> {
  const created = await server.rest(token, "POST", `/v1/orgs/${organizationId}/spaces`, { title });
  expect(created.status).toBe(201);
  return created.body.id;
}

describe("the authors' MCP server", () => {
  it("lists a tool per served operation flagged for MCP, with the published input schema; no 501 operation and no unflagged one", async () => {
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    for (const name of [
      "getSpaceById",
      "updateSpaceById",
      "listSpacesInOrganizationById",
      "getPageByPath",
      "createChangeRequest",
      "mergeChangeRequest",
      "searchSpaceContent",
    ])
      expect(names).toContain(name);
    // Flagged for MCP in the published API, but not built here: each answers 501 over REST.
    for (const name of ["getOrganizationAgentInstructions", "listSiteQuestions", "listOrganizationStyleguides"])
      expect(names).not.toContain(name);
    const unbuilt = await server.rest(A.token, "GET", `/v1/orgs/${A.organizationId}/agent-instructions`);
    expect(unbuilt.status).toBe(501);
    // Served over REST, but not flagged for MCP by the published API.
    for (const name of ["deleteSpaceById", "getAuthenticatedUser"]) expect(names).not.toContain(name);

    const update = tools.find((tool) => tool.name === "updateSpaceById")!;
    expect(update.title).toBe("Update a space's title, icon, or settings");
    expect(update.description).toContain("Runs PATCH /v1/spaces/{spaceId} of the REST API");
    expect(update.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(update.inputSchema.required).toEqual(["spaceId", "body"]);
    expect(Object.keys(update.inputSchema.properties!)).toEqual(["spaceId", "body"]);
    expect(update.inputSchema.additionalProperties).toBe(false);
    // The published schemas it names come along: a title is at most 50 characters.
    const body = update.inputSchema.properties!.body as { allOf: { properties: Record<string, { $ref: string }> }[] };
    expect(body.allOf[0].properties.title).toEqual({ $ref: "#/$defs/SpaceTitle" });
    expect((update.inputSchema.$defs as Record<string, unknown>).SpaceTitle).toEqual({
      type: "string",
      description: "Title of the space",
      maxLength: 50,
    });

    const byPath = tools.find((tool) => tool.name === "getPageByPath")!;
    expect(byPath.inputSchema.required).toEqual(["spaceId", "pagePath"]);
    expect(byPath.inputSchema.properties).toHaveProperty("format");
    expect(byPath.annotations).toMatchObject({ readOnlyHint: true });
  });

  it("calls read and write tools as the REST routes they run: the same answers, the change seen over REST", async () => {
    const spaceId = await createSpace(A.token, A.organizationId, "Handbook");
    const read = jsonOf(await client.callTool({ name: "getSpaceById", arguments: { spaceId } }));
    expect(read).toEqual((await server.rest(A.token, "GET", `/v1/spaces/${spaceId}`)).body);
    expect(read.title).toBe("Handbook");

    const listed = jsonOf(
      await client.callTool({ name: "listSpacesInOrganizationById", arguments: { organizationId: A.organizationId, limit: 1 } }),
    );
    expect(listed.items).toHaveLength(1);
    expect(listed.items[0].id).toBe(spaceId);

    const updated = jsonOf(await client.callTool({ name: "updateSpaceById", arguments: { spaceId, body: { title: "Field guide" } } }));
    expect(updated.title).toBe("Field guide");
    expect((await server.rest(A.token, "GET", `/v1/spaces/${spaceId}`)).body.title).toBe("Field guide");

    // A page by its path (the route's trailing wildcard), and a query parameter.
    const page = await server.graphql(A.token, `mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, {
      input: { space: spaceId, title: "Quickstart", markdown: "Sign up, then publish." },
    });
    expect(page.errors).toBeUndefined();
    const markdown = jsonOf(
      await client.callTool({ name: "getPageByPath", arguments: { spaceId, pagePath: "quickstart", format: "markdown" } }),
    );
    expect(markdown.title).toBe("Quickstart");
    expect(markdown.markdown).toContain("Sign up, then publish.");
  });

  it("refuses a bad argument naming it, and changes nothing", async () => {
    const spaceId = await createSpace(A.token, A.organizationId, "Unchanged");
    const before = (await server.rest(A.token, "GET", `/v1/spaces/${spaceId}`)).body;

    const long = await client.callTool({ name: "updateSpaceById", arguments: { spaceId, body: { title: "x".repeat(51) } } });
    expect(long.isError).toBe(true);
    expect(textOf(long)).toMatch(/^HTTP 400: .*title/);
    // What REST answers to the same body.
    const rest = await server.rest(A.token, "PATCH", `/v1/spaces/${spaceId}`, { title: "x".repeat(51) });
    expect(textOf(long)).toBe(`HTTP 400: ${rest.body.error.message}`);

    const unknown = await client.callTool({ name: "updateSpaceById", arguments: { spaceID: spaceId, body: { title: "Other" } } });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toBe(`"spaceID" is not an argument of updateSpaceById (it takes spaceId, body)`);
    const missing = await client.callTool({ name: "updateSpaceById", arguments: { body: { title: "Other" } } });
    expect(textOf(missing)).toBe("spaceId is required: a string");
    const notObject = await client.callTool({ name: "updateSpaceById", arguments: { spaceId, body: ["Other"] } });
    expect(textOf(notObject)).toMatch(/^body must be a JSON object/);
    // No segment that would climb out of the route's path.
    const climbing = await client.callTool({ name: "getPageByPath", arguments: { spaceId, pagePath: "../../../orgs" } });
    expect(climbing.isError).toBe(true);
    expect(textOf(climbing)).toMatch(/^pagePath is not a valid pagePath/);
    const query = await client.callTool({ name: "getPageByPath", arguments: { spaceId, pagePath: "x", format: { nested: true } } });
    expect(textOf(query)).toMatch(/^format must be a string, a number, a boolean or a list of them/);
    const noTool = await client.callTool({ name: "deleteSpaceById", arguments: { spaceId } });
    expect(noTool.isError).toBe(true);

    expect((await server.rest(A.token, "GET", `/v1/spaces/${spaceId}`)).body).toEqual(before);
  });

  it("answers another organization's ids as unknown, as REST does, and changes nothing there", async () => {
    const theirs = await createSpace(B.token, B.organizationId, "Theirs");
    const rest = await server.rest(A.token, "GET", `/v1/spaces/${theirs}`);
    expect(rest.status).toBe(404);
    const read = await client.callTool({ name: "getSpaceById", arguments: { spaceId: theirs } });
    expect(read.isError).toBe(true);
    expect(textOf(read)).toBe(`HTTP 404: ${rest.body.error.message}`);
    const write = await client.callTool({ name: "updateSpaceById", arguments: { spaceId: theirs, body: { title: "Mine now" } } });
    expect(write.isError).toBe(true);
    expect(textOf(write)).toMatch(/^HTTP 404: /);
    const list = await client.callTool({ name: "listSpacesInOrganizationById", arguments: { organizationId: B.organizationId } });
    expect(textOf(list)).toMatch(/^HTTP 404: /);
    expect((await server.rest(B.token, "GET", `/v1/spaces/${theirs}`)).body.title).toBe("Theirs");
  });

  it("needs an API token; takes POST only, one message of at most 1 MiB", async () => {
    await expect(connect(undefined)).rejects.toThrow(/"code":401,"message":"Missing API token/);
    await expect(connect("dps_not-a-token")).rejects.toThrow(/"code":401,"message":"Invalid API token"/);
    const headers = {
      authorization: `Bearer ${A.token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    };
    const get = await fetch(`${server.url}/v1/mcp`, { headers: { ...headers, accept: "text/event-stream" } });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    const list = { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} };
    const large = await fetch(`${server.url}/v1/mcp`, {
      method: "POST",
      headers,
      body: JSON.stringify({ ...list, params: { padding: "x".repeat(1024 * 1024) } }),
    });
    expect(large.status).toBe(413);
    const batch = await fetch(`${server.url}/v1/mcp`, { method: "POST", headers, body: JSON.stringify([list, { ...list, id: 2 }]) });
    expect(batch.status).toBe(400);
    expect(((await batch.json()) as { error: { message: string } }).error.message).toContain("one JSON-RPC message per request");
    // Within the bounds, the same message is answered.
    const one = await fetch(`${server.url}/v1/mcp`, { method: "POST", headers, body: JSON.stringify(list) });
    expect(one.status).toBe(200);
    expect(((await one.json()) as { result: { tools: unknown[] } }).result.tools.length).toBeGreaterThan(0);
  });

  it("cuts an answer over its bound, saying so", async () => {
    for (const title of ["One", "Two", "Three", "Four", "Five", "Six"]) await createSpace(A.token, A.organizationId, title);
    const rest = await server.rest(A.token, "GET", `/v1/orgs/${A.organizationId}/spaces`);
    const full = JSON.stringify(rest.body);
    expect(Buffer.byteLength(full)).toBeGreaterThan(ANSWER_MAX_BYTES);
    const answer = textOf(await client.callTool({ name: "listSpacesInOrganizationById", arguments: { organizationId: A.organizationId } }));
    const [kept, note] = answer.split("\n\n[Cut: ");
    expect(full.startsWith(kept)).toBe(true);
    expect(Buffer.byteLength(kept)).toBe(ANSWER_MAX_BYTES);
    expect(note).toBe(
      `the answer of GET /v1/orgs/${A.organizationId}/spaces is ${Buffer.byteLength(full)} bytes, more than the ${ANSWER_MAX_BYTES} a tool answers. Ask for less (a smaller limit, then the next page), or call the REST route.]`,
    );
  });
});

describe("the authors' MCP server under a small rate limit", () => {
  let limited: TestServer;
  afterAll(async () => {
    await limited?.close();
  });

  it("counts its requests and the REST requests its calls make against the token's budget", async () => {
    limited = await startTestServer({ rateLimits: { perToken: 12, perAddress: 1000, windowSeconds: 60 } });
    const owner = await limited.bootstrap("Limited");
    const spaceId = (await limited.rest(owner.token, "POST", `/v1/orgs/${owner.organizationId}/spaces`, { title: "Budget" })).body.id;
    const agent = await connect(owner.token, `${limited.url}/v1/mcp`);
    let refusal = "";
    let calls = 0;
    try {
      // Each call is two requests (the MCP one and the REST route it runs), after the two of connecting.
      while (!refusal && calls < 12) {
        calls++;
        try {
          const result = await agent.callTool({ name: "getSpaceById", arguments: { spaceId } });
          if (result.isError) refusal = textOf(result);
        } catch (error) {
          refusal = String(error);
        }
      }
    } finally {
      await agent.close().catch(() => {});
    }
    expect(refusal).toMatch(/Rate limit exceeded: at most 12 requests per 60 s per token/);
    expect(calls).toBeLessThanOrEqual(5);
    expect((await limited.rest(owner.token, "GET", `/v1/spaces/${spaceId}`)).status).toBe(429);
  });
});

describe("the authors' MCP server with a short deadline", () => {
  let slow: TestServer;
  let silent: Server;
  afterAll(async () => {
    silent?.closeAllConnections();
    await new Promise((resolve) => silent?.close(resolve));
    await slow?.close();
  });

  it("gives up a call not answered in time, saying a change may still be done; its REST request is logged with the MCP request's id", async () => {
    // A page that never answers: the embed route fetches it (private hosts are allowed in tests).
    silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const logs = captureLogs();
    slow = await startTestServer({ mcp: { callTimeoutMs: 300 } }, {}, { logger: logs.logger });
    const owner = await slow.bootstrap("Slow");
    const spaceId = (await slow.rest(owner.token, "POST", `/v1/orgs/${owner.organizationId}/spaces`, { title: "Embeds" })).body.id;
    const agent = await connect(owner.token, `${slow.url}/v1/mcp`);
    try {
      const started = Date.now();
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/never`;
      const late = await agent.callTool({ name: "getEmbedByUrlInSpace", arguments: { spaceId, url } });
      expect(Date.now() - started).toBeLessThan(3000);
      expect(late.isError).toBe(true);
      expect(textOf(late)).toBe(
        "getEmbedByUrlInSpace did not answer within 300 ms and was given up; a change it makes may still be done: read before calling it again",
      );
      // In time: the REST request's log line carries the id of the MCP request that made it.
      jsonOf(await agent.callTool({ name: "getSpaceById", arguments: { spaceId } }));
      const lines = logs.lines().filter((line) => line.msg === "request");
      const rest = lines.find((line) => line.route === "GET /v1/spaces/:spaceId" && line.status === 200)!;
      const mcp = lines.find((line) => line.route === "/v1/mcp" && line.reqId === rest.reqId);
      expect(mcp).toMatchObject({ method: "POST", status: 200 });
    } finally {
      await agent.close();
    }
  });
});
