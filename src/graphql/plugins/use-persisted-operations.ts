// Persisted operations on /graphql (issue 35), with Yoga's own plugin: a frontend's build
// registers its documents in a store (a JSON object of `sha256 hex of the document` → document,
// what GraphQL Codegen's and gql.tada's persisted-document outputs write), and the frontend then
// sends `extensions.persistedQuery { version: 1, sha256Hash }` instead of the text. With `only`
// set (production), /graphql runs persisted operations alone: any document sent as text is
// refused (400, CANNOT_SEND_PQ_ID_AND_BODY), an unknown hash too (PERSISTED_QUERY_NOT_IN_LIST).
// REST routes run their own fixed documents and are not concerned.
// The store is checked when the app is built: every key must be its document's hash, and every
// document must parse and validate against the schema, or the service does not start.
import { createHash } from "node:crypto";
import { usePersistedOperations as yogaPersistedOperations } from "@graphql-yoga/plugin-persisted-operations";
import { parse, validate, type GraphQLSchema } from "graphql";
import type { Plugin } from "graphql-yoga";

export interface PersistedOperationsConfig {
  /** sha256 (hex) of a document → the document's text. */
  store: Record<string, string>;
  /** Only persisted operations run on /graphql (documents sent as text are refused). */
  only: boolean;
}

/** The store as a Map, checked against the schema: an entry that is not what its key says fails the start. */
export function checkedStore(store: Record<string, string>, schema: GraphQLSchema): Map<string, string> {
  const checked = new Map<string, string>();
  for (const [hash, document] of Object.entries(store)) {
    if (typeof document !== "string") throw new Error(`persisted operation ${hash}: the document must be a string`);
    const actual = createHash("sha256").update(document).digest("hex");
    if (actual !== hash.toLowerCase()) throw new Error(`persisted operation ${hash}: the document's sha256 is ${actual}`);
    let errors: readonly Error[];
    try {
      errors = validate(schema, parse(document));
    } catch (error) {
      throw new Error(`persisted operation ${hash}: ${(error as Error).message}`);
    }
    if (errors.length) throw new Error(`persisted operation ${hash}: ${errors.map((e) => e.message).join("; ")}`);
    checked.set(actual, document);
  }
  return checked;
}

export function usePersistedOperations(config: PersistedOperationsConfig, schema: GraphQLSchema): Plugin {
  const store = checkedStore(config.store, schema);
  return yogaPersistedOperations({
    getPersistedOperation: (hash) => store.get(hash.toLowerCase()) ?? null,
    allowArbitraryOperations: !config.only,
    customErrors: {
      notFound: { message: "PersistedQueryNotFound", extensions: { code: "PERSISTED_QUERY_NOT_IN_LIST", http: { status: 400 } } },
      keyNotFound: { message: "PersistedQueryKeyNotFound", extensions: { code: "PERSISTED_QUERY_ID_REQUIRED", http: { status: 400 } } },
      persistedQueryOnly: {
        message: "Only persisted operations run here: send extensions.persistedQuery { version: 1, sha256Hash } instead of the document",
        extensions: { code: "CANNOT_SEND_PQ_ID_AND_BODY", http: { status: 400 } },
      },
    },
  }) as Plugin;
}
