// Site scripts of integrations over HTTP, beside GraphQL: `GET /v1/integrations/{name}/
// installations/{installationId}/sites/{siteId}/script.js`, the URL that
// `GET …/sites/{siteId}/integration-scripts` names (src/core/integrations/site-scripts.ts). No
// bearer token: published pages load it. Refusals use the REST error envelope.
import type { Plugin } from "graphql-yoga";
import { errorResponse } from "../errors.ts";
import type { Services } from "../../core/context.ts";
import { DomainError } from "../../core/errors.ts";
import { fetchPublishedScript } from "../../core/integrations/site-scripts.ts";

const SCRIPT_PATH = /^\/v1\/integrations\/([a-zA-Z0-9-_.]+)\/installations\/([^/]+)\/sites\/([^/]+)\/script\.js$/;

export function useIntegrationScripts(services: Services): Plugin {
  async function serve(request: Request, match: RegExpMatchArray): Promise<Response> {
    if (request.method !== "GET" && request.method !== "HEAD") {
      return errorResponse(405, `Method ${request.method} is not allowed on a script; use GET`, { Allow: "GET, HEAD" });
    }
    let parts: string[];
    try {
      parts = match.slice(1).map((part) => decodeURIComponent(part));
    } catch {
      return errorResponse(404, "No such integration script");
    }
    try {
      const [name, installationId, siteId] = parts;
      const script = await fetchPublishedScript(services, name!, installationId!, siteId!);
      return new Response(request.method === "HEAD" ? null : script.body, { status: 200, headers: script.headers });
    } catch (error) {
      if (error instanceof DomainError) return errorResponse(error.status, error.message);
      services.logger.error({ err: error }, "integration site script failed");
      return errorResponse(500, "Unexpected error");
    }
  }

  return {
    // Not async: every other request passes without a promise.
    onRequest({ request, url, endResponse }) {
      const match = url.pathname.match(SCRIPT_PATH);
      if (match) return serve(request, match).then(endResponse);
    },
  };
}
