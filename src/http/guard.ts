// No exception escapes to the client as text: Yoga's server adapter answers an error thrown by a
// request hook with its stack trace as a plain-text 500. Each plugin's onRequest is wrapped so
// that such an error is logged and answered as the error envelope of the surface asked.
import type { Plugin } from "graphql-yoga";
import { errorResponse } from "./errors.ts";
import type { Logger } from "../logger.ts";

export function unexpectedErrorResponse(url: URL, graphqlEndpoint: string): Response {
  if (url.pathname === graphqlEndpoint) {
    return Response.json(
      { errors: [{ message: "Unexpected error", extensions: { code: "INTERNAL_SERVER_ERROR", http: { status: 500 } } }] },
      { status: 500 },
    );
  }
  return errorResponse(500, "Unexpected error");
}

export interface GuardOptions {
  logger?: Logger;
  requestIdOf?(request: Request): string | undefined;
  graphqlEndpoint?: string;
}

/** Logs an error a request hook threw (unless its client went away), as a JSON line with the request id, and answers it as the envelope of the surface asked. */
function failRequest(
  payload: { request: Request; url: URL; endResponse(response: Response): void },
  options: GuardOptions,
  error: unknown,
) {
  // A client that went away mid-request (its body cut off) is no server error.
  const gone = payload.request.signal.aborted || (error as { name?: unknown } | null)?.name === "AbortError";
  if (!gone) {
    const line = { reqId: options.requestIdOf?.(payload.request), method: payload.request.method, path: payload.url.pathname, err: error };
    if (options.logger) options.logger.error(line, "unexpected error while answering");
    else console.error("Unexpected error:", error);
  }
  payload.endResponse(unexpectedErrorResponse(payload.url, options.graphqlEndpoint ?? "/graphql"));
}

export function guardRequestHooks<T extends Plugin<any>>(plugin: T, options: GuardOptions = {}): T {
  const onRequest = plugin.onRequest;
  if (!onRequest) return plugin;
  return {
    ...plugin,
    // Sync when the hook is: a hook that lets the request pass (most do, for most paths) costs
    // no promise, no microtask and no closure here (issue 15).
    onRequest(payload) {
      let result: unknown;
      try {
        result = onRequest.call(plugin, payload);
      } catch (error) {
        failRequest(payload, options, error);
        return;
      }
      if (result instanceof Promise) return result.then(undefined, (error) => failRequest(payload, options, error));
    },
  };
}

type RequestHook = NonNullable<Plugin["onRequest"]>;
type RequestPayload = Parameters<RequestHook>[0];
type ResponseHook = NonNullable<Plugin["onResponse"]>;
type ResponsePayload = Parameters<ResponseHook>[0];

const isThenable = (value: unknown): value is PromiseLike<unknown> => typeof (value as PromiseLike<unknown> | null)?.then === "function";

/**
 * The plugins with their `onRequest` hooks run as one hook, and their `onResponse` hooks as one,
 * each in the plugins' order and placed where the first of them was (issue 15). The server adapter
 * (@whatwg-node/server) runs every registered hook through its promise helpers, with a payload,
 * fake promises and closures per hook and request: 11 request hooks and 3 response hooks made
 * about 15 KB of allocation per request before any work. The composed hooks keep the adapter's
 * rules: hooks run in order, a hook's promise is awaited before the next runs, the first
 * `endResponse` with a response stops the request hooks, and each response hook sees the response
 * the ones before it set. Yoga's own plugins and any other hook stay as they were.
 */
export function composeHooks(plugins: Plugin<any>[]): Plugin<any>[] {
  const requestHooks: { hook: RequestHook; plugin: Plugin<any> }[] = [];
  const responseHooks: { hook: ResponseHook; plugin: Plugin<any> }[] = [];
  for (const plugin of plugins) {
    if (plugin.onRequest) requestHooks.push({ hook: plugin.onRequest, plugin });
    if (plugin.onResponse) responseHooks.push({ hook: plugin.onResponse, plugin });
  }
  const onRequest: RequestHook = (outer) => {
    let ended = false;
    const payload: RequestPayload = {
      request: outer.request,
      setRequest(request) {
        outer.setRequest(request);
        payload.request = request;
      },
      serverContext: outer.serverContext,
      fetchAPI: outer.fetchAPI,
      url: outer.url,
      requestHandler: outer.requestHandler,
      setRequestHandler(handler) {
        outer.setRequestHandler(handler);
        payload.requestHandler = handler;
      },
      endResponse(response) {
        outer.endResponse(response);
        if (response) ended = true;
      },
    };
    const run = (from: number): unknown => {
      for (let index = from; index < requestHooks.length; index++) {
        const { hook, plugin } = requestHooks[index];
        const result = hook.call(plugin, payload);
        if (isThenable(result)) return result.then(() => (ended ? undefined : run(index + 1)));
        if (ended) return undefined;
      }
      return undefined;
    };
    return run(0) as ReturnType<RequestHook>;
  };
  const onResponse: ResponseHook = (outer) => {
    const payload: ResponsePayload = {
      request: outer.request,
      response: outer.response,
      serverContext: outer.serverContext,
      setResponse(response) {
        outer.setResponse(response);
        payload.response = response;
      },
      fetchAPI: outer.fetchAPI,
    };
    const run = (from: number): unknown => {
      for (let index = from; index < responseHooks.length; index++) {
        const { hook, plugin } = responseHooks[index];
        const result = hook.call(plugin, payload);
        if (isThenable(result)) return result.then(() => run(index + 1));
      }
      return undefined;
    };
    return run(0) as ReturnType<ResponseHook>;
  };
  const composed: Plugin<any>[] = [];
  for (const plugin of plugins) {
    let rest: Plugin<any> = plugin;
    if (plugin.onRequest || plugin.onResponse) {
      const { onRequest: _request, onResponse: _response, ...others } = plugin;
      rest = others;
      if (plugin === requestHooks[0]?.plugin) composed.push({ onRequest });
      if (plugin === responseHooks[0]?.plugin) composed.push({ onResponse });
    }
    composed.push(rest);
  }
  return composed;
}
