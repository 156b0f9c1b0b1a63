// Which hostnames a site may claim, and the DNS record that proves one (issue 28). Pure rules,
// apart from the site operations (hostnames.ts) so that updateSite can check a name too.
import { isIP } from "node:net";
import type { Services } from "../context.ts";
import { badInput, quote } from "../errors.ts";

/** Services that answer any name below them with the address the name spells (127.0.0.1.nip.io). */
const WILDCARD_DNS_SUFFIXES = [
  "nip.io",
  "sslip.io",
  "xip.io",
  "nip.direct",
  "traefik.me",
  "localtest.me",
  "lvh.me",
  "vcap.me",
  "lacolhost.com",
  "localhost.direct",
  "local.gd",
  "fbi.com",
];

export const VERIFICATION_LABEL = "_docs-verification";

/** The TXT record that proves a site may take a hostname. */
export function verificationRecord(siteId: string, hostname: string): { type: "TXT"; name: string; value: string } {
  return { type: "TXT", name: `${VERIFICATION_LABEL}.${hostname}`, value: `site-verification=${siteId}` };
}

const under = (name: string, suffix: string) => name === suffix || name.endsWith(`.${suffix}`);

/** Why a hostname can never be a site's, or null when it may be claimed. */
export function unclaimableReason(hostname: string, serviceHost: string): string | null {
  const labels = hostname.split(".");
  // No top-level domain is numeric: a name ending in digits is an address in disguise (127.0.0.10).
  if (isIP(hostname) || /^\d+$/.test(labels[labels.length - 1] ?? "")) return "an IP address is not a hostname a site can own";
  const wildcard = WILDCARD_DNS_SUFFIXES.find((suffix) => under(hostname, suffix));
  if (wildcard) return `names under ${wildcard} resolve for anyone (a wildcard DNS service)`;
  if (hostname === "localhost" || hostname.endsWith(".localhost") || hostname.endsWith(".local")) return "a local name cannot be proven";
  if (serviceHost && under(hostname, serviceHost)) return `it is the service's own host (${serviceHost}) or under it`;
  return null;
}

/** The service's own hostname (PUBLIC_URL's), which no site may claim. */
export const serviceHostOf = (services: Services) => new URL(services.urls.publicUrl).hostname.toLowerCase();

/** Refuses (400 naming `hostname`) a name no site may claim. */
export function checkClaimableHostname(services: Services, hostname: string): void {
  const reason = unclaimableReason(hostname, serviceHostOf(services));
  if (reason) throw badInput(`hostname ${quote(hostname)} cannot be used: ${reason}`);
}
