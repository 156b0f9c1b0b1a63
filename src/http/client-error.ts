// Node's own answers, given before a request reaches the app (a request that never completes
// within the request timeout, headers over the size limit, bytes that are not HTTP), would be
// bare `HTTP/1.1 408` / `431` / `400` lines without a body: here they are the error envelope like
// every other answer, with the security headers and, when the counters answer in time, the
// client address's X-RateLimit-* headers (shown, not counted: such a request did no work).
//
// A socket the client already closed, or on which an answer has already begun, gets nothing
// written (that would corrupt what the client is reading): it is only destroyed.
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { API_SECURITY_HEADERS } from "./plugins/use-security-headers.ts";
import { serverOptions, type ServerTimeouts } from "./server-options.ts";
import type { Logger } from "../logger.ts";
import { isThenable } from "../core/thenable.ts";

/** The X-RateLimit-* headers of a client address, without counting a request. */
export type RateLimitPeek = (address: string) => Promise<Record<string, string>>;

/** How long the rate-limit counters may take before the answer goes out without their headers. */
const PEEK_TIMEOUT_MS = 250;

const REASONS: Record<number, string> = {
  400: "Bad Request",
  408: "Request Timeout",
  413: "Payload Too Large",
  431: "Request Header Fields Too Large",
};

/** The status and message of a client error raised by Node's HTTP server or its parser. */
export function clientErrorAnswer(error: NodeJS.ErrnoException): { status: number; message: string } {
  switch (error.code) {
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { status: 408, message: "The request was not received in full within the request timeout" };
    case "HPE_HEADER_OVERFLOW":
      return { status: 431, message: "The request's headers are larger than the server accepts" };
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return { status: 413, message: "The request's chunk extensions are larger than the server accepts" };
    default:
      return { status: 400, message: "The request is not valid HTTP/1.1" };
  }
}

interface HttpSocket extends Socket {
  /** The response under way on this connection, if any (Node's own field). */
  _httpMessage?: { headersSent: boolean; req?: { url?: string } } | null;
}

/** True when nothing may be written to `socket`: gone, or an answer already begun on it. */
function unwritable(socket: HttpSocket): boolean {
  return socket.destroyed || !socket.writable || Boolean(socket._httpMessage?.headersSent);
}

/** A Node HTTP server with the timeouts of server-options.ts and the client errors answered as envelopes. */
export function createHttpServer(
  timeouts: Partial<ServerTimeouts>,
  handler: RequestListener,
  options: Parameters<typeof handleClientErrors>[1] & { logger?: Logger } = {},
): Server {
  const server = createServer(serverOptions(timeouts), answeredOrClosed(handler, options));
  handleClientErrors(server, options);
  return server;
}

/**
 * Every request is answered or its connection closed: when the handler's work ends (its promise
 * settles, or it throws) and nothing was written (the server adapter swallows a `writeHead` that
 * throws, and the request stayed open until the client gave up), the request gets the error
 * envelope, or, when headers already went out, its connection is destroyed; either way a JSON
 * error line with the request id is logged (issue 28). A handler that returns nothing (it answers
 * on its own schedule) is left alone.
 */
function answeredOrClosed(
  handler: RequestListener,
  options: { graphqlEndpoint?: string; logger?: Logger },
): (request: IncomingMessage, response: ServerResponse) => void {
  const settle = (request: IncomingMessage, response: ServerResponse, error?: unknown) => {
    if (response.writableEnded || response.destroyed) return;
    const reqId = response.getHeader("x-request-id") ?? request.headers["x-request-id"];
    const line = { reqId, method: request.method, path: request.url?.split("?")[0].slice(0, 256), err: error };
    if (response.headersSent) {
      if (error === undefined) return; // a response still streaming (an event stream, a download)
      options.logger?.error(line, "answering failed after the response began: connection closed");
      response.destroy();
      return;
    }
    options.logger?.error(line, "the request was left without an answer: answered 500 and closed");
    const body = JSON.stringify(
      request.url?.split("?")[0] === (options.graphqlEndpoint ?? "/graphql")
        ? { errors: [{ message: "Unexpected error", extensions: { code: "INTERNAL_SERVER_ERROR", http: { status: 500 } } }] }
        : { error: { code: 500, message: "Unexpected error" } },
    );
    try {
      for (const name of response.getHeaderNames()) response.removeHeader(name);
      response.writeHead(500, {
        "Content-Type": "application/json; charset=utf-8",
        "Content-Length": String(Buffer.byteLength(body)),
        Connection: "close",
        ...API_SECURITY_HEADERS,
      });
      response.end(body);
    } catch {
      response.destroy();
    }
  };
  return (request, response) => {
    let result: unknown;
    try {
      result = handler(request, response);
    } catch (error) {
      settle(request, response, error);
      return;
    }
    if (isThenable(result)) {
      result.then(
        () => settle(request, response),
        (error) => settle(request, response, error),
      );
    }
  };
}

export function handleClientErrors(server: Server, options: { graphqlEndpoint?: string; rateLimitHeaders?: RateLimitPeek } = {}): void {
  server.on("clientError", (error: NodeJS.ErrnoException, duplex) => {
    const socket = duplex as HttpSocket;
    // The client reset or closed the connection: there is nobody to answer.
    if (error.code === "ECONNRESET" || error.code === "EPIPE" || unwritable(socket)) {
      socket.destroy();
      return;
    }
    const { status, message } = clientErrorAnswer(error);
    void outsideAnswer(options, socket.remoteAddress, {
      status,
      message,
      // The path is known only when the request's head was read (a request timeout after it).
      path: socket._httpMessage?.req?.url,
      code: status === 408 ? "REQUEST_TIMEOUT" : "BAD_REQUEST",
    }).then(({ headers, body }) => {
      if (unwritable(socket)) {
        socket.destroy();
        return;
      }
      const head = Object.entries(headers)
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join("");
      socket.end(`HTTP/1.1 ${status} ${REASONS[status]}\r\n${head}\r\n${body}`);
      // Whatever the client still sends is not read: the connection is closed once written.
      socket.once("finish", () => socket.destroy());
    });
  });
}

/**
 * An answer given outside the app (Node's own client errors above, the 503 of a request that
 * arrives while the server shuts down): the error envelope of the path's surface (GraphQL's on
 * the GraphQL endpoint, else REST's), the API security headers, and the client address's
 * X-RateLimit-* (shown, not counted: such a request does no work; left out when the counters do
 * not answer within 250 ms). The connection is closed after it.
 */
export async function outsideAnswer(
  options: { graphqlEndpoint?: string; rateLimitHeaders?: RateLimitPeek },
  address: string | undefined,
  answer: { status: number; message: string; path?: string; code: string },
): Promise<{ headers: Record<string, string>; body: string }> {
  const rateLimit = await peek(options.rateLimitHeaders, address ?? "unknown");
  const { status, message, code } = answer;
  const body = JSON.stringify(
    answer.path?.split("?")[0] === (options.graphqlEndpoint ?? "/graphql")
      ? { errors: [{ message, extensions: { code, http: { status } } }] }
      : { error: { code: status, message } },
  );
  const headers: Record<string, string> = {
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": String(Buffer.byteLength(body)),
    Connection: "close",
    ...API_SECURITY_HEADERS,
    ...rateLimit,
  };
  return { headers, body };
}

async function peek(rateLimitHeaders: RateLimitPeek | undefined, address: string): Promise<Record<string, string>> {
  if (!rateLimitHeaders) return {};
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      rateLimitHeaders(address),
      new Promise<Record<string, string>>((resolve) => {
        timer = setTimeout(() => resolve({}), PEEK_TIMEOUT_MS);
      }),
    ]);
  } catch {
    return {};
  } finally {
    clearTimeout(timer);
  }
}
