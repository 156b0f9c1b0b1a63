// Which requests are a reader's view of a published site: by path (`/sites/{siteId}/…`) or by a
// Host that is a site's custom hostname. The site plugin answers them; the rate limiter and the
// request log sort them by the same rule.
import { unclaimableReason } from "../core/sites/hostname-rules.ts";

export const SITES_PREFIX = "/sites/";

/**
 * Paths of the service itself, whatever the Host: never a custom hostname's site page (issue 28),
 * so signed PDF and file links, the reference and the health checks work by every name the
 * service is reached by. A custom hostname owns only the other paths.
 */
const SERVICE_PATHS = /^\/(v1|graphql|files|pdf|health|ready|metrics|reference|openapi\.json)(\/|$)/;

/** The Host's name without its port or trailing dot; null when no site can own it (an IP address, the service's own name…). */
export function hostnameOf(host: string, publicHost: string): string | null {
  const name = host.replace(/:\d+$/, "").replace(/\.$/, "");
  return name.startsWith("[") || unclaimableReason(name, publicHost.replace(/:\d+$/, "")) !== null ? null : name;
}

/** Whether a request is a reader's view of a published site (what `useSites` answers), from its method, path and Host alone. */
export function isSiteRequest(request: Request, url: URL, publicHost: string): boolean {
  if (request.method !== "GET" && request.method !== "HEAD" && request.method !== "POST") return false;
  if (url.pathname.startsWith(SITES_PREFIX)) return true;
  const host = (request.headers.get("host") ?? url.host).toLowerCase();
  return host !== publicHost && hostnameOf(host, publicHost) !== null && !SERVICE_PATHS.test(url.pathname);
}
