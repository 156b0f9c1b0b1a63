// Per-request DataLoaders of this domain (composed by src/core/loaders.ts): raw rows, one statement per batch.
import DataLoader from "dataloader";
import type { ChangeRequest, PrismaClient } from "../../generated/prisma/client.ts";
import { byId } from "../loader-kit.ts";

/** Change requests. */
export function changeRequestLoaders(prisma: PrismaClient) {
  return {
    changeRequest: byId<ChangeRequest>((ids) => prisma.changeRequest.findMany({ where: { id: { in: ids } } })),
    /** A change request by `${spaceId}:${number}`. */
    changeRequestByNumber: new DataLoader<string, ChangeRequest | null>(async (keys) => {
      const pairs = keys.map((key) => ({ spaceId: key.slice(0, key.indexOf(":")), number: Number(key.slice(key.indexOf(":") + 1)) }));
      const rows = await prisma.changeRequest.findMany({ where: { OR: pairs } });
      const found = new Map(rows.map((row) => [`${row.spaceId}:${row.number}`, row]));
      return keys.map((key) => found.get(key) ?? null);
    }),
    /** The change request whose merge made a revision. */
    changeRequestMergedInto: new DataLoader<string, ChangeRequest | null>(async (revisionIds) => {
      const rows = await prisma.changeRequest.findMany({ where: { revisionMergedId: { in: [...revisionIds] } } });
      const found = new Map(rows.map((row) => [row.revisionMergedId!, row]));
      return revisionIds.map((id) => found.get(id) ?? null);
    }),
  };
}
