// Automatic Persisted Queries on /graphql (issue 35), with Yoga's own plugin: a client (Apollo's
// persisted-queries link, urql's, Relay's) sends `extensions.persistedQuery { version: 1,
// sha256Hash }` without the text; an unknown hash answers 404 PERSISTED_QUERY_NOT_FOUND, the
// client sends the text with its hash once (400 PERSISTED_QUERY_MISMATCH when they differ), and
// later requests carry the hash alone. The hashes a frontend's build registered
// (PERSISTED_OPERATIONS_FILE) answer too. Not served when only persisted operations may run
// (PERSISTED_OPERATIONS_ONLY): a client could then register any document.
// Bounded: the documents clients register are kept per app in an LRU of APQ_DOCUMENTS entries,
// each at most APQ_DOCUMENT_MAX_BYTES (a longer one runs but is not kept), for an hour; a kept
// document is only text: sent by its hash it is parsed, validated, costed and authorized as
// if sent in full.
import { useAPQ } from "@graphql-yoga/plugin-apq";
import { createLRUCache, type Plugin } from "graphql-yoga";

export const APQ_DOCUMENTS = 1000;
export const APQ_DOCUMENT_MAX_BYTES = 32 * 1024;
const APQ_TTL_MS = 3_600_000;

/** `registered`: the build's persisted operations (sha256 hex → document), answered first. */
export function useAutomaticPersistedQueries(registered: ReadonlyMap<string, string> = new Map()): Plugin {
  const kept = createLRUCache<string>({ max: APQ_DOCUMENTS, ttl: APQ_TTL_MS });
  return useAPQ({
    store: {
      get: (hash) => registered.get(hash) ?? kept.get(hash) ?? null,
      set: (hash, document) => {
        if (Buffer.byteLength(document) <= APQ_DOCUMENT_MAX_BYTES) kept.set(hash, document);
      },
    },
  }) as Plugin;
}
