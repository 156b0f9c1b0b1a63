// Process-wide caches of immutable content, bounded in memory. A revision never changes once
// written and a body is named by its SHA-256, so neither can go stale: only memory bounds them.
import { LRUCache } from "lru-cache";
import type { Revision } from "../../generated/prisma/client.ts";
import { markdownToDocument, type JsonDocument } from "./document.ts";

/** Bytes of decoded revisions (page tree, files …) kept per database; estimated from their JSON. */
export const REVISION_CACHE_BYTES = 64 * 1024 * 1024;
/** Parsed page documents kept, counted as four times their markdown. */
export const DOCUMENT_CACHE_BYTES = 64 * 1024 * 1024;

export type RevisionCache = LRUCache<string, Revision>;

/** Revisions by id, for one database (ids are only unique within one): one per app, in `Services`. */
export function createRevisionCache(): RevisionCache {
  return new LRUCache<string, Revision>({
    maxSize: REVISION_CACHE_BYTES,
    sizeCalculation: (revision) =>
      1024 + JSON.stringify([revision.pages, revision.files, revision.reusableContents, revision.variables, revision.parentIds]).length,
  });
}

// Keyed by content hash alone: the same markdown parses to the same document in any database.
const documents = new LRUCache<string, JsonDocument>({ maxSize: DOCUMENT_CACHE_BYTES });

/**
 * The parsed document of a body named by its hash; `markdown` is asked for only on a miss. The
 * same object is handed to every caller: it must not be changed.
 */
export async function cachedDocument(hash: string, markdown: () => Promise<string>): Promise<JsonDocument> {
  const cached = documents.get(hash);
  if (cached) return cached;
  const text = await markdown();
  const document = markdownToDocument(text);
  documents.set(hash, document, { size: 256 + 4 * text.length });
  return document;
}
