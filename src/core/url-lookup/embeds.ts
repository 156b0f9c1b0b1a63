// An embed (a link preview) of a URL. A URL of this service's app is answered from our data, for a
// caller who can read what it names (404 otherwise, as unknown); this service's own origin is never
// fetched. Any other URL is fetched once with the import's fetch (src/core/import: private hosts
// refused unless IMPORT_ALLOW_PRIVATE_HOSTS, redirects followed hop by hop through the same check),
// bounded by the import's per-request time (at most EMBED_TIMEOUT_MS) and EMBED_MAX_BYTES, and its meta
// tags are read in the HTML worker within its CPU deadline (src/infra/html-worker).
//
// The published Embed has a title, a site and an icon; a page with a description or an image is a
// `rich` embed whose `html` is a card built here from those values, escaped (never the page's own
// markup); other pages and non-HTML answers are `link` embeds.
import type { CoreContext } from "../context.ts";
import { fetchBounded, FetchFailure, isHtml, rootFailure } from "../import/index.ts";
import { stripUnsafeText } from "../input.ts";
import { escapeHtml } from "../sites/render.ts";
import { readSpace } from "../spaces/read.ts";
import { contentByUrl } from "./content.ts";
import { checkLookupUrl, LOOKUP_URL_MAX, ownPath } from "./url.ts";

/** Most bytes of a page read for its preview: meta tags live in its head. */
export const EMBED_MAX_BYTES = 1024 * 1024;
/**
 * Longest an embed may take in all (fetch and read), whatever the import's per-request time: it runs
 * inside one API request, which the execution deadline (5 s by default) stops with a 503.
 */
export const EMBED_TIMEOUT_MS = 4000;
/** Longest title and description kept (characters). */
const TITLE_MAX = 256;
const DESCRIPTION_MAX = 1024;

export type Embed =
  | { type: "link"; title: string; site: string; icon?: string }
  | { type: "rich"; title: string; site: string; icon?: string; html: string };

const text = (value: string, max: number) =>
  [
    ...stripUnsafeText(value)
      .replace(/[\u0000-\u001f\u007f-\u009f]/g, " ")
      .trim(),
  ]
    .slice(0, max)
    .join("");

/** A URL the page wrote (icon, image), resolved against the page's, kept only as an absolute http(s) URL within bounds. */
function pageUrl(value: string, base: URL): string | undefined {
  if (!value || /[\u0000-\u001f\u007f-\u009f]/.test(value)) return undefined;
  try {
    const url = new URL(value, base);
    if ((url.protocol !== "http:" && url.protocol !== "https:") || url.username || url.password) return undefined;
    return url.href.length <= LOOKUP_URL_MAX ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** The last segment of a URL's path, decoded when it decodes. */
function nameOf(url: URL): string {
  const last = url.pathname.split("/").filter(Boolean).at(-1) ?? "";
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

/** The embed of `url` (an absolute http(s) URL); in a space's context when `spaceId` is given (404 unless readable). */
export async function embedByUrl(ctx: CoreContext, value: unknown, spaceId?: string): Promise<Embed> {
  if (spaceId !== undefined) await readSpace(ctx, spaceId);
  const url = checkLookupUrl(value);
  if (ownPath(ctx.urls.publicUrl, url) !== null) return ownEmbed(ctx, url);
  return fetchedEmbed(ctx, url);
}

async function ownEmbed(ctx: CoreContext, url: URL): Promise<Embed> {
  const found = await contentByUrl(ctx, url.href);
  const site = new URL(ctx.urls.publicUrl).host;
  if (found.kind === "collection") return { type: "link", title: found.collection.title, site };
  const title = found.page?.page.title ?? found.head.changeRequest?.subject ?? found.head.space.title;
  return { type: "link", title: title || found.head.space.title, site };
}

async function fetchedEmbed(ctx: CoreContext, url: URL): Promise<Embed> {
  const limits = { ...ctx.importLimits, requestTimeoutMs: Math.min(ctx.importLimits.requestTimeoutMs, EMBED_TIMEOUT_MS) };
  const deadline = AbortSignal.timeout(limits.requestTimeoutMs);
  let fetched: Awaited<ReturnType<typeof fetchBounded>> | null;
  try {
    fetched = await fetchBounded(url, limits, Math.min(EMBED_MAX_BYTES, limits.maxBytes), deadline, isHtml);
  } catch (error) {
    if (!(error instanceof FetchFailure)) throw error;
    // An image, a PDF…: a link to it, titled by its name.
    if (error.kind !== "not-html") throw rootFailure(error);
    fetched = null;
  }
  const at = fetched?.url ?? url;
  const fallbackTitle = text(nameOf(at) || at.hostname, TITLE_MAX);
  if (!fetched) return { type: "link", title: fallbackTitle, site: at.hostname };
  const reader = ctx.htmlReaders(
    { maxNodesPerPage: limits.maxNodesPerPage, maxLinksPerPage: limits.maxLinksPerPage, htmlTimeoutMs: limits.htmlTimeoutMs },
    deadline,
  );
  let read: Awaited<ReturnType<typeof reader.meta>>;
  try {
    read = await reader.meta(new TextDecoder().decode(fetched.bytes));
  } finally {
    reader.close();
  }
  if (!read.ok) {
    ctx.logger.info({ url: at.origin, reason: read.reason }, "embed: page not read");
    return { type: "link", title: fallbackTitle, site: at.hostname };
  }
  const meta = read.value;
  const title = text(meta.title, TITLE_MAX) || fallbackTitle;
  const site = text(meta.siteName, TITLE_MAX) || at.hostname;
  const icon = pageUrl(meta.icon, at);
  const description = text(meta.description, DESCRIPTION_MAX);
  const image = pageUrl(meta.image, at);
  const base = { title, site, ...(icon ? { icon } : {}) };
  if (!description && !image) return { type: "link", ...base };
  const card = [
    `<a class="embed-card" href="${escapeHtml(at.href)}" rel="noopener noreferrer">`,
    image ? `<img src="${escapeHtml(image)}" alt="" loading="lazy">` : "",
    `<strong>${escapeHtml(title)}</strong>`,
    description ? `<p>${escapeHtml(description)}</p>` : "",
    `<span>${escapeHtml(site)}</span></a>`,
  ].join("");
  return { type: "rich", ...base, html: card };
}
