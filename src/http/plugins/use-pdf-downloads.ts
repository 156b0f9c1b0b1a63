// Change request and space PDFs over HTTP, beside GraphQL: serves the signed URLs of `pdfUrlOf`
// (`/pdf/{changeRequestId or spaceId}/{revisionId}?…&expires=…&sig=…`, src/core/change-requests/pdf.ts)
// without a bearer token: the signature is the authorization, as for file downloads. Refusals
// use the REST error envelope: 403 for a bad signature, 410 once expired, 404 for no such PDF.
import type { Plugin } from "graphql-yoga";
import { errorResponse } from "../errors.ts";
import { PDF_PATH, checkPdfUrl, renderPdf } from "../../core/change-requests/pdf.ts";
import type { Services } from "../../core/context.ts";

export function usePdfDownloads(services: Services): Plugin {
  async function serve(request: Request, url: URL): Promise<Response> {
    if (request.method !== "GET" && request.method !== "HEAD") {
      return errorResponse(405, `Method ${request.method} is not allowed on a PDF; use GET`, { Allow: "GET, HEAD" });
    }
    const check = checkPdfUrl(services.signer, services.clock, url);
    if (!check.ok) return errorResponse(check.status, check.message);
    const pdf = await renderPdf(services, check.target);
    if (!pdf) return errorResponse(404, "The content of this PDF no longer exists");
    const remaining = Math.max(0, check.expires - Math.floor(services.clock.now().getTime() / 1000));
    return new Response(new Uint8Array(pdf.bytes), {
      status: 200,
      headers: {
        "Content-Type": "application/pdf",
        "Content-Length": String(pdf.bytes.length),
        "Content-Disposition": `inline; filename="${pdf.filename}"`,
        // The URL is a capability for one person: no shared caches; its bytes never change.
        "Cache-Control": `private, max-age=${remaining}, immutable`,
        "X-Content-Type-Options": "nosniff",
      },
    });
  }

  return {
    // Not async: every other request passes without a promise.
    onRequest({ request, url, endResponse }) {
      if (!url.pathname.startsWith(`${PDF_PATH}/`)) return;
      return serve(request, url).then((response) =>
        endResponse(request.method === "HEAD" ? new Response(null, { status: response.status, headers: response.headers }) : response),
      );
    },
  };
}
