import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GitBookAPIError } from "@gitbook/api";
import { clearUnmatchedRoutes, createClient, findOperation, getUnmatchedRoutes, validateResponse } from "./support/openapi.ts";

function collection(id = "col_x"): Record<string, unknown> {
  return {
    object: "collection",
    id,
    title: "Engineering",
    organization: "org_1",
    urls: {
      app: `https://app.gitbook.com/o/org_1/c/${id}`,
      location: `https://api.gitbook.com/v1/collections/${id}`,
    },
    defaultLevel: "inherit",
    permissions: { view: true, admin: true, viewInviteLinks: true, create: true },
  };
}

describe("validateResponse", () => {
  it("accepts a valid Collection for GET /v1/collections/{collectionId}", () => {
    expect(validateResponse("GET", "/v1/collections/col_x", 200, collection())).toEqual([]);
    // full URL with query string works too
    expect(validateResponse("get", "http://127.0.0.1:1/v1/collections/col_x?x=1", 200, collection())).toEqual([]);
  });

  it("rejects a Collection without permissions, naming the field", () => {
    const { permissions: _omit, ...body } = collection();
    const errors = validateResponse("GET", "/v1/collections/col_x", 200, body);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.join("\n")).toMatch(/permissions/);
  });

  it("reports nested problems with their instance path", () => {
    const body = { ...collection(), permissions: { view: true, admin: "yes", viewInviteLinks: true, create: true } };
    expect(validateResponse("GET", "/v1/collections/col_x", 200, body)).toEqual(["/permissions/admin must be boolean"]);
  });

  it("validates 404 error envelopes (declared or not) and checks error.code", () => {
    const notFound = { error: { code: 404, message: "Not found" } };
    // declared via #/components/responses/NotFoundError
    expect(validateResponse("POST", "/v1/spaces/spc_1/move", 404, notFound)).toEqual([]);
    // not declared for getCollectionById → generic Error envelope
    expect(validateResponse("GET", "/v1/collections/col_x", 404, notFound)).toEqual([]);
    expect(validateResponse("GET", "/v1/collections/col_x", 404, { message: "nope" }).join("\n")).toMatch(/error/);
    expect(validateResponse("GET", "/v1/collections/col_x", 404, { error: { code: 400, message: "x" } }).length).toBeGreaterThan(0);
    expect(validateResponse("GET", "/v1/collections/col_x", 404, { error: { code: 404 } }).join("\n")).toMatch(/message/);
  });

  it("requires an empty body for 204/205 and flags undeclared success statuses", () => {
    expect(validateResponse("DELETE", "/v1/collections/col_x", 205, undefined)).toEqual([]);
    expect(validateResponse("DELETE", "/v1/collections/col_x", 204, "")).toEqual([]);
    expect(validateResponse("DELETE", "/v1/collections/col_x", 205, { ok: true }).join("\n")).toMatch(/empty body/);
    expect(validateResponse("DELETE", "/v1/collections/col_x", 200, collection()).join("\n")).toMatch(/not declared/);
    expect(validateResponse("GET", "/v1/collections/col_x", 200, undefined).join("\n")).toMatch(/empty body/);
  });

  it("returns [] for routes not in the spec and records them", () => {
    clearUnmatchedRoutes();
    expect(findOperation("GET", "/v1/our-extra-route/123")).toBeUndefined();
    expect(validateResponse("GET", "/v1/our-extra-route/123", 200, { anything: 1 })).toEqual([]);
    expect(getUnmatchedRoutes()).toContain("GET /v1/our-extra-route/123");
  });
});

describe("findOperation", () => {
  it("matches templates and strips /v1", () => {
    expect(findOperation("GET", "/v1/orgs/org_1/collections")).toEqual({
      operationId: "listCollectionsInOrganizationById",
      template: "/orgs/{organizationId}/collections",
      method: "get",
    });
    expect(findOperation("POST", "/v1/orgs/org_1/collections")?.operationId).toBe("createCollection");
    expect(findOperation("POST", "/v1/spaces/spc_1/move")).toMatchObject({
      operationId: "moveSpace",
      template: "/spaces/{spaceId}/move",
    });
    expect(findOperation("GET", "/v1/spaces/spc_1")?.template).toBe("/spaces/{spaceId}");
    expect(findOperation("GET", "/spaces/spc_1/")?.template).toBe("/spaces/{spaceId}");
    expect(findOperation("PUT", "/v1/spaces/spc_1/move")).toBeUndefined();
  });

  it("prefers literal segments over parameters", () => {
    const base = "/v1/orgs/org_1/openapi/my-spec/versions";
    expect(findOperation("GET", `${base}/latest`)?.template).toBe("/orgs/{organizationId}/openapi/{specSlug}/versions/latest");
    expect(findOperation("GET", `${base}/ver_1`)?.template).toBe("/orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}");
  });
});

describe("createClient against a real HTTP server", () => {
  let server: Server;
  let endpoint: string;
  let mode: "valid" | "invalid" | "notfound" = "valid";
  const seen: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? ""}`);
      const m = /^\/v1\/collections\/([^/?]+)$/.exec(req.url ?? "");
      if (req.method === "GET" && m) {
        if (mode === "notfound") {
          res.writeHead(404, { "content-type": "application/json" });
          res.end(JSON.stringify({ error: { code: 404, message: "Collection not found" } }));
          return;
        }
        const body = collection(decodeURIComponent(m[1]!));
        if (mode === "invalid") delete body.permissions;
        res.writeHead(200, { "content-type": "application/json; charset=utf-8" });
        res.end(JSON.stringify(body));
        return;
      }
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { code: 404, message: "Not found" } }));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
  });

  it("returns data for a valid response and sends /v1 + bearer token", async () => {
    mode = "valid";
    const client = createClient({ endpoint, token: "tok_123" });
    const { data } = await client.collections.getCollectionById("col_abc");
    expect(data.id).toBe("col_abc");
    expect(data.permissions.create).toBe(true);
    expect(client.violations).toEqual([]);
    expect(seen.at(-1)).toBe("GET /v1/collections/col_abc Bearer tok_123");
  });

  it("throws naming method, path, status and the violation for an invalid body", async () => {
    mode = "invalid";
    const client = createClient({ endpoint });
    const err = await client.collections.getCollectionById("col_bad").then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(Error);
    expect(err!.message).toContain("GET /v1/collections/col_bad -> 200");
    expect(err!.message).toMatch(/must have required property 'permissions'/);
    expect(client.violations).toHaveLength(1);
    expect(client.violations[0]).toMatch(/permissions/);
  });

  it("lets a valid error envelope through as GitBookAPIError", async () => {
    mode = "notfound";
    const client = createClient({ endpoint });
    const err = await client.collections.getCollectionById("col_missing").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GitBookAPIError);
    expect((err as GitBookAPIError).code).toBe(404);
    expect(client.violations).toEqual([]);
  });
});
