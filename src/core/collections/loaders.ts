import type { Collection, PrismaClient } from "../../generated/prisma/client.ts";
import { byId, rawRows } from "../loader-kit.ts";

/** Collections. */
export function collectionLoaders(prisma: PrismaClient) {
  return {
    collection: byId<Collection>((ids) => rawRows.collections(prisma, ids)),
  };
}
