// Public endpoints of integrations over HTTP, beside GraphQL: any method under
// `/v1/integrations/{name}/integration[/installations/{installationId}][/…]` is delivered to the
// script as a `fetch` event and answered with its Response (src/core/integrations/endpoints.ts).
// No bearer token: these are the integration's own endpoints. Refusals use the REST error
// envelope: 413 for a body over INTEGRATION_ENDPOINT_MAX_REQUEST_BYTES, 404, 502.
import type { Plugin } from "graphql-yoga";
import type { Services } from "../../core/context.ts";
import { DomainError } from "../../core/errors.ts";
import { answerEndpointRequest, type EndpointTarget, endpointOf } from "../../core/integrations/endpoints.ts";
import { readBytesUpTo } from "../body.ts";
import { errorResponse } from "../errors.ts";

export function useIntegrationEndpoints(services: Services): Plugin {
  async function serve(request: Request, url: URL, target: EndpointTarget): Promise<Response> {
    const limit = services.integrations.settings.endpointMaxRequestBytes;
    const tooLarge = () => errorResponse(413, `The request body is larger than the limit of ${limit} bytes of an integration endpoint`);
    let body: Uint8Array<ArrayBuffer> | null = null;
    if (request.method !== "GET" && request.method !== "HEAD") {
      const declared = Number(request.headers.get("content-length") ?? 0);
      if (declared > limit) return tooLarge();
      body = await readBytesUpTo(request, limit);
      if (!body) return tooLarge();
    }
    try {
      const answer = await answerEndpointRequest(services, target, {
        method: request.method,
        url: services.urls.absolute(url.pathname + url.search),
        headers: request.headers,
        body,
      });
      const nothing = request.method === "HEAD" || [204, 205, 304].includes(answer.status);
      return new Response(nothing ? null : answer.body, { status: answer.status, headers: answer.headers });
    } catch (error) {
      if (error instanceof DomainError) return errorResponse(error.status, error.message);
      services.logger.error({ err: error }, "integration endpoint failed");
      return errorResponse(502, "The integration could not answer");
    }
  }

  return {
    // Not async: every other request passes without a promise.
    onRequest({ request, url, endResponse }) {
      const target = endpointOf(url.pathname);
      if (target) return serve(request, url, target).then(endResponse);
    },
  };
}
