// Typed GraphQL documents for REST rows (gql.tada): the type of an operation's `data` is read from
// the document and the schema's introspection (graphql-env.d.ts, written by `npm run schema`), so
// `tsc` checks every field a row's body reads. Offline: nothing is fetched, nothing generated at
// build time.
import { initGraphQLTada } from "gql.tada";
import type { introspection } from "./graphql-env.d.ts";

export const graphql = initGraphQLTada<{
  introspection: introspection;
  // Fragments spread into a row's operation are part of its result type (no masking).
  disableMasking: true;
  scalars: { DateTime: string; JSON: unknown };
}>();

export type { FragmentOf, ResultOf } from "gql.tada";
