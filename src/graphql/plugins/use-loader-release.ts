// When an operation's result is complete, its per-request caches let go of what they loaded, so
// that the request's objects die young (issue 15: the paced p99 is made of scavenge pauses, and a
// scavenge's pause is the copying of what survives it).
//
// @pothos/plugin-dataloader keeps each request's DataLoaders in module-level WeakMaps keyed by the
// GraphQL context (`createContextCache` in @pothos/core), and every DataLoader closes over that
// context. V8's scavenger treats the values of a WeakMap whose table is in the old generation as
// alive whatever their key, and clears an entry only once its key is found dead: a value that
// reaches its own key keeps the entry, and with it the whole request (context, loaders, rows,
// promises, the Request), through every scavenge until a major GC; about 16 % of what a read
// allocated was copied and promoted so. At the end of the operation, here:
// - the DataLoaders' entries that can be deleted are (each loadable type's `getDataloader.delete`),
//   and every Pothos loader's cache is cleared (`clearAllDataLoaders`);
// - the entries that cannot (the plugin's set of all loaders, Relay's node cache) were keyed, for
//   this operation, by a small object on the context (`Symbol.for("Pothos.contextCache")`, which
//   `createContextCache` uses as the key when present) that is taken off the context now: their key
//   is then dead, and the next scavenge drops them;
// - the request's own loaders (src/core/loaders.ts) forget the domains they built, and the list
//   memos of its scope (prepared spaces, visible parents) are dropped.
// Nothing is released while anything can still use it: an operation whose result is a stream is
// released when the stream ends, and one that was stopped (deadline, client gone) not at all (its
// resolvers may still be unwinding; its memory goes at the next major GC, as before). A later use
// of the same context (none today) builds fresh loaders: answers stay right, only uncached.
import { clearAllDataLoaders } from "@pothos/plugin-dataloader";
import type { GraphQLSchema } from "graphql";
import type { Plugin } from "graphql-yoga";
import { releaseLoaders } from "../../core/loaders.ts";
import type { CoreContext } from "../../core/context.ts";

/** `createContextCache`'s key, when a context has it (@pothos/core, `initContextCache`). */
const CONTEXT_CACHE = Symbol.for("Pothos.contextCache");

/** The key of one context's Pothos caches while it runs operations (how many). */
class CacheKey {
  running = 0;
}

type Context = { [CONTEXT_CACHE]?: object; core?: CoreContext };

export function useLoaderRelease(schema: GraphQLSchema): Plugin {
  // Every loadable type's per-context DataLoader cache (the dataloader plugin puts its getter in
  // the type's extensions, with a `delete`).
  const caches: { delete(context: object): void }[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    const getter = (type.extensions as { getDataloader?: { delete?: unknown } } | undefined)?.getDataloader;
    if (typeof getter?.delete === "function") caches.push(getter as { delete(context: object): void });
  }

  const release = (context: Context, key: CacheKey) => {
    if (--key.running > 0) return;
    clearAllDataLoaders(context);
    for (const cache of caches) cache.delete(context);
    context[CONTEXT_CACHE] = undefined;
    const core = context.core;
    if (core) {
      core.scope.release();
      releaseLoaders(core.loaders);
    }
  };

  return {
    onExecute({ args }) {
      const context = args.contextValue as Context;
      const given = context[CONTEXT_CACHE];
      // A key someone else gave the context is theirs to manage: nothing is released then.
      if (given !== undefined && !(given instanceof CacheKey)) return;
      const own = given ?? (context[CONTEXT_CACHE] = new CacheKey());
      own.running++;
      return {
        onExecuteDone({ result }) {
          if (isAsyncIterable(result)) return { onEnd: () => release(context, own) };
          release(context, own);
        },
      };
    },
  };
}

const isAsyncIterable = (value: unknown): value is AsyncIterable<unknown> =>
  typeof value === "object" && value !== null && Symbol.asyncIterator in value;
