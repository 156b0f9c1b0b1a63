// Files through HTTP: uploads as real GraphQL multipart requests, downloads through the signed
// URL without a token, limits, permissions, deletes and storage by content hash.
import { request as httpRequest } from "node:http";
import { deflateSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DAY_MS } from "../src/core/clock.ts";
import { MAX_FILE_BYTES, MAX_UPLOAD_REQUEST_BYTES, downloadUrlOf } from "../src/core/content/files.ts";
import { graphqlData } from "./support/expect.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

let server: TestServer;
let A: { organizationId: string; userId: string; token: string };
let B: { organizationId: string; userId: string; token: string };
let spaceId: string;

// ---------------------------------------------------------------------------------------------
// A real PNG, 3×2 pixels, built here: signature, IHDR, IDAT (zlib), IEND, each chunk with its CRC.

function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

function png(width: number, height: number): Uint8Array {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, no interlace
  const rows = Buffer.concat(
    Array.from({ length: height }, (_, y) => Buffer.from([0, ...Array.from({ length: width }, (_, x) => [x * 80, y * 120, 200]).flat()])),
  );
  return new Uint8Array(
    Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      chunk("IHDR", header),
      chunk("IDAT", deflateSync(rows)),
      chunk("IEND", new Uint8Array()),
    ]),
  );
}

const PNG = png(3, 2);
const TEXT = new TextEncoder().encode("Hello, files!\nSecond line: é\n");

// ---------------------------------------------------------------------------------------------
// Helpers

const FILE_FIELDS = "id name contentType size dimensions { width height } downloadURL";

const UPLOAD = /* GraphQL */ `
  mutation Upload($input: UploadFilesInput!) {
    uploadFiles(input: $input) { revision { id parents files { id name } } files { ${FILE_FIELDS} } }
  }`;

interface Part {
  name: string;
  type?: string;
  bytes: Uint8Array;
}

/** A GraphQL multipart request (operations, map, one part per file), as a browser sends it. */
async function upload(token: string | undefined, space: string, parts: Part[]) {
  const form = new FormData();
  form.set("operations", JSON.stringify({ query: UPLOAD, variables: { input: { space, files: parts.map(() => null) } } }));
  form.set("map", JSON.stringify(Object.fromEntries(parts.map((_, i) => [String(i), [`variables.input.files.${i}`]]))));
  parts.forEach((part, i) => form.set(String(i), new Blob([new Uint8Array(part.bytes)], { type: part.type ?? "" }), part.name));
  const response = await fetch(`${server.url}/graphql`, {
    method: "POST",
    headers: token ? { authorization: `Bearer ${token}` } : {},
    body: form,
  });
  return { status: response.status, ...((await response.json()) as { data?: any; errors?: any[] }) };
}

const headOf = async (token: string, space: string) =>
  (await graphqlData(server, token, `query($id: ID!) { space(id: $id) { revision } }`, { id: space })).space.revision as string;

const revisionFiles = async (token: string, space: string, revision: string) =>
  (
    await graphqlData(
      server,
      token,
      `query($s: ID!, $r: ID!) { space(id: $s) { revisionById(id: $r) { id parents files { id name } } } }`,
      {
        s: space,
        r: revision,
      },
    )
  ).space.revisionById as { id: string; parents: string[]; files: { id: string; name: string }[] };

const blobCount = () => server.database.prisma.blob.count();

beforeAll(async () => {
  server = await startTestServer();
  A = await server.bootstrap("Files A");
  B = await server.bootstrap("Files B");
  const created = await graphqlData(
    server,
    A.token,
    `mutation($o: ID!) { createSpace(input: { organization: $o, title: "Files" }) { space { id } } }`,
    {
      o: A.organizationId,
    },
  );
  spaceId = created.createSpace.space.id;
});

afterAll(async () => {
  await server?.close();
});

describe("uploading files", () => {
  let uploaded: { id: string; name: string; contentType: string; size: number; dimensions: any; downloadURL: string }[];
  let revision: { id: string; parents: string[]; files: { id: string }[] };

  it("uploads a PNG and a text file as one revision, with size, content type and image dimensions", async () => {
    const before = await headOf(A.token, spaceId);
    const result = await upload(A.token, spaceId, [
      { name: "pixel.png", type: "image/png", bytes: PNG },
      { name: "notes.txt", bytes: TEXT }, // no type: guessed from the name
    ]);
    expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
    expect(result.status).toBe(200);
    ({ files: uploaded, revision } = result.data.uploadFiles);
    expect(revision.parents).toEqual([before]);
    expect(await headOf(A.token, spaceId)).toBe(revision.id);
    expect(revision.files.map((f) => f.id)).toEqual(uploaded.map((f) => f.id));

    const [image, text] = uploaded;
    expect(image).toMatchObject({ name: "pixel.png", contentType: "image/png", size: PNG.length, dimensions: { width: 3, height: 2 } });
    expect(image.id).toMatch(/^file_/);
    expect(text).toMatchObject({ name: "notes.txt", contentType: "text/plain", size: TEXT.length, dimensions: null });
  });

  it("serves the bytes at downloadURL to a browser without a token", async () => {
    const [image, text] = uploaded;
    expect(image.downloadURL.startsWith(`${server.url}/files/`)).toBe(true);

    const response = await fetch(image.downloadURL);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/png");
    expect(response.headers.get("content-length")).toBe(String(PNG.length));
    expect(response.headers.get("content-disposition")).toMatch(/^inline; filename="pixel.png"/);
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("cache-control")).toMatch(/immutable/);
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(PNG);
    const revalidated = await fetch(image.downloadURL, { headers: { "if-none-match": response.headers.get("etag")! } });
    expect(revalidated.status).toBe(304);
    const head = await fetch(image.downloadURL, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(String(PNG.length));

    const textResponse = await fetch(text.downloadURL);
    expect(textResponse.status).toBe(200);
    expect(textResponse.headers.get("content-type")).toBe("text/plain");
    expect(new Uint8Array(await textResponse.arrayBuffer())).toEqual(TEXT);

    // The same URL is given when the file is read again (caches keep hitting).
    const read = await graphqlData(server, A.token, `query($s: ID!, $f: ID!) { space(id: $s) { file(id: $f) { downloadURL } } }`, {
      s: spaceId,
      f: image.id,
    });
    expect(read.space.file.downloadURL).toBe(image.downloadURL);
  });

  it("serves HTML and SVG as attachments, never inline (no stored XSS)", async () => {
    const result = await upload(A.token, spaceId, [
      { name: "page.html", type: "text/html", bytes: new TextEncoder().encode("<script>alert(1)</script>") },
      {
        name: "logo.svg",
        type: "image/svg+xml",
        bytes: new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg" width="4" height="5"><script>alert(1)</script></svg>'),
      },
    ]);
    expect(result.errors).toBeUndefined();
    const [html, svg] = result.data.uploadFiles.files;
    expect(svg.dimensions).toEqual({ width: 4, height: 5 });
    for (const file of [html, svg]) {
      const response = await fetch(file.downloadURL);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe(file.contentType);
      expect(response.headers.get("content-disposition")).toMatch(/^attachment;/);
      expect(response.headers.get("content-security-policy")).toContain("sandbox");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    }
  });

  it("refuses a download URL whose signature, name or type was changed (403), and unknown bytes (404)", async () => {
    const [image] = uploaded;
    const url = new URL(image.downloadURL);
    const tampered = new URL(url);
    const sig = url.searchParams.get("sig")!;
    tampered.searchParams.set("sig", (sig[0] === "A" ? "B" : "A") + sig.slice(1));
    expect((await fetch(tampered)).status).toBe(403);

    const renamed = new URL(url);
    renamed.pathname = renamed.pathname.replace("pixel.png", "pixel.html");
    expect((await fetch(renamed)).status).toBe(403);

    const retyped = new URL(url);
    retyped.searchParams.set("type", "text/html");
    expect((await fetch(retyped)).status).toBe(403);

    const unsigned = new URL(url);
    unsigned.search = "";
    expect((await fetch(unsigned)).status).toBe(403);

    // Properly signed, but for bytes that were never uploaded.
    const ghost = downloadUrlOf(server.app.services, {
      id: "file_x",
      name: "ghost.png",
      contentType: "image/png",
      size: 1,
      blob: "0".repeat(64),
    });
    expect((await fetch(ghost)).status).toBe(404);
  });

  it("refuses a file over the size limit with 413 naming the file, and makes no revision", async () => {
    const before = await headOf(A.token, spaceId);
    const blobs = await blobCount();
    const result = await upload(A.token, spaceId, [
      { name: "small.txt", bytes: TEXT },
      { name: "huge.bin", bytes: new Uint8Array(MAX_FILE_BYTES + 1) },
    ]);
    expect(result.status).toBe(413);
    expect(result.errors?.[0].extensions.code).toBe("PAYLOAD_TOO_LARGE");
    expect(result.errors?.[0].message).toContain("huge.bin");
    expect(await headOf(A.token, spaceId)).toBe(before);
    expect(await blobCount()).toBe(blobs);
  });

  it("refuses an upload request over the request limit, or of unknown length, before reading it", async () => {
    const status = (headers: Record<string, string | number>) =>
      new Promise<number>((resolve, reject) => {
        const req = httpRequest(`${server.url}/graphql`, {
          method: "POST",
          headers: { authorization: `Bearer ${A.token}`, "content-type": "multipart/form-data; boundary=x", ...headers },
        });
        req.on("response", (response) => {
          response.resume();
          resolve(response.statusCode!);
          req.destroy();
        });
        req.on("error", reject);
        req.write("--x\r\n"); // the start of a body that never comes whole
      });
    expect(await status({ "content-length": MAX_UPLOAD_REQUEST_BYTES + 1 })).toBe(413);
    expect(await status({ "transfer-encoding": "chunked" })).toBe(411);
  });

  it("refuses a file without a name (400)", async () => {
    const before = await headOf(A.token, spaceId);
    const result = await upload(A.token, spaceId, [{ name: "  ", bytes: TEXT }]);
    expect(result.status).toBe(400);
    expect(result.errors?.[0].message).toContain("name");
    expect(await headOf(A.token, spaceId)).toBe(before);
  });

  it("needs edit on the space: a read member gets 403, another organization 404, no token 401", async () => {
    const reader = await server.addMember(A.organizationId, "read");
    const before = await headOf(A.token, spaceId);
    const asReader = await upload(reader.token, spaceId, [{ name: "r.txt", bytes: TEXT }]);
    expect(asReader.status).toBe(403);
    expect(asReader.errors?.[0].extensions.code).toBe("FORBIDDEN");
    const asStranger = await upload(B.token, spaceId, [{ name: "b.txt", bytes: TEXT }]);
    expect(asStranger.status).toBe(404);
    const anonymous = await upload(undefined, spaceId, [{ name: "a.txt", bytes: TEXT }]);
    expect(anonymous.status).toBe(401);
    expect(await headOf(A.token, spaceId)).toBe(before);

    const deleteAsReader = await server.graphql(
      reader.token,
      `mutation($s: ID!, $f: ID!) { deleteFile(input: { space: $s, file: $f }) { revision { id } } }`,
      {
        s: spaceId,
        f: uploaded[0].id,
      },
    );
    expect(deleteAsReader.errors?.[0].extensions?.code).toBe("FORBIDDEN");
  });

  it("stores the same bytes once: uploading them again adds a file but no blob", async () => {
    const blobs = await blobCount();
    const result = await upload(A.token, spaceId, [{ name: "pixel-again.png", type: "image/png", bytes: PNG }]);
    expect(result.errors).toBeUndefined();
    const [again] = result.data.uploadFiles.files;
    expect(again.id).not.toBe(uploaded[0].id);
    expect(await blobCount()).toBe(blobs);
    const response = await fetch(again.downloadURL);
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(PNG);
  });

  it("deletes a file as one revision; the previous revision still lists it and its URL still serves", async () => {
    const before = await headOf(A.token, spaceId);
    const [image] = uploaded;
    const deleted = await graphqlData(
      server,
      A.token,
      `mutation($s: ID!, $f: ID!) { deleteFile(input: { space: $s, file: $f }) { revision { id parents files { id } } deletedFileId } }`,
      {
        s: spaceId,
        f: image.id,
      },
    );
    const next = deleted.deleteFile.revision;
    expect(next.parents).toEqual([before]);
    expect(next.files.map((f: { id: string }) => f.id)).not.toContain(image.id);
    expect(await headOf(A.token, spaceId)).toBe(next.id);

    const old = await revisionFiles(A.token, spaceId, before);
    expect(old.files.map((f) => f.id)).toContain(image.id);
    expect((await fetch(image.downloadURL)).status).toBe(200);

    const again = await server.graphql(
      A.token,
      `mutation($s: ID!, $f: ID!) { deleteFile(input: { space: $s, file: $f }) { revision { id } } }`,
      {
        s: spaceId,
        f: image.id,
      },
    );
    expect(again.errors?.[0].extensions?.code).toBe("NOT_FOUND");
    expect(await headOf(A.token, spaceId)).toBe(next.id);
  });

  // Last: moves the clock forward.
  it("refuses a download URL once it has expired (403)", async () => {
    const [, text] = uploaded;
    expect((await fetch(text.downloadURL)).status).toBe(200);
    server.clock.advance(9 * DAY_MS);
    const response = await fetch(text.downloadURL);
    expect(response.status).toBe(403);
    expect(await response.text()).toContain("expired");
  });
});
