// Every HTTP request gets an id (the caller's `X-Request-Id` when it is a sane token, else a new
// UUID), echoed in the response header, on its access-log line (JSON) and in the HTTP metrics,
// which are labelled by route pattern (`GET /v1/spaces/:spaceId`), never by raw URL, so the
// number of series stays bounded.
import { randomUUID } from "node:crypto";
import FindMyWay, { type HTTPMethod } from "find-my-way";
import type { Plugin } from "graphql-yoga";
import { Counter, Histogram, type Registry } from "prom-client";
import { urlOf } from "../request-url.ts";
import type { Logger } from "../../logger.ts";

export const REQUEST_ID_HEADER = "x-request-id";
const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

interface Started {
  id: string;
  at: bigint | undefined;
  route: string;
  path: string;
}

/** The error code of a client error's status, as the error envelopes name it. */
const CODES: Record<number, string> = {
  400: "BAD_REQUEST",
  401: "UNAUTHENTICATED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  405: "METHOD_NOT_ALLOWED",
  408: "REQUEST_TIMEOUT",
  409: "CONFLICT",
  410: "GONE",
  413: "PAYLOAD_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
  429: "RATE_LIMITED",
};

/** Fixed paths outside the REST route table, labelled as themselves. */
const FIXED: ReadonlySet<string> = new Set(["/", "/graphql", "/health", "/ready", "/metrics", "/openapi.json", "/reference", "/v1/mcp"]);

/** Surfaces outside the REST route table, each labelled by its pattern (ids never reach a label). */
const PATTERNS: [RegExp, string][] = [
  [/^\/v1\/integrations\/[^/]+\/integration(\/|$)/, "/v1/integrations/:integrationName/integration/*"],
  [
    /^\/v1\/integrations\/[^/]+\/installations\/[^/]+\/sites\/[^/]+\/script\.js$/,
    "/v1/integrations/:integrationName/installations/:installationId/sites/:siteId/script.js",
  ],
  [/^\/git\/[^/]+\.git\/info\/refs$/, "/git/:spaceId.git/info/refs"],
  [/^\/git\/[^/]+\.git\/git-upload-pack$/, "/git/:spaceId.git/git-upload-pack"],
  [/^\/git\/[^/]+\.git\/git-receive-pack$/, "/git/:spaceId.git/git-receive-pack"],
  [/^\/files\//, "/files/*"],
  [/^\/pdf\//, "/pdf/*"],
  [/^\/reference\//, "/reference/*"],
];

export type RequestLogPlugin = Plugin & { requestIdOf(request: Request): string | undefined };

export function useRequestLog(options: {
  logger: Logger;
  registry: Registry;
  restRoutes: { method: string; path: string }[];
  /** Whether the request is a reader's view of a published site (by path or by custom hostname). */
  isSiteRequest: (request: Request, url: URL) => boolean;
}): RequestLogPlugin {
  const { logger, registry } = options;
  const router = FindMyWay();
  for (const route of options.restRoutes)
    router.on(route.method as HTTPMethod, route.path, () => {}, { label: `${route.method} ${route.path}` });
  const requests = new Counter({
    name: "http_requests_total",
    help: "HTTP requests answered, by route pattern, method and status",
    labelNames: ["method", "route", "status"],
    registers: [registry],
  });
  const durations = new Histogram({
    name: "http_request_duration_seconds",
    help: "Time to answer an HTTP request (until the response head), by route pattern and method",
    labelNames: ["method", "route"],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const started = new WeakMap<Request, Started>();

  function routeOf(request: Request, url: URL): string {
    const { pathname } = url;
    // First: a custom hostname's site owns every path but the service's own.
    if (options.isSiteRequest(request, url)) return pathname.startsWith("/sites/") ? "/sites/:siteId/*" : "(site hostname)/*";
    if (FIXED.has(pathname)) return pathname;
    for (const [pattern, label] of PATTERNS) if (pattern.test(pathname)) return label;
    if (pathname.startsWith("/v1")) {
      const match = router.find(request.method as HTTPMethod, pathname);
      return match ? (match.store as { label: string }).label : "/v1 (unmatched)";
    }
    return "other";
  }

  const unstarted = (request: Request): Started => {
    const url = urlOf(request);
    return { id: randomUUID(), at: undefined, route: routeOf(request, url), path: url.pathname };
  };

  return {
    requestIdOf: (request) => started.get(request)?.id,
    onRequest({ request, url }) {
      const given = request.headers.get(REQUEST_ID_HEADER);
      const id = given && SANE_ID.test(given) ? given : randomUUID();
      started.set(request, { id, at: process.hrtime.bigint(), route: routeOf(request, url), path: url.pathname });
    },
    onResponse({ request, response }) {
      // Yoga's own GraphiQL page answers before any plugin's onRequest: such a request gets its
      // id here, and no duration. (The path is kept from onRequest: no URL parsed again per request.)
      const entry = started.get(request) ?? unstarted(request);
      response.headers.set(REQUEST_ID_HEADER, entry.id);
      const seconds = entry.at === undefined ? undefined : Number(process.hrtime.bigint() - entry.at) / 1e9;
      const status = response.status;
      requests.inc({ method: request.method, route: entry.route, status: String(status) });
      if (seconds !== undefined) durations.observe({ method: request.method, route: entry.route }, seconds);
      const line = {
        reqId: entry.id,
        method: request.method,
        path: entry.path,
        route: entry.route,
        status,
        ms: seconds === undefined ? undefined : Math.round(seconds * 1e4) / 10,
      };
      // One line per request: a server error at error, an authentication or rate-limit refusal at
      // warn, any other answer (other client errors included, with their code) at info (issue 34).
      if (status >= 500) logger.error(line, "request failed");
      else if (status === 401 || status === 429) logger.warn({ ...line, code: CODES[status] }, "request refused");
      else if (status >= 400) logger.info({ ...line, code: CODES[status] ?? `HTTP_${status}` }, "request refused");
      else logger.info(line, "request");
    },
  };
}
