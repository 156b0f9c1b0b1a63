// Per-request DataLoaders of this domain (composed by src/core/loaders.ts): raw rows, one statement per batch.
import DataLoader from "dataloader";
import type { PrismaClient, Revision } from "../../generated/prisma/client.ts";
import { byId } from "../loader-kit.ts";
import type { RevisionCache } from "./cache.ts";

/** Revisions and the bytes their pages and files point at. */
export function contentLoaders(prisma: PrismaClient, _viewerUserId: string | null, _loaders: never, cache: RevisionCache) {
  return {
    /** Revisions, immutable: decoded once per app (`Services.revisions`), read again only after eviction. */
    revision: byId<Revision>(async (ids) => {
      const missing = ids.filter((id) => !cache.has(id));
      if (missing.length) for (const row of await prisma.revision.findMany({ where: { id: { in: missing } } })) cache.set(row.id, row);
      return ids.map((id) => cache.get(id)).filter((row): row is Revision => row !== undefined);
    }),
    /** Blob bytes by SHA-256 (page markdown, file contents). */
    blob: new DataLoader<string, Uint8Array | null>(async (hashes) => {
      const rows = await prisma.blob.findMany({ where: { hash: { in: [...hashes] } } });
      const found = new Map(rows.map((row) => [row.hash, row.data as Uint8Array]));
      return hashes.map((hash) => found.get(hash) ?? null);
    }),
  };
}
