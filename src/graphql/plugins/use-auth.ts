// Authentication for both surfaces: the bearer token becomes the viewer of a fresh core context
// (fresh loaders, fresh access cache) for each request.
import type { Plugin } from "graphql-yoga";
import { createCoreContext, type Services } from "../../core/context.ts";
import { DomainError } from "../../core/errors.ts";
import { toGraphQLError } from "./use-error-masking.ts";

export function useAuth(services: Services): Plugin<{ request: Request }> {
  return {
    // Not async for a token the cache answers for (nearly every request): the context is built
    // without a promise (issue 15).
    onContextBuilding({ context, extendContext }) {
      const authorization = context.request.headers.get("authorization");
      const cached = services.tokens.cachedViewer(authorization);
      if (cached) {
        extendContext({ core: createCoreContext(services, cached) } as never);
        return;
      }
      return services.tokens.authenticate(authorization).then(
        (viewer) => extendContext({ core: createCoreContext(services, viewer) } as never),
        (error) => {
          throw error instanceof DomainError ? toGraphQLError(error) : error;
        },
      );
    },
  };
}
