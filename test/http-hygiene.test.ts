// HTTP hygiene: rate-limit headers on every response and 429 beyond the limit (per token, per
// address without one), HEAD on GET routes, security headers, GraphiQL and introspection toggles,
// request timeouts for bodies that never arrive, and Yoga's own body bound above the upload bound.
import { createHash } from "node:crypto";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, type App } from "../src/app.ts";
import type { BootstrapResult } from "../src/core/bootstrap/index.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

describe("rate limits", () => {
  let server: TestServer;
  let admin: BootstrapResult;

  beforeAll(async () => {
    server = await startTestServer({ rateLimits: { perToken: 8, perAddress: 4, windowSeconds: 60 } });
    admin = await server.bootstrap("Rate limited org");
  });
  afterAll(async () => {
    await server?.close();
  });

  it("counts down per token on every surface, then answers 429 with Retry-After in the surface's envelope", async () => {
    const auth = { authorization: `Bearer ${admin.token}` };
    const responses = [
      await fetch(`${server.url}/v1/orgs/${admin.organizationId}`, { headers: auth }),
      await fetch(`${server.url}/v1/nothing-here`, { headers: auth }),
      await fetch(`${server.url}/graphql`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: '{"query":"{ viewer { id } }"}',
      }),
      await fetch(`${server.url}/graphql`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: "{" }),
      await fetch(`${server.url}/files/${"0".repeat(64)}/a.txt?sig=x`, { headers: auth }),
      await fetch(`${server.url}/v1/spaces/x%00`, { headers: auth }),
    ];
    const reset = Math.ceil(Date.now() / 1000) + 60;
    responses.forEach((response, index) => {
      expect(response.headers.get("x-ratelimit-limit")).toBe("8");
      expect(response.headers.get("x-ratelimit-remaining")).toBe(String(8 - index - 1));
      expect(Number(response.headers.get("x-ratelimit-reset"))).toBeGreaterThan(reset - 5);
      expect(Number(response.headers.get("x-ratelimit-reset"))).toBeLessThanOrEqual(reset + 1);
    });
    await fetch(`${server.url}/v1/user`, { headers: auth });
    await fetch(`${server.url}/v1/user`, { headers: auth });
    const refused = await fetch(`${server.url}/v1/user`, { headers: auth });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(await refused.json()).toEqual({
      error: { code: 429, message: expect.stringMatching(/^Rate limit exceeded: at most 8 requests per 60 s per token/) },
    });
    const graphqlRefused = await fetch(`${server.url}/graphql`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: '{"query":"{ viewer { id } }"}',
    });
    expect(graphqlRefused.status).toBe(429);
    expect(((await graphqlRefused.json()) as any).errors[0].extensions.code).toBe("RATE_LIMITED");
    // Another token has its own budget.
    const other = await server.addMember(admin.organizationId, "read");
    expect((await fetch(`${server.url}/v1/user`, { headers: { authorization: `Bearer ${other.token}` } })).status).toBe(200);
  });

  it("limits calls without a token per address", async () => {
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await fetch(`${server.url}/v1/user`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 429]);
  });
});

describe.runIf(Boolean(process.env.DATABASE_URL))("rate limits shared by instances (PostgreSQL)", () => {
  let server: TestServer;
  let other: App;
  const rateLimits = { perToken: 6, perAddress: 100, windowSeconds: 60 };

  beforeAll(async () => {
    server = await startTestServer({ rateLimits });
    // A second instance on the same database (its own process state, the shared rows).
    other = createApp({ database: server.database, config: { publicUrl: server.url, rateLimits }, startJobs: false });
  });
  afterAll(async () => {
    await other?.close();
    await server?.close();
  });

  it("count a token's requests in the process, with no statement of their own, and sync them once a second: the other instance refuses within it", async () => {
    const admin = await server.bootstrap("Shared limits");
    const auth = { authorization: `Bearer ${admin.token}` };
    const key = `rl:token:${createHash("sha256").update(admin.token).digest("base64url")}`;
    const points = async () =>
      (await server.database.prisma.rateLimiterFlexible.findUnique({ where: { key }, select: { points: true } }))?.points ?? 0;
    const first = (await Promise.all([1, 2, 3, 4].map(() => fetch(`${server.url}/v1/user`, { headers: auth })))).map((r) => r.status);
    expect(first).toEqual([200, 200, 200, 200]);
    expect(await points()).toBe(0); // not yet synced: no statement per request
    await new Promise((resolve) => setTimeout(resolve, 1300));
    expect(await points()).toBe(4);
    // The other instance decides on what it knows until its own sync (up to a second late)…
    const viaOther = (init: RequestInit = { headers: auth }) => other.yoga.fetch(`${server.url}/v1/user`, init);
    const late = await viaOther();
    expect(late.status).toBe(200);
    expect(late.headers.get("x-ratelimit-remaining")).toBe("5");
    await new Promise((resolve) => setTimeout(resolve, 1300));
    expect(await points()).toBe(5);
    // …then it counts every instance's requests: one more, and the limit holds.
    const last = await viaOther();
    expect([last.status, last.headers.get("x-ratelimit-remaining")]).toEqual([200, "0"]);
    expect((await viaOther()).status).toBe(429);
  });
});

describe("every response", () => {
  let server: TestServer;
  let admin: BootstrapResult;
  const ORIGIN = "https://docs.example.com";

  beforeAll(async () => {
    server = await startTestServer({ corsOrigins: [ORIGIN] });
    admin = await server.bootstrap("Every response org");
  });
  afterAll(async () => {
    await server?.close();
  });

  /** A space with a page, published as a site, and a text file uploaded to it: what readers and browsers fetch. */
  async function published() {
    const auth = { authorization: `Bearer ${admin.token}` };
    const space = (await server.rest(admin.token, "POST", `/v1/orgs/${admin.organizationId}/spaces`, { title: "Everyone" })).body;
    const page = await server.graphql(admin.token, `mutation($input: CreatePageInput!) { createPage(input: $input) { page { id } } }`, {
      input: { space: space.id, title: "Welcome", markdown: "Hello." },
    });
    expect(page.errors).toBeUndefined();
    const form = new FormData();
    form.set(
      "operations",
      JSON.stringify({
        query: `mutation($input: UploadFilesInput!) { uploadFiles(input: $input) { files { downloadURL } } }`,
        variables: { input: { space: space.id, files: [null] } },
      }),
    );
    form.set("map", JSON.stringify({ 0: ["variables.input.files.0"] }));
    form.set("0", new Blob(["Hello, files!"]), "notes.txt");
    const uploaded = (await (await fetch(`${server.url}/graphql`, { method: "POST", headers: auth, body: form })).json()) as any;
    const download = new URL(uploaded.data.uploadFiles.files[0].downloadURL);
    const site = await server.client(admin.token).orgs.createSite(admin.organizationId, { title: "Readers", spaces: [space.id] });
    await server.client(admin.token).orgs.publishSite(admin.organizationId, site.data.id);
    return { siteId: site.data.id, file: download.pathname + download.search };
  }

  it("carries X-RateLimit-* headers, and every error is the JSON envelope, whatever answered it", async () => {
    const auth = { authorization: `Bearer ${admin.token}` };
    const { siteId, file } = await published();
    const json = { "content-type": "application/json" };
    const cases: [string, string, RequestInit?][] = [
      ["GET", "/health"],
      ["GET", "/ready"],
      ["GET", "/metrics"],
      ["GET", "/"],
      ["GET", "/reference"],
      ["GET", "/graphql", { headers: { accept: "text/html" } }],
      ["GET", "/v1/"],
      ["GET", "/v1/unknown"],
      ["GET", "/nothing-here"],
      ["GET", "/favicon.ico"],
      ["GET", `/files/${"0".repeat(64)}/a.txt`],
      ["GET", file],
      ["HEAD", file],
      ["GET", "/pdf/nothing"],
      ["GET", `/sites/${siteId}/`],
      ["HEAD", `/sites/${siteId}/`],
      ["GET", `/sites/${siteId}/robots.txt`],
      ["GET", `/sites/${siteId}/nowhere`],
      ["GET", "/sites/site_nothing/"],
      ["GET", "/v1/integrations/nothing/integration"],
      ["POST", "/v1/integrations/nothing/integration/installations/x", { headers: json, body: "{}" }],
      ["GET", "/v1/integrations/nothing/installations/x/sites/y/script.js"],
      ["HEAD", `/v1/orgs/${admin.organizationId}`, { headers: auth }],
      ["HEAD", "/v1/orgs/org_missing", { headers: auth }],
      ["OPTIONS", "/graphql", { headers: { origin: ORIGIN, "access-control-request-method": "POST" } }],
      ["OPTIONS", `/v1/orgs/${admin.organizationId}`, { headers: { origin: ORIGIN, "access-control-request-method": "GET" } }],
      ["OPTIONS", "/v1/user", { headers: { origin: "https://elsewhere.example", "access-control-request-method": "GET" } }],
      ["PUT", `/v1/orgs/${admin.organizationId}`, { headers: auth }],
      ["POST", "/graphql", { headers: json, body: "{" }],
      ["POST", "/graphql", { headers: { "content-type": "text/plain" }, body: "x" }],
      // A body above GRAPHQL_ANONYMOUS_BODY_BYTES without a token: 401 unread, connection closed.
      ["POST", "/graphql", { headers: json, body: JSON.stringify({ query: `{ viewer { id } }${" ".repeat(70_000)}` }) }],
      // A document over GRAPHQL_MAX_DOCUMENT_BYTES: 413 as the body arrives.
      ["POST", "/graphql", { headers: { ...json, ...auth }, body: JSON.stringify({ query: `{ ${"viewer { id } ".repeat(5000)} }` }) }],
      ["DELETE", "/graphql"],
      ["GET", "/v1/user"],
      ["GET", "/v1/user", { headers: auth }],
    ];
    const statuses: string[] = [];
    for (const [method, path, init] of cases) {
      const response = await fetch(`${server.url}${path}`, { method, redirect: "manual", ...init });
      const what = `${method} ${path.slice(0, 80)} → ${response.status}`;
      statuses.push(what);
      expect(response.headers.get("x-ratelimit-limit"), what).toMatch(/^\d+$/);
      expect(response.headers.get("x-ratelimit-remaining"), what).toMatch(/^\d+$/);
      expect(response.headers.get("x-ratelimit-reset"), what).toMatch(/^\d+$/);
      expect(response.headers.get("x-content-type-options"), what).toBe("nosniff");
      const text = await response.text();
      // A published site's missing page is a page for its readers, not an API error.
      const sitePage = path.startsWith("/sites/") && (response.headers.get("content-type") ?? "").startsWith("text/html");
      if (response.status >= 400 && method !== "HEAD" && !sitePage) {
        expect(response.headers.get("content-type"), what).toMatch(/^application\/json/);
        const body = JSON.parse(text);
        expect(body.error?.code ?? body.errors?.[0]?.extensions?.code, what).toBeTruthy();
      }
    }
    // The cases answer what they are meant to (a site page, a file, a preflight), not all the same error.
    expect(statuses).toEqual(
      expect.arrayContaining([
        `GET ${file.slice(0, 80)} → 200`,
        `GET /sites/${siteId}/ → 200`,
        `GET /sites/${siteId}/nowhere → 404`,
        `OPTIONS /v1/orgs/${admin.organizationId} → 204`,
        "POST /graphql → 401",
        "POST /graphql → 413",
      ]),
    );
  });
});

describe("uploads", () => {
  let server: TestServer;
  let admin: BootstrapResult;

  beforeAll(async () => {
    server = await startTestServer();
    admin = await server.bootstrap("Upload org");
  });
  afterAll(async () => {
    await server?.close();
  });

  it(
    "takes a multipart upload above Yoga's 25 MB default (30 MiB here; the bound is 50 MiB of files), within the execution deadline",
    { timeout: 60_000 },
    async () => {
      const space = await server.rest(admin.token, "POST", `/v1/orgs/${admin.organizationId}/spaces`, { title: "Uploads" });
      const files = [0, 1, 2].map((i) => ({ name: `big-${i}.bin`, bytes: new Uint8Array(10 * 1024 * 1024).fill(i) }));
      const form = new FormData();
      form.set(
        "operations",
        JSON.stringify({
          query: `mutation($input: UploadFilesInput!) { uploadFiles(input: $input) { files { size } } }`,
          variables: { input: { space: space.body.id, files: files.map(() => null) } },
        }),
      );
      form.set("map", JSON.stringify(Object.fromEntries(files.map((_, i) => [String(i), [`variables.input.files.${i}`]]))));
      files.forEach((file, i) => form.set(String(i), new Blob([file.bytes]), file.name));
      const started = performance.now();
      const response = await fetch(`${server.url}/graphql`, {
        method: "POST",
        headers: { authorization: `Bearer ${admin.token}` },
        body: form,
      });
      const result = (await response.json()) as any;
      expect(response.status, JSON.stringify(result).slice(0, 300)).toBe(200);
      expect(result.data.uploadFiles.files).toEqual(files.map((file) => ({ size: file.bytes.byteLength })));
      console.log(`30 MiB upload answered in ${Math.round(performance.now() - started)} ms`);
    },
  );
});

describe("headers, HEAD, toggles", () => {
  let server: TestServer;
  let admin: BootstrapResult;

  beforeAll(async () => {
    server = await startTestServer(
      { graphiqlEnabled: false, introspectionEnabled: false },
      { headersTimeoutMs: 500, requestTimeoutMs: 1000 },
    );
    admin = await server.bootstrap("Hygiene org");
  });
  afterAll(async () => {
    await server?.close();
  });

  it("answers HEAD on GET routes with the GET's status and headers, without a body", async () => {
    const auth = { authorization: `Bearer ${admin.token}` };
    const get = await fetch(`${server.url}/v1/orgs/${admin.organizationId}`, { headers: auth });
    const head = await fetch(`${server.url}/v1/orgs/${admin.organizationId}`, { method: "HEAD", headers: auth });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toBe(get.headers.get("content-type"));
    expect(await head.text()).toBe("");
    expect((await fetch(`${server.url}/v1/orgs/org_missing`, { method: "HEAD", headers: auth })).status).toBe(404);
    const notAllowed = await fetch(`${server.url}/v1/orgs/${admin.organizationId}`, { method: "PUT", headers: auth });
    expect(notAllowed.status).toBe(405);
    expect(notAllowed.headers.get("allow")).toMatch(/GET, HEAD/);
  });

  it("sets security headers on API answers, errors included", async () => {
    for (const response of [
      await fetch(`${server.url}/v1/user`, { headers: { authorization: `Bearer ${admin.token}` } }),
      await fetch(`${server.url}/v1/user`),
      await fetch(`${server.url}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: '{"query":"{ viewer { id } }"}',
      }),
    ]) {
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(response.headers.get("referrer-policy")).toBe("no-referrer");
      expect(response.headers.get("content-security-policy")).toMatch(/default-src 'none'.*frame-ancestors 'none'/);
    }
  });

  it("turns GraphiQL and introspection off", async () => {
    const page = await fetch(`${server.url}/graphql`, { headers: { accept: "text/html" } });
    expect(page.headers.get("content-type") ?? "").not.toMatch(/text\/html/);
    const response = await server.graphql(admin.token, "{ __schema { queryType { name } } }");
    expect(response.status).toBe(400);
    expect(response.errors?.[0].message).toMatch(/introspection/i);
    expect((await server.graphql(admin.token, "{ viewer { __typename id } }")).status).toBe(200);
  });

  it("closes a request whose body never arrives within the request timeout: 408 in the envelope of its surface", async () => {
    const started = Date.now();
    const [rest, graphql] = await Promise.all([
      rawExchange(
        server.url,
        `POST /v1/orgs/${admin.organizationId}/spaces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"title":`,
      ),
      rawExchange(
        server.url,
        `POST /graphql HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${admin.token}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"query":`,
      ),
    ]);
    expect(Date.now() - started).toBeLessThan(5000);
    expectNodeAnswer(rest, 408);
    expect(JSON.parse(rest.body)).toEqual({ error: { code: 408, message: expect.stringMatching(/request timeout/) } });
    expectNodeAnswer(graphql, 408);
    expect(JSON.parse(graphql.body)).toEqual({
      errors: [{ message: expect.stringMatching(/request timeout/), extensions: { code: "REQUEST_TIMEOUT", http: { status: 408 } } }],
    });
  });

  it("answers headers over Node's limit with 431 and bytes that are not HTTP with 400, as envelopes", async () => {
    const big = await rawExchange(server.url, `GET /v1/user HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`);
    expectNodeAnswer(big, 431);
    expect(JSON.parse(big.body)).toEqual({ error: { code: 431, message: expect.stringMatching(/headers are larger/) } });
    for (const malformed of [
      "NOT HTTP AT ALL\r\n\r\n",
      "GET /v1/user HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n",
      "GET /v1/user HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n",
      "GET /v1/\0user HTTP/1.1\r\nHost: x\r\n\r\n",
    ]) {
      const answer = await rawExchange(server.url, malformed);
      expectNodeAnswer(answer, 400);
      expect(JSON.parse(answer.body), malformed).toEqual({ error: { code: 400, message: "The request is not valid HTTP/1.1" } });
    }
  });

  it("writes nothing to a client already gone, and keeps serving", async () => {
    const errors: unknown[] = [];
    const onError = (error: unknown) => errors.push(error);
    process.on("uncaughtException", onError);
    try {
      for (let i = 0; i < 20; i++) {
        const socket = connect(Number(new URL(server.url).port), "127.0.0.1");
        socket.on("error", () => {});
        socket.write(i % 2 ? "NOT HTTP\r\n\r\n" : `GET / HTTP/1.1\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`);
        socket.destroy();
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
      const after = await fetch(`${server.url}/v1/user`, { headers: { authorization: `Bearer ${admin.token}` } });
      expect(after.status).toBe(200);
      expect(errors).toEqual([]);
    } finally {
      process.off("uncaughtException", onError);
    }
  });
});

/** Sends `request` as raw bytes and reads the answer until the server closes the connection. */
function rawExchange(url: string, request: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(url).port), "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString();
      const [head, ...body] = text.split("\r\n\r\n");
      const [statusLine, ...lines] = head.split("\r\n");
      resolve({
        status: Number(statusLine.split(" ")[1]),
        headers: Object.fromEntries(
          lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]),
        ),
        body: body.join("\r\n\r\n"),
      });
    });
    socket.on("error", reject);
    socket.write(request);
  });
}

/** An answer of Node's own (client-error.ts): the status, JSON, security and rate-limit headers, closed. */
function expectNodeAnswer(answer: { status: number; headers: Record<string, string>; body: string }, status: number) {
  expect(answer.status).toBe(status);
  expect(answer.headers["content-type"]).toMatch(/^application\/json/);
  expect(Number(answer.headers["content-length"])).toBe(Buffer.byteLength(answer.body));
  expect(answer.headers.connection).toBe("close");
  expect(answer.headers["x-content-type-options"]).toBe("nosniff");
  expect(answer.headers["content-security-policy"]).toMatch(/default-src 'none'/);
  expect(answer.headers["x-ratelimit-limit"]).toMatch(/^\d+$/);
  expect(answer.headers["x-ratelimit-remaining"]).toMatch(/^\d+$/);
  expect(answer.headers["x-ratelimit-reset"]).toMatch(/^\d+$/);
}
