// What a site trusts from its readers and from DNS (issue 28): how far ahead a visitor token may
// expire, and how a custom hostname's ownership is looked up. Built once in createApp from the
// configuration; the resolver is a seam (node:dns in production, a table in tests).

/** Looks up a hostname's TXT records, as `node:dns/promises`' `resolveTxt` answers them. */
export type TxtResolver = (hostname: string) => Promise<string[][]>;

export interface SitePolicy {
  /** A visitor token must carry `exp`, at most this many seconds ahead of now. */
  visitorTokenMaxLifetimeSeconds: number;
  resolveTxt: TxtResolver;
  /** Bound of a site's `llms-full.txt` in bytes: pages beyond it are left out, and the file says so. */
  llmsFullMaxBytes: number;
  /** The ad partner's key (ADS_PARTNER_KEY, src/core/sites/ads.ts); none: no partner. */
  adsPartnerKey?: string;
}

/** Every page of a site of some hundred pages fits; a larger one stops at a page's end and says so. */
export const DEFAULT_LLMS_FULL_MAX_BYTES = 5 * 1024 * 1024;
