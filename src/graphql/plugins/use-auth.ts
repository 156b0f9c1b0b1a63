// Authentication for both surfaces: the bearer token becomes the viewer of a fresh core context
// (fresh loaders, fresh access cache) for each request.
import type { Plugin } from "graphql-yoga";
import { authenticate } from "../../auth/tokens.ts";
import { createCoreContext, type Services } from "../../core/context.ts";
import { DomainError } from "../../core/errors.ts";
import { toGraphQLError } from "./use-error-masking.ts";

export function useAuth(services: Services): Plugin<{ request: Request }> {
  return {
    async onContextBuilding({ context, extendContext }) {
      try {
        const viewer = await authenticate(services.prisma, context.request.headers.get("authorization"), services.clock);
        extendContext({ core: createCoreContext(services, viewer) } as never);
      } catch (error) {
        throw error instanceof DomainError ? toGraphQLError(error) : error;
      }
    },
  };
}
