// Published sites for readers: a request path of a site → server-rendered HTML (or markdown,
// sitemap.xml, robots.txt, llms.txt). It serves the head revision of each space, so a merge is
// visible at once. A view first takes the site's fingerprint (a digest of its row and structure
// rows, the head revision and title of every space it shows, its integrations), read in one
// statement and kept in memory until a write of the tables it is made of (src/db/change-feed.ts):
// a repeated view sends no statement. The rendered response is cached under the fingerprint.
import { createHash } from "node:crypto";
import { jwtVerify, type JWTPayload } from "jose";
import {
  type CustomFont,
  Prisma,
  type Site,
  type SiteExternalLink,
  type SiteSection,
  type SiteSpace,
  type Space,
} from "../../generated/prisma/client.ts";
import type { Services } from "../context.ts";
import { ChangeFeed } from "../../db/change-feed.ts";
import { contentOf } from "../content/index.ts";
import { downloadUrlOf } from "../content/files.ts";
import { flatten, findPageByPath, type FileEntry, type LocatedPage, type PageNode } from "../content/tree.ts";
import { EMPTY_ADAPTIVE_SCHEMA, unsignedClaimsValidator } from "./adaptive.ts";
import { conditionHolds, type VisitorClaims } from "./conditions.ts";
import { externalLinksOf, safeLinkUrl } from "./external-links.ts";
import { previewClaims } from "./preview.ts";
import { sortByKey } from "./loaders.ts";
import { activeShareLink } from "./share-links.ts";
import { QUERY_MAX, searchSpaces } from "../search/index.ts";
import { retrieveSections } from "../ask/retrieval.ts";
import { defaultOf, orderedSections, siteSpacesIn, visibleStructure, type Structure } from "./index.ts";
import { withoutTitleHeading } from "../content/blocks/index.ts";
import { type BlockContext, escapeHtml, type Heading, type PageScript, pageScriptsOf, renderPageIn } from "./render.ts";
import { ASSET_CACHE_CONTROL, ASSETS_PREFIX, type SiteAssets } from "./assets.ts";
import { defaultFavicon, emojiFavicon, readableOn, THEME_JS } from "./style.ts";
import { mergeContentSecurityPolicies } from "../integrations/csp.ts";
import { DEFAULT_CUSTOMIZATION, type PageLook, pageLook, siteCustomization, siteSpaceCustomization } from "./customization.ts";
import { RequestScope } from "../request-scope.ts";
import { type InsightEventInput, type InsightEventType, recordInsightEvent } from "../insights/index.ts";
import { cssString, fontFaceRules } from "../fonts/faces.ts";
import { destinationOf, liveRedirects, locationOf, matchRedirect, REDIRECT_HOPS_MAX, targetOf } from "./redirects.ts";

/** Bounds of the rendered-response cache (entries and bytes), so a crawler cannot grow it without end. */
const CACHE_MAX_ENTRIES = 2000;
const CACHE_MAX_BYTES = 64 * 1024 * 1024;
/** Cached responses are rebuilt after this, so signed file URLs inside them stay valid. */
const CACHE_TTL_MS = 24 * 60 * 60 * 1000;
/** A page with a block that failed for a reason that may pass (an integration's script) is rebuilt after this. */
const VOLATILE_TTL_MS = 30 * 1000;
/**
 * A kept fingerprint (or share-link check) is read again after this even when no change was
 * seen: the bound on staleness should a notification of another instance ever be lost while its
 * connection stays up (a lost connection drops everything at once).
 */
export const FINGERPRINT_MAX_AGE_MS = 5 * 1000;
/** Bound of the kept fingerprints and share-link checks (unknown site ids and hostnames are kept too). */
const FINGERPRINTS_MAX = 1000;

export interface SiteResponse {
  status: number;
  contentType: string;
  /** A string as rendered; the bytes of it once cached (encoded once, not on every view). */
  body: string | Buffer<ArrayBuffer>;
  etag?: string;
  headers?: Record<string, string>;
  /** How long the cache keeps it when not the default (a page whose integration block failed). */
  ttlMs?: number;
  /** `Set-Cookie` values for this visitor (never cached). */
  cookies?: string[];
  /** A share key or visitor token was presented and refused: counted against the address's stricter budget (issue 28). */
  credentialRefused?: boolean;
  /** The insight event each answer of it records (kept with it in the cache, so a cached view records too). */
  insight?: SiteInsight;
}

/** What a rendered answer records of its view: the event's type, where it happened, and what it carries. */
export interface SiteInsight {
  type: InsightEventType;
  location: NonNullable<InsightEventInput["location"]>;
  data?: Record<string, unknown>;
}

/** The reader as the HTTP layer knows them, for insight events (the address is hashed, never stored). */
export interface SiteVisitor {
  address: string;
  userAgent: string | null;
  language: string | null;
  referrer: string | null;
}

/** Query parameters that carry a credential: never part of a recorded URL. */
const CREDENTIAL_PARAMETERS: ReadonlySet<string> = new Set(["shareKey", "jwt_token", "preview"]);

/** The URL a view records: the page's, with its query (its `utm_*`) but without credentials. */
function recordedUrl(request: SiteRequest): string {
  const query = new URLSearchParams([...request.query].filter(([name]) => !CREDENTIAL_PARAMETERS.has(name))).toString();
  return `${request.base}/${request.path}${query ? `?${query}` : ""}`;
}

interface CacheEntry {
  response: SiteResponse;
  bytes: number;
  at: number;
}

interface Kept {
  value: unknown;
  generation: number;
  at: number;
}

/**
 * A bounded least-recently-used cache of rendered responses, per app; and what views read of the
 * database (fingerprints, share-link checks), kept until `changes` reports a write.
 */
export class SiteCache {
  private readonly entries = new Map<string, CacheEntry>();
  private bytes = 0;
  private readonly kept = new Map<string, Kept>();
  /** The change generation of everything in `kept`. */
  private keptGeneration = -1;

  constructor(private readonly changes: ChangeFeed) {}

  /**
   * `read()`'s answer for `key`, kept while no write of the site tables is seen (and at most
   * FINGERPRINT_MAX_AGE_MS). An answer is kept only if no write became visible while it was read
   * (the generation did not move) and the feed hears every process: a view that read before a
   * write can never keep what it read after the write's invalidation.
   */
  async remember<T>(key: string, now: number, read: () => Promise<T>): Promise<T> {
    const changes = this.changes;
    const kept = this.kept.get(key);
    if (kept && kept.generation === changes.generation && now - kept.at < FINGERPRINT_MAX_AGE_MS) return kept.value as T;
    const generation = changes.generation;
    this.reads++;
    const value = await read();
    if (changes.live && changes.generation === generation) {
      if (this.keptGeneration !== generation || this.kept.size >= FINGERPRINTS_MAX) {
        this.kept.clear();
        this.keptGeneration = generation;
      }
      this.kept.set(key, { value, generation, at: now });
    }
    return value;
  }

  /** How many fingerprints and share-link checks were read from the database (tests: a repeated view reads none). */
  reads = 0;

  get(key: string, now: number): SiteResponse | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (now - entry.at > (entry.response.ttlMs ?? CACHE_TTL_MS)) {
      this.bytes -= entry.bytes;
      return undefined;
    }
    this.entries.set(key, entry);
    return entry.response;
  }

  /** Keeps `response` under `key`, its body as bytes; returns what is kept. */
  set(key: string, response: SiteResponse, now: number): SiteResponse {
    const kept = { ...response, body: Buffer.from(response.body) };
    const bytes = kept.body.length;
    const previous = this.entries.get(key);
    if (previous) {
      this.entries.delete(key);
      this.bytes -= previous.bytes;
    }
    this.entries.set(key, { response: kept, bytes, at: now });
    this.bytes += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.entries.size <= CACHE_MAX_ENTRIES && this.bytes <= CACHE_MAX_BYTES) break;
      this.entries.delete(oldest);
      this.bytes -= entry.bytes;
    }
    return kept;
  }

  /** How many responses were rendered (not served from the cache): tests check that repeats do not render. */
  renders = 0;
}

interface Fingerprint {
  id: string;
  organizationId: string;
  published: boolean;
  visibility: string;
  hostname: string | null;
  updatedAt: Date;
  /** A digest of the site's row, its structure rows, its live redirects and external links: any change of the site changes it. */
  version: string;
  heads: string | null;
  /**
   * A digest of the organization's installations of integrations with blocks or with site scripts
   * (`site:script:inject`), and of those on the site and its spaces: pages show both.
   */
  integrations: string | null;
  authPrivateKey: string;
  authFallbackURL: string | null;
  /** The adaptive schema (its `unsigned` object checks the visitor's unsigned claims). */
  adaptiveSchema: Record<string, unknown> | null;
  /** A digest of the organization's custom fonts (its customization may name one); null without any. */
  fonts: string | null;
}

/** The site (by id or hostname) with what its cache key depends on, in one statement. */
async function fingerprintOf(services: Services, by: { siteId: string } | { hostname: string }): Promise<Fingerprint | null> {
  const where =
    "siteId" in by ? Prisma.sql`s.id = ${by.siteId}` : Prisma.sql`s.hostname = ${by.hostname} AND s."hostnameVerifiedAt" IS NOT NULL`;
  const rows = await services.prisma.$queryRaw<Fingerprint[]>(Prisma.sql`
    SELECT s.id, s."organizationId", s.published, s.visibility, s.hostname, s."updatedAt", s."authPrivateKey", s."authFallbackURL",
      s."adaptiveSchema",
      md5(s::text
        || coalesce((SELECT string_agg(x::text, ',' ORDER BY x.id) FROM "SiteSpace" x WHERE x."siteId" = s.id), '')
        || coalesce((SELECT string_agg(x::text, ',' ORDER BY x.id) FROM "SiteSection" x WHERE x."siteId" = s.id), '')
        || coalesce((SELECT string_agg(x::text, ',' ORDER BY x.id) FROM "SiteSectionGroup" x WHERE x."siteId" = s.id), '')
        || coalesce((SELECT md5(string_agg(x::text, ',' ORDER BY x.id)) FROM "SiteRedirect" x WHERE x."siteId" = s.id AND NOT x.draft), '')
        || coalesce((SELECT md5(string_agg(x::text, ',' ORDER BY x.id)) FROM "SiteExternalLink" x WHERE x."siteId" = s.id AND NOT x.draft), '')) AS version,
      (SELECT string_agg(sp.id || ':' || sp."revisionId" || ':' || coalesce(sp."deletedAt"::text, '') || ':' || md5(sp.title), ',' ORDER BY sp.id)
         FROM "SiteSpace" ss JOIN "Space" sp ON sp.id = ss."spaceId" WHERE ss."siteId" = s.id) AS heads,
      (SELECT md5(string_agg(i.id || ':' || i.version || ':' || md5(i::text) || ':' || md5(inst::text)
           || coalesce((SELECT string_agg(x::text, ',' ORDER BY x."spaceId") FROM "IntegrationSpaceInstallation" x
                JOIN "SiteSpace" ss ON ss."spaceId" = x."spaceId" AND ss."siteId" = s.id WHERE x."installationId" = inst.id), '')
           || coalesce((SELECT x::text FROM "IntegrationSiteInstallation" x WHERE x."installationId" = inst.id AND x."siteId" = s.id), ''),
           ',' ORDER BY inst.id))
         FROM "IntegrationInstallation" inst JOIN "Integration" i ON i.id = inst."integrationId"
         WHERE inst."organizationId" = s."organizationId" AND (i."hasBlocks" OR 'site:script:inject' = ANY(i.scopes))) AS integrations,
      (SELECT md5(string_agg(f::text, ',' ORDER BY f.id)) FROM "CustomFont" f WHERE f."organizationId" = s."organizationId") AS fonts
    FROM "Site" s WHERE ${where}`);
  return rows[0] ?? null;
}

export interface SiteRequest {
  /** The site by id (`/sites/{id}/…`) or by its custom hostname (the request's Host). */
  site: { siteId: string } | { hostname: string };
  /** The path inside the site, without leading slash. */
  path: string;
  /** Where the site's URLs start: `${PUBLIC_URL}/sites/{id}` or `https://{hostname}`. */
  base: string;
  query: URLSearchParams;
  cookies: Record<string, string>;
  ifNoneMatch: string | null;
  /** The reader, when views are to be recorded as insight events (the site server's own requests). */
  visitor?: SiteVisitor;
  /** Unsigned claims given as an object (a URL lookup's `visitor.unsignedClaims`), in place of `visitor.<name>` parameters. */
  unsignedClaims?: Record<string, unknown>;
}

const notFoundPage = (message = "This page does not exist.") =>
  page({ status: 404, title: "Not found", body: `<main><h1>Not found</h1><p>${escapeHtml(message)}</p></main>` });

/** A stylesheet, script or font of published pages (any site: they hold no content), or 404. */
function serveAsset(services: Services, name: string): SiteResponse {
  const asset = services.siteRendering.assets.get(name);
  if (!asset) return { status: 404, contentType: "text/plain; charset=utf-8", body: "Not found", headers: { "Cache-Control": "no-store" } };
  return { status: 200, contentType: asset.contentType, body: asset.body, headers: { "Cache-Control": ASSET_CACHE_CONTROL } };
}

/**
 * The site a request names and what its visitor may see: null for a Host that is no site's, a
 * response when the site is not published or the visitor is refused.
 */
async function admit(
  services: Services,
  cache: SiteCache,
  request: SiteRequest,
  now: number,
): Promise<{ fingerprint: Fingerprint; access: { claims: VisitorClaims; cookies: string[] }; preview?: true } | SiteResponse | null> {
  const by = request.site;
  const fingerprint = await cache.remember("siteId" in by ? `id|${by.siteId}` : `host|${by.hostname}`, now, () =>
    fingerprintOf(services, by),
  );
  if (!fingerprint && "hostname" in by) return null;
  // A preview (src/core/sites/preview.ts) opens the site published or not, whatever its visibility.
  const previewCookie = fingerprint && `site_preview_${fingerprint.id}`;
  const previewToken = fingerprint && (request.query.get("preview") ?? request.cookies[previewCookie!]);
  if (fingerprint && previewToken) {
    const claims = await previewClaims(fingerprint, previewToken, services.clock.now());
    if (!claims) return credentialRefused(refusal(403, "This preview link is not valid (expired, or the site's key changed).")).refused;
    const cookies = request.query.get("preview") ? [cookieOf(previewCookie!, previewToken, request.base)] : [];
    return { fingerprint, access: { claims, cookies }, preview: true };
  }
  if (!fingerprint || !fingerprint.published) return notFoundPage("No published site here.");
  const access = await visitorAccess(services, cache, fingerprint, request, now);
  if ("refused" in access) return access.refused;
  return { fingerprint, access };
}

/** A digest of a visitor's claims: what they see depends on nothing else ("" without claims). */
function claimsKeyOf(claims: VisitorClaims): string {
  const text = JSON.stringify(claims);
  return text === "{}" ? "" : createHash("sha256").update(text).digest("base64url").slice(0, 16);
}

/**
 * Serves one request of a published site. Unpublished, deleted and unknown sites are 404; a
 * hostname that is no site's is not a site request at all (null: the service answers it, so that
 * its landing page and links work whatever name it is reached by).
 */
export async function serveSite(services: Services, cache: SiteCache, request: SiteRequest): Promise<SiteResponse | null> {
  if (request.path.startsWith(ASSETS_PREFIX)) return serveAsset(services, request.path.slice(ASSETS_PREFIX.length));
  const now = services.clock.now().getTime();
  const admitted = await admit(services, cache, request, now);
  if (!admitted || "status" in admitted) return admitted;
  const { fingerprint, access } = admitted;
  const claimsKey = claimsKeyOf(access.claims);
  const key = [
    fingerprint.id,
    fingerprint.version,
    fingerprint.heads ?? "",
    fingerprint.integrations ?? "",
    fingerprint.fonts ?? "",
    claimsKey,
    request.base,
    request.path,
    request.query.get("q") ?? "",
    request.query.get("ask") ?? "",
  ].join("|");
  let response = cache.get(key, now);
  if (!response) {
    cache.renders++;
    const rendered = await render(services, fingerprint, request, access.claims);
    // The ETag is the key's hash. A page with a failed integration block has none: its next
    // render may differ under the same key.
    const etag = `"${createHash("sha256").update(key).digest("base64url").slice(0, 27)}"`;
    response = cache.set(key, rendered.ttlMs ? rendered : { ...rendered, etag }, now);
  }
  // Recording never waits (a bounded buffer, written in batches): a cached view stays as fast.
  if (request.visitor && response.insight && !admitted.preview)
    recordInsightEvent(services, {
      siteId: fingerprint.id,
      type: response.insight.type,
      url: recordedUrl(request),
      location: response.insight.location,
      visitor: { ...request.visitor, claims: access.claims },
      data: response.insight.data,
    });
  const headers: Record<string, string> = { ...response.headers };
  const cookies = access.cookies;
  if (fingerprint.visibility !== "public" || admitted.preview) headers["X-Robots-Tag"] = "noindex";
  // Share-link and visitor-auth pages are private to their visitor: no shared cache keeps them; nor previews.
  headers["Cache-Control"] = admitted.preview
    ? "private, no-store"
    : fingerprint.visibility === "public" || fingerprint.visibility === "unlisted"
      ? "public, max-age=0, must-revalidate"
      : "private, no-cache";
  if (request.ifNoneMatch && request.ifNoneMatch === response.etag)
    return { status: 304, contentType: response.contentType, body: "", etag: response.etag, headers, cookies };
  return { ...response, headers, cookies };
}

// ---------------------------------------------------------------------------------------------
// What a URL of a site shows its visitor, as data (the published getPublishedContentByUrl)

/** Where a URL of a site leads its visitor: the site space and page a view of it would show. */
export interface SiteUrlContent {
  kind: "content";
  siteId: string;
  organizationId: string;
  sectionId: string | null;
  siteSpaceId: string;
  spaceId: string;
  revisionId: string;
  /** The page's path in its site space ("" at the site space's root, which shows its first page). */
  pagePath: string;
  /** URL of the site (no trailing slash), and of the site space's root. */
  siteBase: string;
  spaceBase: string;
  /** Whether the URL named its site space (and section) itself, or its page: no defaults were taken where another choice existed. */
  complete: boolean;
  /** The share key that opened a share-link site. */
  shareKey: string | null;
  /** A digest of the visitor's claims when they have any (what they see depends on them). */
  contextId: string | null;
  /** Opened by a preview token (the site's preview URL). */
  preview: boolean;
}

export type SiteUrlResolution =
  | SiteUrlContent
  /** A site redirect answers the URL (`location`, a site's URL when `inSite`). */
  | { kind: "redirect"; siteId: string; location: string; inSite: boolean }
  /** The visitor is refused; `fallback` is the site's sign-in URL when it has one. */
  | { kind: "refused"; siteId: string; fallback: string | null };

/**
 * What `request` (a URL of a site, read as the site server reads it, with the visitor's
 * credentials) shows: the site space and page a view would render, the redirect it would answer,
 * or that the visitor is refused; null when it shows nothing (no such site, not published, no
 * such page). Only what the visitor may see: their share key, token and claims, the site's
 * adaptive conditions and hidden site spaces apply as for a page view.
 */
export async function resolveSiteUrl(services: Services, request: SiteRequest): Promise<SiteUrlResolution | null> {
  if (request.path.startsWith(ASSETS_PREFIX)) return null;
  // Nothing is kept across lookups (a feed that is never live): every one reads the site afresh.
  const cache = new SiteCache(new ChangeFeed(false));
  const admitted = await admit(services, cache, request, services.clock.now().getTime());
  if (!admitted) return null;
  if ("status" in admitted) {
    if (admitted.status === 404) return null;
    const siteId = "siteId" in request.site ? request.site.siteId : ((await fingerprintOf(services, request.site))?.id ?? null);
    if (!siteId) return null;
    const location = admitted.status === 302 ? (admitted.headers?.Location ?? null) : null;
    return { kind: "refused", siteId, fallback: location };
  }
  const { fingerprint, access } = admitted;
  const loaded = await load(services, fingerprint, access.claims);
  const path = request.path.endsWith(".md") ? request.path.slice(0, -3) : request.path;
  const place = locate(loaded, request.base, path.split("/").filter(Boolean));
  const content = place && loaded.contents.get(place.siteSpace.spaceId);
  const located =
    place && content && (place.rest.length ? findPageByPath(content.pages, place.rest.join("/")) : firstDocument(content.pages));
  if (!place || !located) {
    const redirect = await redirectOf(services, loaded, fingerprint, request);
    const location = redirect?.headers?.Location;
    if (!location) return null;
    const base = request.base;
    return { kind: "redirect", siteId: fingerprint.id, location, inSite: location === base || location.startsWith(`${base}/`) };
  }
  const { structure } = loaded;
  const complete =
    place.rest.length > 0 || (orderedSections(structure).length <= 1 && siteSpacesIn(structure, place.section?.id ?? null).length <= 1);
  return {
    kind: "content",
    siteId: fingerprint.id,
    organizationId: fingerprint.organizationId,
    sectionId: place.section?.id ?? null,
    siteSpaceId: place.siteSpace.id,
    spaceId: place.siteSpace.spaceId,
    revisionId: loaded.spaces.get(place.siteSpace.spaceId)!.revisionId,
    pagePath: place.rest.length ? located.path : "",
    siteBase: request.base,
    spaceBase: place.spaceBase,
    complete,
    shareKey: fingerprint.visibility === "share-link" && !admitted.preview ? (request.query.get("shareKey") ?? null) : null,
    contextId: claimsKeyOf(access.claims) || null,
    preview: !!admitted.preview,
  };
}

// ---------------------------------------------------------------------------------------------
// Page feedback: "Was this page helpful?", a form post to the page's own URL (no JavaScript)

/** The published PageFeedbackRating values. */
export const FEEDBACK_RATINGS: readonly string[] = ["bad", "ok", "good"];
/** The published bound of a feedback comment (characters). */
export const FEEDBACK_COMMENT_MAX = 512;

/**
 * Records a reader's feedback on the page at `request.path` as one insight event
 * (`page_post_feedback`, or `page_post_feedback_comment` with a comment) and answers a thank-you
 * page. Refused without recording anything: a site or page the reader cannot see (404, as a view
 * would), a site whose customization has feedback off (404), a bad `rating` or `comment` (400
 * naming it). Null when the Host is no site's, as for a view.
 */
export async function postFeedback(
  services: Services,
  cache: SiteCache,
  request: SiteRequest,
  form: URLSearchParams,
  visitor: SiteVisitor,
): Promise<SiteResponse | null> {
  const admitted = await admit(services, cache, request, services.clock.now().getTime());
  if (!admitted || "status" in admitted) return admitted;
  const { fingerprint, access } = admitted;
  const loaded = await load(services, fingerprint, access.claims);
  const place = locate(loaded, request.base, request.path.split("/").filter(Boolean));
  const content = place && loaded.contents.get(place.siteSpace.spaceId)!;
  const located =
    place && content && (place.rest.length ? findPageByPath(content.pages, place.rest.join("/")) : firstDocument(content.pages));
  if (!place || !located || located.page.kind !== "document") return notFoundPage();
  if (!pageLook(siteSpaceCustomization(loaded.site, place.siteSpace)).feedback)
    return notFoundPage("This site does not take page feedback.");
  const pageUrl = `${place.spaceBase}/${located.path}`;
  const answer = (status: number, title: string, message: string) => {
    const response = withChrome(loaded, place, false, {
      status,
      title,
      current: located.page.id,
      main: `<h1>${escapeHtml(title)}</h1><p>${message}</p><p><a href="${escapeHtml(pageUrl)}">Back to “${escapeHtml(located.page.title)}”</a></p>`,
    });
    return { ...response, headers: { ...response.headers, "Cache-Control": "no-store" } };
  };
  const rating = form.get("rating") ?? "";
  if (!FEEDBACK_RATINGS.includes(rating))
    return answer(400, "Feedback not recorded", `<code>rating</code> must be one of ${FEEDBACK_RATINGS.join(", ")}.`);
  const comment = (form.get("comment") ?? "").trim();
  // Counted in characters (code points), as the published schema's maxLength is.
  if ([...comment].length > FEEDBACK_COMMENT_MAX)
    return answer(400, "Feedback not recorded", `<code>comment</code> may be at most ${FEEDBACK_COMMENT_MAX} characters.`);
  const space = loaded.spaces.get(place.siteSpace.spaceId)!;
  recordInsightEvent(services, {
    siteId: fingerprint.id,
    type: comment ? "page_post_feedback_comment" : "page_post_feedback",
    url: pageUrl,
    location: {
      siteSectionId: place.section?.id ?? null,
      siteSpaceId: place.siteSpace.id,
      spaceId: space.id,
      pageId: located.page.id,
      revisionId: space.revisionId,
    },
    visitor: { ...visitor, claims: access.claims },
    data: comment ? { rating, comment } : { rating },
  });
  return answer(200, "Thank you", "Your feedback on this page was recorded.");
}

// ---------------------------------------------------------------------------------------------
// Machine readers (the site's MCP endpoint): what a visitor may read, as data

/** Results of a reader's search, at most this many pages. */
export const READER_SEARCH_RESULTS = 20;

export interface ReaderPage {
  title: string;
  /** The page's URL for people; its Markdown is at the same URL with `.md`. */
  url: string;
  description: string;
}

/** A published site as one visitor may read it (their share link, visitor token and claims applied). */
export interface SiteReader {
  title: string;
  /** Every page the visitor can reach, in navigation order. */
  pages(): ReaderPage[];
  /** A page's Markdown (title once), by its URL or its path inside the site; null when the visitor cannot reach it. */
  page(urlOrPath: string): Promise<(ReaderPage & { markdown: string }) | null>;
  /** The site's search (its synonyms) over what the visitor sees, best first. */
  search(query: string): Promise<(ReaderPage & { snippet: string })[]>;
  /**
   * An extractive answer: the passages (page sections) that best match the question's words,
   * each with its URL, best first; at most ASK_PASSAGES, each at most ASK_PASSAGE_CHARACTERS.
   */
  ask(question: string): Promise<AskPassage[]>;
}

/** Passages an answer quotes, and the characters kept of each. */
export const ASK_PASSAGES = 5;
export const ASK_PASSAGE_CHARACTERS = 600;

export interface AskPassage {
  /** The page's title, then the section's heading when it has one. */
  title: string;
  /** The section's URL (the page's, with the heading's anchor). */
  url: string;
  text: string;
}

/**
 * The reader of the site `request` names, for its visitor: null for a Host that is no site's, a
 * response when the site is not published or the visitor is refused (as a page view would be).
 */
export async function openSiteReader(
  services: Services,
  cache: SiteCache,
  request: SiteRequest,
): Promise<SiteReader | SiteResponse | null> {
  const admitted = await admit(services, cache, request, services.clock.now().getTime());
  if (!admitted || "status" in admitted) return admitted;
  const loaded = await load(services, admitted.fingerprint, admitted.access.claims);
  const base = request.base;
  const readable = readablePages(loaded, base);
  const asPage = ({ located, url }: (typeof readable)[number]): ReaderPage => ({
    title: located.page.title,
    url,
    description: located.page.description ?? "",
  });
  return {
    title: loaded.site.title,
    pages: () => readable.map(asPage),
    async page(urlOrPath) {
      const path = (urlOrPath.startsWith(`${base}/`) ? urlOrPath.slice(base.length + 1) : urlOrPath.replace(/^\/+/, ""))
        .replace(/[?#].*$/, "")
        .replace(/\.md$/, "")
        .replace(/\/+$/, "");
      const found = readable.find(({ url }) => url === `${base}/${path}` || (path === "" && url === base));
      if (!found) return null;
      const markdown = found.located.page.body ? await bodyOf(services, found.located.page.body) : "";
      return { ...asPage(found), markdown: `# ${found.located.page.title}\n\n${withoutTitleHeading(markdown, found.located.page.title)}` };
    },
    async search(query) {
      const trimmed = query.trim();
      if (!trimmed) return [];
      const spaces = [...new Map(loaded.structure.siteSpaces.map((s) => [s.spaceId, loaded.spaces.get(s.spaceId)!])).values()];
      const found = await searchSpaces(
        services,
        spaces,
        trimmed,
        { first: READER_SEARCH_RESULTS },
        { synonyms: loaded.structure.site.searchSynonyms as string[][] },
      );
      return found.items
        .flatMap((space) => {
          const siteSpace = loaded.structure.siteSpaces.find((s) => s.spaceId === space.id)!;
          return space.pages.map((hit) => ({
            score: hit.score,
            page: {
              title: hit.title,
              url: `${urlOfSiteSpace(base, loaded.structure, siteSpace)}/${hit.path}`,
              description: hit.description,
              snippet: hit.sections[0]?.body ?? "",
            },
          }));
        })
        .sort((a, b) => b.score - a.score)
        .slice(0, READER_SEARCH_RESULTS)
        .map(({ page }) => page);
    },
    ask: (question) => askPassages(services, loaded, base, question),
  };
}

/** The passages of what the visitor sees that best answer `question` (SiteReader.ask). */
async function askPassages(services: Services, loaded: Loaded, base: string, question: string): Promise<AskPassage[]> {
  const trimmed = question.trim();
  if (!trimmed) return [];
  const siteSpaceOf = new Map(loaded.structure.siteSpaces.map((s) => [s.spaceId, s]));
  // Lexical and by the site's vector model, over the spaces the visitor sees (src/core/ask/retrieval.ts).
  const spaces = [...siteSpaceOf.keys()].map((spaceId) => ({ id: spaceId, revisionId: loaded.spaces.get(spaceId)!.revisionId }));
  const hits = await retrieveSections(services, spaces, trimmed.slice(0, QUERY_MAX), {
    synonyms: loaded.structure.site.searchSynonyms as string[][],
    siteId: loaded.site.id,
    limit: ASK_PASSAGES * 4,
  });
  const passages: AskPassage[] = [];
  for (const hit of hits) {
    if (passages.length === ASK_PASSAGES) break;
    const text = [...hit.body.replace(/\s+/g, " ").trim()];
    if (!text.length) continue;
    const page = `${urlOfSiteSpace(base, loaded.structure, siteSpaceOf.get(hit.spaceId)!)}/${hit.pagePath}`;
    passages.push({
      title: hit.anchor && hit.title !== hit.pageTitle ? `${hit.pageTitle} › ${hit.title}` : hit.pageTitle,
      url: hit.anchor ? `${page}#${hit.anchor}` : page,
      text: text.length > ASK_PASSAGE_CHARACTERS ? `${text.slice(0, ASK_PASSAGE_CHARACTERS - 1).join("")}…` : text.join(""),
    });
  }
  return passages;
}

/** An extractive answer as Markdown: the question, then the passages quoted with their links. */
export function askAnswerMarkdown(siteTitle: string, question: string, passages: AskPassage[]): string {
  const asked = `> ${question.trim().replace(/\s+/g, " ")}`;
  if (!passages.length) return `${asked}\n\nNo page of ${siteTitle} answers this question.\n`;
  const quoted = passages.map((passage, index) => `${index + 1}. [${passage.title}](${passage.url})\n\n   > ${passage.text}`);
  return `${asked}\n\nThe passages of ${siteTitle} that best answer it:\n\n${quoted.join("\n\n")}\n`;
}

/** The "Was this page helpful?" form of a page: buttons that post the rating, with an optional comment. */
function feedbackForm(pageUrl: string): string {
  return `<form class="feedback" id="feedback" method="post" action="${escapeHtml(pageUrl)}"><fieldset><legend>Was this page helpful?</legend><label for="feedback-comment">Comment (optional)</label><textarea id="feedback-comment" name="comment" rows="2" maxlength="${FEEDBACK_COMMENT_MAX}"></textarea><p><button name="rating" value="good">Yes</button><button name="rating" value="ok">Partly</button><button name="rating" value="bad">No</button></p></fieldset></form>`;
}

// ---------------------------------------------------------------------------------------------
// Visitors: who may read the site, and their claims

type Access = { claims: VisitorClaims; cookies: string[] } | { refused: SiteResponse };

const refusal = (status: number, message: string): { refused: SiteResponse } => ({
  refused: page({ status, title: "Access refused", body: `<main><h1>Access refused</h1><p>${escapeHtml(message)}</p></main>` }),
});

const cookieOf = (name: string, value: string, base: string) =>
  `${name}=${encodeURIComponent(value)}; Path=${new URL(base).pathname || "/"}; HttpOnly; SameSite=Lax${base.startsWith("https:") ? "; Secure" : ""}`;

const credentialRefused = (access: { refused: SiteResponse }) => ({ refused: { ...access.refused, credentialRefused: true } });

/** How far a visitor token's clock may differ from ours (its `exp`, `nbf`, `iat`). */
const CLOCK_TOLERANCE_SECONDS = 60;

/** `url` as a `Location` value (its absolute http(s) form), or null when it holds what a header cannot. */
function usableLocation(url: string): string | null {
  if (/[\u0000-\u001f\u007f-\u009f]/.test(url)) return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.href : null;
  } catch {
    return null;
  }
}

async function visitorAccess(services: Services, cache: SiteCache, site: Fingerprint, request: SiteRequest, now: number): Promise<Access> {
  const cookies: string[] = [];
  let claims: VisitorClaims = {};
  if (site.visibility === "share-link") {
    const cookie = `site_share_${site.id}`;
    const key = request.query.get("shareKey") ?? request.cookies[cookie];
    if (!key) return refusal(401, "This site is shared by link only: open it with its share link.");
    // Checked on every view, against what is kept until a share link changes (revoked: at once).
    const active = await cache.remember(`share|${site.id}|${key}`, now, async () => !!(await activeShareLink(services, site, key)));
    if (!active) return credentialRefused(refusal(403, "This share link is not valid (revoked or unknown)."));
    if (request.query.get("shareKey")) cookies.push(cookieOf(cookie, key, request.base));
  } else if (site.visibility === "visitor-auth") {
    const cookie = `site_visitor_${site.id}`;
    const token = request.query.get("jwt_token") ?? request.cookies[cookie];
    // A visitor without a valid token goes to the site's fallback URL (its sign-in page) when it has one.
    // A fallback URL stored before the input boundary refused control characters (or any other
    // value Node cannot write as a header) is not used: a logged error, and the 401 page (issue 28).
    const fallback = site.authFallbackURL && usableLocation(site.authFallbackURL);
    if (site.authFallbackURL && !fallback)
      services.logger.error({ siteId: site.id, field: "fallbackURL" }, "stored fallback URL cannot be sent as a Location header");
    const signIn = (message: string) =>
      fallback
        ? { refused: { status: 302, contentType: "text/plain; charset=utf-8", body: message, headers: { Location: fallback } } }
        : refusal(401, message);
    if (!token) return signIn("Sign in to read this site: it needs a visitor token.");
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, new TextEncoder().encode(site.authPrivateKey), {
        algorithms: ["HS256"],
        currentDate: services.clock.now(),
        requiredClaims: ["exp"],
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
      }));
    } catch {
      return credentialRefused(signIn("The visitor token is not valid (bad signature, expired, not yet valid, or without `exp`)."));
    }
    // A token without a bound would be valid until the site's key is regenerated (issue 28).
    const nowSeconds = now / 1000;
    const maxLifetime = services.sites.visitorTokenMaxLifetimeSeconds;
    if (payload.exp! > nowSeconds + maxLifetime + CLOCK_TOLERANCE_SECONDS)
      return credentialRefused(signIn(`The visitor token expires too far ahead: its \`exp\` may be at most ${maxLifetime} s from now.`));
    if (payload.iat !== undefined && payload.iat > nowSeconds + CLOCK_TOLERANCE_SECONDS)
      return credentialRefused(signIn("The visitor token is not valid: it was issued in the future (`iat`)."));
    const { iat: _iat, exp: _exp, nbf: _nbf, ...signed } = payload;
    claims = { ...signed };
    if (request.query.get("jwt_token")) cookies.push(cookieOf(cookie, token, request.base));
  }
  // Unsigned claims: the `visitor.<name>` parameters, then kept in a cookie (so that following a
  // link keeps them) until other parameters replace them; checked against the adaptive schema on
  // every request (it may have changed since), and left out when they do not validate.
  const claimsCookie = `site_claims_${site.id}`;
  let unsigned = request.unsignedClaims;
  let fromQuery = false;
  for (const [name, value] of unsigned ? [] : request.query) {
    if (!name.startsWith("visitor.")) continue;
    unsigned ??= {};
    fromQuery = true;
    unsigned[name.slice("visitor.".length)] =
      value === "true" ? true : value === "false" ? false : /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
  }
  if (!unsigned && request.cookies[claimsCookie]) {
    try {
      const parsed: unknown = JSON.parse(request.cookies[claimsCookie]);
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) unsigned = parsed as Record<string, unknown>;
    } catch {
      // Not a cookie of ours: no unsigned claims.
    }
  }
  if (unsigned && Object.keys(unsigned).length) {
    const validate = unsignedClaimsValidator(site.adaptiveSchema ?? EMPTY_ADAPTIVE_SCHEMA);
    if (validate && validate(unsigned)) {
      claims = { ...claims, unsigned };
      const cookie = cookieOf(claimsCookie, JSON.stringify(unsigned), request.base);
      // Browsers drop cookies over about 4 KB: larger claims count for this request only.
      if (fromQuery && cookie.length <= 3072) cookies.push(cookie);
    }
  }
  return { claims, cookies };
}

// ---------------------------------------------------------------------------------------------
// Rendering

type PageAssets = ReturnType<SiteAssets["names"]> & { themeHash: string };

interface Loaded {
  site: Site;
  /** The scripts of integrations its pages load (`<script src async>`, allowed by the page's CSP, which merges theirs). */
  scripts: PageScript[];
  structure: Structure;
  spaces: Map<string, Space>;
  contents: Map<string, ReturnType<typeof contentOf>>;
  /** Names (with hashes) of the stylesheets and script pages load, and the CSP hash of the inline theme line. */
  assets: PageAssets;
  /** The organization's custom fonts that the site's customization (or a site space's) names, by id. */
  fonts: Map<string, CustomFont>;
  /** The live external links of the header the visitor sees (their condition holds), in order. */
  externalLinks: SiteExternalLink[];
}

async function load(services: Services, fingerprint: Fingerprint, claims: VisitorClaims): Promise<Loaded> {
  const prisma = services.prisma;
  const siteId = fingerprint.id;
  const [site, siteSpaces, sections, groups, scripts, externalLinks] = await Promise.all([
    prisma.site.findUniqueOrThrow({ where: { id: siteId } }),
    prisma.siteSpace.findMany({ where: { siteId } }),
    prisma.siteSection.findMany({ where: { siteId } }),
    prisma.siteSectionGroup.findMany({ where: { siteId } }),
    pageScriptsOf(services, fingerprint),
    externalLinksOf(prisma, siteId),
  ]);
  const spaces = await prisma.space.findMany({ where: { id: { in: siteSpaces.map((s) => s.spaceId) }, deletedAt: null } });
  const live = new Set(spaces.map((space) => space.id));
  const structure = visibleStructure(
    {
      site,
      root: sortByKey([...sections.filter((section) => !section.sectionGroupId), ...groups]),
      sections: sortByKey(sections),
      groups: sortByKey(groups),
      siteSpaces: sortByKey(siteSpaces.filter((siteSpace) => live.has(siteSpace.spaceId))),
    },
    claims,
  );
  const revisions = await prisma.revision.findMany({ where: { id: { in: spaces.map((space) => space.revisionId) } } });
  const byId = new Map(revisions.map((revision) => [revision.id, revision]));
  const contents = new Map(spaces.map((space) => [space.id, contentOf(byId.get(space.revisionId)!)]));
  const assets = { ...services.siteRendering.assets.names(), themeHash: services.siteRendering.assets.themeScriptHash };
  // The custom fonts the settings name: one statement, only when some are named.
  const named = new Set(
    [siteCustomization(site), ...siteSpaces.map((siteSpace) => siteSpaceCustomization(site, siteSpace))].flatMap((settings) =>
      Object.values(pageLook(settings).customFonts).filter((id): id is string => id !== null),
    ),
  );
  const fonts = named.size
    ? await prisma.customFont.findMany({ where: { id: { in: [...named] }, organizationId: site.organizationId } })
    : [];
  return {
    site,
    scripts,
    structure,
    spaces: new Map(spaces.map((space) => [space.id, space])),
    contents,
    assets,
    fonts: new Map(fonts.map((font) => [font.id, font])),
    externalLinks: externalLinks.filter((link) => conditionHolds(link.condition, claims)),
  };
}

interface Place {
  section?: SiteSection;
  siteSpace: SiteSpace;
  /** URL of the site space's root (no trailing slash). */
  spaceBase: string;
  /** What is left of the path: the page path. */
  rest: string[];
}

const defaultSection = (structure: Structure) => defaultOf(orderedSections(structure));

function urlOfSection(base: string, structure: Structure, section: SiteSection) {
  return defaultSection(structure)?.id === section.id ? base : `${base}/${section.path}`;
}

/** Where a site space is read on the site at `base` (its section's path, then its own unless it is the default). */
export function urlOfSiteSpace(base: string, structure: Structure, siteSpace: SiteSpace) {
  const section = siteSpace.sectionId ? structure.sections.find((s) => s.id === siteSpace.sectionId) : undefined;
  const sectionBase = section ? urlOfSection(base, structure, section) : base;
  return defaultOf(siteSpacesIn(structure, siteSpace.sectionId))?.id === siteSpace.id ? sectionBase : `${sectionBase}/${siteSpace.path}`;
}

/** Which section and site space a path names (the defaults when it names none), and the rest. */
function locate(loaded: Loaded, base: string, segments: string[]): Place | null {
  const { structure } = loaded;
  let rest = segments;
  let section: SiteSection | undefined;
  if (structure.sections.length) {
    section =
      orderedSections(structure).find((s) => s.path === rest[0] && s.id !== defaultSection(structure)?.id) ?? defaultSection(structure);
    if (section && section.path === rest[0] && section.id !== defaultSection(structure)?.id) rest = rest.slice(1);
  }
  const siblings = siteSpacesIn(structure, section?.id ?? null);
  const preferred = defaultOf(siblings);
  let siteSpace = siblings.find((s) => s.path === rest[0] && s.id !== preferred?.id);
  if (siteSpace) rest = rest.slice(1);
  else siteSpace = preferred;
  if (!siteSpace) return null;
  return { section, siteSpace, spaceBase: urlOfSiteSpace(base, structure, siteSpace), rest };
}

/** Whether a path of the site (decoded, leading slash) finds a page (a site space's root finds its first page). */
function findsPage(loaded: Loaded, base: string, path: string): boolean {
  const place = locate(loaded, base, path.split("/").filter(Boolean));
  if (!place) return false;
  const content = loaded.contents.get(place.siteSpace.spaceId);
  if (!content) return false;
  return place.rest.length ? !!findPageByPath(content.pages, place.rest.join("/")) : !!firstDocument(content.pages);
}

/**
 * The redirect answering a request that found no page, or null (then the 404). A chain of
 * redirects within the site is followed to its end (the visitor gets one redirect) for at most
 * REDIRECT_HOPS_MAX redirects; a chain that comes back to a path it went through, or is longer,
 * answers the 404, as does a redirect whose destination is gone or whose URL is not a safe
 * Location (locationOf). Permanent redirects answer 308 on public and unlisted sites, every other
 * one 307 (the published SiteRedirect.permanent); the response is cached like a page.
 */
async function redirectOf(
  services: Services,
  loaded: Loaded,
  fingerprint: Fingerprint,
  request: SiteRequest,
): Promise<SiteResponse | null> {
  const redirects = await liveRedirects(services, loaded.site);
  if (!redirects.length) return null;
  const base = request.base;
  let path = `/${request.path}`.replace(/\/+$/, "");
  const seen = new Set([path]);
  let permanent = true;
  let location: string | null = null;
  for (let hop = 0; ; hop++) {
    const match = matchRedirect(redirects, path);
    if (!match) break;
    // One more redirect than allowed: the chain is refused.
    if (hop === REDIRECT_HOPS_MAX) return null;
    const target = targetOf(loaded.structure, (spaceId) => loaded.contents.get(spaceId)?.pages, destinationOf(match.redirect));
    location = target && locationOf(target, base, match.redirect.captureWildcard ? match.rest : "");
    if (!location) return null;
    permanent &&= match.redirect.permanent;
    const inSite = location === base || location.startsWith(`${base}/`) ? location.slice(base.length).split(/[?#]/)[0]! : null;
    if (inSite === null) break;
    let next: string;
    try {
      next = decodeURIComponent(inSite).replace(/\/+$/, "");
    } catch {
      return null;
    }
    if (seen.has(next)) return null;
    seen.add(next);
    if (findsPage(loaded, base, next)) break;
    path = next;
  }
  if (!location) return null;
  const publicTraffic = fingerprint.visibility === "public" || fingerprint.visibility === "unlisted";
  return {
    status: permanent && publicTraffic ? 308 : 307,
    contentType: "text/plain; charset=utf-8",
    body: `Redirecting to ${location}\n`,
    headers: { Location: location },
  };
}

/** Where a view of `place` happened, for its insight event (`pageId` null: no page found, a 404). */
function insightLocation(loaded: Loaded, place: Place, pageId: string | null): SiteInsight["location"] {
  return {
    siteSectionId: place.section?.id ?? null,
    siteSpaceId: place.siteSpace.id,
    spaceId: place.siteSpace.spaceId,
    pageId,
    revisionId: loaded.spaces.get(place.siteSpace.spaceId)?.revisionId ?? null,
  };
}

const firstDocument = (pages: PageNode[]) => flatten(pages).find((located) => located.page.kind === "document" && !located.page.hidden);

async function render(services: Services, fingerprint: Fingerprint, request: SiteRequest, claims: VisitorClaims): Promise<SiteResponse> {
  const loaded = await load(services, fingerprint, claims);
  const base = request.base;
  const indexed = fingerprint.visibility === "public";
  if (request.path === "robots.txt") {
    return {
      status: 200,
      contentType: "text/plain; charset=utf-8",
      body: indexed ? `User-agent: *\nAllow: /\nSitemap: ${base}/sitemap.xml\n` : "User-agent: *\nDisallow: /\n",
    };
  }
  if (request.path === "sitemap.xml") return sitemap(loaded, base, indexed);
  if (request.path === "llms.txt")
    return { ...llms(loaded, base), insight: { type: "llms_request", location: {}, data: { llmsVariant: "standard" } } };
  if (request.path === "llms-full.txt")
    return { ...(await llmsFull(services, loaded, base)), insight: { type: "llms_request", location: {}, data: { llmsVariant: "full" } } };
  if (request.path === "favicon.ico") return favicon(pageLook(siteCustomization(loaded.site)));

  const markdownWanted = request.path.endsWith(".md");
  const segments = (markdownWanted ? request.path.slice(0, -3) : request.path).split("/").filter(Boolean);
  const place = locate(loaded, base, segments);
  if (!place) return (await redirectOf(services, loaded, fingerprint, request)) ?? notFoundPage("This site has no content yet.");
  const content = loaded.contents.get(place.siteSpace.spaceId)!;
  if (place.rest[0] === "~search") return searchPage(services, loaded, place, request.query.get("q") ?? "", indexed);
  const notFoundInsight: SiteInsight = { type: "page_view", location: insightLocation(loaded, place, null) };
  const located = place.rest.length ? findPageByPath(content.pages, place.rest.join("/")) : firstDocument(content.pages);
  if (!located) {
    const redirect = await redirectOf(services, loaded, fingerprint, request);
    if (redirect) return redirect;
  }
  if (!located)
    return {
      ...withChrome(loaded, place, indexed, {
        status: 404,
        title: "Not found",
        main: "<h1>Not found</h1><p>This page does not exist.</p>",
      }),
      insight: notFoundInsight,
    };
  const pageInsight = (type: InsightEventType): SiteInsight => ({ type, location: insightLocation(loaded, place, located.page.id) });
  const markdown = located.page.body ? await bodyOf(services, located.page.body) : "";
  // The page's title is shown once: a Markdown body that starts with the same level-1 heading loses it.
  const body = withoutTitleHeading(markdown, located.page.title);
  if (markdownWanted && request.query.has("ask")) {
    // A question asked of the page's .md view, as GitBook's pages answer agents: the site's passages.
    const question = (request.query.get("ask") ?? "").slice(0, QUERY_MAX);
    const passages = await askPassages(services, loaded, base, question);
    const asked = question.trim();
    return {
      status: 200,
      contentType: "text/markdown; charset=utf-8",
      body: askAnswerMarkdown(loaded.site.title, question, passages),
      // Whether any passage answered it: a question none answers is a content gap (src/core/insights/findings.ts).
      ...(asked ? { insight: { ...pageInsight("ask_question"), data: { query: asked, found: passages.length > 0 } } } : {}),
    };
  }
  if (markdownWanted) {
    // Where the page is for people: a line an agent reads, and the header a crawler reads.
    const html = `${place.spaceBase}/${located.path}`;
    return {
      status: 200,
      contentType: "text/markdown; charset=utf-8",
      body: `# ${located.page.title}\n\nSource: ${html}\n\n${body}`,
      headers: { Link: `<${encodeURI(html)}>; rel="canonical"; type="text/html"` },
      insight: pageInsight("page_markdown_request"),
    };
  }

  const blocks: BlockContext = {
    services,
    organizationId: fingerprint.organizationId,
    siteId: fingerprint.id,
    spaceId: place.siteSpace.spaceId,
    scope: new RequestScope(),
  };
  const rendered = await renderPageIn(
    blocks,
    body,
    resolverFor(services, content, place.spaceBase, located),
    services.siteRendering.highlighter,
  );
  const description = located.page.description ? `<p class="description">${escapeHtml(located.page.description)}</p>` : "";
  const feedback = pageLook(siteSpaceCustomization(loaded.site, place.siteSpace)).feedback
    ? feedbackForm(`${place.spaceBase}/${located.path}`)
    : "";
  const response = withChrome(loaded, place, indexed && !located.page.noIndex, {
    status: 200,
    title: located.page.title,
    current: located.page.id,
    main: `${breadcrumbs(content.pages, located, place.spaceBase)}<article><h1>${escapeHtml(located.page.title)}</h1>${description}${rendered.html}</article>${feedback}${pageFooter(content.pages, located, place.spaceBase)}`,
    outline: rendered.headings,
    style: rendered.style,
    math: rendered.math,
  });
  return { ...response, insight: pageInsight("page_view"), ...(blocks.volatile ? { ttlMs: VOLATILE_TTL_MS } : {}) };
}

/** The page's parents (pages and groups), linked where they are pages; nothing for a top-level page. */
function breadcrumbs(pages: PageNode[], located: LocatedPage, spaceBase: string): string {
  const all = new Map(flatten(pages).map((entry) => [entry.page.id, entry]));
  const trail: string[] = [];
  for (
    let parent = located.parentId ? all.get(located.parentId) : undefined;
    parent;
    parent = parent.parentId ? all.get(parent.parentId) : undefined
  ) {
    const title = escapeHtml(parent.page.title);
    trail.unshift(
      parent.page.kind === "document"
        ? `<li><a href="${escapeHtml(`${spaceBase}/${parent.path}`)}">${title}</a></li>`
        : `<li>${title}</li>`,
    );
  }
  return trail.length ? `<nav class="breadcrumbs" aria-label="Breadcrumbs"><ol>${trail.join("")}</ol></nav>` : "";
}

/** When the page last changed, and the previous and next pages in the navigation's order. */
function pageFooter(pages: PageNode[], located: LocatedPage, spaceBase: string): string {
  const documents = flatten(pages).filter((entry) => entry.page.kind === "document" && !entry.page.hidden);
  const index = documents.findIndex((entry) => entry.page.id === located.page.id);
  const link = (entry: LocatedPage | undefined, rel: "prev" | "next") =>
    entry
      ? `<a class="${rel}" rel="${rel}" href="${escapeHtml(`${spaceBase}/${entry.path}`)}"><span>${rel === "prev" ? "Previous" : "Next"}</span>${escapeHtml(entry.page.title)}</a>`
      : "";
  const pager = index < 0 ? "" : link(documents[index - 1], "prev") + link(documents[index + 1], "next");
  const updated = new Date(located.page.updatedAt);
  const date = Number.isNaN(updated.getTime())
    ? ""
    : `<p class="updated">Last updated <time datetime="${updated.toISOString()}">${updated.toLocaleDateString("en", { year: "numeric", month: "short", day: "numeric", timeZone: "UTC" })}</time></p>`;
  return `<footer class="page-footer">${date}${pager ? `<nav class="pager" aria-label="Previous and next">${pager}</nav>` : ""}</footer>`;
}

/** `/favicon.ico` of a site: where its favicon is, or the default one (browsers ask for it unprompted). */
function favicon(look: PageLook): SiteResponse {
  if (look.favicon && "url" in look.favicon)
    return { status: 302, contentType: "text/plain; charset=utf-8", body: "", headers: { Location: look.favicon.url } };
  const icon = look.favicon ? emojiFavicon(look.favicon.emoji) : defaultFavicon(look.primaryColor);
  return { status: 200, contentType: "image/svg+xml", body: decodeURIComponent(icon.slice(icon.indexOf(",") + 1)) };
}

async function bodyOf(services: Services, hash: string): Promise<string> {
  const blob = await services.prisma.blob.findUnique({ where: { hash }, select: { data: true } });
  return blob ? Buffer.from(blob.data).toString("utf8") : "";
}

/** Links between pages → their published URLs; `files/<id>` → signed download URLs. */
function resolverFor(services: Services, content: { pages: PageNode[]; files: FileEntry[] }, spaceBase: string, current: LocatedPage) {
  const pageUrl = (path: string) => `${spaceBase}/${path}`;
  const fileUrl = (fileId: string) => {
    const file = content.files.find((entry) => entry.id === fileId);
    return file ? downloadUrlOf(services, file) : null;
  };
  const resolve = (href: string): string => {
    if (!href || href.startsWith("#") || href.startsWith("//") || /^[a-z][a-z0-9+.-]*:/i.test(href)) return href;
    const [withoutHash, anchor] = href.split("#", 2);
    const target = withoutHash.split("?")[0].replace(/\.md$/, "");
    const fileMatch = target.match(/^(?:\.\/)?files\/([^/]+)$/);
    if (fileMatch) return fileUrl(fileMatch[1]) ?? href;
    const parent = current.path.includes("/") ? current.path.slice(0, current.path.lastIndexOf("/") + 1) : "";
    const path = decodeURIComponent(new URL(target, `http://site/${parent}`).pathname.slice(1)).replace(/\/+$/, "");
    const page = findPageByPath(content.pages, path);
    return page ? `${pageUrl(page.path)}${anchor ? `#${anchor}` : ""}` : href;
  };
  const title = (href: string): string | undefined => {
    const resolved = resolve(href);
    if (!resolved.startsWith(`${spaceBase}/`)) return undefined;
    return findPageByPath(content.pages, resolved.slice(spaceBase.length + 1).split("#")[0])?.page.title;
  };
  return { link: resolve, image: resolve, title };
}

// ---------------------------------------------------------------------------------------------
// Page chrome: header with sections as tabs, the variant switcher, navigation, search box

function navigation(pages: PageNode[], spaceBase: string, current: string | undefined, parentPath = ""): string {
  const items = pages
    .filter((page) => !page.hidden)
    .map((page) => {
      const path = page.kind === "group" ? parentPath : parentPath ? `${parentPath}/${page.slug}` : page.slug;
      const children = page.pages.length ? navigation(page.pages, spaceBase, current, path) : "";
      const label = escapeHtml(page.title);
      if (page.kind === "group") return `<li class="group"><span>${label}</span>${children}</li>`;
      if (page.kind === "link") return `<li><a href="${escapeHtml(page.href ?? "#")}">${label}</a>${children}</li>`;
      const here = page.id === current ? ' aria-current="page"' : "";
      return `<li><a href="${escapeHtml(`${spaceBase}/${path}`)}"${here}>${label}</a>${children}</li>`;
    });
  return items.length ? `<ul>${items.join("")}</ul>` : "";
}

function withChrome(
  loaded: Loaded,
  place: Place,
  indexed: boolean,
  view: { status: number; title: string; main: string; current?: string; outline?: Heading[]; style?: string; math?: boolean },
): SiteResponse {
  const { structure, site } = loaded;
  const base = place.spaceBase.slice(0, place.spaceBase.length - urlOfSiteSpace("", structure, place.siteSpace).length);
  const tabs = orderedSections(structure)
    .map((section) => {
      const here = section.id === place.section?.id ? ' aria-current="page"' : "";
      return `<a href="${escapeHtml(urlOfSection(base, structure, section) || base)}/"${here}>${escapeHtml(section.title)}</a>`;
    })
    .join("")
    // External links after the sections; a stored URL that is not a safe http(s) URL is left out.
    .concat(
      loaded.externalLinks
        .map((link) => {
          const href = safeLinkUrl(link.url);
          return href ? `<a class="external" href="${escapeHtml(href)}" rel="noopener noreferrer">${escapeHtml(link.title)}</a>` : "";
        })
        .join(""),
    );
  const variants = siteSpacesIn(structure, place.section?.id ?? null).filter((s) => !s.hidden);
  const switcher =
    variants.length > 1
      ? `<nav class="variants" aria-label="Variants">${variants
          .map((variant) => {
            const here = variant.id === place.siteSpace.id ? ' aria-current="page"' : "";
            return `<a href="${escapeHtml(urlOfSiteSpace(base, structure, variant))}/"${here}>${escapeHtml(loaded.spaces.get(variant.spaceId)?.title ?? variant.path)}</a>`;
          })
          .join("")}</nav>`
      : "";
  const content = loaded.contents.get(place.siteSpace.spaceId)!;
  const look = pageLook(siteSpaceCustomization(site, place.siteSpace));
  const title = look.title ?? site.title;
  const brand = look.logo
    ? `<img class="logo-light" src="${escapeHtml(look.logo.light)}" alt="${escapeHtml(title)}"><img class="logo-dark" src="${escapeHtml(look.logo.dark)}" alt="">`
    : escapeHtml(title);
  const links = look.links.length
    ? `<nav class="links" aria-label="Links">${look.links.map((link) => `<a href="${escapeHtml(link.url)}">${escapeHtml(link.title)}</a>`).join("")}</nav>`
    : "";
  const outline = view.outline?.length
    ? `<aside class="outline" aria-label="On this page"><p>On this page</p><ul>${view.outline
        .map((heading) => `<li class="h${heading.level}"><a href="#${escapeHtml(heading.id)}">${escapeHtml(heading.text)}</a></li>`)
        .join("")}</ul></aside>`
    : "";
  // The menu works without JavaScript: the checkbox (before the layout) shows the page list on small screens.
  const body = `<a class="skip" href="#content">Skip to content</a><input type="checkbox" id="site-menu" class="menu-toggle" aria-label="Menu">
<header class="top theme-${look.theme}"><label for="site-menu" class="menu-button"><span aria-hidden="true">☰</span> Menu</label><a class="title" href="${escapeHtml(base)}/">${brand}</a>${tabs ? `<nav class="tabs" aria-label="Sections">${tabs}</nav>` : ""}${switcher}
<form class="search" role="search" action="${escapeHtml(place.spaceBase)}/~search" method="get"><input type="search" name="q" placeholder="Search" aria-label="Search"></form>${links}${look.toggeable ? '<button class="theme-toggle" type="button" hidden aria-label="Dark theme"><span aria-hidden="true">◐</span></button>' : ""}</header>
<div class="layout"><nav class="pages" aria-label="Pages">${navigation(content.pages, place.spaceBase, view.current)}</nav><main id="content">${view.main}</main>${outline}</div>`;
  return page({
    status: view.status,
    title: `${view.title} · ${title}`,
    body,
    indexed,
    look,
    assets: { base, names: loaded.assets },
    fonts: customFontStyle(look, loaded.fonts),
    style: view.style,
    math: view.math,
    scripts: loaded.scripts,
  });
}

/** The policy of a page; `fontSources`: the origins of its custom fonts' files (checked, faces.ts). */
const pagePolicy = (fontSources: readonly string[] = []) =>
  `default-src 'none'; img-src 'self' https: data:; style-src 'self' 'unsafe-inline'; font-src ${["'self'", ...fontSources].join(" ")}; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`;

/**
 * The rules that make a page use the custom fonts its settings name and the organization has: their
 * @font-face rules (faces.ts: checked and escaped), then the text, code and heading families; and
 * the origins of their files, which the page's `font-src` allows. A font the organization no
 * longer has is left out: the default (or the published name also set) shows.
 */
function customFontStyle(look: PageLook, fonts: ReadonlyMap<string, CustomFont>): { css: string; origins: string[] } {
  const origins = new Set<string>();
  const declared = new Set<string>();
  let faces = "";
  const use = (id: string | null) => {
    const font = id === null ? undefined : fonts.get(id);
    if (!font) return null;
    const rules = fontFaceRules(font);
    if (!rules.css) return null;
    if (!declared.has(font.id)) {
      declared.add(font.id);
      faces += rules.css;
      for (const origin of rules.origins) origins.add(origin);
    }
    return cssString(font.fontFamily);
  };
  const text = use(look.customFonts.font);
  const mono = use(look.customFonts.monospaceFont);
  const heading = use(look.customFonts.headingFont);
  let uses = text || mono ? `:root{${text ? `--font:${text};` : ""}${mono ? `--mono:${mono};` : ""}}` : "";
  if (heading) uses += `h1,h2,h3,h4,h5,h6{font-family:${heading},var(--font),system-ui,sans-serif}`;
  return { css: faces + uses, origins: [...origins] };
}

/**
 * A `script-src` source for exactly one script URL: scheme, host, port and path (a path not
 * ending in `/` matches only itself). CSP source expressions hold no query (browsers ignore it
 * when matching), so it is left out; `;` and `,`, which would end the source, are percent-encoded.
 */
export function scriptSource(url: string): string {
  const { protocol, host, pathname } = new URL(url);
  return `${protocol}//${host}${pathname.replace(/[;,]/g, (char) => encodeURIComponent(char))}`;
}

function page(view: {
  status: number;
  title: string;
  body: string;
  indexed?: boolean;
  look?: PageLook;
  /** The site's base URL and the names of the stylesheet and script (none: an error page without a site). */
  assets?: { base: string; names: PageAssets };
  /** The custom fonts' rules (in the page's style element) and the origins of their files. */
  fonts?: { css: string; origins: string[] };
  /** The code colors of this page's blocks. */
  style?: string;
  /** Whether the page shows math (KaTeX's stylesheet). */
  math?: boolean;
  /** Integration scripts (absolute URLs), loaded async and allowed by the policy, which merges theirs: no other script runs. */
  scripts?: PageScript[];
}): SiteResponse {
  const robots = view.indexed ? "" : '<meta name="robots" content="noindex">';
  // Colors were checked (#rgb to #rrggbbaa) by pageLook: safe inside the style element.
  const primary = view.look?.primaryColor ?? DEFAULT_CUSTOMIZATION.styling.primaryColor.light;
  const dark = view.look?.primaryColorDark ?? primary;
  const theme = `:root{--primary:${primary};--link-light:${readableOn(primary, "#f6f8fa")};--link-dark:${readableOn(dark, "#151b23")}}`;
  const assets = view.assets;
  // Root-relative: the same origin as the page, fewer bytes.
  const root = assets ? new URL(assets.base).pathname.replace(/\/$/, "") : "";
  const prefix = assets ? `${root}/${ASSETS_PREFIX}` : "";
  const icon = view.look?.favicon
    ? "url" in view.look.favicon
      ? view.look.favicon.url
      : emojiFavicon(view.look.favicon.emoji)
    : assets
      ? `${root}/favicon.ico`
      : defaultFavicon(primary);
  // The site stylesheet holds the default fonts; a site that chose others adds their stylesheets.
  const sheets = assets
    ? [
        assets.names.css,
        view.look && assets.names.fonts[`text:${view.look.font}`],
        view.look && assets.names.fonts[`mono:${view.look.monospaceFont}`],
        view.look?.headingFont && assets.names.fonts[`heading:${view.look.headingFont}`],
        view.math && assets.names.katex,
      ].filter((name): name is string => !!name)
    : [];
  const links = sheets.map((name) => `<link rel="stylesheet" href="${escapeHtml(prefix + name)}">`).join("");
  const own = assets ? `<script>${THEME_JS}</script><script src="${escapeHtml(prefix + assets.names.js)}" defer></script>` : "";
  const scripts = view.scripts ?? [];
  const tags = scripts.map(({ src }) => `<script src="${escapeHtml(src)}" async></script>`).join("");
  const scriptSources = [
    ...(assets ? [assets.names.themeHash, scriptSource(`${assets.base}/${ASSETS_PREFIX}${assets.names.js}`)] : []),
    ...new Set(scripts.map(({ src }) => scriptSource(src))),
  ];
  const basePolicy = pagePolicy(view.fonts?.origins);
  const withScripts = scriptSources.length ? `${basePolicy}; script-src ${scriptSources.join(" ")}` : basePolicy;
  const policy = scripts.length
    ? mergeContentSecurityPolicies(
        withScripts,
        scripts.map((script) => script.contentSecurityPolicy),
      )
    : withScripts;
  const mode = view.look?.mode ?? "light";
  return {
    status: view.status,
    contentType: "text/html; charset=utf-8",
    body: `<!doctype html><html lang="en" data-theme="${mode}"${view.look?.toggeable ? " data-toggle" : ""}><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">${robots}<title>${escapeHtml(view.title)}</title>${links}<style>${theme}${view.fonts?.css ?? ""}${view.style ?? ""}</style><link rel="icon" href="${escapeHtml(icon)}">${own}${tags}</head><body>${view.body}</body></html>`,
    headers: { "Content-Security-Policy": policy },
  };
}

// ---------------------------------------------------------------------------------------------
// Indexes for machines

/** Every page readers can reach, with its URL: visible site spaces, documents not hidden. */
function readablePages(loaded: Loaded, base: string) {
  const { structure } = loaded;
  return structure.siteSpaces.flatMap((siteSpace) => {
    const spaceBase = urlOfSiteSpace(base, structure, siteSpace);
    const space = loaded.spaces.get(siteSpace.spaceId)!;
    return flatten(loaded.contents.get(siteSpace.spaceId)!.pages)
      .filter((located) => located.page.kind === "document" && !located.page.hidden)
      .map((located) => ({ space, located, url: `${spaceBase}/${located.path}` }));
  });
}

function sitemap(loaded: Loaded, base: string, indexed: boolean): SiteResponse {
  const urls = indexed
    ? readablePages(loaded, base)
        .filter(({ located }) => !located.page.noIndex && !located.page.noRobotsIndex)
        .map(({ url }) => `<url><loc>${escapeHtml(url)}</loc></url>`)
    : [];
  return {
    status: 200,
    contentType: "application/xml; charset=utf-8",
    body: `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls.join("")}</urlset>\n`,
  };
}

function llms(loaded: Loaded, base: string): SiteResponse {
  const lines = [`# ${loaded.site.title}`, ""];
  let lastSpace: string | null = null;
  for (const { space, located, url } of readablePages(loaded, base)) {
    if (space.id !== lastSpace) {
      lines.push("", `## ${space.title}`, "");
      lastSpace = space.id;
    }
    lines.push(`- [${located.page.title}](${url}.md)${located.page.description ? `: ${located.page.description}` : ""}`);
  }
  return { status: 200, contentType: "text/plain; charset=utf-8", body: `${lines.join("\n").replace(/\n{3,}/g, "\n\n")}\n` };
}

/** Pages of `llms-full.txt` whose bodies are read in one statement. */
const LLMS_FULL_BATCH = 100;

/**
 * Every page readers can reach, its Markdown (title once) under its title and URL, in the order of
 * `llms.txt`, within `services.sites.llmsFullMaxBytes`: pages that would go beyond it are left
 * out (never cut in the middle), and the file ends saying how many and where they are listed.
 * Bodies are read a batch at a time, and no more once the bound is reached.
 */
async function llmsFull(services: Services, loaded: Loaded, base: string): Promise<SiteResponse> {
  const max = services.sites.llmsFullMaxBytes;
  const pages = readablePages(loaded, base);
  const notice = (left: number) =>
    `\n---\n\n${left} more page${left === 1 ? " is" : "s are"} not included: this file stops at ${max} bytes. Every page is listed in ${base}/llms.txt, each with its Markdown URL.\n`;
  const parts = [`# ${loaded.site.title}\n`];
  // What the notice may take, kept free so that the whole file stays within the bound.
  let size = Buffer.byteLength(parts[0]) + Buffer.byteLength(notice(pages.length));
  for (let start = 0; start < pages.length; start += LLMS_FULL_BATCH) {
    const batch = pages.slice(start, start + LLMS_FULL_BATCH);
    const hashes = [...new Set(batch.flatMap(({ located }) => (located.page.body ? [located.page.body] : [])))];
    const blobs = await services.prisma.blob.findMany({ where: { hash: { in: hashes } }, select: { hash: true, data: true } });
    const bodies = new Map(blobs.map((blob) => [blob.hash, Buffer.from(blob.data).toString("utf8")]));
    for (const [index, { located, url }] of batch.entries()) {
      const markdown = withoutTitleHeading(located.page.body ? (bodies.get(located.page.body) ?? "") : "", located.page.title).trim();
      const part = `\n---\n\n# ${located.page.title}\n\nSource: ${url}\n${markdown ? `\n${markdown}\n` : ""}`;
      const bytes = Buffer.byteLength(part);
      if (size + bytes > max) {
        parts.push(notice(pages.length - start - index));
        return { status: 200, contentType: "text/plain; charset=utf-8", body: parts.join("") };
      }
      parts.push(part);
      size += bytes;
    }
  }
  return { status: 200, contentType: "text/plain; charset=utf-8", body: parts.join("") };
}

/** Server-rendered results of the site search (the same as `POST …/search`) over what this visitor sees. */
async function searchPage(services: Services, loaded: Loaded, place: Place, query: string, indexed: boolean): Promise<SiteResponse> {
  const trimmed = query.trim().slice(0, QUERY_MAX);
  let results = "";
  let hits = 0;
  if (trimmed) {
    const spaces = [...new Map(loaded.structure.siteSpaces.map((s) => [s.spaceId, loaded.spaces.get(s.spaceId)!])).values()];
    const found = await searchSpaces(
      services,
      spaces,
      trimmed,
      { first: 50 },
      // The page lists titles only: no snippet is highlighted.
      { synonyms: loaded.structure.site.searchSynonyms as string[][], highlighted: 0 },
    );
    const base = place.spaceBase.slice(0, place.spaceBase.length - urlOfSiteSpace("", loaded.structure, place.siteSpace).length);
    hits = found.items.reduce((count, space) => count + space.pages.length, 0);
    results = found.items
      .flatMap((space) => {
        const siteSpace = loaded.structure.siteSpaces.find((s) => s.spaceId === space.id)!;
        return space.pages.map((hit) => {
          const url = `${urlOfSiteSpace(base, loaded.structure, siteSpace)}/${hit.path}`;
          const section = hit.sections.find((s) => s.id && s.title !== hit.title);
          return `<li><a href="${escapeHtml(section ? `${url}#${section.id}` : url)}">${escapeHtml(hit.title)}${section ? ` › ${escapeHtml(section.title)}` : ""}</a></li>`;
        });
      })
      .join("");
  }
  const response = withChrome(loaded, place, indexed, {
    status: 200,
    title: "Search",
    main: `<h1>Search</h1>${trimmed ? `<p>Results for “${escapeHtml(trimmed)}”</p><ul class="results">${results || "<li>No results</li>"}</ul>` : ""}`,
  });
  // The search box opened without a query is `search_open`; a query, with whether it found anything.
  const location = insightLocation(loaded, place, null);
  return {
    ...response,
    insight: trimmed
      ? { type: "search_type_query", location, data: { query: trimmed, found: hits > 0 } }
      : { type: "search_open", location },
  };
}
