// /graphql documents a client sends again run compiled (graphql-jit), as the REST routes' fixed
// documents do: graphql-js interprets a document on every execution (collecting fields, resolving
// each field's info and arguments anew), where graphql-jit turns it once into a function.
//
// The compiled functions live in one bounded LRU cache keyed by the operation's node in the parsed
// document, so that no client can grow it: a client sending ever new documents only makes them
// compete for its entries (and each is compiled only on its second execution, so a document seen
// once costs no compilation). Yoga already keeps the parsed and validated document by its text
// (its parser and validation cache) and hands a repeated document's same nodes again, so a
// repeated document is neither parsed nor validated again, and is found here without reading its
// text; this adds its execution.
//
// Left to graphql-js: subscriptions (an event stream, not one result), documents using @defer or
// @stream (incremental delivery, which graphql-jit does not implement), and a document graphql-jit
// cannot compile (it is remembered, and not tried again while it stays in the cache).
import { getDocumentString } from "@envelop/core";
import { getVariableValues, Kind, type DocumentNode, type ExecutionArgs, type OperationDefinitionNode } from "graphql";
import { compileQuery, isCompiledQuery, type CompiledQuery } from "graphql-jit";
import type { Plugin } from "graphql-yoga";
import { LRUCache } from "lru-cache";
import { urlOf } from "../../http/request-url.ts";

export interface CompiledExecutionOptions {
  /** Documents (by operation) kept compiled or counted; the least recently used one leaves first. */
  maxDocuments: number;
  /** Executions of a document before it is compiled: 2 compiles what a client repeats. */
  compileAfter: number;
}

export const DEFAULT_COMPILED_EXECUTION: CompiledExecutionOptions = { maxDocuments: 500, compileAfter: 2 };

/** A cache entry: how often the document ran, and its compiled form once it has one (null: graphql-jit refused it). */
interface Entry {
  runs: number;
  compiled?: Compiled | null;
}

interface Compiled {
  query: CompiledQuery;
  operation: OperationDefinitionNode;
}

/** The operation a request runs (its name, else the only one), or undefined. */
function operationOf(document: DocumentNode, operationName: string | null | undefined): OperationDefinitionNode | undefined {
  let found: OperationDefinitionNode | undefined;
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    if (operationName ? definition.name?.value === operationName : found === undefined) found = definition;
    else if (!operationName) return undefined; // several operations and no name: graphql-js answers the error
  }
  return found;
}

export function useCompiledExecution(options: Partial<CompiledExecutionOptions> = {}): Plugin & {
  /** How many documents are cached and how many of them are compiled (tests, metrics). */
  stats(): { documents: number; compiled: number };
} {
  const { maxDocuments, compileAfter } = { ...DEFAULT_COMPILED_EXECUTION, ...options };
  const cache = new LRUCache<OperationDefinitionNode, Entry>({ max: maxDocuments });
  let graphqlEndpoint = "/graphql";

  function compiledFor(args: ExecutionArgs): Compiled | undefined {
    const operation = operationOf(args.document, args.operationName);
    if (!operation) return undefined; // graphql-js answers the error
    let entry = cache.get(operation);
    if (entry === undefined) {
      const text = getDocumentString(args.document);
      // Left to graphql-js: a subscription; @defer/@stream (incremental delivery: the text test is
      // cheap and errs on the safe side); a document that did not come through the parser (a REST
      // route's, parsed at start) has no text here.
      const compilable =
        operation.operation !== "subscription" && text !== undefined && !text.includes("@defer") && !text.includes("@stream");
      cache.set(operation, (entry = compilable ? { runs: 0 } : { runs: 0, compiled: null }));
    }
    if (entry.compiled !== undefined) return entry.compiled ?? undefined;
    if (++entry.runs < compileAfter) return undefined;
    const compiled = compileQuery(args.schema, args.document, args.operationName ?? undefined);
    entry.compiled = isCompiledQuery(compiled) ? { query: compiled, operation } : null;
    return entry.compiled ?? undefined;
  }

  return {
    onYogaInit({ yoga }) {
      graphqlEndpoint = yoga.graphqlEndpoint;
    },
    onExecute({ args, executeFn, setExecuteFn }) {
      // Only /graphql: the REST routes' documents are compiled by the REST adapter.
      const request = (args.contextValue as { request?: Request }).request;
      if (!request || urlOf(request).pathname !== graphqlEndpoint) return;
      const compiled = compiledFor(args);
      if (!compiled) return;
      setExecuteFn((executeArgs) => {
        // Variables that do not coerce are answered by graphql-js, whose errors (message, location,
        // status) clients get on the first execution: graphql-jit words them differently and
        // names the wrong variable for a bad field of an input object.
        const variables = getVariableValues(
          executeArgs.schema,
          compiled.operation.variableDefinitions ?? [],
          (executeArgs.variableValues ?? {}) as Record<string, unknown>,
          { maxErrors: 50 },
        );
        if (variables.errors) return executeFn(executeArgs);
        return compiled.query.query(executeArgs.rootValue, executeArgs.contextValue, executeArgs.variableValues) as never;
      });
    },
    stats() {
      let compiled = 0;
      for (const entry of cache.values()) if (entry.compiled) compiled++;
      return { documents: cache.size, compiled };
    },
  };
}
