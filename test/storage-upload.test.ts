// Storage uploads: generateStorageUploadURL through the official client and the published schema,
// then the signed URL over real HTTP: it accepts the file once by PUT and stores its bytes for the
// organization; an expired, tampered or reused URL, a body over the announced size, bad input
// (naming the field, nothing stored) and another organization's id are refused.
import { createHash } from "node:crypto";
import { request as httpRequest } from "node:http";
import { StorageUploadKind } from "@gitbook/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_STORAGE_UPLOAD_BYTES, UPLOAD_URL_TTL_SECONDS } from "../src/core/storage/index.ts";
import { expectGraphQLError, expectRestError, graphqlData, publishedRest } from "./support/expect.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let A: { organizationId: string; token: string; userId: string };
let B: { organizationId: string; token: string; userId: string };

beforeAll(async () => {
  server = await startTestServer();
  A = await server.bootstrap("Uploads");
  B = await server.bootstrap("Others");
});

afterAll(async () => {
  await server?.close();
});

const path = (org = A.organizationId) => `/v1/orgs/${org}/storage/upload`;
const file = { name: "logo.png", type: "image/png", size: 11 };
const uploads = () => server.database.prisma.storageUpload.findMany({ where: { organizationId: A.organizationId } });
const put = (url: string, body: BodyInit, headers: Record<string, string> = {}) => fetch(url, { method: "PUT", body, headers });

describe("a storage upload", () => {
  it("answers a signed URL that accepts the file by PUT, stored for the organization", async () => {
    const { data, status } = await server
      .client(A.token)
      .orgs.generateStorageUploadUrl(A.organizationId, { file, kind: StorageUploadKind.OrganizationFile });
    expect(status).toBe(201);
    expect(data.object).toBe("storage-signed-url");
    expect(data.key).toMatch(/^upload_[A-Za-z0-9_-]{24}$/);
    expect(data.url.startsWith(`${server.url}/storage/uploads/${data.key}?expires=`)).toBe(true);

    const uploaded = await put(data.url, "hello world", { "content-type": "image/png" });
    expect(uploaded.status).toBe(200);
    // The ETag is the SHA-256 of the bytes, written here by hand.
    expect(uploaded.headers.get("etag")).toBe('"b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9"');
    const row = await server.database.prisma.storageUpload.findUnique({ where: { key: data.key } });
    expect(row).toMatchObject({
      organizationId: A.organizationId,
      kind: "organization_file",
      name: "logo.png",
      contentType: "image/png",
      size: 11,
      createdById: A.userId,
    });
    const blob = await server.database.prisma.blob.findUnique({ where: { hash: row!.blobHash! } });
    expect(Buffer.from(blob!.data).toString()).toBe("hello world");

    // One upload per URL.
    const again = await put(data.url, "hello again");
    expect(again.status).toBe(409);
    expect((await again.json()).error.message).toContain("used already");
  });

  it("is the same URL on GraphQL, with its expiry and size bound", async () => {
    const result = await graphqlData(
      server,
      A.token,
      `mutation($input: GenerateStorageUploadURLInput!) { generateStorageUploadURL(input: $input) { url key expiresAt maxBytes } }`,
      {
        input: { organization: A.organizationId, file: { name: "font.woff2", type: "font/woff2", size: 2048 }, kind: "customization_font" },
      },
    );
    const url = result.generateStorageUploadURL;
    expect(url.maxBytes).toBe(2048);
    expect(new Date(url.expiresAt).getTime() - server.clock.now().getTime()).toBe(UPLOAD_URL_TTL_SECONDS * 1000);
    expect(url.url).toContain(url.key);
  });

  it("refuses an expired, tampered or unsigned URL, and a method other than PUT", async () => {
    const { data } = await server
      .client(A.token)
      .orgs.generateStorageUploadUrl(A.organizationId, { file, kind: StorageUploadKind.ImportFile });
    const signed = new URL(data.url);

    const tampered = new URL(signed);
    tampered.searchParams.set("expires", String(Number(signed.searchParams.get("expires")) + 3600));
    const refusedTampered = await put(tampered.toString(), "hello world");
    expect(refusedTampered.status).toBe(403);
    expect((await refusedTampered.json()).error.message).toContain("signature");

    const otherSig = new URL(signed);
    otherSig.searchParams.set("sig", "A".repeat(43));
    expect((await put(otherSig.toString(), "hello world")).status).toBe(403);
    expect((await put(`${server.url}/storage/uploads/${data.key}`, "hello world")).status).toBe(403);

    const get = await fetch(data.url);
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("PUT");

    server.clock.advance((UPLOAD_URL_TTL_SECONDS + 1) * 1000);
    try {
      const expired = await put(data.url, "hello world");
      expect(expired.status).toBe(403);
      expect((await expired.json()).error.message).toContain("expired");
    } finally {
      server.clock.advance(-(UPLOAD_URL_TTL_SECONDS + 1) * 1000);
    }
    expect((await server.database.prisma.storageUpload.findUnique({ where: { key: data.key } }))!.uploadedAt).toBeNull();
  });

  it("accepts at most the announced size: a larger Content-Length is refused unread, a longer stream cut off", async () => {
    const { data } = await server
      .client(A.token)
      .orgs.generateStorageUploadUrl(A.organizationId, { file, kind: StorageUploadKind.OrganizationFile });
    const tooLong = await put(data.url, "hello world, and more");
    expect(tooLong.status).toBe(413);
    expect((await tooLong.json()).error.message).toContain("at most 11 bytes");

    // Chunked, without a Content-Length: read until the bound, then refused.
    const chunked = await new Promise<number>((resolve, reject) => {
      const url = new URL(data.url);
      const request = httpRequest(url, { method: "PUT", headers: { "transfer-encoding": "chunked" } }, (response) => {
        response.resume();
        resolve(response.statusCode!);
      });
      request.on("error", reject);
      request.write("hello ");
      request.write("world, ");
      request.end("and more");
    });
    expect(chunked).toBe(413);
    const row = await server.database.prisma.storageUpload.findUnique({ where: { key: data.key } });
    expect(row!.uploadedAt).toBeNull();

    // The URL still takes the file within its bound.
    expect((await put(data.url, "hello")).status).toBe(200);
  });

  it("answers other requests while an upload is under way", async () => {
    const size = 1024 * 1024;
    const { data } = await server.client(A.token).orgs.generateStorageUploadUrl(A.organizationId, {
      file: { name: "big.bin", type: "application/octet-stream", size },
      kind: StorageUploadKind.OrganizationFile,
    });
    const url = new URL(data.url);
    let finished!: (status: number) => void;
    const done = new Promise<number>((resolve) => (finished = resolve));
    const request = httpRequest(url, { method: "PUT", headers: { "content-length": String(size) } }, (response) => {
      response.resume();
      finished(response.statusCode!);
    });
    request.write(Buffer.alloc(size / 2, 1));
    // Half sent: the service answers another caller meanwhile.
    const other = await server
      .client(A.token)
      .orgs.generateStorageUploadUrl(A.organizationId, { file, kind: StorageUploadKind.OrganizationFile });
    expect(other.status).toBe(201);
    request.end(Buffer.alloc(size / 2, 2));
    expect(await done).toBe(200);
    const row = await server.database.prisma.storageUpload.findUnique({ where: { key: data.key } });
    const expected = createHash("sha256")
      .update(Buffer.concat([Buffer.alloc(size / 2, 1), Buffer.alloc(size / 2, 2)]))
      .digest("hex");
    expect(row!.blobHash).toBe(expected);
  });
});

describe("bad input", () => {
  it("names the field on both surfaces, and makes no upload URL", async () => {
    const before = (await uploads()).length;
    const cases: [unknown, string][] = [
      [{ kind: "organization_file" }, "file is required"],
      [{ file: "logo.png", kind: "organization_file" }, "file must be an object"],
      [{ file: { ...file, size: "11" }, kind: "organization_file" }, "file.size"],
      [{ file: { ...file, size: 0 }, kind: "organization_file" }, "file.size"],
      [{ file: { ...file, size: 1.5 }, kind: "organization_file" }, "file.size"],
      [{ file: { ...file, name: "" }, kind: "organization_file" }, "file.name"],
      [{ file: { ...file, name: "a/b.png" }, kind: "organization_file" }, "file.name"],
      [{ file: { ...file, type: "png" }, kind: "organization_file" }, "file.type"],
      [{ file: { ...file, type: "image/png\r\nX: y" }, kind: "organization_file" }, "file.type"],
      [{ file, kind: "avatar" }, "kind must be one of customization_font, import_file, organization_file"],
    ];
    for (const [body, mentions] of cases) {
      const response = await publishedRest(server, A.token, "POST", path(), body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.message).toContain(mentions);
    }
    const graphql = await server.graphql(
      A.token,
      `mutation($input: GenerateStorageUploadURLInput!) { generateStorageUploadURL(input: $input) { url } }`,
      { input: { organization: A.organizationId, file: { ...file, type: "png" }, kind: "organization_file" } },
    );
    expectGraphQLError(graphql, "BAD_REQUEST", "file.type");
    expect((await uploads()).length).toBe(before);
  });

  it("refuses a file over the bound with 413", async () => {
    await expectRestError(
      server.client(A.token).orgs.generateStorageUploadUrl(A.organizationId, {
        file: { ...file, size: MAX_STORAGE_UPLOAD_BYTES + 1 },
        kind: StorageUploadKind.OrganizationFile,
      }),
      413,
      `from 1 to ${MAX_STORAGE_UPLOAD_BYTES}`,
    );
  });
});

describe("access", () => {
  it("answers another organization's id as unknown, and refuses a reader", async () => {
    await expectRestError(
      server.client(B.token).orgs.generateStorageUploadUrl(A.organizationId, { file, kind: StorageUploadKind.OrganizationFile }),
      404,
    );
    const reader = await server.addMember(A.organizationId, "read");
    await expectRestError(
      server.client(reader.token).orgs.generateStorageUploadUrl(A.organizationId, { file, kind: StorageUploadKind.OrganizationFile }),
      403,
    );
  });
});
