// No exception escapes to the client as text: Yoga's server adapter answers an error thrown by a
// request hook with its stack trace as a plain-text 500. Each plugin's onRequest is wrapped so
// that such an error is logged and answered as the error envelope of the surface asked.
import type { Plugin } from "graphql-yoga";
import { errorResponse } from "./errors.ts";
import type { Logger } from "../logger.ts";
import { isThenable } from "../core/thenable.ts";

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
      if (isThenable(result)) return result.then(undefined, (error) => failRequest(payload, options, error));
    },
  };
}
