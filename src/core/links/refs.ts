// How content references are written in a page's markdown output (the published
// `format.markdown.refs`): `relative`, links to pages as relative links from the page, or
// `stable`, references that name what they point at by id and survive moves and renames.
//
// Only the destinations of links, images and link definitions change; the rest of the body is
// the stored markdown byte for byte. A destination is rewritten only when it names something of
// the revision (a page, an anchor of another page, a file, a space); URLs, anchors of the same
// page and broken references stay as written.
//   relative: `/guide/install` (root-absolute) → `install` from `guide/setup`; relative links,
//             `files/<id>` and `space://<id>` are already what they are and stay.
//   stable:   page → `page://<pageId>`, anchor of another page → `page://<pageId>#anchor`,
//             file → `file://<fileId>`, space (also its app URL) → `space://<spaceId>`.
import { fromMarkdown } from "mdast-util-from-markdown";
import type { Nodes } from "mdast";
import type { Revision } from "../../generated/prisma/client.ts";
import { contentOf } from "../content/index.ts";
import { flatten } from "../content/tree.ts";
import { resolveUrl, type Resolver } from "./index.ts";

export const MARKDOWN_REFS = ["relative", "stable"] as const;
export type MarkdownRefs = (typeof MARKDOWN_REFS)[number];

const resolvers = new WeakMap<Revision, Omit<Resolver, "publicUrl">>();

/** The revision's pages and files as links resolve them, built once per (immutable, cached) revision. */
function resolverOf(revision: Revision, publicUrl: string): Resolver {
  let base = resolvers.get(revision);
  if (!base) {
    const located = flatten(contentOf(revision).pages);
    base = {
      pagesByPath: new Map(located.filter(({ page }) => page.kind === "document").map(({ page, path }) => [path, page.id])),
      pagePaths: new Map(located.map(({ page, path }) => [page.id, path])),
      anchorsOf: new Map(),
      fileIds: new Set(contentOf(revision).files.map((file) => file.id)),
    };
    resolvers.set(revision, base);
  }
  return { ...base, publicUrl };
}

/** `to` (a page path) as a link from the page at `from`, web style (the base is `from`'s folder). */
export function relativePath(from: string, to: string): string {
  const folder = from.split("/").filter(Boolean).slice(0, -1);
  const target = to.split("/").filter(Boolean);
  let common = 0;
  while (common < folder.length && common < target.length - 1 && folder[common] === target[common]) common++;
  return [...folder.slice(common).map(() => ".."), ...target.slice(common)].join("/");
}

/** Where the destination of a link, image or definition starts in `source` after `from`, and ends. */
function destinationAt(source: string, from: number): [number, number] | null {
  let i = from;
  while (i < source.length && /[ \t\n]/.test(source[i])) i++;
  if (source[i] === "<") {
    const end = source.indexOf(">", i);
    return end < 0 ? null : [i, end + 1];
  }
  const start = i;
  let depth = 0;
  for (; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") i++;
    else if (/\s/.test(c)) break;
    else if (c === "(") depth++;
    else if (c === ")") {
      if (depth === 0) break;
      depth--;
    }
  }
  return i > start ? [start, i] : null;
}

/** Offsets of each link, image and definition destination in the body, with its URL. */
function destinations(markdown: string): { start: number; end: number; url: string }[] {
  const found: { start: number; end: number; url: string }[] = [];
  const walk = (node: Nodes) => {
    const start = node.position?.start.offset;
    if (start !== undefined && (node.type === "link" || node.type === "image" || node.type === "definition")) {
      let after = -1;
      if (node.type === "definition") {
        const close = markdown.indexOf("]:", start);
        after = close < 0 ? -1 : close + 2;
      } else {
        const last = node.type === "link" ? node.children.at(-1)?.position?.end.offset : undefined;
        const close = last !== undefined ? last : markdown.indexOf("](", start + (node.type === "image" ? 2 : 1));
        after = markdown.startsWith("](", close) ? close + 2 : -1;
      }
      const range = after >= 0 ? destinationAt(markdown, after) : null;
      if (range) {
        const raw = markdown.slice(range[0], range[1]);
        // Only destinations read exactly as written (no escapes or entities to re-encode).
        if ((raw.startsWith("<") ? raw.slice(1, -1) : raw) === node.url) found.push({ start: range[0], end: range[1], url: node.url });
      }
    }
    if ("children" in node) for (const child of node.children) walk(child as Nodes);
  };
  walk(fromMarkdown(markdown));
  return found;
}

/** The new destination of `url` on page `pageId` in `refs` style, or undefined to keep it. */
function rewritten(resolver: Resolver, pageId: string, url: string, refs: MarkdownRefs): string | undefined {
  if (url.startsWith("#")) return undefined;
  const { status, target } = resolveUrl(resolver, pageId, url);
  // Anchors are not checked here (the resolver knows no headings): the page they name must exist.
  if (target.kind === "anchor" ? !(target.page && resolver.pagePaths.has(target.page)) : status === "broken") return undefined;
  const hash = url.indexOf("#");
  const anchor = hash >= 0 ? url.slice(hash) : "";
  if (refs === "relative") {
    if (!url.startsWith("/") || url.startsWith("//")) return undefined;
    const page = target.kind === "page" ? target.page : target.kind === "anchor" ? target.page : undefined;
    const path = page !== undefined ? resolver.pagePaths.get(page) : undefined;
    if (path === undefined) return undefined;
    return relativePath(resolver.pagePaths.get(pageId) ?? "", path) + anchor;
  }
  switch (target.kind) {
    case "page":
      return `page://${target.page}`;
    case "anchor":
      return `page://${target.page}${anchor}`;
    case "file":
      return `file://${target.file}`;
    case "space":
      return `space://${target.space}`;
    default:
      return undefined;
  }
}

/** The markdown of page `pageId` of `revision` with its references written in `refs` style. */
export function formatMarkdownRefs(markdown: string, revision: Revision, pageId: string, refs: MarkdownRefs, publicUrl: string): string {
  const resolver = resolverOf(revision, publicUrl);
  return rewriteDestinations(markdown, (url) => rewritten(resolver, pageId, url, refs));
}

/** `markdown` with the destinations of its links, images and definitions that `rewrite` changes (undefined: kept); the rest byte for byte. */
export function rewriteDestinations(markdown: string, rewrite: (url: string) => string | undefined): string {
  let out = markdown;
  const all = destinations(markdown);
  for (let i = all.length - 1; i >= 0; i--) {
    const { start, end, url } = all[i];
    const next = rewrite(url.trim());
    if (next !== undefined && next !== url) out = out.slice(0, start) + next + out.slice(end);
  }
  return out;
}
