// OpenAPI specifications: both surfaces, processing by the job queue from a spec server on
// 127.0.0.1 (relative $refs, versions by content, failures with their codes), a restart in the
// middle of processing, bad inputs, and the official CLI publishing from a file and a URL.
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../src/app.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

const ENTRY = `openapi: 3.0.3
info:
  title: Pets
  version: "1.0"
paths:
  /pets/{petId}:
    get:
      summary: Get a pet
      parameters:
        - name: petId
          in: path
          required: true
          schema: { type: string }
      responses:
        "200":
          description: The pet
          content:
            application/json:
              schema:
                $ref: "schemas/pet.yaml#/Pet"
`;
const PET = `Pet:
  type: object
  required: [name]
  properties:
    name: { type: string, example: Rex }
`;

/** Files served by the spec server; `hold` keeps a path's answer until released. */
const files = new Map<string, { status?: number; body: string; delayMs?: number }>();
const held = new Map<string, ServerResponse[]>();
let holdPaths = new Set<string>();
let specServer: Server;
let specBase: string;
let server: TestServer;
let org: string;
let token: string;

beforeAll(async () => {
  specServer = createServer((req, res) => {
    const path = req.url!.split("?")[0]!;
    if (holdPaths.has(path)) {
      held.set(path, [...(held.get(path) ?? []), res]);
      return;
    }
    const file = files.get(path);
    const answer = () => {
      if (!file) return res.writeHead(404).end("not found");
      res.writeHead(file.status ?? 200, { "content-type": "application/yaml" }).end(file.body);
    };
    if (file?.delayMs) setTimeout(answer, file.delayMs);
    else answer();
  });
  await new Promise<void>((resolve) => specServer.listen(0, "127.0.0.1", resolve));
  specBase = `http://127.0.0.1:${(specServer.address() as AddressInfo).port}`;
  server = await startTestServer();
  ({ organizationId: org, token } = await server.bootstrap());
});

afterAll(async () => {
  for (const responses of held.values()) for (const res of responses) res.destroy();
  specServer.closeAllConnections();
  await new Promise((resolve) => specServer.close(resolve));
  await server.close();
});

let restoreLimits: (() => void) | undefined;
/** Lowers this test app's OpenAPI limits; returns what puts them back. */
function lowerLimits(changes: Partial<typeof server.app.services.openapiLimits>): () => void {
  const limits = server.app.services.openapiLimits;
  const previous = { ...limits };
  Object.assign(limits, changes);
  return () => void Object.assign(limits, previous);
}
afterEach(() => {
  restoreLimits?.();
  restoreLimits = undefined;
  holdPaths = new Set();
});

let slugCounter = 0;
const newSlug = () => `spec-${++slugCounter}`;

/** Serves ENTRY and PET under a fresh folder; returns the entry URL. */
function serveSpec(entry = ENTRY, pet = PET): { url: string; folder: string } {
  const folder = `/s${++slugCounter}`;
  files.set(`${folder}/openapi.yaml`, { body: entry });
  files.set(`${folder}/schemas/pet.yaml`, { body: pet });
  return { url: `${specBase}${folder}/openapi.yaml`, folder };
}

const api = (path = "") => `/v1/orgs/${org}/openapi${path}`;

/** Waits until the spec has been processed after `after` (its lastProcessedAt moved). */
async function processed(slug: string, previous?: string): Promise<any> {
  for (let i = 0; i < 400; i++) {
    const { body } = await server.rest(token, "GET", api(`/${slug}`));
    if (body.processingState === "complete" && body.lastProcessedAt !== previous) return body;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`spec ${slug} was not processed`);
}

describe("OpenAPI specs from a URL", () => {
  it("creates (201, pending), processes to complete with both files of a relative $ref, and answers every read", async () => {
    const slug = newSlug();
    const { url } = serveSpec();
    const client = server.client(token);
    const created = await client.orgs.createOpenApiSpec(org, { slug, source: { url } });
    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({ object: "openapi-spec", slug, sourceURL: url, processingState: "pending" });
    expect(created.data.urls.app).toContain(slug);

    const spec = await processed(slug);
    expect(spec.lastProcessErrorCode).toBeUndefined();
    expect(spec.lastVersion).toMatch(/^oasv_/);

    const { data: versions } = await client.orgs.listOpenApiSpecVersions(org, slug);
    expect(versions.items.map((v) => v.id)).toEqual([spec.lastVersion]);
    const { data: latest } = await client.orgs.getLatestOpenApiSpecVersion(org, slug);
    expect(latest).toMatchObject({ object: "openapi-spec-version", id: spec.lastVersion, url });
    const { data: byId } = await client.orgs.getOpenApiSpecVersionById(org, slug, spec.lastVersion);
    expect(byId.id).toBe(spec.lastVersion);

    const { data: content } = await client.orgs.getLatestOpenApiSpecVersionContent(org, slug);
    expect(Object.keys(content.filesystem)).toEqual(["openapi.yaml", "schemas/pet.yaml"]);
    expect((content.filesystem as any)["schemas/pet.yaml"].Pet.required).toEqual(["name"]);
    expect((content as any).url).toBe(url);
    expect(content.urls.source).toBe(url);
    const { data: byIdContent } = await client.orgs.getOpenApiSpecVersionContentById(org, slug, spec.lastVersion);
    expect(byIdContent.filesystem).toEqual(content.filesystem);

    const { data: raw } = await client.orgs.getLatestOpenApiSpecVersionContentRaw(org, slug);
    expect(raw).toEqual({ text: ENTRY, format: "yaml" });

    const { data: list } = await client.orgs.listOpenApiSpecs(org);
    expect(list.items.map((s) => s.slug)).toContain(slug);

    // GraphQL: the same spec, its versions and the node ids.
    const gql = await server.graphql(
      token,
      `query($org: ID!, $slug: String!) { organization(id: $org) { openAPISpec(slug: $slug) { id processingState lastVersion { id files } versions(first: 10) { totalCount } } } }`,
      { org, slug },
    );
    expect(gql.data.organization.openAPISpec).toMatchObject({
      id: spec.id,
      processingState: "COMPLETE",
      lastVersion: { id: spec.lastVersion, files: ["openapi.yaml", "schemas/pet.yaml"] },
      versions: { totalCount: 1 },
    });
    const node = await server.graphql(token, `query($id: ID!) { node(id: $id) { ... on OpenAPISpecVersion { spec { slug } } } }`, {
      id: spec.lastVersion,
    });
    expect(node.data.node.spec.slug).toBe(slug);
  });

  it("makes no version for the same content, a new one for a changed content", async () => {
    const slug = newSlug();
    const { url, folder } = serveSpec();
    const client = server.client(token);
    await client.orgs.createOpenApiSpec(org, { slug, source: { url } });
    const first = await processed(slug);

    server.clock.advance(1000);
    const again = await client.orgs.createOrUpdateOpenApiSpecBySlug(org, slug, { source: { url } });
    expect(again.status).toBe(200);
    const second = await processed(slug, first.lastProcessedAt);
    expect(second.lastVersion).toBe(first.lastVersion);

    server.clock.advance(1000);
    files.set(`${folder}/schemas/pet.yaml`, { body: PET.replace("Rex", "Fido") });
    await client.orgs.createOrUpdateOpenApiSpecBySlug(org, slug, { source: { url } });
    const third = await processed(slug, second.lastProcessedAt);
    expect(third.lastVersion).not.toBe(first.lastVersion);
    const { data: versions } = await client.orgs.listOpenApiSpecVersions(org, slug);
    expect(versions.items.map((v) => v.id)).toEqual([third.lastVersion, first.lastVersion]);
  });

  it("a timeout, a 404, invalid YAML and an invalid OpenAPI document end in their code and keep the previous version", async () => {
    const slug = newSlug();
    const { url, folder } = serveSpec();
    const client = server.client(token);
    await client.orgs.createOpenApiSpec(org, { slug, source: { url } });
    let previous = await processed(slug);
    const version = previous.lastVersion;

    const cases: [string, () => void, string, RegExp][] = [
      ["timeout", () => files.set(`${folder}/openapi.yaml`, { body: ENTRY, delayMs: 2000 }), "FETCH_TIMEOUT", /timed out/],
      ["404", () => files.delete(`${folder}/openapi.yaml`), "FETCH_ERROR", /404/],
      ["invalid YAML", () => files.set(`${folder}/openapi.yaml`, { body: "openapi: 3.0.3\ninfo: [unclosed\n" }), "PARSE_ERROR", /YAML/],
      [
        "invalid OpenAPI",
        () =>
          files.set(`${folder}/openapi.yaml`, {
            body: "openapi: 3.0.3\ninfo:\n  title: X\n  version: '1'\npaths:\n  /x:\n    get:\n      responses: nope\n",
          }),
        "PARSE_ERROR",
        /responses/,
      ],
    ];
    restoreLimits = lowerLimits({ requestTimeoutMs: 300 });
    for (const [name, breakIt, code, message] of cases) {
      breakIt();
      server.clock.advance(1000);
      await client.orgs.createOrUpdateOpenApiSpecBySlug(org, slug, { source: { url } });
      const spec = await processed(slug, previous.lastProcessedAt);
      expect(spec.lastProcessErrorCode, name).toBe(code);
      expect(spec.lastProcessedErrors[0].message, name).toMatch(message);
      expect(spec.lastProcessedErrorCount, name).toBeGreaterThan(0);
      expect(spec.lastVersion, name).toBe(version);
      previous = spec;
    }
    const { data: versions } = await client.orgs.listOpenApiSpecVersions(org, slug);
    expect(versions.count).toBe(1);
    const { data: raw } = await client.orgs.getLatestOpenApiSpecVersionContentRaw(org, slug);
    expect(raw.text).toBe(ENTRY);

    // Fixed: processed again without an error code.
    files.set(`${folder}/openapi.yaml`, { body: ENTRY });
    server.clock.advance(1000);
    await client.orgs.createOrUpdateOpenApiSpecBySlug(org, slug, { source: { url } });
    const fixed = await processed(slug, previous.lastProcessedAt);
    expect(fixed.lastProcessErrorCode).toBeUndefined();
    expect(fixed.lastProcessedErrors).toEqual([]);
  });

  it("follows a $ref written ./schemas.yaml#/Pet, and a ./ or ../ $ref inside a referenced file, to the files fetched", async () => {
    const slug = newSlug();
    const folder = `/dot${++slugCounter}`;
    files.set(`${folder}/openapi.yaml`, { body: ENTRY.replace("schemas/pet.yaml#/Pet", "./schemas.yaml#/Pet") });
    files.set(`${folder}/schemas.yaml`, {
      body: `Pet:\n  type: object\n  properties:\n    tag:\n      $ref: "./types/tag.yaml#/Tag"\n`,
    });
    files.set(`${folder}/types/tag.yaml`, {
      body: `Tag:\n  type: object\n  properties:\n    owner:\n      $ref: "../owner.yaml#/Owner"\n`,
    });
    files.set(`${folder}/owner.yaml`, { body: `Owner:\n  type: string\n  example: Ann\n` });
    const url = `${specBase}${folder}/openapi.yaml`;
    const client = server.client(token);
    await client.orgs.createOpenApiSpec(org, { slug, source: { url } });
    const spec = await processed(slug);
    expect(spec.lastProcessedErrors).toEqual([]);
    expect(spec.lastProcessErrorCode).toBeUndefined();
    expect(spec.lastVersion).toMatch(/^oasv_/);
    const { data: content } = await client.orgs.getLatestOpenApiSpecVersionContent(org, slug);
    expect(Object.keys(content.filesystem)).toEqual(["openapi.yaml", "schemas.yaml", "types/tag.yaml", "owner.yaml"]);
    // The files are kept as written: the $ref still says ./schemas.yaml.
    expect(
      (content.filesystem as any)["openapi.yaml"].paths["/pets/{petId}"].get.responses["200"].content["application/json"].schema,
    ).toEqual({
      $ref: "./schemas.yaml#/Pet",
    });
  });

  it("refuses a $ref outside the spec's base URL and a file over the byte bound", async () => {
    const client = server.client(token);
    const outside = newSlug();
    const { url } = serveSpec(ENTRY.replace("schemas/pet.yaml", "../elsewhere/pet.yaml"));
    await client.orgs.createOpenApiSpec(org, { slug: outside, source: { url } });
    const spec = await processed(outside);
    expect(spec.lastProcessErrorCode).toBe("PARSE_ERROR");
    expect(spec.lastProcessedErrors[0].message).toMatch(/outside the spec's base URL/);

    restoreLimits = lowerLimits({ maxFileBytes: 100 });
    const big = newSlug();
    await client.orgs.createOpenApiSpec(org, { slug: big, source: { url: serveSpec().url } });
    const bigSpec = await processed(big);
    expect(bigSpec.lastProcessErrorCode).toBe("FETCH_ERROR");
    expect(bigSpec.lastProcessedErrors[0].message).toMatch(/bytes/);
    expect(bigSpec.lastVersion).toBeUndefined();
  });

  it("fetches a URL source again on its schedule (a day later), and on demand", async () => {
    const slug = newSlug();
    const { url, folder } = serveSpec();
    await server.client(token).orgs.createOpenApiSpec(org, { slug, source: { url } });
    const first = await processed(slug);
    const waiting = await server.database.prisma.job.findFirstOrThrow({ where: { key: `openapi:${first.id}` } });
    expect(waiting.runAt.getTime() - server.clock.now().getTime()).toBe(24 * 3600 * 1000);

    files.set(`${folder}/schemas/pet.yaml`, { body: PET.replace("Rex", "Max") });
    server.clock.advance(24 * 3600 * 1000);
    await server.app.jobs.runDue();
    const second = await processed(slug, first.lastProcessedAt);
    expect(second.lastVersion).not.toBe(first.lastVersion);

    files.set(`${folder}/schemas/pet.yaml`, { body: PET.replace("Rex", "Bella") });
    server.clock.advance(1000);
    const refreshed = await server.graphql(
      token,
      `mutation($input: RefreshOpenAPISpecInput!) { refreshOpenAPISpec(input: $input) { spec { processingState } } }`,
      { input: { organization: org, slug } },
    );
    expect(refreshed.data.refreshOpenAPISpec.spec.processingState).toBe("PENDING");
    const third = await processed(slug, second.lastProcessedAt);
    expect(third.lastVersion).not.toBe(second.lastVersion);
    expect(await server.database.prisma.job.count({ where: { key: `openapi:${first.id}` } })).toBe(1);
  });

  it("a restart in the middle of processing finishes the job once", async () => {
    const slug = newSlug();
    const { url, folder } = serveSpec();
    holdPaths = new Set([`${folder}/openapi.yaml`]);
    await server.client(token).orgs.createOpenApiSpec(org, { slug, source: { url } });
    // The running instance has claimed the job and is waiting for the file.
    for (let i = 0; i < 200 && !held.get(`${folder}/openapi.yaml`)?.length; i++) await new Promise((r) => setTimeout(r, 25));
    expect(held.get(`${folder}/openapi.yaml`)).toHaveLength(1);
    expect((await server.rest(token, "GET", api(`/${slug}`))).body.processingState).toBe("progress");

    // It "dies" (never answers again); another instance starts on the same database.
    holdPaths = new Set();
    const restarted = createApp({
      database: server.database,
      config: { publicUrl: server.url, importAllowPrivateHosts: true },
      clock: server.clock,
      startJobs: false,
    });
    try {
      expect(await restarted.jobs.runDue()).toBe(0); // still claimed by the first instance
      server.clock.advance(150_000); // its claim expires
      expect(await restarted.jobs.runDue()).toBe(1);
      const spec = await processed(slug);
      expect(spec.lastVersion).toMatch(/^oasv_/);

      // The first instance comes back late: its run writes nothing.
      held.get(`${folder}/openapi.yaml`)![0]!.writeHead(200).end(ENTRY.replace("Pets", "Stale"));
      held.delete(`${folder}/openapi.yaml`);
      await new Promise((r) => setTimeout(r, 500));
      const after = (await server.rest(token, "GET", api(`/${slug}`))).body;
      expect(after.lastVersion).toBe(spec.lastVersion);
      expect(after.lastProcessedAt).toBe(spec.lastProcessedAt);
      const { data: versions } = await server.client(token).orgs.listOpenApiSpecVersions(org, slug);
      expect(versions.count).toBe(1);
      expect((await server.client(token).orgs.getLatestOpenApiSpecVersionContentRaw(org, slug)).data.text).toBe(ENTRY);
    } finally {
      await restarted.close();
    }
  });
});

describe("OpenAPI specs from a text", () => {
  it("PUT creates (201) then updates (200); PATCH sets the visibility; DELETE answers 205", async () => {
    const slug = newSlug();
    const client = server.client(token);
    const json = JSON.stringify({ openapi: "3.1.0", info: { title: "T", version: "1" }, paths: {} });
    const created = await client.orgs.createOrUpdateOpenApiSpecBySlug(org, slug, { source: { text: json } });
    expect(created.status).toBe(201);
    expect(created.data.sourceURL).toBeUndefined();
    const spec = await processed(slug);
    expect(spec.lastVersion).toMatch(/^oasv_/);
    const { data: raw } = await client.orgs.getLatestOpenApiSpecVersionContentRaw(org, slug);
    expect(raw).toEqual({ text: json, format: "json" });
    const { data: content } = await client.orgs.getLatestOpenApiSpecVersionContent(org, slug);
    expect(Object.keys(content.filesystem)).toEqual(["openapi.json"]);

    server.clock.advance(1000);
    const updated = await client.orgs.createOrUpdateOpenApiSpecBySlug(org, slug, {
      source: { text: ENTRY.replace('$ref: "schemas/pet.yaml#/Pet"', "type: object") },
    });
    expect(updated.status).toBe(200);
    expect(updated.data.processingState).toBe("pending");
    await processed(slug, spec.lastProcessedAt);

    const patched = await client.orgs.updateOpenApiSpecBySlug(org, slug, { visibility: "public" as never });
    expect(patched.data.visibility).toBe("public");

    const deleted = await client.orgs.deleteOpenApiSpecBySlug(org, slug);
    expect(deleted.status).toBe(205);
    expect((await server.rest(token, "GET", api(`/${slug}`))).status).toBe(404);
  });

  it("a text with a relative $ref fails with PARSE_ERROR naming it", async () => {
    const slug = newSlug();
    await server.client(token).orgs.createOpenApiSpec(org, { slug, source: { text: ENTRY } });
    const spec = await processed(slug);
    expect(spec.lastProcessErrorCode).toBe("PARSE_ERROR");
    expect(spec.lastProcessedErrors[0].message).toMatch(/schemas\/pet\.yaml/);
  });
});

describe("bad input", () => {
  it("answers 4xx naming the field on both surfaces and changes nothing", async () => {
    const taken = newSlug();
    await server.client(token).orgs.createOpenApiSpec(org, { slug: taken, source: { text: ENTRY } });
    await processed(taken); // its job is done: the job count below is stable
    const before = await server.database.prisma.openAPISpec.count();
    const jobsBefore = await server.database.prisma.job.count();
    const cases: [unknown, number, RegExp][] = [
      [{ slug: "Upper", source: { text: "x" } }, 400, /slug/],
      [{ slug: "a--b", source: { text: "x" } }, 400, /slug/],
      [{ slug: "a".repeat(101), source: { text: "x" } }, 400, /slug/],
      [{ slug: "", source: { text: "x" } }, 400, /slug/],
      [{ source: { text: "x" } }, 400, /slug/],
      [{ slug: "ok" }, 400, /source/],
      [{ slug: "ok", source: "http://x" }, 400, /source/],
      [{ slug: "ok", source: { url: "ftp://example.com/a.yaml" } }, 400, /source\.url/],
      [{ slug: "ok", source: { url: "/relative.yaml" } }, 400, /source\.url/],
      [{ slug: "ok", source: { url: `https://example.com/${"a".repeat(2048)}` } }, 400, /source\.url/],
      [{ slug: "ok", source: { url: "https://example.com/a", text: "x" } }, 400, /exactly one/],
      [{ slug: "ok", source: {} }, 400, /exactly one/],
      [{ slug: "ok", source: { text: "  " } }, 400, /source\.text/],
      [{ slug: "ok", source: { text: 42 } }, 400, /source\.text/],
      [{ slug: taken, source: { text: ENTRY } }, 409, /slug/],
    ];
    for (const [body, status, message] of cases) {
      const response = await server.rest(token, "POST", api(), body);
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(status);
      expect(response.body.error.message).toMatch(message);
    }
    const gql = await server.graphql(
      token,
      `mutation($input: CreateOpenAPISpecInput!) { createOpenAPISpec(input: $input) { spec { id } } }`,
      {
        input: { organization: org, slug: "Bad Slug", source: { text: ENTRY } },
      },
    );
    expect(gql.errors?.[0]?.extensions?.code).toBe("BAD_REQUEST");
    expect(gql.errors?.[0]?.message).toMatch(/slug/);
    const tooBig = await server.graphql(token, `mutation($input: PutOpenAPISpecInput!) { putOpenAPISpec(input: $input) { created } }`, {
      input: { organization: org, slug: "big", source: { text: "a".repeat(1024 * 1024 + 1) } },
    });
    expect(tooBig.errors?.[0]?.extensions?.code).toBe("PAYLOAD_TOO_LARGE");
    expect((await server.rest(token, "PATCH", api(`/${taken}`), { visibility: "secret" })).status).toBe(400);
    expect((await server.rest(token, "PATCH", api(`/${taken}`), {})).status).toBe(400);
    expect((await server.rest(token, "GET", api(`/${taken}/versions/oasv_nope`))).status).toBe(404);
    expect((await server.rest(token, "GET", api("/missing"))).status).toBe(404);
    expect(await server.database.prisma.openAPISpec.count()).toBe(before);
    expect(await server.database.prisma.job.count()).toBe(jobsBefore);
  });

  it("another organization's specs are not found; a reader cannot publish", async () => {
    const slug = newSlug();
    await server.client(token).orgs.createOpenApiSpec(org, { slug, source: { text: ENTRY } });
    const other = await server.bootstrap();
    expect((await server.rest(other.token, "GET", api(`/${slug}`))).status).toBe(404);
    expect((await server.rest(other.token, "PUT", api(`/${slug}`), { source: { text: ENTRY } })).status).toBe(404);
    const reader = await server.addMember(org, "read");
    expect((await server.rest(reader.token, "GET", api(`/${slug}`))).body.permissions).toEqual({ view: true, edit: false });
    expect((await server.rest(reader.token, "PUT", api(`/${slug}`), { source: { text: ENTRY } })).status).toBe(403);
  });
});

describe("the official CLI", () => {
  const run = promisify(execFile);
  const cli = (args: string[]) =>
    run(process.execPath, ["node_modules/@gitbook/cli/cli.js", ...args], {
      env: { ...process.env, GITBOOK_ENDPOINT: server.url, GITBOOK_TOKEN: token, HOME: mkdtempSync(join(tmpdir(), "gitbook-home-")) },
      timeout: 60_000,
    });

  it("publishes a spec from a file and from a URL and prints its app URL", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cli-spec-"));
    const file = join(dir, "openapi.yaml");
    writeFileSync(file, ENTRY.replace('$ref: "schemas/pet.yaml#/Pet"', "type: object"));
    const fromFile = newSlug();
    const first = await cli(["openapi", "publish", "--spec", fromFile, "--organization", org, file]);
    expect(first.stdout + first.stderr).toContain(`/openapi/${fromFile}`);
    const spec = await processed(fromFile);
    expect(spec.lastProcessErrorCode).toBeUndefined();
    expect((await server.client(token).orgs.getLatestOpenApiSpecVersionContentRaw(org, fromFile)).data.format).toBe("yaml");

    const fromUrl = newSlug();
    const { url } = serveSpec();
    const second = await cli(["openapi", "publish", "--spec", fromUrl, "--organization", org, url]);
    expect(second.stdout + second.stderr).toContain(`/openapi/${fromUrl}`);
    const urlSpec = await processed(fromUrl);
    expect(urlSpec.sourceURL).toBe(url);
    expect(urlSpec.lastVersion).toMatch(/^oasv_/);
  });
});
