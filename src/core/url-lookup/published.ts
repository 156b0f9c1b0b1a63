// A URL of a published site back to what it shows its visitor (the published
// getPublishedContentByUrl and resolvePublishedContentByUrl): the site, section, site space, space,
// revision and page, read by the site server's own rules (src/core/sites/site-urls.ts for which
// URLs are a site's, src/core/sites/serve.ts resolveSiteUrl for what the visitor sees). The answer
// does not depend on the caller: only on the URL and the visitor's credentials (a share key or
// preview token in the URL, a visitor token, unsigned claims), as a reader's view would.
import { resolveSiteUrl } from "../sites/serve.ts";
import { siteAddressOf } from "../sites/site-urls.ts";
import type { CoreContext } from "../context.ts";
import { badInput, DomainError, quote } from "../errors.ts";
import { checkLookupUrl } from "./url.ts";

/** Most characters of a visitor token, and of the unsigned claims written as JSON. */
export const VISITOR_TOKEN_MAX = 8192;
export const UNSIGNED_CLAIMS_MAX = 8192;

export interface VisitorInput {
  jwtToken?: unknown;
  unsignedClaims?: unknown;
}

export type PublishedContentLookup =
  | {
      kind: "content";
      site: string;
      siteSection: string | null;
      siteSpace: string;
      space: string;
      revision: string;
      organization: string;
      pathname: string;
      basePath: string;
      siteBasePath: string;
      canonicalUrl: string;
      complete: boolean;
      shareKey: string | null;
      contextId: string | null;
      preview: boolean;
    }
  | { kind: "redirect"; target: "content" | "external"; site: string; redirect: string };

// Not the URL as given: its query may carry a share key or a visitor token.
const noContent = (url: URL) => new DomainError("NOT_FOUND", `No published content found at url ${quote(`${url.origin}${url.pathname}`)}`);

/** A URL's path with a trailing slash, as the published basePath and siteBasePath are written. */
const basePathOf = (url: string) => `${new URL(url).pathname.replace(/\/+$/, "")}/`;

function checkVisitor(visitor: VisitorInput | null | undefined): { jwtToken?: string; unsignedClaims?: Record<string, unknown> } {
  if (visitor == null) return {};
  const { jwtToken, unsignedClaims } = visitor;
  if (jwtToken != null && (typeof jwtToken !== "string" || jwtToken.length > VISITOR_TOKEN_MAX))
    throw badInput(`visitor.jwtToken must be a string of at most ${VISITOR_TOKEN_MAX} characters`);
  if (unsignedClaims != null) {
    if (typeof unsignedClaims !== "object" || Array.isArray(unsignedClaims))
      throw badInput("visitor.unsignedClaims must be an object of claims");
    if (JSON.stringify(unsignedClaims).length > UNSIGNED_CLAIMS_MAX)
      throw badInput(`visitor.unsignedClaims must be at most ${UNSIGNED_CLAIMS_MAX} characters as JSON`);
  }
  return {
    ...(typeof jwtToken === "string" && jwtToken ? { jwtToken } : {}),
    ...(unsignedClaims != null ? { unsignedClaims: unsignedClaims as Record<string, unknown> } : {}),
  };
}

/**
 * What the published site URL `value` shows its visitor; 404 for a URL that is no site's, a site
 * that is unknown or unpublished, a path that finds no page, and a visitor who is refused (unless
 * `redirectOnError` and the site has a sign-in URL: then the redirect to it).
 */
export async function publishedContentByUrl(
  ctx: CoreContext,
  value: unknown,
  options: { visitor?: VisitorInput | null; redirectOnError?: boolean | null } = {},
): Promise<PublishedContentLookup> {
  const url = checkLookupUrl(value);
  const visitor = checkVisitor(options.visitor);
  const address = siteAddressOf(ctx.urls, url);
  if (!address) throw noContent(url);
  const query = new URLSearchParams(url.searchParams);
  // A visitor token given beside the URL counts as the one a reader's link would carry.
  if (visitor.jwtToken) query.set("jwt_token", visitor.jwtToken);
  const resolved = await resolveSiteUrl(ctx, {
    ...address,
    query,
    cookies: {},
    ifNoneMatch: null,
    ...(visitor.unsignedClaims ? { unsignedClaims: visitor.unsignedClaims } : {}),
  });
  if (!resolved) throw noContent(url);
  if (resolved.kind === "refused") {
    if (options.redirectOnError && resolved.fallback)
      return { kind: "redirect", target: "external", site: resolved.siteId, redirect: resolved.fallback };
    throw noContent(url);
  }
  if (resolved.kind === "redirect")
    return { kind: "redirect", target: resolved.inSite ? "content" : "external", site: resolved.siteId, redirect: resolved.location };
  return {
    kind: "content",
    site: resolved.siteId,
    siteSection: resolved.sectionId,
    siteSpace: resolved.siteSpaceId,
    space: resolved.spaceId,
    revision: resolved.revisionId,
    organization: resolved.organizationId,
    pathname: resolved.pagePath,
    basePath: basePathOf(resolved.spaceBase),
    siteBasePath: basePathOf(resolved.siteBase),
    canonicalUrl: resolved.pagePath ? `${resolved.spaceBase}/${resolved.pagePath}` : resolved.spaceBase,
    complete: resolved.complete,
    shareKey: resolved.shareKey,
    contextId: resolved.contextId,
    preview: resolved.preview,
  };
}
