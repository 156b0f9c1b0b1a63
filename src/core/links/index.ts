// Links and backlinks of a revision, derived on read from its page bodies (markdown links, images
// and reference-style links). Nothing is stored: a revision is immutable, so its links are a pure
// function of it, and they follow the head because reading the head is reading its links. One
// request computes a revision's links once (memoized per request) from all its bodies, loaded in
// one batched statement through the blob loader; the spaces linked to load in one more.
//
// What a link URL means, from a page at path `guide/setup`:
//   `#anchor`                           → anchor on the same page (broken when no heading has it)
//   `install`, `../guide/install`, `/guide/install` (optional `.md`, `#anchor`)
//                                       → page (or anchor of that page) by path; broken when no
//                                         document page of the revision has that path
//   `files/<fileId>`                    → file of the revision (broken when missing), unless a
//                                         page exists at that path
//   `space://<spaceId>`, `<PUBLIC_URL>/app/s/<spaceId>[/…]`
//                                       → space (ok when a live space of the same organization)
//   any other `<PUBLIC_URL>/…`          → url, status in-app
//   anything else with a scheme         → url, status ok (never fetched)
import { fromMarkdown } from "mdast-util-from-markdown";
import { toString } from "mdast-util-to-string";
import type { Nodes } from "mdast";
import type { Revision } from "../../generated/prisma/client.ts";
import type { CoreContext } from "../context.ts";
import { badInput, quote } from "../errors.ts";
import { pageInMemory, type Page, type PageArgs } from "../pagination.ts";
import { contentOf, fileOf, markdownOf, pageOf } from "../content/index.ts";
import { flatten, slugify } from "../content/tree.ts";
import { ScopeSlot } from "../request-scope.ts";

export const LINK_STATUSES = ["ok", "broken", "in-app"] as const;
export type LinkStatus = (typeof LINK_STATUSES)[number];

/** A relative reference (the published `ContentRef`); a broken page's `page` is the path it names. */
export type ContentRef =
  | { kind: "page"; page: string }
  | { kind: "anchor"; anchor: string; page?: string }
  | { kind: "file"; file: string }
  | { kind: "space"; space: string }
  | { kind: "url"; url: string };

export type LinkRelation = "link" | "image";

export interface RevisionLink {
  /** Stable key of the link within the revision (relation + target), the list cursor. */
  key: string;
  status: LinkStatus;
  relation: LinkRelation;
  target: ContentRef;
  /** Ids of the pages the link appears on, in tree order. */
  locations: string[];
}

export interface LinkStats {
  total: number;
  broken: { total: number; changeRequest: number };
}

export interface LinkPage extends Page<RevisionLink> {
  stats: LinkStats;
}

interface RawLink {
  pageId: string;
  relation: LinkRelation;
  url: string;
}

/** Every link and image URL of a markdown body, with reference-style links resolved. */
export function linksOfMarkdown(markdown: string): { links: { relation: LinkRelation; url: string }[]; anchors: Set<string> } {
  const root = fromMarkdown(markdown);
  const definitions = new Map<string, string>();
  const anchors = new Set<string>();
  const found: { relation: LinkRelation; url?: string; identifier?: string }[] = [];
  const walk = (node: Nodes) => {
    switch (node.type) {
      case "definition":
        if (!definitions.has(node.identifier)) definitions.set(node.identifier, node.url);
        break;
      case "link":
        found.push({ relation: "link", url: node.url });
        break;
      case "image":
        found.push({ relation: "image", url: node.url });
        break;
      case "linkReference":
        found.push({ relation: "link", identifier: node.identifier });
        break;
      case "imageReference":
        found.push({ relation: "image", identifier: node.identifier });
        break;
      case "heading":
        anchors.add(slugify(toString(node)));
        break;
    }
    if ("children" in node) for (const child of node.children) walk(child as Nodes);
  };
  walk(root);
  const links = found.flatMap(({ relation, url, identifier }) => {
    const target = url ?? (identifier !== undefined ? definitions.get(identifier) : undefined);
    return target && target.trim() ? [{ relation, url: target.trim() }] : [];
  });
  return { links, anchors };
}

/** `base` (a page path) joined with a relative `target` path, web style; null when it climbs above the root. */
function resolvePath(basePath: string, target: string): string | null {
  const segments = target.startsWith("/") ? [] : basePath.split("/").filter(Boolean).slice(0, -1);
  for (const segment of target.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      if (!segments.length) return null;
      segments.pop();
    } else segments.push(segment);
  }
  return segments.join("/");
}

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

export interface Resolver {
  pagesByPath: Map<string, string>;
  pagePaths: Map<string, string>;
  anchorsOf: Map<string, Set<string>>;
  fileIds: Set<string>;
  publicUrl: string;
}

interface Resolved {
  status: LinkStatus | "space";
  target: ContentRef;
}

function safeDecode(text: string) {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

export function resolveUrl(r: Resolver, fromPageId: string, url: string): Resolved {
  const spaceUrl = url.match(/^space:\/\/([^/?#]+)/i);
  if (spaceUrl) return { status: "space", target: { kind: "space", space: spaceUrl[1] } };
  if (url.startsWith(r.publicUrl + "/") || url === r.publicUrl) {
    const appSpace = url.slice(r.publicUrl.length).match(/^\/app\/s\/([^/?#]+)/);
    if (appSpace) return { status: "space", target: { kind: "space", space: appSpace[1] } };
    return { status: "in-app", target: { kind: "url", url } };
  }
  if (SCHEME.test(url) || url.startsWith("//")) return { status: "ok", target: { kind: "url", url } };

  const hash = url.indexOf("#");
  const pathPart = safeDecode((hash >= 0 ? url.slice(0, hash) : url).replace(/\?.*$/, ""));
  const anchor = hash >= 0 ? safeDecode(url.slice(hash + 1)) : "";
  let pageId: string | undefined = fromPageId;
  let path = r.pagePaths.get(fromPageId) ?? "";
  if (pathPart) {
    const resolved = resolvePath(path, pathPart.replace(/(?:\/README)?\.md$/i, "").replace(/\/+$/, ""));
    pageId = resolved !== null ? r.pagesByPath.get(resolved) : undefined;
    path = resolved ?? pathPart;
    if (!pageId && !anchor) {
      const file = pathPart.match(/^\/?files\/([^/]+)$/);
      if (file) return { status: r.fileIds.has(file[1]) ? "ok" : "broken", target: { kind: "file", file: file[1] } };
      return { status: "broken", target: { kind: "page", page: path } };
    }
  }
  if (anchor) {
    const ok = pageId !== undefined && (r.anchorsOf.get(pageId)?.has(anchor) ?? false);
    return { status: ok ? "ok" : "broken", target: { kind: "anchor", anchor, page: pageId ?? path } };
  }
  return { status: "ok", target: { kind: "page", page: pageId! } };
}

const refKey = (relation: LinkRelation, target: ContentRef) => JSON.stringify([relation, ...Object.entries(target).sort()]);

async function computeLinks(ctx: CoreContext, revision: Revision): Promise<RevisionLink[]> {
  const located = flatten(contentOf(revision).pages);
  const documents = located.filter(({ page }) => page.kind === "document");
  // One batched statement for every body of the revision.
  const bodies = await Promise.all(documents.map(({ page }) => markdownOf(ctx, page)));
  const resolver: Resolver = {
    pagesByPath: new Map(documents.map(({ page, path }) => [path, page.id])),
    pagePaths: new Map(located.map(({ page, path }) => [page.id, path])),
    anchorsOf: new Map(),
    fileIds: new Set(contentOf(revision).files.map((file) => file.id)),
    publicUrl: ctx.urls.publicUrl,
  };
  const raw: RawLink[] = [];
  documents.forEach(({ page }, index) => {
    const { links, anchors } = linksOfMarkdown(bodies[index] ?? "");
    resolver.anchorsOf.set(page.id, anchors);
    for (const link of links) raw.push({ pageId: page.id, ...link });
  });

  const byKey = new Map<string, RevisionLink & { spaceCheck: boolean }>();
  for (const { pageId, relation, url } of raw) {
    const { status, target } = resolveUrl(resolver, pageId, url);
    const key = refKey(relation, target);
    const existing = byKey.get(key);
    if (existing) {
      if (!existing.locations.includes(pageId)) existing.locations.push(pageId);
    } else {
      byKey.set(key, {
        key,
        relation,
        target,
        status: status === "space" ? "ok" : status,
        spaceCheck: status === "space",
        locations: [pageId],
      });
    }
  }
  const links = [...byKey.values()];
  // Spaces linked to: one batched statement; ok only for a live space of the same organization.
  const own = await ctx.loaders.space.load(revision.spaceId);
  const spaceLinks = links.filter((link) => link.spaceCheck);
  const spaces = await Promise.all(spaceLinks.map((link) => ctx.loaders.space.load((link.target as { space: string }).space)));
  spaceLinks.forEach((link, index) => {
    const space = spaces[index];
    link.status = space && !space.deletedAt && space.organizationId === own?.organizationId ? "ok" : "broken";
  });
  return links.map(({ spaceCheck: _, ...link }) => link);
}

const REVISION_LINKS = new ScopeSlot("links of each revision, by revision id", () => new Map<string, Promise<RevisionLink[]>>());

/** Every link of a revision, in order of first appearance (tree order, then body order). */
export function linksOfRevision(ctx: CoreContext, revision: Revision): Promise<RevisionLink[]> {
  const cache = ctx.scope.get(REVISION_LINKS);
  let links = cache.get(revision.id);
  if (!links) cache.set(revision.id, (links = computeLinks(ctx, revision)));
  return links;
}

export function parseLinkStatus(status: string | null | undefined): LinkStatus | null {
  if (status == null) return null;
  if (!(LINK_STATUSES as readonly string[]).includes(status))
    throw badInput(`status must be one of ${LINK_STATUSES.join(", ")} (got ${quote(status)})`);
  return status as LinkStatus;
}

/**
 * Links of a revision (or of one page of it: those appearing on it), filtered by `status`, one
 * page of them, with `stats` over the unfiltered list.
 */
export async function listLinks(
  ctx: CoreContext,
  revision: Revision,
  options: { pageId?: string; status?: string | null } & PageArgs,
): Promise<LinkPage> {
  const status = parseLinkStatus(options.status);
  if (options.pageId !== undefined) pageOf(revision, options.pageId);
  let links = await linksOfRevision(ctx, revision);
  if (options.pageId !== undefined) {
    const pageId = options.pageId;
    links = links.filter((link) => link.locations.includes(pageId)).map((link) => ({ ...link, locations: [pageId] }));
  }
  const broken = links.filter((link) => link.status === "broken").length;
  const stats = { total: links.length, broken: { total: broken, changeRequest: 0 } };
  const filtered = status ? links.filter((link) => link.status === status) : links;
  return { ...pageInMemory(filtered, options, (link) => link.key), stats };
}

/** Ids of the pages (tree order) that link to `target`, never the page itself. */
async function backlinkPages(ctx: CoreContext, revision: Revision, matches: (target: ContentRef) => boolean, self?: string) {
  const links = await linksOfRevision(ctx, revision);
  const pages = new Set(links.filter((link) => matches(link.target)).flatMap((link) => link.locations));
  if (self) pages.delete(self);
  return flatten(contentOf(revision).pages)
    .map(({ page }) => page.id)
    .filter((id) => pages.has(id));
}

/** Pages of the revision linking to (or showing) file `fileId`; 404 when the file is not in it. */
export async function fileBacklinks(ctx: CoreContext, revision: Revision, fileId: string, args: PageArgs): Promise<Page<string>> {
  fileOf(revision, fileId);
  const ids = await backlinkPages(ctx, revision, (t) => t.kind === "file" && t.file === fileId);
  return pageInMemory(ids, args, (id) => id);
}

/** Other pages of the revision linking to page `pageId` (or an anchor of it); 404 when missing. */
export async function pageBacklinks(ctx: CoreContext, revision: Revision, pageId: string, args: PageArgs): Promise<Page<string>> {
  pageOf(revision, pageId);
  const ids = await backlinkPages(ctx, revision, (t) => (t.kind === "page" || t.kind === "anchor") && t.page === pageId, pageId);
  return pageInMemory(ids, args, (id) => id);
}
