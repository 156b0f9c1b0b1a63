// Public endpoints of integrations (`urls.publicEndpoint`): an integration written with
// @gitbook/runtime (`createIntegration({ fetch })`, test/fixtures/integrations/endpoint) and
// published with the official CLI answers requests sent to its installation's endpoint and to its
// own, delivered by the service as `fetch` events (the request's url, method and headers, the
// body as the `fetch-body` part) in its workerd sandbox; the script's Response is the answer.
// Misbehaving scripts give a 502 envelope (never a 500, never a stack trace), oversized bodies a
// 413, a loop is stopped by the CPU limit while the service keeps answering, and each request
// leaves one event with its trace.
import { execFile } from "node:child_process";
import { createHmac } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validateResponse } from "./support/openapi.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

const FIXTURE = resolve("test/fixtures/integrations/endpoint");
const NAME = `endpoint-${Date.now().toString(36)}`;
const MAX_REQUEST_BYTES = 64 * 1024;
const EVENTS_KEPT = 30;
const run = promisify(execFile);

let server: TestServer;
let org: string;
let token: string;
let installationId: string;
let endpoint: string;

/** What the caller gets: status, headers and the body as text. */
async function call(url: string, init: RequestInit = {}) {
  const response = await fetch(url, init);
  return { status: response.status, headers: response.headers, text: await response.text() };
}

type FetchPayload = { type: string; request: { method: string; url: string; headers: Record<string, string> } };

/** The fetch events of `name` (recorded after each answer). */
async function fetchEvents(name: string) {
  const integration = await server.database.prisma.integration.findUniqueOrThrow({ where: { name } });
  const events = await server.database.prisma.integrationEvent.findMany({
    where: { integrationId: integration.id },
    orderBy: { seq: "asc" },
  });
  return events.filter((event) => (event.payload as FetchPayload).type === "fetch");
}

/** Waits for the fetch event of `name` that `match` picks. */
async function fetchEvent(name: string, match: (payload: FetchPayload) => boolean) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const event = (await fetchEvents(name)).find((candidate) => match(candidate.payload as FetchPayload));
    if (event) return event;
    if (Date.now() > deadline) throw new Error(`no such fetch event of ${name}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const logsOf = (event: { logs: unknown }) => (event.logs as { message: string; level: string }[]).map((l) => `[${l.level}] ${l.message}`);

async function publishRaw(suffix: string, script: string, extra: Record<string, unknown> = {}) {
  const name = `${NAME}-${suffix}`;
  const published = await server.rest(token, "POST", `/v1/integrations/${name}`, {
    organization: org,
    title: `Raw ${suffix}`,
    script,
    visibility: "private",
    ...extra,
  });
  expect(published.status, JSON.stringify(published.body)).toBe(200);
  const installed = await server.client(token).integrations.installIntegration(name, { organization: org });
  return { name, installation: installed.data.urls.publicEndpoint };
}

beforeAll(async () => {
  server = await startTestServer({
    integrations: {
      eventAttempts: 1,
      cpuMs: 400,
      memoryMb: 96,
      timeoutMs: 8000,
      endpointMaxRequestBytes: MAX_REQUEST_BYTES,
      endpointEventsKept: EVENTS_KEPT,
    },
  });
  ({ organizationId: org, token } = await server.bootstrap());
  const home = mkdtempSync(join(tmpdir(), "gitbook-home-"));
  const workdir = mkdtempSync(join(tmpdir(), "gitbook-cli-"));
  const manifest = readFileSync(join(FIXTURE, "gitbook-manifest.yaml"), "utf8")
    .replace("name: NAME", `name: ${NAME}`)
    .replace("organization: ORGANIZATION", `organization: ${org}`)
    .replace("script: ./src/index.ts", `script: ${join(FIXTURE, "src/index.ts")}`);
  writeFileSync(join(workdir, "gitbook-manifest.yaml"), manifest);
  const published = await run(process.execPath, [resolve("node_modules/@gitbook/cli/cli.js"), "publish"], {
    cwd: workdir,
    env: { ...process.env, GITBOOK_ENDPOINT: server.url, GITBOOK_TOKEN: token, HOME: home, TMPDIR: workdir },
    timeout: 60_000,
  });
  expect(published.stdout + published.stderr).toContain(`Integration "${NAME}" published`);
  const installed = await server.client(token).integrations.installIntegration(NAME, { organization: org });
  installationId = installed.data.id;
  endpoint = installed.data.urls.publicEndpoint;
});

afterAll(async () => {
  await server?.close();
});

describe("public endpoints", () => {
  it("are named by urls.publicEndpoint of the integration and of its installation, apart from the REST routes", async () => {
    expect(endpoint).toBe(`${server.url}/v1/integrations/${NAME}/integration/installations/${installationId}`);
    const integration = await server.client(token).integrations.getIntegrationByName(NAME);
    expect(integration.data.urls.publicEndpoint).toBe(`${server.url}/v1/integrations/${NAME}/integration`);
    const installation = await server.rest(token, "GET", `/v1/integrations/${NAME}/installations/${installationId}`);
    expect(installation.body.urls.publicEndpoint).toBe(endpoint);
    expect(validateResponse("GET", `/v1/integrations/${NAME}/installations/${installationId}`, 200, installation.body)).toEqual([]);
    // GraphQL says the same.
    const gql = await server.graphql(
      token,
      `query($id: ID!) { node(id: $id) { ... on IntegrationInstallation { urls { publicEndpoint } } } }`,
      { id: installationId },
    );
    expect(gql.data.node.urls.publicEndpoint).toBe(endpoint);
  });

  it("a GET reaches the script's fetch handler with the url, method and headers; its environment names the installation", async () => {
    const answer = await call(`${endpoint}/hello?code=abc&state=1`, { headers: { "x-caller": "webhook" } });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers.get("content-type")).toContain("application/json");
    expect(JSON.parse(answer.text)).toEqual({
      method: "GET",
      url: `${endpoint}/hello?code=abc&state=1`,
      query: { code: "abc", state: "1" },
      integration: NAME,
      installation: installationId,
      publicEndpoint: endpoint,
      space: null,
      site: null,
      contentEndpoint: null,
      hasToken: true,
      callerHeader: "webhook",
    });
    // The integration's own endpoint: no installation in the environment.
    const own = await call(`${server.url}/v1/integrations/${NAME}/integration/hello`);
    expect(own.status, own.text).toBe(200);
    expect(JSON.parse(own.text)).toMatchObject({ integration: NAME, installation: null, hasToken: false });
  });

  it("a POST delivers its body as fetch-body; the script's status, headers and body come back (no cookies on this origin)", async () => {
    const answer = await call(`${endpoint}/echo`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: "Bearer from-the-caller" },
      body: "a=1&b=%C3%A9t%C3%A9",
    });
    expect(answer.status, answer.text).toBe(201);
    expect(JSON.parse(answer.text)).toEqual({
      method: "POST",
      received: "a=1&b=%C3%A9t%C3%A9",
      contentType: "application/x-www-form-urlencoded",
    });
    expect(answer.headers.get("x-echo")).toBe("yes");
    expect(answer.headers.get("set-cookie")).toBeNull();
    expect(answer.headers.get("content-security-policy")).toContain("sandbox");
    // PUT and a body of bytes: kept byte for byte both ways.
    const put = await call(`${endpoint}/echo`, { method: "PUT", body: "x".repeat(MAX_REQUEST_BYTES) });
    expect(put.status).toBe(201);
    expect(JSON.parse(put.text).received).toHaveLength(MAX_REQUEST_BYTES);
    const bytes = await fetch(`${endpoint}/bytes`);
    expect(bytes.status).toBe(200);
    expect([...new Uint8Array(await bytes.arrayBuffer())]).toEqual([0, 255, 1, 254, 128]);
  });

  it("an installation on a space or a site has its own endpoint: the fetch event names the space or site, the environment its installation there", async () => {
    const client = server.client(token);
    const space = (await client.orgs.createSpace(org, { title: "Endpoint space" })).data.id;
    const site = (await client.orgs.createSite(org, { title: "Endpoint site" })).data.id;
    const onSpace = await client.integrations.installIntegrationOnSpace(NAME, installationId, { space });
    const onSite = await client.integrations.installIntegrationOnSite(NAME, installationId, { siteId: site });
    const spaceEndpoint = `${endpoint}/spaces/${space}`;
    const siteEndpoint = `${endpoint}/sites/${site}`;
    expect(onSpace.data.urls.publicEndpoint).toBe(spaceEndpoint);
    expect(onSite.data.urls.publicEndpoint).toBe(siteEndpoint);
    const read = await server.rest(token, "GET", `/v1/integrations/${NAME}/installations/${installationId}/spaces/${space}`);
    expect(read.body.urls).toMatchObject({ publicEndpoint: spaceEndpoint, publicContentEndpoint: spaceEndpoint });
    expect(validateResponse("GET", `/v1/integrations/${NAME}/installations/${installationId}/spaces/${space}`, 200, read.body)).toEqual([]);
    const gql = await server.graphql(
      token,
      `query($name: String!) { integration(name: $name) { siteInstallations(first: 10) { nodes { siteId urls { publicEndpoint } } } } }`,
      { name: NAME },
    );
    expect(gql.errors).toBeUndefined();
    expect(gql.data.integration.siteInstallations.nodes).toContainEqual({ siteId: site, urls: { publicEndpoint: siteEndpoint } });

    // The script routes under the space installation's endpoint, as GitBook's integrations do.
    const atSpace = await call(`${spaceEndpoint}/hello`);
    expect(atSpace.status, atSpace.text).toBe(200);
    expect(JSON.parse(atSpace.text)).toMatchObject({ installation: installationId, space, site: null, contentEndpoint: spaceEndpoint });
    const atSite = await call(`${siteEndpoint}/hello`);
    expect(atSite.status, atSite.text).toBe(200);
    expect(JSON.parse(atSite.text)).toMatchObject({ installation: installationId, space: null, site, contentEndpoint: siteEndpoint });
    const event = await fetchEvent(NAME, (payload) => payload.request.url === `${spaceEndpoint}/hello`);
    expect(event.payload).toMatchObject({ type: "fetch", installationId, spaceId: space });
    // A space or site the installation is not on: 404, the script does not run.
    const other = (await client.orgs.createSpace(org, { title: "Not installed" })).data.id;
    for (const path of [`spaces/${other}`, `sites/site_nope`, "spaces", "spaces/%zz"]) {
      const answer = await call(`${endpoint}/${path}/hello`);
      expect(answer.status, path).toBe(404);
    }
  });

  it("a paused installation gets no requests: 403 envelope, nothing runs or is recorded; a pending one still does", async () => {
    const client = server.client(token);
    const space = (await client.orgs.createSpace(org, { title: "Paused space" })).data.id;
    await client.integrations.installIntegrationOnSpace(NAME, installationId, { space });
    const prisma = server.database.prisma;
    await new Promise((r) => setTimeout(r, 200)); // the records of earlier requests are written
    const before = (await fetchEvents(NAME)).length;
    try {
      await prisma.integrationInstallation.update({ where: { id: installationId }, data: { status: "paused" } });
      for (const url of [`${endpoint}/hello`, `${endpoint}/spaces/${space}/hello`]) {
        const answer = await call(url, { method: "POST", body: "{}" });
        expect(answer.status, url).toBe(403);
        expect(JSON.parse(answer.text)).toEqual({ error: { code: 403, message: expect.stringContaining("is paused") } });
      }
      // Only its space installation paused: that endpoint refuses, the installation's answers.
      await prisma.integrationInstallation.update({ where: { id: installationId }, data: { status: "active" } });
      await prisma.integrationSpaceInstallation.update({
        where: { installationId_spaceId: { installationId, spaceId: space } },
        data: { status: "paused" },
      });
      expect((await call(`${endpoint}/spaces/${space}/hello`)).status).toBe(403);
      await new Promise((r) => setTimeout(r, 200));
      expect((await fetchEvents(NAME)).length).toBe(before);
      // Pending (required settings missing): delivered, so that an OAuth callback can complete them.
      await prisma.integrationInstallation.update({ where: { id: installationId }, data: { status: "pending" } });
      expect((await call(`${endpoint}/hello`)).status).toBe(200);
    } finally {
      await prisma.integrationInstallation.update({ where: { id: installationId }, data: { status: "active" } });
    }
  });

  it("the integration's contentSecurityPolicy comes with every answer, as a policy of its own beside the script's and the sandbox's", async () => {
    const { installation } = await publishRaw(
      "csp",
      `export default { async fetch() { return new Response("<p>page</p>", { headers: { "content-type": "text/html", "content-security-policy": "script-src 'none'" } }); } };`,
      { contentSecurityPolicy: "default-src 'self'; img-src https://img.example.com" },
    );
    const response = await fetch(`${installation}/page`);
    expect(response.status).toBe(200);
    // Three policies, each applying (fetch joins the header lines with ", ").
    const policies = response.headers.get("content-security-policy")!.split(", ");
    expect(policies).toHaveLength(3);
    expect(policies).toEqual(
      expect.arrayContaining([
        "script-src 'none'",
        "default-src 'self'; img-src https://img.example.com",
        expect.stringMatching(/^sandbox /),
      ]),
    );
  });

  it("each request is one fetch event in GET …/events with its trace; the record keeps no query string and no credentials", async () => {
    await call(`${endpoint}/hello?code=secret-code`, { headers: { authorization: "Bearer caller-secret", "x-caller": "traced" } });
    const event = await fetchEvent(NAME, (payload) => payload.request.headers["x-caller"] === "traced");
    expect(event.status).toBe("success");
    expect(event.installationId).toBe(installationId);
    const listed = await server.client(token).integrations.listIntegrationEvents(NAME, { limit: 100 });
    const item = listed.data.items.find((candidate) => candidate.id === event.id)!;
    expect(item.payload).toMatchObject({
      type: "fetch",
      installationId,
      request: { method: "get", url: `${endpoint}/hello`, headers: { "x-caller": "traced" } },
    });
    expect(JSON.stringify(item.payload)).not.toContain("secret");
    expect(validateResponse("GET", `/v1/integrations/${NAME}/events`, 200, listed.data)).toEqual([]);
    const one = await server.client(token).integrations.getIntegrationEvent(NAME, event.id);
    const messages = one.data.trace?.logs.map((log) => log.message) ?? [];
    expect(messages).toContain("endpoint-integration: GET /hello");
    expect(messages.some((message) => /^fetch GET \/v1\/integrations\/.+\/hello answered 200 in \d+ ms$/.test(message ?? ""))).toBe(true);
  });
});

describe("bad requests and misbehaving scripts", () => {
  it("an unknown integration or installation is 404, and these paths never reach the REST routes", async () => {
    const unknown = await call(`${server.url}/v1/integrations/no-such-${NAME}/integration/x`);
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.text).error.message).toContain(`No integration named "no-such-${NAME}"`);
    for (const path of [
      `/v1/integrations/${NAME}/integration/installations/inst_nope/x`,
      `/v1/integrations/${NAME}/integration/installations`,
      `/v1/integrations/${NAME}-other/integration/installations/${installationId}`,
    ]) {
      const answer = await call(`${server.url}${path}`, { method: "POST", body: "{}" });
      expect(answer.status, path).toBe(404);
      expect(JSON.parse(answer.text).error.code).toBe(404);
    }
    // The REST installation beside it still needs its token.
    expect((await call(`${server.url}/v1/integrations/${NAME}/installations/${installationId}`)).status).toBe(401);
  });

  it("a body over the limit is 413 before the script runs (declared or streamed)", async () => {
    await new Promise((r) => setTimeout(r, 200)); // the records of earlier requests are written
    const events = (await fetchEvents(NAME)).length;
    const declared = await call(`${endpoint}/echo`, { method: "POST", body: "x".repeat(MAX_REQUEST_BYTES + 1) });
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.text)).toEqual({
      error: { code: 413, message: `The request body is larger than the limit of ${MAX_REQUEST_BYTES} bytes of an integration endpoint` },
    });
    const chunk = new Uint8Array(16 * 1024).fill(120);
    const stream = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 5; i++) controller.enqueue(chunk);
        controller.close();
      },
    });
    const streamed = await call(`${endpoint}/echo`, { method: "POST", body: stream, duplex: "half" } as RequestInit);
    expect(streamed.status).toBe(413);
    await new Promise((r) => setTimeout(r, 200));
    expect((await fetchEvents(NAME)).length).toBe(events);
  });

  it("a throwing handler (the runtime answers 500) is a 502 envelope, without a stack trace; the trace is in the event", async () => {
    const answer = await call(`${endpoint}/throw`);
    expect(answer.status).toBe(502);
    const message = JSON.parse(answer.text).error.message as string;
    expect(message).toContain(`The integration "${NAME}" could not answer: the script answered 500`);
    expect(message).not.toMatch(/\n|\s+at\s/);
    const failed = await fetchEvent(NAME, (payload) => payload.request.url.endsWith("/throw"));
    expect(failed.status).toBe("failed");
    const trace = logsOf(failed).join("\n");
    expect(trace).toContain("endpoint-integration failed on purpose");
    expect(trace).toMatch(/\[error\] fetch GET \/v1\/integrations\/.+\/throw failed after \d+ ms: the script answered 500/);
  });

  it("anonymous callers cannot grow the events without bound: only the newest records of an integration are kept", async () => {
    const { name, installation } = await publishRaw("kept", `export default { async fetch() { return new Response("ok"); } };`);
    for (let i = 0; i < EVENTS_KEPT + 5; i++) {
      expect((await call(`${installation}/n${i}`)).status).toBe(200);
      await fetchEvent(name, (payload) => payload.request.url.endsWith(`/n${i}`));
    }
    // Each record is trimmed after it is written: wait for the last trim too.
    let kept = await fetchEvents(name);
    for (let i = 0; i < 100 && kept.length > EVENTS_KEPT; i++) {
      await new Promise((r) => setTimeout(r, 50));
      kept = await fetchEvents(name);
    }
    expect(kept.map((event) => (event.payload as FetchPayload).request.url.split("/").at(-1))).toEqual(
      Array.from({ length: EVENTS_KEPT }, (_, i) => `n${i + 5}`),
    );
  });

  it("the answer carries this service's X-RateLimit-* and security headers, whatever the script set", async () => {
    const { installation } = await publishRaw(
      "spoof",
      `export default { async fetch() { return new Response("ok", { headers: { "x-ratelimit-limit": "7", "x-ratelimit-remaining": "7", "x-ratelimit-reset": "7", "x-custom": "kept" } }); } };`,
    );
    const answer = await call(`${installation}/x`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("x-custom")).toBe("kept");
    expect(answer.headers.get("x-ratelimit-limit")).toBe("1000000"); // the test server's per-address budget
    expect(Number(answer.headers.get("x-ratelimit-remaining"))).toBeGreaterThan(7);
    expect(Number(answer.headers.get("x-ratelimit-reset"))).toBeGreaterThan(Date.now() / 1000);
    expect(answer.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("a script that logs or throws NUL characters and lone surrogates still leaves its event and trace, without them", async () => {
    const logger = await publishRaw(
      "nul-log",
      `export default { async fetch() { console.log("log\\u0000line \\ud800"); return new Response("ok"); } };`,
    );
    expect((await call(`${logger.installation}/logged`)).status).toBe(200);
    const logged = await fetchEvent(logger.name, (payload) => payload.request.url.endsWith("/logged"));
    expect(logsOf(logged)).toContain("[info] logline ");
    const thrower = await publishRaw("nul-throw", `export default { async fetch() { throw new Error("bad\\u0000 \\udc00 news"); } };`);
    const thrown = await call(`${thrower.installation}/thrown`);
    expect(thrown.status).toBe(502);
    expect(JSON.parse(thrown.text).error.message).toContain("the script failed: Error: bad  news");
    const failed = await fetchEvent(thrower.name, (payload) => payload.request.url.endsWith("/thrown"));
    expect(logsOf(failed).join("\n")).toContain("bad  news");
  });

  it("a raw script that throws, or answers garbage or too much, is a 502 naming the problem", async () => {
    const thrower = await publishRaw("throws", `export default { async fetch() { throw new Error("raw boom"); } };`);
    const thrown = await call(`${thrower.installation}/x`);
    expect(thrown.status).toBe(502);
    const message = JSON.parse(thrown.text).error.message as string;
    expect(message).toContain("the script failed: Error: raw boom");
    expect(message).not.toMatch(/\n|\s+at\s/);
    const garbage = await publishRaw("garbage", `export default { async fetch() { return 42; } };`);
    const answered = await call(`${garbage.installation}/x`);
    expect(answered.status).toBe(502);
    expect(JSON.parse(answered.text).error.message).toContain("the script answered 42 instead of a Response");
    const big = await publishRaw("big", `export default { async fetch() { return new Response("x".repeat(6 * 1024 * 1024)); } };`);
    const tooMuch = await call(`${big.installation}/x`);
    expect(tooMuch.status).toBe(502);
    expect(JSON.parse(tooMuch.text).error.message).toContain("larger than the limit of 5242880 bytes");
  });

  it("a looping handler is stopped by the CPU limit (502) while other routes are answered; the endpoint answers again after", async () => {
    const looping = call(`${endpoint}/loop`);
    await new Promise((r) => setTimeout(r, 100));
    const started = performance.now();
    const other = await server.rest(token, "GET", `/v1/orgs/${org}`);
    expect(other.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(1000);
    const answer = await looping;
    expect(answer.status).toBe(502);
    expect(JSON.parse(answer.text).error.message).toMatch(/CPU time limit exceeded: \d+ ms \(limit 400 ms\)/);
    const again = await call(`${endpoint}/hello`);
    expect(again.status).toBe(200);
  });
});

describe("installed on a space: one rule for the space's integration list, the render route and blocks", () => {
  const RENDERER = `export default { async fetch(request) {
    const event = JSON.parse((await request.formData()).get("event"));
    if (event.type !== "ui_render") return new Response("OK");
    return Response.json({ type: "element", state: {}, props: {}, element: { type: "block", children: [{ type: "button", label: "Rule", onPress: { action: "click" } }] } });
  } };`;

  it("space_selection all counts as installed on every space of the organization; selected counts only its spaces", async () => {
    const { name } = await publishRaw("rule", RENDERER);
    const installation = (await server.client(token).integrations.listIntegrationInstallations(name)).data.items[0]!.id;
    const space = (await server.rest(token, "POST", `/v1/orgs/${org}/spaces`, { title: "Rule space" })).body.id;
    const other = (await server.rest(token, "POST", `/v1/orgs/${org}/spaces`, { title: "Other space" })).body.id;
    const listed = async (spaceId: string) => {
      const rest = await server.rest(token, "GET", `/v1/spaces/${spaceId}/integrations?limit=100`);
      expect(rest.status).toBe(200);
      const gql = await server.graphql(
        token,
        `query($id: ID!) { node(id: $id) { ... on Space { integrations(first: 100) { nodes { name } } } } }`,
        {
          id: spaceId,
        },
      );
      const names = rest.body.items.map((item: { name: string }) => item.name);
      expect(gql.data.node.integrations.nodes.map((node: { name: string }) => node.name)).toEqual(names);
      return names.includes(name);
    };
    const edit = async (spaceId: string) => {
      const edited = await server.graphql(token, `mutation($input: EditContentInput!) { editContent(input: $input) { revision { id } } }`, {
        input: { space: spaceId, edits: [{ createPage: { title: "Page", markdown: "Text" } }] },
      });
      expect(edited.errors).toBeUndefined();
      return edited.data.editContent.revision.id as string;
    };
    const contentUpdates = async () => {
      const integration = await server.database.prisma.integration.findUniqueOrThrow({ where: { name } });
      const events = await server.database.prisma.integrationEvent.findMany({ where: { integrationId: integration.id } });
      return events
        .map((event) => event.payload as { type: string; spaceId?: string; revisionId?: string })
        .filter((payload) => payload.type === "space_content_updated")
        .map((payload) => `${payload.spaceId} ${payload.revisionId}`);
    };
    const render = (spaceId: string) =>
      server.rest(token, "POST", `/v1/integrations/${name}/render`, {
        componentId: "x",
        props: {},
        context: { type: "document", spaceId },
      });

    // Installed in the organization only: on no space.
    expect(await listed(space)).toBe(false);
    const refused = await render(space);
    expect(refused.status).toBe(404);
    expect(refused.body.error.message).toContain(`The integration "${name}" is not installed on space ${space}`);

    // On all spaces.
    const all = await server.rest(token, "PATCH", `/v1/integrations/${name}/installations/${installation}`, { space_selection: "all" });
    expect(all.status, JSON.stringify(all.body)).toBe(200);
    expect(await listed(space)).toBe(true);
    expect(await listed(other)).toBe(true);
    expect((await render(space)).status).toBe(200);
    // …and hears of content changes on every space.
    const revision = await edit(other);
    expect(await contentUpdates()).toEqual([`${other} ${revision}`]);

    // Back to selected spaces, installed on one of them.
    await server.rest(token, "PATCH", `/v1/integrations/${name}/installations/${installation}`, { space_selection: "selected" });
    await server.client(token).integrations.installIntegrationOnSpace(name, installation, { space });
    expect(await listed(space)).toBe(true);
    expect(await listed(other)).toBe(false);
    expect((await render(space)).status).toBe(200);
    expect((await render(other)).status).toBe(404);
    await edit(other);
    expect(await contentUpdates()).toEqual([`${other} ${revision}`]);
  });
});

describe("development mode", () => {
  it("fetch events go to the tunnel, signed, with the body as fetch-body; the tunnel's answer is the caller's", async () => {
    const received: { signature: string; timestamp: string; contentType: string; body: Buffer }[] = [];
    const tunnel = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk) => chunks.push(chunk));
      req.on("end", () => {
        received.push({
          signature: String(req.headers["x-gitbook-signature"]),
          timestamp: String(req.headers["x-gitbook-timestamp"]),
          contentType: String(req.headers["content-type"]),
          body: Buffer.concat(chunks),
        });
        res.writeHead(202, { "content-type": "text/plain", "x-from": "tunnel" }).end("answered by the tunnel");
      });
    });
    await new Promise<void>((r) => tunnel.listen(0, "127.0.0.1", r));
    try {
      const { name, installation } = await publishRaw("dev", `export default { async fetch() { return new Response("script"); } };`);
      const tunnelUrl = `http://127.0.0.1:${(tunnel.address() as AddressInfo).port}/`;
      expect((await server.client(token).integrations.setIntegrationDevelopmentMode(name, { tunnelUrl })).status).toBe(204);
      const answer = await call(`${installation}/hook?x=1`, { method: "POST", headers: { "content-type": "text/plain" }, body: "ping" });
      expect(answer.status).toBe(202);
      expect(answer.text).toBe("answered by the tunnel");
      expect(answer.headers.get("x-from")).toBe("tunnel");
      const delivery = received.find((candidate) => candidate.body.includes('"type":"fetch"'))!;
      const secret = (await server.database.prisma.integration.findUniqueOrThrow({ where: { name } })).signingSecret;
      const expected = createHmac("sha256", secret).update(`${delivery.timestamp}.`).update(delivery.body).digest("hex");
      expect(delivery.signature).toBe(expected);
      const form = await new Response(new Uint8Array(delivery.body), { headers: { "content-type": delivery.contentType } }).formData();
      expect(JSON.parse(String(form.get("event")))).toMatchObject({
        type: "fetch",
        request: { method: "post", url: `${installation}/hook?x=1`, headers: { "content-type": "text/plain" } },
      });
      expect(await (form.get("fetch-body") as Blob).text()).toBe("ping");
    } finally {
      await new Promise((r) => tunnel.close(r));
    }
  });
});
