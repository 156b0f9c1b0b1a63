import type { PrismaClient, OpenAPISpec } from "../../generated/prisma/client.ts";
import { byId } from "../loader-kit.ts";

/** OpenAPI specs. */
export function openAPILoaders(prisma: PrismaClient) {
  return {
    openAPISpec: byId<OpenAPISpec>((ids) => prisma.openAPISpec.findMany({ where: { id: { in: ids } } })),
  };
}
