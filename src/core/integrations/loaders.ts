// Per-request DataLoaders of this domain (composed by src/core/loaders.ts): raw rows, one statement per batch.
import DataLoader from "dataloader";
import type { PrismaClient, Integration, IntegrationInstallation } from "../../generated/prisma/client.ts";
import { byId } from "../loader-kit.ts";

/** Integrations and their installations. */
export function integrationLoaders(prisma: PrismaClient) {
  return {
    integration: byId<Integration>((ids) => prisma.integration.findMany({ where: { id: { in: ids } } })),
    integrationByName: new DataLoader<string, Integration | null>(async (names) => {
      const rows = await prisma.integration.findMany({ where: { name: { in: [...names] } } });
      const found = new Map(rows.map((row) => [row.name, row]));
      return names.map((name) => found.get(name) ?? null);
    }),
    integrationInstallation: byId<IntegrationInstallation>((ids) =>
      prisma.integrationInstallation.findMany({ where: { id: { in: ids } } }),
    ),
    /** Number of spaces each installation is on. */
    installationSpaceCount: new DataLoader<string, number>(async (ids) => {
      const rows = await prisma.integrationSpaceInstallation.groupBy({
        by: ["installationId"],
        where: { installationId: { in: [...ids] } },
        _count: { _all: true },
      });
      const found = new Map(rows.map((row) => [row.installationId, row._count._all]));
      return ids.map((id) => found.get(id) ?? 0);
    }),
    /** The spaces and sites an installation is on (for its tokens' access). */
    installationTargets: new DataLoader<string, { spaceIds: Set<string>; siteIds: Set<string> }>(async (ids) => {
      const [spaces, sites] = await Promise.all([
        prisma.integrationSpaceInstallation.findMany({
          where: { installationId: { in: [...ids] } },
          select: { installationId: true, spaceId: true },
        }),
        prisma.integrationSiteInstallation.findMany({
          where: { installationId: { in: [...ids] } },
          select: { installationId: true, siteId: true },
        }),
      ]);
      return ids.map((id) => ({
        spaceIds: new Set(spaces.filter((row) => row.installationId === id).map((row) => row.spaceId)),
        siteIds: new Set(sites.filter((row) => row.installationId === id).map((row) => row.siteId)),
      }));
    }),
  };
}
