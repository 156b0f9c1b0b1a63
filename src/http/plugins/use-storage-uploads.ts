// Signed storage upload URLs over HTTP (`PUT /storage/uploads/{key}?expires=…&sig=…`, made by
// generateStorageUploadURL; rules in src/core/storage): no bearer token, the URL is the
// capability. The body is read as a stream and cut off past the announced size, so an upload
// takes at most that much memory, and a body whose Content-Length says more is refused unread.
import type { Plugin } from "graphql-yoga";
import { errorResponse } from "../errors.ts";
import type { Services } from "../../core/context.ts";
import { STORAGE_UPLOADS_PATH, checkUploadUrl, completeStorageUpload } from "../../core/storage/index.ts";

type Body = { kind: "bytes"; bytes: Uint8Array } | { kind: "too-large" } | { kind: "broken" };

async function readBounded(request: Request, maxBytes: number): Promise<Body> {
  if (!request.body) return { kind: "bytes", bytes: new Uint8Array() };
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => {});
        return { kind: "too-large" };
      }
      chunks.push(value);
    }
  } catch {
    return { kind: "broken" };
  }
  return { kind: "bytes", bytes: Buffer.concat(chunks) };
}

export function useStorageUploads(services: Services): Plugin {
  async function upload(request: Request, url: URL): Promise<Response> {
    if (request.method !== "PUT") {
      return errorResponse(405, `Method ${request.method} is not allowed on an upload URL; use PUT with the file as the body`, {
        Allow: "PUT",
      });
    }
    const check = await checkUploadUrl(services, url);
    if (!check.ok) return errorResponse(check.status, check.message);
    const { declaredSize } = check.upload;
    const tooLarge = () =>
      errorResponse(413, `This upload URL accepts at most ${declaredSize} bytes, the size announced for the file`, { Connection: "close" });
    const length = request.headers.get("content-length");
    if (length !== null && Number(length) > declaredSize) return tooLarge();
    const body = await readBounded(request, declaredSize);
    if (body.kind === "too-large") return tooLarge();
    if (body.kind === "broken") return errorResponse(400, "The upload broke off before its end");
    if (body.bytes.byteLength === 0) return errorResponse(400, "The upload is empty: send the file's bytes as the body");
    const stored = await completeStorageUpload(services, check.upload, body.bytes);
    if ("conflict" in stored) return errorResponse(409, stored.conflict);
    return new Response(null, { status: 200, headers: { ETag: `"${stored.hash}"` } });
  }

  return {
    // Not async: every other request passes without a promise.
    onRequest({ request, url, endResponse }) {
      if (url.pathname.startsWith(`${STORAGE_UPLOADS_PATH}/`)) return upload(request, url).then(endResponse);
    },
  };
}
