// Import of a website into a space's content, as one revision.
//
// The crawl is breadth first from the given URL over the same-origin pages it links to, bounded
// in pages, depth, bytes per response (streamed and cut off), time per request and time in all.
// Only text/html answers are crawled; same-origin images of imported pages become files. Each
// page becomes a document whose place in the tree follows its URL path (/guide/install is page
// `install` under page `guide`; a missing level gets an empty document), its title the <title>
// (else the first <h1>), its markdown the <main> (else <article>, else <body> without nav,
// header, footer, script and style). Links to imported pages are rewritten to the relative path
// between the two pages; images to `files/<fileId>` (a stable reference to the revision's file,
// unlike a download URL, which expires).
//
// The root page decides: when it cannot be imported (bad URL, unreachable, timeout, not HTML,
// too big, a non-2xx status) the import is refused with a 4xx and makes no revision. Any other
// resource that fails is skipped and only counted in `totalResources`.
//
// Server-side request forgery: the server fetches URLs given by users. Unless
// IMPORT_ALLOW_PRIVATE_HOSTS=true (`importLimits.allowPrivateHosts`; false by default), every
// connection goes through net.ts's dispatcher, which refuses loopback, private, link-local and
// other non-public addresses on the address actually connected to, at every redirect hop (DNS
// rebinding has no window). Every failure before an HTTP answer has one message, so an import
// cannot tell open, closed, filtered or non-HTTP ports apart.
//
// HTML is read and converted in a worker thread (src/infra/html-worker/worker.mjs), each page within a CPU
// deadline and caps on elements and links (limits.ts), so a hostile page never blocks the event
// loop: a root page over a cap or its deadline is refused (413/408), another page is skipped, and
// a page whose conversion is cut off keeps its place and title with an empty body.
import { fetch as undiciFetch } from "undici";
import type { Transaction } from "../../db/transaction.ts";
import type { Revision } from "../../generated/prisma/client.ts";
import type { CoreContext } from "../context.ts";
import { DomainError, badInput, notFound, quote } from "../errors.ts";
import { newId } from "../ids.ts";
import { stripUnsafeText } from "../input.ts";
import { contentOf, editContent, sha256 } from "../content/index.ts";
import { headRevision, requireEditableTarget, REVISION_MESSAGE_MAX } from "../content/target.ts";
import { imageSize } from "image-size";
import { essenceOf, guessContentType } from "../content/media-types.ts";
import type { ImportLimits } from "./limits.ts";
import type { ImportedPageEntry, ImportProgress } from "./progress.ts";
import { publicOnly } from "./net.ts";
import type { HtmlOutcome, HtmlReader } from "./html.ts";
import { findPage, flatten, slugify, PAGE_TITLE_MAX, type ContentEdit, type FileEntry } from "../content/tree.ts";

/** The values of the published API's ContentImportSource `type`. */
export const IMPORT_SOURCES = ["website", "file"] as const;
/** The sources this service can import from; the others answer 400. */
export const BUILT_IMPORT_SOURCES = ["website"] as const;
export const IMPORT_URL_MAX = 2048;

export interface ImportInput {
  url: unknown;
  source: unknown;
  /** Import into this change request (id or number) instead of the space's own content. */
  changeRequest?: string | null;
  /** Import below this page (its id): the site's top pages become its children. */
  parent?: string | null;
}

/** What an import run (src/core/import/runs.ts) adds to an import: it can stop it and records its end. */
export interface ImportHooks {
  /** Fires when the import must stop (the job's time is up, the instance stops): nothing is written. */
  signal?: AbortSignal;
  /** After each page and image read: throws to stop the import, writing nothing (a cancelled run). */
  checkpoint?: (progress: ImportProgress) => Promise<void>;
  /** Inside the transaction that writes the revision: throws to write nothing. */
  beforeCommit?: (tx: Transaction, revision: Revision, pages: ImportedPageEntry[]) => Promise<void>;
}

export interface ImportResult {
  revision: Revision;
  importedResources: number;
  totalResources: number;
}

const importError = (status: 400 | 408 | 413 | 415, message: string) => {
  const code =
    status === 408 ? "REQUEST_TIMEOUT" : status === 413 ? "PAYLOAD_TOO_LARGE" : status === 415 ? "UNSUPPORTED_MEDIA_TYPE" : "BAD_REQUEST";
  return new DomainError(code, message);
};

export function checkImportInput(input: Pick<ImportInput, "url" | "source">): { url: URL; source: string } {
  const { source, url } = input;
  if (typeof source !== "string" || !(IMPORT_SOURCES as readonly string[]).includes(source)) {
    throw badInput(`source must be one of ${IMPORT_SOURCES.join(", ")} (got ${quote(source ?? null)})`);
  }
  if (!(BUILT_IMPORT_SOURCES as readonly string[]).includes(source))
    throw badInput(`source ${source} is not supported yet: only website is`);
  if (typeof url !== "string" || url.trim() === "") throw badInput("url is required");
  if (url.length > IMPORT_URL_MAX) throw badInput(`url must be at most ${IMPORT_URL_MAX} characters`);
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    throw badInput(`url must be an absolute http or https URL (got ${quote(url)})`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    throw badInput(`url must be an http or https URL (got ${parsed.protocol})`);
  if (parsed.username || parsed.password) throw badInput("url must not carry credentials");
  parsed.hash = "";
  return { url: parsed, source };
}

// ---------------------------------------------------------------------------------------------
// Fetching
// ---------------------------------------------------------------------------------------------

type FailureKind = "unreachable" | "timeout" | "too-large" | "status" | "not-html";

export class FetchFailure extends Error {
  constructor(
    readonly kind: FailureKind,
    message: string,
    /** For "unreachable": no answer came before the deadline (OpenAPI reports FETCH_TIMEOUT). */
    readonly timedOut = false,
  ) {
    super(message);
  }
}

export interface Fetched {
  url: URL;
  contentType: string;
  bytes: Uint8Array;
}

/**
 * The one message of every failure before an HTTP answer: a refused or reset connection, a DNS
 * failure, a non-public address, a port that speaks no HTTP or says nothing, a TLS error. Telling
 * them apart would let a caller map the network behind the server (open, closed, filtered ports).
 */
export const unreachableMessage = (url: URL, limits: ImportLimits) =>
  `${url.origin} is unreachable: no HTTP answer from a public host within ${limits.requestTimeoutMs} ms${
    limits.allowPrivateHosts ? "" : ` (${PRIVATE_HOSTS_SETTING})`
  }`;

/** What the operator of a local or private deployment sets to reach its own hosts (issue 27: refusals name their setting). */
const PRIVATE_HOSTS_SETTING = "loopback and private hosts are reached only with IMPORT_ALLOW_PRIVATE_HOSTS=true";

/**
 * GET `url`, following redirects by hand (each hop connecting through the host policy of
 * net.ts), reading at most `maxBytes`. `accept(contentType)` decides from the headers whether
 * the body is worth reading.
 */
export async function fetchBounded(
  start: URL,
  limits: ImportLimits,
  maxBytes: number,
  total: AbortSignal,
  accept: (contentType: string) => boolean,
): Promise<Fetched> {
  let url = start;
  const signal = AbortSignal.any([total, AbortSignal.timeout(limits.requestTimeoutMs)]);
  const dispatcher = limits.allowPrivateHosts ? undefined : publicOnly;
  for (let hop = 0; ; hop++) {
    let response: Awaited<ReturnType<typeof undiciFetch>>;
    try {
      response = await undiciFetch(url, {
        redirect: "manual",
        signal,
        dispatcher,
        headers: { accept: "text/html,application/xhtml+xml,image/*;q=0.8,*/*;q=0.5" },
      });
    } catch {
      throw new FetchFailure("unreachable", unreachableMessage(url, limits), signal.aborted);
    }
    try {
      const location = response.headers.get("location");
      if (response.status >= 300 && response.status < 400 && location) {
        await response.body?.cancel();
        if (hop >= limits.maxRedirects) throw new FetchFailure("unreachable", `${start} redirects more than ${limits.maxRedirects} times`);
        url = new URL(location, url);
        if (url.protocol !== "http:" && url.protocol !== "https:")
          throw new FetchFailure("unreachable", `${start} redirects to a ${url.protocol} URL`);
        url.hash = "";
        continue;
      }
      if (!response.ok) {
        await response.body?.cancel();
        throw new FetchFailure("status", `${url} answered ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`);
      }
      const contentType = response.headers.get("content-type") ?? guessContentType(url.pathname);
      if (!accept(contentType)) {
        await response.body?.cancel();
        throw new FetchFailure("not-html", `${url} is ${essenceOf(contentType) || "of no content type"}, not an HTML page`);
      }
      const declared = Number(response.headers.get("content-length"));
      if (declared > maxBytes) {
        await response.body?.cancel();
        throw new FetchFailure("too-large", `${url} is ${declared} bytes: at most ${maxBytes} bytes are imported per resource`);
      }
      const chunks: Uint8Array[] = [];
      let size = 0;
      if (response.body) {
        const reader = response.body.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          size += value.byteLength;
          if (size > maxBytes) {
            await reader.cancel();
            throw new FetchFailure("too-large", `${url} is over ${maxBytes} bytes: at most ${maxBytes} bytes are imported per resource`);
          }
          chunks.push(value);
        }
      }
      return { url, contentType, bytes: Buffer.concat(chunks) };
    } catch (error) {
      if (error instanceof FetchFailure) throw error;
      // The host answered HTTP, then stalled or broke off while sending its body.
      if (signal.aborted) {
        const why = total.aborted
          ? `the import took more than ${limits.totalTimeoutMs} ms`
          : `no answer within ${limits.requestTimeoutMs} ms`;
        throw new FetchFailure("timeout", `${url} timed out: ${why}`);
      }
      throw new FetchFailure("unreachable", `${url} broke off its answer`);
    }
  }
}

export const isHtml = (contentType: string) => ["text/html", "application/xhtml+xml"].includes(essenceOf(contentType));
const isImage = (contentType: string) => essenceOf(contentType).startsWith("image/");

/** The error of a user-given URL that could not be read: 408, 413, 415 or 400, its message naming `url`. */
export function rootFailure(failure: FetchFailure): DomainError {
  switch (failure.kind) {
    case "timeout":
      return importError(408, `url: ${failure.message}`);
    case "too-large":
      return importError(413, `url: ${failure.message}`);
    case "not-html":
      return importError(415, `url: ${failure.message}`);
    default:
      return importError(400, `url: ${failure.message}`);
  }
}

// ---------------------------------------------------------------------------------------------
// HTML → page
// ---------------------------------------------------------------------------------------------

interface ImportedPage {
  /** The id its page gets in the space (shown in an import run's progress as soon as it is read). */
  id: string;
  url: URL;
  /** URL path segments, relative to the root's folder when below it. */
  key: string[];
  title: string;
  /** The page as fetched: the worker reads it again to convert it. */
  html: string;
  /** Hrefs of the content's links and srcs of its images, as written (capped). */
  contentLinks: string[];
  images: string[];
}

/**
 * What identifies a resource of the site: `/guide/index.html` is the page `/guide/` (a site's
 * index under both URLs is one page, and links to either lead to it).
 */
const urlKey = (url: URL) => `${url.origin}${url.pathname.replace(/\/index\.x?html?$/i, "/")}${url.search}`;

function humanize(segment: string) {
  const words = decodeSegment(segment)
    .replace(/\.[a-z0-9]+$/i, "")
    .replace(/[-_]+/g, " ")
    .trim();
  return words ? words[0].toUpperCase() + words.slice(1) : "Page";
}

/** A path segment as text (`%00` decodes to a NUL, which no title, slug or file name keeps). */
function decodeSegment(segment: string) {
  try {
    return stripUnsafeText(decodeURIComponent(segment));
  } catch {
    return segment;
  }
}

/** Path segments of a page URL: `/guide/index.html` and `/guide/` are both ["guide"]. */
function segmentsOf(url: URL): string[] {
  const segments = url.pathname.split("/").filter(Boolean);
  if (segments.length && /^index\.x?html?$/i.test(segments[segments.length - 1])) segments.pop();
  return segments;
}

/** A page the HTML worker could not read: the root is refused with it, another page skipped. */
function pageFailure(url: URL, outcome: Exclude<HtmlOutcome<unknown>, { ok: true }>): FetchFailure {
  return outcome.reason === "timeout"
    ? new FetchFailure("timeout", `${url} timed out: ${outcome.message}`)
    : new FetchFailure("too-large", `${url} cannot be imported: ${outcome.message}`);
}

/** A relative reference from the page at `from` to the page at `to` (space paths). */
function relativePath(from: string, to: string): string {
  const fromDir = from.split("/").slice(0, -1);
  const target = to.split("/");
  let common = 0;
  while (common < fromDir.length && common < target.length - 1 && fromDir[common] === target[common]) common++;
  const up = fromDir.length - common;
  return `${"../".repeat(up)}${target.slice(common).join("/")}` || "./";
}

// ---------------------------------------------------------------------------------------------
// The import
// ---------------------------------------------------------------------------------------------

/**
 * Imports the website at `input.url` into the space as one new revision (needs `edit` on the
 * space). See the top of this file for the rules.
 */
export async function importContent(ctx: CoreContext, spaceId: string, input: ImportInput, hooks: ImportHooks = {}): Promise<ImportResult> {
  const limits = ctx.importLimits;
  const target = { spaceId, changeRequest: input.changeRequest };
  const head = await requireEditableTarget(ctx, target);
  const { url: start } = checkImportInput(input);
  // The parent page is checked before the crawl: a wrong id should not cost a site's download.
  const headBefore = await headRevision(ctx, head);
  if (input.parent != null && !findPage(contentOf(headBefore).pages, input.parent)) throw notFound("page", input.parent);

  const total = AbortSignal.timeout(limits.totalTimeoutMs);
  const html = ctx.htmlReaders(limits, total);
  const progress = ctx.imports.start({
    spaceId,
    changeRequest: input.changeRequest ?? null,
    url: start.toString(),
    startedAt: ctx.clock.now(),
  });
  try {
    return await crawlAndImport(ctx, { input, start, target, limits, total, html, headBefore, progress, hooks });
  } finally {
    ctx.imports.finish(progress);
    html.close();
  }
}

async function crawlAndImport(
  ctx: CoreContext,
  {
    input,
    start,
    target,
    limits,
    total,
    html,
    headBefore,
    progress,
    hooks,
  }: {
    input: ImportInput;
    start: URL;
    target: { spaceId: string; changeRequest?: string | null };
    limits: ImportLimits;
    total: AbortSignal;
    html: HtmlReader;
    headBefore: Revision;
    progress: ImportProgress;
    hooks: ImportHooks;
  },
): Promise<ImportResult> {
  const checkpoint = async () => {
    if (hooks.signal?.aborted) throw new DomainError("REQUEST_TIMEOUT", "The import was stopped before its end: nothing was written");
    await hooks.checkpoint?.(progress);
  };
  let origin = start.origin;
  /** Every same-origin resource found: pages and images (the root included). */
  const discovered = new Set<string>([urlKey(start)]);
  const pages: ImportedPage[] = [];
  const queue: { url: URL; depth: number }[] = [{ url: start, depth: 0 }];
  const imageUrls: URL[] = [];
  let rootSegments: string[] = [];
  const log = ctx.logger.child({ import: start.toString(), spaceId: target.spaceId, changeRequest: target.changeRequest ?? undefined });
  const startedAt = Date.now();
  log.info({ maxPages: limits.maxPages, maxDepth: limits.maxDepth }, "import started");

  while (queue.length) {
    const { url, depth } = queue.shift()!;
    const isRoot = pages.length === 0 && depth === 0;
    if (!isRoot && (pages.length >= limits.maxPages || total.aborted)) continue;
    let fetched: Fetched;
    try {
      fetched = await fetchBounded(url, limits, limits.maxBytes, total, isHtml);
    } catch (error) {
      if (!(error instanceof FetchFailure)) throw error;
      if (isRoot) {
        log.info({ url: url.toString(), reason: error.message }, "import refused: the root page cannot be imported");
        throw rootFailure(error);
      }
      log.info({ url: url.toString(), reason: error.message }, "import: page skipped");
      continue; // a broken secondary resource: counted, skipped
    }
    if (isRoot) {
      origin = fetched.url.origin;
      rootSegments = segmentsOf(fetched.url);
    } else if (fetched.url.origin !== origin) continue; // redirected away from the site
    // The site's text, without what the database cannot store (a NUL anywhere would fail the
    // whole import: its titles, bodies and link texts come from this).
    const text = stripUnsafeText(new TextDecoder().decode(fetched.bytes));
    const read = await html.read(text);
    if (!read.ok) {
      if (isRoot) throw rootFailure(pageFailure(fetched.url, read));
      continue;
    }
    const { links, contentLinks, images } = read.value;
    const title = [...(read.value.title || humanize(segmentsOf(fetched.url).at(-1) ?? fetched.url.hostname))]
      .slice(0, PAGE_TITLE_MAX)
      .join("");
    const segments = segmentsOf(fetched.url);
    const below = rootSegments.every((segment, index) => segments[index] === segment);
    const key = isRoot ? [] : below ? segments.slice(rootSegments.length) : segments;
    // The same page under another URL (the root aside: its key is [] wherever it stands).
    if (!isRoot && key.length && pages.some((page, index) => index > 0 && page.key.join("/") === key.join("/"))) continue;
    const page = { id: newId("Page"), url: fetched.url, key, title, html: text, contentLinks, images };
    pages.push(page);
    progress.pages.push({ id: page.id, sourceURL: page.url.toString(), type: "page", status: "pending" });
    // Progress, page by page: a long import shows it is moving (pages left = queued, bounded).
    log.info(
      { url: fetched.url.toString(), pages: pages.length, queued: queue.length, found: discovered.size, ms: Date.now() - startedAt },
      "import: page fetched",
    );
    Object.assign(progress, { pagesFetched: pages.length, queued: queue.length, found: discovered.size });
    await checkpoint();

    for (const href of links) {
      const target = resolve(href, fetched.url, origin);
      if (!target || discovered.has(urlKey(target))) continue;
      discovered.add(urlKey(target));
      if (depth + 1 <= limits.maxDepth) queue.push({ url: target, depth: depth + 1 });
    }
    for (const src of images) {
      const target = resolve(src, fetched.url, origin);
      if (!target || discovered.has(urlKey(target))) continue;
      discovered.add(urlKey(target));
      imageUrls.push(target);
    }
  }

  Object.assign(progress, { phase: "images", queued: 0, found: discovered.size });
  if (imageUrls.length) log.info({ images: imageUrls.length, ms: Date.now() - startedAt }, "import: fetching images");
  // Images: each a file of the revision, when it answers an image within the bounds.
  const files = new Map<string, FileEntry>();
  const fileBytes: Uint8Array[] = [];
  for (const url of imageUrls) {
    if (files.size >= limits.maxFiles || total.aborted) break;
    try {
      const fetched = await fetchBounded(url, limits, limits.maxFileBytes, total, isImage);
      const name = decodeSegment(url.pathname.split("/").filter(Boolean).at(-1) ?? "image").slice(0, 255) || "image";
      const contentType = essenceOf(fetched.contentType);
      files.set(urlKey(url), {
        id: newId("File"),
        name,
        contentType,
        size: fetched.bytes.byteLength,
        blob: sha256(fetched.bytes),
        ...dimensionsOfImage(contentType, fetched.bytes),
      });
      fileBytes.push(fetched.bytes);
    } catch (error) {
      if (!(error instanceof FetchFailure)) throw error;
    }
    await checkpoint();
  }

  // The tree: one document per page, placed by URL path, with the levels between made up.
  // Top-level slugs already taken in the head, so the paths computed here (and the links
  // rewritten to them) are the ones the tree keeps.
  const under = input.parent != null ? findPage(contentOf(headBefore).pages, input.parent) : undefined;
  const taken = new Set(
    under
      ? under.page.pages.map((p) => p.slug)
      : flatten(contentOf(headBefore).pages)
          .filter((p) => p.path && !p.path.includes("/"))
          .map((p) => p.path),
  );
  interface Node {
    id: string;
    title: string;
    slug: string;
    path: string;
    parent: string | null;
    page?: ImportedPage;
  }
  const nodes = new Map<string, Node>();
  const pageAt = new Map(pages.filter((page) => page.key.length).map((page) => [page.key.join("/"), page]));
  const siblingsSlugs = new Map<string | null, Set<string>>([[null, taken]]);
  const place = (key: string[], title: string, page?: ImportedPage): Node => {
    const parentKey = key.slice(0, -1);
    const parentPage = pageAt.get(parentKey.join("/"));
    const parent =
      key.length > 1
        ? (nodes.get(parentKey.join("/")) ?? place(parentKey, parentPage?.title ?? humanize(parentKey.at(-1)!), parentPage))
        : null;
    const scope = siblingsSlugs.get(parent?.id ?? null) ?? new Set<string>();
    siblingsSlugs.set(parent?.id ?? null, scope);
    const base = key.length ? slugify(decodeSegment(key.at(-1)!).replace(/\.x?html?$/i, "")) : slugify(title);
    let slug = base;
    for (let n = 2; scope.has(slug); n++) slug = `${base}-${n}`;
    scope.add(slug);
    const parentPath = parent ? parent.path : (under?.path ?? "");
    const node: Node = {
      id: page?.id ?? newId("Page"),
      title,
      slug,
      path: parentPath ? `${parentPath}/${slug}` : slug,
      parent: parent?.id ?? under?.page.id ?? null,
      page,
    };
    nodes.set(key.length ? key.join("/") : `\u0000${node.id}`, node);
    return node;
  };
  for (const page of pages) {
    // Placed already as the level above an earlier page.
    if (page.key.length && nodes.has(page.key.join("/"))) continue;
    place(page.key, page.title, page);
  }
  // Parents come first in `nodes` (a made-up level is inserted before the page that needs it).
  const pageNodes = [...nodes.values()];
  const byUrl = new Map(pageNodes.filter((node) => node.page).map((node) => [urlKey(node.page!.url), node]));

  const edits: ContentEdit[] = [...files.values()].map((file) => ({ op: "addFile", file }));
  const markdown: string[] = [];
  for (const node of pageNodes) {
    let body = "";
    if (node.page) {
      const { url } = node.page;
      const hrefs = new Map<string, string>();
      for (const href of node.page.contentLinks) {
        if (href.startsWith("#")) continue;
        const target = resolve(href, url, origin);
        const linked = target && byUrl.get(urlKey(target));
        if (linked) hrefs.set(href, `${relativePath(node.path, linked.path)}${hashOf(href)}`);
        else if (target) hrefs.set(href, target.toString());
      }
      const srcs = new Map<string, string>();
      for (const src of node.page.images) {
        const target = resolve(src, url, origin);
        const file = target && files.get(urlKey(target));
        if (file) srcs.set(src, `files/${file.id}`);
      }
      // A page whose conversion is cut off by its deadline keeps its place and title, no body.
      const converted = await html.convert(node.page.html, hrefs, srcs);
      body = converted.ok ? converted.value.markdown : "";
      if (body) body += "\n";
    }
    markdown.push(body);
    edits.push({
      op: "createPage",
      id: node.id,
      kind: "document",
      fields: { title: node.title, slug: node.slug },
      body,
      position: { parent: node.parent },
    });
  }

  await checkpoint();
  progress.phase = "saving";
  const imported: ImportedPageEntry[] = pageNodes.map((node) => ({
    id: node.id,
    ...(node.page ? { sourceURL: node.page.url.toString() } : {}),
    type: node.page ? "page" : "folder",
    status: "complete",
  }));
  // editContent checks the target again (a locked space, a change request merged meanwhile).
  const revision = await editContent(ctx, {
    target,
    edits,
    blobs: { markdown, files: fileBytes },
    message: [...`Import of ${start}`].slice(0, REVISION_MESSAGE_MAX).join(""),
    beforeCommit: hooks.beforeCommit && ((tx, revision) => hooks.beforeCommit!(tx, revision, imported)),
  });
  log.info(
    { revisionId: revision.id, pages: pageNodes.length, files: files.size, found: discovered.size, ms: Date.now() - startedAt },
    "import finished",
  );
  return { revision, importedResources: pages.length + files.size, totalResources: discovered.size };
}

const hashOf = (href: string) => {
  const index = href.indexOf("#");
  return index >= 0 ? href.slice(index) : "";
};

/** A same-origin http(s) URL from an href, without its fragment; undefined otherwise. */
function resolve(href: string, base: URL, origin: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(href.trim(), base);
  } catch {
    return undefined;
  }
  if (url.origin !== origin || (url.protocol !== "http:" && url.protocol !== "https:")) return undefined;
  url.hash = "";
  return url;
}

function dimensionsOfImage(contentType: string, bytes: Uint8Array): { width: number; height: number } | undefined {
  if (!contentType.startsWith("image/")) return undefined;
  try {
    const { width, height } = imageSize(bytes);
    return width && height ? { width, height } : undefined;
  } catch {
    return undefined;
  }
}
