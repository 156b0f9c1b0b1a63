// The parsed URL of a request, parsed once: Yoga's Request (@whatwg-node/node-fetch) keeps the URL
// its server adapter parsed to route the request (the `url` of every onRequest hook), so a hook
// that sees only the request reads that one instead of parsing the string again (issue 15). Any
// other Request is parsed here, the same way.
export function urlOf(request: Request): URL {
  return (request as { parsedUrl?: URL }).parsedUrl ?? new URL(request.url, "http://localhost");
}

/** The client address of a request (the socket's peer), from the server context of the Node adapter. */
export const addressOf = (serverContext: unknown): string =>
  (serverContext as { req?: { socket?: { remoteAddress?: string } } } | undefined)?.req?.socket?.remoteAddress ?? "unknown";
