import type { PrismaClient, TranslationSettings, TranslationTarget } from "../../generated/prisma/client.ts";
import { byId, groupedBy } from "../loader-kit.ts";

/** Translations and their targets. */
export function translationLoaders(prisma: PrismaClient) {
  return {
    translation: byId<TranslationSettings>((ids) => prisma.translationSettings.findMany({ where: { id: { in: ids } } })),
    /** The targets of each translation (by translation id). */
    translationTargets: groupedBy<TranslationTarget>(
      (row) => [row.translationId],
      (ids) => prisma.translationTarget.findMany({ where: { translationId: { in: ids } } }),
    ),
  };
}
