// Published sites over HTTP, for readers without an API token: `/sites/{siteId}/…` under
// PUBLIC_URL, and every path of a request whose Host is a site's custom hostname. Answers
// server-rendered HTML (src/core/sites/serve.ts), with ETag and Cache-Control. A POST to a page
// is its "Was this page helpful?" form (a reader's feedback), bounded in size and per reader;
// `/~gitbook/mcp` is the site's MCP server (src/http/site-mcp.ts).
import type { FetchAPI, Plugin } from "graphql-yoga";
import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import type { Services } from "../../core/context.ts";
import {
  openSiteReader,
  postFeedback,
  serveSite,
  type SiteCache,
  type SiteRequest,
  type SiteResponse,
  type SiteVisitor,
} from "../../core/sites/serve.ts";
import { readTextUpTo } from "../body.ts";
import { errorResponse } from "../errors.ts";
import { addressOf } from "../request-url.ts";
import { answerSiteMcp, SITE_MCP_PATH } from "../site-mcp.ts";
import { hostnameOf, SITES_PREFIX, sitePathOf } from "../../core/sites/site-urls.ts";
import { isSiteRequest } from "../site-requests.ts";
import type { CredentialFailures } from "./use-rate-limit.ts";

/** A feedback form's body: a rating and a comment of at most 512 characters, percent-encoded, fit well within this. */
const FEEDBACK_MAX_BYTES = 8 * 1024;
/**
 * Feedback posts one reader (address) may send to one site per window: enough for every page a
 * reader reads, too few to flood a site's insights. Counted in this process.
 */
export const FEEDBACK_POSTS_PER_READER = 10;
const FEEDBACK_WINDOW_SECONDS = 10 * 60;

/** A refused MCP call, in the JSON envelope an agent reads (a page view gets the HTML page). */
function mcpRefusal(status: number): Response {
  if (status === 404) return errorResponse(404, "No published site here");
  if (status === 403) return errorResponse(403, "The share link or visitor token is not valid (revoked, expired or unknown)");
  return errorResponse(401, "This site is read with its share link or a visitor token: add its shareKey or jwt_token to the MCP URL");
}

function parseCookies(header: string | null): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const part of (header ?? "").split(";")) {
    const index = part.indexOf("=");
    if (index > 0) {
      try {
        cookies[part.slice(0, index).trim()] = decodeURIComponent(part.slice(index + 1).trim());
      } catch {
        // A cookie that is not ours (or malformed) is ignored.
      }
    }
  }
  return cookies;
}

/** The reader of a request, for insight events (no cookie is read or set for them). */
const visitorOf = (request: Request, address: string): SiteVisitor => ({
  address,
  userAgent: request.headers.get("user-agent"),
  language: request.headers.get("accept-language")?.split(",")[0]?.trim().slice(0, 64) || null,
  referrer: request.headers.get("referer"),
});

/** Whether a site request presents a share key or a visitor token (in its query or a cookie of ours). */
const presentsCredential = (request: Request, url: URL) =>
  url.searchParams.has("shareKey") ||
  url.searchParams.has("jwt_token") ||
  /(^|;)\s*site_(share|visitor)_/.test(request.headers.get("cookie") ?? "");

export function useSites(services: Services, cache: SiteCache, credentialFailures?: CredentialFailures): Plugin {
  const publicHost = new URL(services.urls.publicUrl).host.toLowerCase();
  const feedbackPosts = new RateLimiterMemory({ points: FEEDBACK_POSTS_PER_READER, duration: FEEDBACK_WINDOW_SECONDS });
  return {
    // Not async: a request that is not a site's (every API call) passes without a promise.
    onRequest({ request, url, endResponse, fetchAPI, serverContext }) {
      if (!isSiteRequest(request, url, publicHost)) return;
      return serve(request, url, endResponse, fetchAPI, addressOf(serverContext));
    },
  };

  /**
   * A feedback post's form, or why it is refused before anything is read of the site: over the
   * reader's budget (429), not a form (415), too large (413).
   */
  async function readFeedback(request: Request, reader: string): Promise<{ form: URLSearchParams } | { refused: Response }> {
    try {
      await feedbackPosts.consume(reader);
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      return {
        refused: errorResponse(429, "Too much feedback from this reader; retry later", {
          "Retry-After": String(Math.max(1, Math.ceil(error.msBeforeNext / 1000))),
        }),
      };
    }
    const type = request.headers.get("content-type") ?? "";
    if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(type))
      return { refused: errorResponse(415, "Content-Type must be application/x-www-form-urlencoded (the page's feedback form)") };
    const text = await readTextUpTo(request, FEEDBACK_MAX_BYTES);
    if (text === null) return { refused: errorResponse(413, `The feedback form's body is over ${FEEDBACK_MAX_BYTES} bytes`) };
    return { form: new URLSearchParams(text) };
  }

  async function serve(request: Request, url: URL, endResponse: (response: Response) => void, fetchAPI: FetchAPI, address: string) {
    // Share keys and visitor tokens are guessed one request at a time: once an address has had its
    // budget of refusals, its requests that carry one are refused unchecked (issue 28).
    if (credentialFailures && presentsCredential(request, url)) {
      const { spent, retryAfterSeconds } = await credentialFailures.spent(address);
      if (spent) {
        endResponse(
          errorResponse(429, "Too many refused share keys or visitor tokens from this address; retry later", {
            "Retry-After": String(retryAfterSeconds),
          }),
        );
        return;
      }
    }
    let site: SiteRequest["site"];
    let path: string;
    let base: string;
    const host = (request.headers.get("host") ?? url.host).toLowerCase();
    if (url.pathname.startsWith(SITES_PREFIX)) {
      const [siteId, ...rest] = url.pathname.slice(SITES_PREFIX.length).split("/");
      if (!siteId) return;
      site = { siteId };
      path = rest.join("/");
      base = services.urls.site(`/${siteId}`);
      // `/sites/{id}` without the slash: the same page, with relative URLs right.
      if (rest.length === 0) {
        endResponse(new Response(null, { status: 308, headers: { Location: `${base}/${url.search}` } }));
        return;
      }
    } else if (isSiteRequest(request, url, publicHost)) {
      site = { hostname: hostnameOf(host, publicHost)! };
      path = url.pathname.slice(1);
      base = `${url.protocol}//${host}`;
    } else {
      return;
    }
    const siteRequest: SiteRequest = {
      site,
      path: sitePathOf(path),
      base,
      query: url.searchParams,
      cookies: parseCookies(request.headers.get("cookie")),
      ifNoneMatch: request.headers.get("if-none-match"),
    };
    let result: SiteResponse | null;
    if (siteRequest.path === SITE_MCP_PATH) {
      // The site's MCP server, for the visitor's agent: refused as a page view would be.
      const reader = await openSiteReader(services, cache, siteRequest);
      if (!reader) return;
      if (!("status" in reader)) {
        endResponse(await answerSiteMcp(request, reader));
        return;
      }
      if (reader.credentialRefused) credentialFailures?.count(address);
      endResponse(mcpRefusal(reader.status));
      return;
    } else if (request.method === "POST") {
      const read = await readFeedback(request, `${"siteId" in site ? site.siteId : site.hostname}|${address}`);
      if ("refused" in read) {
        endResponse(read.refused);
        return;
      }
      result = await postFeedback(services, cache, siteRequest, read.form, visitorOf(request, address));
    }
    // A GET is a view (recorded); a HEAD only asks about one.
    else
      result = await serveSite(
        services,
        cache,
        request.method === "GET" ? { ...siteRequest, visitor: visitorOf(request, address) } : siteRequest,
      );
    // A Host that is no site's (the service by another of its names): the service answers.
    if (!result) return;
    if (result.credentialRefused) credentialFailures?.count(address);
    const headers = new fetchAPI.Headers({ "Content-Type": result.contentType, ...result.headers });
    if (result.etag) headers.set("ETag", result.etag);
    for (const cookie of result.cookies ?? []) headers.append("Set-Cookie", cookie);
    // Yoga's own Response: its body (the cached bytes) is written to the socket as it is, where the
    // global Response's is a web stream pumped chunk by chunk.
    const body = result.status === 304 || request.method === "HEAD" ? null : result.body;
    endResponse(new fetchAPI.Response(body, { status: result.status, headers }));
  }
}
