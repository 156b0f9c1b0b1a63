// Which requests are a reader's view of a published site: by path (`/sites/{siteId}/…`) or by a
// Host that is a site's custom hostname. The site plugin answers them; the rate limiter and the
// request log sort them by the same rule.
import { hostnameOf, SERVICE_PATHS, SITES_PREFIX } from "../core/sites/site-urls.ts";

/** Whether a request is a reader's view of a published site (what `useSites` answers), from its method, path and Host alone. */
export function isSiteRequest(request: Request, url: URL, publicHost: string): boolean {
  if (request.method !== "GET" && request.method !== "HEAD" && request.method !== "POST") return false;
  if (url.pathname.startsWith(SITES_PREFIX)) return true;
  const host = (request.headers.get("host") ?? url.host).toLowerCase();
  return host !== publicHost && hostnameOf(host, publicHost) !== null && !SERVICE_PATHS.test(url.pathname);
}
