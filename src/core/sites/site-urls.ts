// Which URLs are a published site's: by path (`/sites/{siteId}/…` under PUBLIC_URL) or by a host
// that is a site's custom hostname. The site server (src/http/site-requests.ts) sorts requests by
// these rules, and a URL lookup (src/core/url-lookup/published.ts) reads a URL by the same ones.
import type { Urls } from "../urls.ts";
import { unclaimableReason } from "./hostname-rules.ts";
import type { SiteRequest } from "./serve.ts";

export const SITES_PREFIX = "/sites/";

/**
 * Paths of the service itself, whatever the Host: never a custom hostname's site page (issue 28),
 * so signed PDF and file links, the reference and the health checks work by every name the
 * service is reached by. A custom hostname owns only the other paths.
 */
export const SERVICE_PATHS = /^\/(v1|graphql|files|pdf|health|ready|metrics|reference|openapi\.json)(\/|$)/;

/** The Host's name without its port or trailing dot; null when no site can own it (an IP address, the service's own name…). */
export function hostnameOf(host: string, publicHost: string): string | null {
  const name = host.replace(/:\d+$/, "").replace(/\.$/, "");
  return name.startsWith("[") || unclaimableReason(name, publicHost.replace(/:\d+$/, "")) !== null ? null : name;
}

/** A path of a site as the site server reads it: percent-decoded when it decodes, without trailing slashes. */
export function sitePathOf(path: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    decoded = path;
  }
  return decoded.replace(/\/+$/, "");
}

/**
 * The site a URL names, where its URLs start and the path inside it, as the site server would
 * read a request for it; null when the URL is no site's.
 */
export function siteAddressOf(urls: Pick<Urls, "publicUrl" | "site">, url: URL): Pick<SiteRequest, "site" | "base" | "path"> | null {
  const own = new URL(urls.publicUrl);
  if (url.origin === own.origin) {
    if (!url.pathname.startsWith(SITES_PREFIX)) return null;
    const [siteId, ...rest] = url.pathname.slice(SITES_PREFIX.length).split("/");
    if (!siteId) return null;
    return { site: { siteId }, base: urls.site(`/${siteId}`), path: sitePathOf(rest.join("/")) };
  }
  const host = url.host.toLowerCase();
  const hostname = hostnameOf(host, own.host.toLowerCase());
  if (!hostname || SERVICE_PATHS.test(url.pathname)) return null;
  return { site: { hostname }, base: `${url.protocol}//${host}`, path: sitePathOf(url.pathname.slice(1)) };
}
