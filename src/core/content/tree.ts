// The page tree of a revision and the edits that make the next one. Pure functions over plain
// data: a revision stores `PageNode[]` and `FileEntry[]` as JSON; bodies and file bytes are blobs
// named by their SHA-256 (`body`, `blob`).
import { badInput, notFound } from "../errors.ts";

export const PAGE_KINDS = ["document", "group", "link"] as const;
export type PageKind = (typeof PAGE_KINDS)[number];

export interface PageLayout {
  cover?: boolean;
  coverSize?: "hero" | "full";
  title?: boolean;
  description?: boolean;
  tableOfContents?: boolean;
  outline?: boolean;
  pagination?: boolean;
}

export interface PageCover {
  /** Id of a file of the revision. */
  file?: string;
  fileDark?: string;
  yPos?: number;
}

export interface PageNode {
  id: string;
  kind: PageKind;
  title: string;
  emoji?: string;
  icon?: string;
  description?: string;
  slug: string;
  hidden: boolean;
  noIndex: boolean;
  noRobotsIndex: boolean;
  layout?: PageLayout;
  cover?: PageCover;
  variables: Record<string, string>;
  /** SHA-256 of the markdown body (documents only). */
  body?: string;
  /** Target URL (links only). */
  href?: string;
  createdAt: string;
  updatedAt: string;
  pages: PageNode[];
}

export interface FileEntry {
  id: string;
  name: string;
  contentType: string;
  size: number;
  blob: string;
  width?: number;
  height?: number;
}

export interface Content {
  pages: PageNode[];
  files: FileEntry[];
}

/** A page with where it stands: its path in the revision and its parent. */
export interface LocatedPage {
  page: PageNode;
  path: string;
  parentId: string | null;
}

export const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const PAGE_TITLE_MAX = 100;
export const PAGE_DESCRIPTION_MAX = 1000;

export function slugify(title: string): string {
  const slug = title
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 100)
    .replace(/-+$/, "");
  return slug || "page";
}

/** Every page, depth first in tree order, with its path (slugs from the root, joined by "/"). */
export function flatten(pages: PageNode[], parentPath = "", parentId: string | null = null): LocatedPage[] {
  return pages.flatMap((page) => {
    // Groups are sections of the navigation, not path segments.
    const path = page.kind === "group" ? parentPath : parentPath ? `${parentPath}/${page.slug}` : page.slug;
    return [{ page, path, parentId }, ...flatten(page.pages, path, page.id)];
  });
}

export function findPage(pages: PageNode[], id: string): LocatedPage | undefined {
  return flatten(pages).find((located) => located.page.id === id);
}

export function findPageByPath(pages: PageNode[], path: string): LocatedPage | undefined {
  const wanted = path.replace(/^\/+|\/+$/g, "");
  return flatten(pages).find((located) => located.page.kind === "document" && located.path === wanted);
}

/** The tree without page `id`, and the removed page (with its children). */
function detach(pages: PageNode[], id: string): { pages: PageNode[]; removed?: PageNode } {
  let removed: PageNode | undefined;
  const walk = (list: PageNode[]): PageNode[] =>
    list.flatMap((page) => {
      if (page.id === id) {
        removed = page;
        return [];
      }
      return [{ ...page, pages: walk(page.pages) }];
    });
  const result = walk(pages);
  return { pages: result, removed };
}

export interface PagePosition {
  /** Parent page id; null for the top level; undefined keeps the current parent. */
  parent?: string | null;
  before?: string | null;
  after?: string | null;
}

/** Inserts `node` under `parent` (null: the top level), before/after a sibling, else last. */
function attach(pages: PageNode[], node: PageNode, parent: string | null, position: PagePosition): PageNode[] {
  const place = (siblings: PageNode[]): PageNode[] => {
    const reference = position.before ?? position.after;
    if (!reference) return [...siblings, node];
    const index = siblings.findIndex((sibling) => sibling.id === reference);
    const field = position.before ? "position.before" : "position.after";
    if (index < 0) throw badInput(`${field}: page "${reference}" is not a sibling in the target parent`);
    const at = position.before ? index : index + 1;
    return [...siblings.slice(0, at), node, ...siblings.slice(at)];
  };
  if (parent === null) return place(pages);
  let found = false;
  const walk = (list: PageNode[]): PageNode[] =>
    list.map((page) => {
      if (page.id === parent) {
        found = true;
        if (page.kind === "link") throw badInput(`parent: page "${parent}" is a link and cannot hold pages`);
        return { ...page, pages: place(page.pages) };
      }
      return { ...page, pages: walk(page.pages) };
    });
  const result = walk(pages);
  if (!found) throw badInput(`parent: no page "${parent}" in this content`);
  return result;
}

function replacePage(pages: PageNode[], id: string, update: (page: PageNode) => PageNode): PageNode[] {
  return pages.map((page) => (page.id === id ? update(page) : { ...page, pages: replacePage(page.pages, id, update) }));
}

/** Slugs are unique among siblings: "intro", "intro-2", … */
function uniqueSlug(siblings: PageNode[], slug: string, selfId?: string): string {
  const taken = new Set(siblings.filter((page) => page.id !== selfId).map((page) => page.slug));
  if (!taken.has(slug)) return slug;
  for (let n = 2; ; n++) if (!taken.has(`${slug}-${n}`)) return `${slug}-${n}`;
}

function siblingsOf(pages: PageNode[], parent: string | null): PageNode[] {
  if (parent === null) return pages;
  return findPage(pages, parent)?.page.pages ?? [];
}

export interface PageFields {
  title?: string;
  emoji?: string | null;
  icon?: string | null;
  description?: string | null;
  slug?: string;
  hidden?: boolean;
  noIndex?: boolean;
  noRobotsIndex?: boolean;
  layout?: PageLayout | null;
  cover?: PageCover | null;
  variables?: Record<string, string>;
  href?: string | null;
}

function checkFields(fields: PageFields, files: FileEntry[]) {
  if (fields.title !== undefined && (fields.title.trim() === "" || [...fields.title].length > PAGE_TITLE_MAX)) {
    throw badInput(`title must be 1 to ${PAGE_TITLE_MAX} characters`);
  }
  if (fields.slug !== undefined && (!SLUG.test(fields.slug) || fields.slug.length > 100)) {
    throw badInput(`slug must be lowercase letters and digits separated by single hyphens, at most 100 characters (got "${fields.slug}")`);
  }
  if (fields.description != null && [...fields.description].length > PAGE_DESCRIPTION_MAX) {
    throw badInput(`description must be at most ${PAGE_DESCRIPTION_MAX} characters`);
  }
  for (const key of ["file", "fileDark"] as const) {
    const file = fields.cover?.[key];
    if (file && !files.some((entry) => entry.id === file)) throw badInput(`cover.${key}: no file "${file}" in this content`);
  }
}

/** Applies optional fields: undefined leaves a field, null removes an optional one. */
function withFields(page: PageNode, fields: PageFields): PageNode {
  const next: PageNode = { ...page };
  for (const key of ["title", "slug", "hidden", "noIndex", "noRobotsIndex", "variables"] as const) {
    if (fields[key] !== undefined) (next as unknown as Record<string, unknown>)[key] = fields[key];
  }
  for (const key of ["emoji", "icon", "description", "layout", "cover", "href"] as const) {
    if (fields[key] === null) delete next[key];
    else if (fields[key] !== undefined) (next as unknown as Record<string, unknown>)[key] = fields[key];
  }
  return next;
}

/** One edit of a batch; all edits of a batch make one revision. */
export type ContentEdit =
  | { op: "createPage"; id: string; kind: PageKind; fields: PageFields; body?: string; position: PagePosition }
  | { op: "updatePage"; id: string; fields: PageFields; body?: string }
  | { op: "movePage"; id: string; position: PagePosition }
  | { op: "deletePage"; id: string }
  | { op: "addFile"; file: FileEntry }
  | { op: "deleteFile"; id: string };

/**
 * The content after `edits`, given the hash of each new body (`bodyHash`). `now` stamps created
 * and updated pages. Refuses (400/404) an edit that does not fit the content it applies to.
 */
export function applyEdits(content: Content, edits: ContentEdit[], bodyHash: (markdown: string) => string, now: string): Content {
  let { pages, files } = content;
  for (const edit of edits) {
    switch (edit.op) {
      case "createPage": {
        checkFields(edit.fields, files);
        if (!edit.fields.title) throw badInput("title is required to create a page");
        if (edit.kind === "link" && !edit.fields.href) throw badInput("href is required to create a link page");
        const parent = edit.position.parent ?? null;
        const node = withFields(
          {
            id: edit.id,
            kind: edit.kind,
            title: edit.fields.title,
            slug: "",
            hidden: false,
            noIndex: false,
            noRobotsIndex: false,
            variables: {},
            createdAt: now,
            updatedAt: now,
            pages: [],
            ...(edit.kind === "document" ? { body: bodyHash(edit.body ?? "") } : {}),
          },
          edit.fields,
        );
        node.slug = uniqueSlug(siblingsOf(pages, parent), edit.fields.slug ?? slugify(node.title));
        pages = attach(pages, node, parent, edit.position);
        break;
      }
      case "updatePage": {
        const located = findPage(pages, edit.id);
        if (!located) throw notFound("page", edit.id);
        checkFields(edit.fields, files);
        if (edit.body !== undefined && located.page.kind !== "document") throw badInput(`page "${edit.id}" is a ${located.page.kind}: only documents have markdown`);
        const siblings = siblingsOf(pages, located.parentId);
        pages = replacePage(pages, edit.id, (page) => {
          const next = withFields(page, edit.fields);
          if (edit.fields.slug !== undefined) next.slug = uniqueSlug(siblings, edit.fields.slug, page.id);
          if (edit.body !== undefined) next.body = bodyHash(edit.body);
          next.updatedAt = now;
          return next;
        });
        break;
      }
      case "movePage": {
        const located = findPage(pages, edit.id);
        if (!located) throw notFound("page", edit.id);
        const parent = edit.position.parent === undefined ? located.parentId : edit.position.parent;
        if (parent !== null && (parent === edit.id || findPage(located.page.pages, parent))) {
          throw badInput("parent: a page cannot be moved under itself or one of its descendants");
        }
        const { pages: without, removed } = detach(pages, edit.id);
        const moved = { ...removed!, slug: uniqueSlug(siblingsOf(without, parent), removed!.slug, edit.id), updatedAt: now };
        pages = attach(without, moved, parent, edit.position);
        break;
      }
      case "deletePage": {
        const { pages: without, removed } = detach(pages, edit.id);
        if (!removed) throw notFound("page", edit.id);
        pages = without;
        break;
      }
      case "addFile":
        files = [...files, edit.file];
        break;
      case "deleteFile": {
        if (!files.some((file) => file.id === edit.id)) throw notFound("file", edit.id);
        files = files.filter((file) => file.id !== edit.id);
        break;
      }
    }
  }
  return { pages, files };
}
