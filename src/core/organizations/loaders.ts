import type { Organization, PrismaClient } from "../../generated/prisma/client.ts";
import { byId, rawRows } from "../loaders.ts";

/** The organizations. */
export function organizationLoaders(prisma: PrismaClient) {
  return {
    organization: byId<Organization>((ids) => rawRows.organizations(prisma, ids)),
  };
}
