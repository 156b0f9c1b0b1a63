import type { CustomFont, PrismaClient } from "../../generated/prisma/client.ts";
import { byId } from "../loader-kit.ts";

/** Custom fonts by id (raw rows: visibility is decided in src/core/fonts). */
export function fontLoaders(prisma: PrismaClient) {
  return {
    customFont: byId<CustomFont>((ids) => prisma.customFont.findMany({ where: { id: { in: ids } } })),
  };
}
