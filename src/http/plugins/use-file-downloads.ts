// Files over HTTP, beside GraphQL: serves the signed download URLs (`/files/{hash}/{name}?…`,
// see src/core/content/files.ts) without a bearer token, and bounds multipart upload requests to
// /graphql before Yoga reads them.
import type { Plugin } from "graphql-yoga";
import { errorResponse } from "../errors.ts";
import type { Services } from "../../core/context.ts";
import { FILES_PATH, MAX_FILE_BYTES, MAX_UPLOAD_REQUEST_BYTES, checkDownload } from "../../core/content/files.ts";
import { essenceOf } from "../../core/content/media-types.ts";

/** Shown in the page (`inline`); anything else is downloaded, so that HTML, SVG or XML uploaded
 * to a space can never run script in this origin (stored XSS). */
const INLINE_TYPES: ReadonlySet<string> = new Set([
  "image/png",
  "image/jpeg",
  "image/gif",
  "image/webp",
  "image/avif",
  "image/bmp",
  "image/x-icon",
  "image/vnd.microsoft.icon",
  "image/tiff",
  "video/mp4",
  "video/webm",
  "video/quicktime",
  "audio/mpeg",
  "audio/wav",
  "audio/ogg",
  "application/pdf",
  "text/plain",
]);

const MAX_AGE_CAP_SECONDS = 365 * 24 * 60 * 60;

/** RFC 6266 / 5987: an ASCII fallback and the exact UTF-8 name. */
function contentDisposition(kind: "inline" | "attachment", name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%]/g, "_");
  const exact = encodeURIComponent(name).replace(/['()*!]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${kind}; filename="${fallback}"; filename*=UTF-8''${exact}`;
}

function jsonError(status: number, message: string, code: string, headers: Record<string, string> = {}) {
  return Response.json({ errors: [{ message, extensions: { code, http: { status } } }] }, { status, headers });
}

export function useFileDownloads(services: Services): Plugin {
  let graphqlEndpoint = "/graphql";

  async function download(request: Request, url: URL): Promise<Response> {
    if (request.method !== "GET" && request.method !== "HEAD") {
      return errorResponse(405, `Method ${request.method} is not allowed on a file; use GET`, { Allow: "GET, HEAD" });
    }
    const check = checkDownload(services.signer, url);
    if (!check.ok) {
      return errorResponse(check.status, check.message);
    }
    const head = request.method === "HEAD";
    const blob = await services.prisma.blob.findUnique({
      where: { hash: check.blob },
      select: head ? { size: true } : { size: true, data: true },
    });
    if (!blob) return errorResponse(404, "No such file");

    const essence = essenceOf(check.contentType);
    const inline = INLINE_TYPES.has(essence);
    const remaining = Math.max(0, check.expires - services.signer.nowSeconds());
    const headers: Record<string, string> = {
      "Content-Type": check.contentType,
      "Content-Length": String(blob.size),
      "Content-Disposition": contentDisposition(inline ? "inline" : "attachment", check.name),
      // The bytes under a hash never change; the URL is good until it expires.
      "Cache-Control": `public, max-age=${Math.min(remaining, MAX_AGE_CAP_SECONDS)}, immutable`,
      ETag: `"${check.blob}"`,
      "X-Content-Type-Options": "nosniff",
      // Even if a browser rendered one of these bytes as a document, no script, no requests.
      ...(essence === "application/pdf" ? {} : { "Content-Security-Policy": "default-src 'none'; sandbox" }),
      "Cross-Origin-Resource-Policy": "cross-origin",
    };
    if (request.headers.get("if-none-match") === headers.ETag) {
      const { "Content-Length": _length, ...rest } = headers;
      return new Response(null, { status: 304, headers: rest });
    }
    const data = head ? null : (blob as unknown as { data: Uint8Array }).data;
    return new Response(data && new Uint8Array(data), { status: 200, headers });
  }

  return {
    onYogaInit({ yoga }) {
      graphqlEndpoint = yoga.graphqlEndpoint;
    },
    // Not async: every other request passes without a promise.
    onRequest({ request, url, endResponse }) {
      if (url.pathname.startsWith(`${FILES_PATH}/`)) return download(request, url).then(endResponse);
      // Upload requests: refuse a multipart body that is too large, or of unknown length, before
      // Yoga reads it into memory. (Each file's own limit is checked, naming it, by uploadFiles.)
      if (
        url.pathname === graphqlEndpoint &&
        request.method === "POST" &&
        (request.headers.get("content-type") ?? "").toLowerCase().startsWith("multipart/form-data")
      ) {
        const length = request.headers.get("content-length");
        if (length === null) {
          endResponse(jsonError(411, "A multipart upload needs a Content-Length header", "LENGTH_REQUIRED"));
        } else if (Number(length) > MAX_UPLOAD_REQUEST_BYTES) {
          endResponse(
            jsonError(
              413,
              `Upload request body is ${length} bytes: at most ${MAX_UPLOAD_REQUEST_BYTES} bytes in one request, and ${MAX_FILE_BYTES} bytes per file`,
              "PAYLOAD_TOO_LARGE",
              { Connection: "close" },
            ),
          );
        }
      }
    },
  };
}
