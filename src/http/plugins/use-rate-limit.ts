// Rate limits on every request, before any other work. A bearer token this process has verified
// (src/core/auth/tokens.ts, `isVerified`) is counted against its own budget (its hash); any
// other request, with a random, unknown or expired token as much as without one, is counted
// against the client address: a fresh random token is no fresh budget (issue 28). Readers of
// published sites (`/sites/…`, a custom hostname's pages) are counted per address whatever
// `Authorization` says, on a budget of their own; a share key or visitor token that is refused
// also counts against a stricter per-address budget, and once it is spent, site requests that
// carry a key or token are refused (429) without being checked. The probes /health and /ready
// are not counted, only shown.
// Every response carries `X-RateLimit-Limit`, `-Remaining` and
// `-Reset` (Unix seconds when the window ends); over the limit the answer is 429 with
// `Retry-After`, as the error envelope of the surface asked. On PostgreSQL the counters are rows
// (rate-limiter-flexible's Prisma store), so instances sharing the database share the limits:
// each request is counted and decided in this process, and the counts are synced with the shared
// rows once a second (src/http/batched-rate-limit.ts), so a request sends no statement of its own
// and the limit still holds across instances, up to one second late. On the embedded database
// (one process) they are in memory. If the store fails, counting falls back to memory rather than
// refusing or failing requests.
import { hash } from "node:crypto";
import type { Plugin } from "graphql-yoga";
import { RateLimiterMemory, RateLimiterPrisma, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import type { Config } from "../../config.ts";
import type { Services } from "../../core/context.ts";
import { BatchedRateLimiter } from "../batched-rate-limit.ts";
import type { RequestBudget } from "../../core/budget.ts";
import { errorResponse } from "../errors.ts";
import { addressOf, urlOf } from "../request-url.ts";
import { isSiteRequest } from "../site-requests.ts";

export type RateLimits = Config["rateLimits"];

export const DEFAULT_RATE_LIMITS: Required<RateLimits> = {
  perToken: 1200,
  perAddress: 300,
  windowSeconds: 60,
  credentialFailuresPerAddress: 30,
};

/** Paths not counted: probes of orchestrators must not be refused. */
const EXEMPT = /^\/(health|ready)(\/|$)/;

function limiter(points: number, duration: number, keyPrefix: string, services: Services, shared: boolean): RateLimiterAbstract {
  const memory = new RateLimiterMemory({ points, duration, keyPrefix });
  if (!shared) return memory;
  return new RateLimiterPrisma({ storeClient: services.prisma, points, duration, keyPrefix, insuranceLimiter: memory });
}

function bareStatusMessage(status: number, path: string): string {
  if (status === 404) return `Nothing at ${path}`;
  if (status === 405) return `Method not allowed at ${path}`;
  if (status === 415) return "Unsupported content type: send application/json (or multipart/form-data for uploads)";
  return `Request refused (HTTP ${status})`;
}

function headersOf(result: RateLimiterRes, limit: number): Record<string, string> {
  return {
    "X-RateLimit-Limit": String(limit),
    "X-RateLimit-Remaining": String(Math.max(0, result.remainingPoints)),
    "X-RateLimit-Reset": String(Math.ceil((Date.now() + Math.max(0, result.msBeforeNext)) / 1000)),
  };
}

type ResponsePayload = Parameters<NonNullable<Plugin["onResponse"]>>[0];

/** The plugin, and the headers of a client address shown without counting (Node-level answers, src/http/client-error.ts). */
export type RateLimitPlugin = Plugin & {
  peekAddress(address: string): Promise<Record<string, string>>;
  /** Share keys and visitor tokens refused from one address: `spent` is true once its budget is used up; `count` records one more. */
  credentialFailures: CredentialFailures;
};

export interface CredentialFailures {
  spent(address: string): Promise<{ spent: boolean; retryAfterSeconds: number }>;
  count(address: string): void;
}

export function useRateLimit(
  services: Services,
  limits: RateLimits,
  options: { shared: boolean; graphqlEndpoint?: string },
): RateLimitPlugin {
  // On PostgreSQL each limiter counts in this process and syncs with its shared rows once a second
  // (one upsert per key that sent anything), instead of a DELETE and an upsert before every request.
  const counter = (points: number, keyPrefix: string) => {
    const store = limiter(points, limits.windowSeconds, keyPrefix, services, options.shared);
    return options.shared ? new BatchedRateLimiter(store, points, limits.windowSeconds) : store;
  };
  const byToken = counter(limits.perToken, "rl:token");
  const byAddress = counter(limits.perAddress, "rl:address");
  const byReader = counter(limits.perAddress, "rl:reader");
  const graphqlEndpoint = options.graphqlEndpoint ?? "/graphql";
  const publicHost = new URL(services.urls.publicUrl).host.toLowerCase();
  const counted = new WeakMap<Request, Record<string, string>>();
  const failures = counter(limits.credentialFailuresPerAddress ?? DEFAULT_RATE_LIMITS.credentialFailuresPerAddress, "rl:credential");
  const keyOf = (request: Request, serverContext: unknown) => {
    const address = addressOf(serverContext);
    // A site's reader: per address, whatever Authorization says (a token buys a reader nothing).
    if (isSiteRequest(request, urlOf(request), publicHost))
      return { rateLimiter: byReader, key: address, limit: limits.perAddress, verified: false };
    const authorization = request.headers.get("authorization");
    if (authorization && services.tokens.isVerified(authorization)) {
      const token = authorization.match(/^Bearer\s+(\S+)\s*$/i)![1];
      return { rateLimiter: byToken, key: hash("sha256", token, "base64url"), limit: limits.perToken, verified: true };
    }
    // A token not verified yet (random, unknown, or a real one this process has not seen): the
    // address's budget decides now, and the request is counted when answered, against the token if
    // its authentication verified it, else against the address.
    return { rateLimiter: byAddress, key: address, limit: limits.perAddress, verified: false, deferred: authorization !== null };
  };

  const credentialFailures: CredentialFailures = {
    async spent(address) {
      const state = await failures.get(address);
      const points = limits.credentialFailuresPerAddress ?? DEFAULT_RATE_LIMITS.credentialFailuresPerAddress;
      return {
        spent: !!state && state.consumedPoints >= points,
        retryAfterSeconds: Math.max(1, Math.ceil((state?.msBeforeNext ?? 0) / 1000)),
      };
    },
    count(address) {
      failures.consume(address).catch(() => {});
    },
  };

  const untouched = (limit: number) => ({
    "X-RateLimit-Limit": String(limit),
    "X-RateLimit-Remaining": String(limit),
    "X-RateLimit-Reset": String(Math.ceil(Date.now() / 1000) + limits.windowSeconds),
  });

  return {
    credentialFailures,
    async peekAddress(address) {
      const result = await byAddress.get(address);
      return result ? headersOf(result, limits.perAddress) : untouched(limits.perAddress);
    },
    // Not async when the counting is in this process (BatchedRateLimiter, on PostgreSQL): the
    // request goes on without a promise (issue 15).
    onRequest({ request, url, serverContext, endResponse }) {
      if (EXEMPT.test(url.pathname)) return;
      const { rateLimiter, key, limit, verified, deferred } = keyOf(request, serverContext);
      const refuse = (refusal: RateLimiterRes) => {
        const shown = headersOf(refusal, limit);
        counted.set(request, shown); // counted once: onResponse must not consume again
        const headers = { ...shown, "Retry-After": String(Math.max(1, Math.ceil(refusal.msBeforeNext / 1000))) };
        const message = `Rate limit exceeded: at most ${limit} requests per ${limits.windowSeconds} s ${verified ? "per token" : "per client address (requests without a verified token)"}; retry after ${headers["Retry-After"]} s`;
        endResponse(
          url.pathname === graphqlEndpoint
            ? Response.json({ errors: [{ message, extensions: { code: "RATE_LIMITED" } }] }, { status: 429, headers })
            : errorResponse(429, message, headers),
        );
      };
      if (deferred) {
        return rateLimiter.get(key).then((state) => {
          if (state && state.consumedPoints >= limit) refuse(state);
        });
      }
      if (rateLimiter instanceof BatchedRateLimiter) {
        const result = rateLimiter.consumeNow(key);
        if (result.consumedPoints > rateLimiter.points) refuse(result);
        else counted.set(request, headersOf(result, limit));
        return;
      }
      return rateLimiter.consume(key).then(
        (result) => void counted.set(request, headersOf(result, limit)),
        (refusal) => {
          if (!(refusal instanceof RateLimiterRes)) throw refusal;
          refuse(refusal);
        },
      );
    },
    // `rateLimit { limit remaining resetAt }` (src/graphql/rate-limit.ts): the headers this request
    // gets, or, when it is counted only once answered (a token not verified yet), its key's state now.
    onContextBuilding({ context, extendContext }) {
      const request = (context as { request?: Request }).request;
      if (!request) return;
      const window = async () => {
        let headers = counted.get(request);
        if (!headers) {
          // Counted once answered: shown as it will be, this request included.
          const { rateLimiter, key, limit } = keyOf(request, context);
          const state = await rateLimiter.get(key);
          headers = state ? headersOf(state, limit) : untouched(limit);
          headers["X-RateLimit-Remaining"] = String(Math.max(0, Number(headers["X-RateLimit-Remaining"]) - 1));
        }
        return {
          limit: Number(headers["X-RateLimit-Limit"]),
          remaining: Number(headers["X-RateLimit-Remaining"]),
          resetAt: new Date(Number(headers["X-RateLimit-Reset"]) * 1000),
        };
      };
      const budget = (context as { budget?: RequestBudget }).budget;
      extendContext({ budget: { ...budget, window } } as never);
    },
    onResponse(payload) {
      const headers = counted.get(payload.request);
      // Counted by onRequest (nearly every request): the headers are set without a promise.
      if (headers) return finish(payload, headers);
      return uncounted(payload);
    },
  };

  /**
   * A request answered before onRequest ran (the probes, /metrics, Yoga's GraphiQL page): counted
   * now, the probes only looked at, so that every response carries the headers.
   */
  async function uncounted(payload: ResponsePayload) {
    const { rateLimiter, key, limit } = keyOf(payload.request, payload.serverContext);
    let headers: Record<string, string>;
    try {
      const result = EXEMPT.test(urlOf(payload.request).pathname) ? await rateLimiter.get(key) : await rateLimiter.consume(key);
      headers = result ? headersOf(result, limit) : untouched(limit);
    } catch (refusal) {
      if (!(refusal instanceof RateLimiterRes)) throw refusal;
      headers = headersOf(refusal, limit);
    }
    finish(payload, headers);
  }

  function finish({ request, response, setResponse }: ResponsePayload, headers: Record<string, string>) {
    let answer = response;
    // Nothing reaches a client as an empty or plain-text error: a bare 4xx/5xx (Yoga's 404 for an
    // unknown path, its 415 for an unsupported content type) becomes the REST envelope.
    if (answer.status >= 400 && request.method !== "HEAD" && !answer.headers.get("content-type")) {
      answer = errorResponse(
        answer.status,
        bareStatusMessage(answer.status, urlOf(request).pathname),
        Object.fromEntries([...answer.headers].filter(([name]) => !/^(content-length|transfer-encoding)$/i.test(name))),
      );
      setResponse(answer);
    }
    // Set over whatever the answer carried: an integration script's endpoint answer (passed
    // through) must not show its own budget as this service's.
    for (const name in headers) answer.headers.set(name, headers[name]);
  }
}
